// rocksdb_saver on a damaged folder: every file of a finished thread's database, each flipped
// at several places (among them the header of the write-ahead log's last record), cut to half
// and deleted, read as the `state` and `history` commands read it (read-only) and as a writer
// opening it to continue the thread reads it. Each case must give exactly the undamaged answer
// or an error, never another answer, a crash or a hang (each runs in a child process with a
// time limit). `check_rocksdb_database` must find every damage that makes reading fail, and
// `repair_rocksdb_database` must leave a database that checks and reads, keeping every
// checkpoint that read before as it read, or refuse and leave the folder as it was.
#include <rocksdb/db.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include "saver_test_support.hpp"
#include "superstep/storage/rocksdb_check.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::rocksdb_saver;

namespace {

namespace fs = std::filesystem;

constexpr const char* thread = "finished";

// What a reader of `dir` gets (below), then, for a reader, what `superstep check` says, and for
// a writer that got an error, whether `superstep repair` leaves a database that checks and
// reads.

// Everything a reader gets from the saver: every checkpoint of every thread with its values,
// metadata, parent and pending writes, and the thread's latest.
std::string answer(rocksdb_saver& saver) {
  list out;
  for (auto& t : saver.list({"", "", ""}, {}))
    out.push_back(object{{"thread", t.config.thread_id},
                         {"ns", t.config.checkpoint_ns},
                         {"checkpoint", checkpoint_value(t.checkpoint)},
                         {"metadata", metadata_to_value(t.metadata)},
                         {"parent", t.parent_config ? t.parent_config->checkpoint_id : ""},
                         {"writes", writes_value(t.pending_writes)}});
  auto latest = saver.get_tuple({thread, "", ""});
  out.push_back(latest ? value(latest->checkpoint.id) : value());
  return value(std::move(out)).to_json();
}

// Three steps written and closed, their memtables flushed to tables (and a large value to a
// blob file) by opening the database directly, then three more steps left in the write-ahead
// log, closed cleanly: the files of a finished thread.
void build_finished_thread(const std::string& dir) {
  checkpoint_builder b;
  checkpoint_config last;
  list log;
  const std::string big(100 << 10, 'b');  // stored once, at its version 1
  const auto step = [&](rocksdb_saver& saver, int i) {
    log.push_back(i);
    std::map<std::string, value> values{{"n", i}, {"log", value(log)}};
    std::map<std::string, channel_version> versions{{"n", i + 1}, {"log", i + 1}};
    std::map<std::string, channel_version> changed = versions;
    if (i >= 1) values.emplace("big", big), versions.emplace("big", 1);
    if (i == 1) changed.emplace("big", 1);
    last = saver.put({thread, "", last.checkpoint_id}, b.make(values, versions),
                     loop_metadata(i - 1), changed);
    saver.put_writes(last, {{"n", i + 1}}, "task-" + std::to_string(i), "p");
  };
  storage::rocksdb_saver_options options;
  options.sync = false;
  {
    auto saver = rocksdb_saver::open(dir, options);
    for (int i = 0; i < 3; ++i) step(*saver, i);
  }
  {
    // Not ours: the mark of the clean close no longer describes the files after this.
    fs::remove(fs::path(dir) / "CLEAN-CLOSE");
    rocksdb::DBOptions db_options;
    std::vector<std::string> names;
    BOOST_REQUIRE(rocksdb::DB::ListColumnFamilies(db_options, dir, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names) {
      rocksdb::ColumnFamilyOptions cf;
      cf.enable_blob_files = name == "blobs" || name == "writes";
      cf.min_blob_size = 64 << 10;
      families.emplace_back(name, cf);
    }
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    BOOST_REQUIRE(rocksdb::DB::Open(db_options, dir, families, &handles, &db).ok());
    BOOST_REQUIRE(db->Flush(rocksdb::FlushOptions(), handles).ok());
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    BOOST_REQUIRE(db->Close().ok());
    delete db;
  }
  {
    auto saver = rocksdb_saver::open(dir, options);
    for (int i = 3; i < 6; ++i) step(*saver, i);
  }
}

// Where the write-ahead log's records start (RocksDB's log format: 32 KiB blocks of records
// with a 7-byte header: checksum, length, type).
std::vector<std::uintmax_t> log_record_offsets(const std::string& bytes) {
  constexpr std::size_t block = 32768, header = 7;
  std::vector<std::uintmax_t> out;
  std::size_t pos = 0;
  while (pos + header <= bytes.size()) {
    if (block - pos % block < header) {
      pos += block - pos % block;
      continue;
    }
    out.push_back(pos);
    const std::size_t length = static_cast<unsigned char>(bytes[pos + 4]) |
                               static_cast<std::size_t>(static_cast<unsigned char>(bytes[pos + 5]))
                                   << 8;
    pos += header + length;
  }
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// The files of `dir` with a hash of each: what a refused repair must leave as it was.
std::string listing(const std::string& dir) {
  std::string out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != "LOCK") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    out += f.string() + " " + std::to_string(std::hash<std::string>()(read_all(f))) + "\n";
  return out;
}

struct damage {
  std::string file;
  std::string what;  // "flip@N", "half", "delete"
};

std::vector<damage> damages_of(const fs::path& dir) {
  std::vector<damage> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const std::string bytes = read_all(entry.path());
    std::vector<std::uintmax_t> flips;
    if (!bytes.empty())
      for (std::uintmax_t at : {std::uintmax_t(0), bytes.size() / 2, bytes.size() - 1})
        flips.push_back(at);
    if (entry.path().extension() == ".log" || name.rfind("MANIFEST-", 0) == 0) {
      // More places in the logs, among them the last record's length and type: damage there
      // looks most like a record a crash cut short.
      for (std::uintmax_t at : {bytes.size() / 3, bytes.size() * 2 / 3}) flips.push_back(at);
      auto records = log_record_offsets(bytes);
      if (!records.empty())
        for (int i : {4, 5, 6}) flips.push_back(records.back() + i);
    }
    std::sort(flips.begin(), flips.end());
    flips.erase(std::unique(flips.begin(), flips.end()), flips.end());
    for (auto at : flips) out.push_back({name, "flip@" + std::to_string(at)});
    if (bytes.size() > 1) out.push_back({name, "half"});
    out.push_back({name, "delete"});
  }
  std::sort(out.begin(), out.end(),
            [](auto& a, auto& b) { return std::tie(a.file, a.what) < std::tie(b.file, b.what); });
  return out;
}

void apply(const fs::path& dir, const damage& d) {
  const fs::path file = dir / d.file;
  if (d.what == "delete") {
    fs::remove(file);
    return;
  }
  std::string bytes = read_all(file);
  if (d.what == "half") {
    bytes.resize(bytes.size() / 2);
  } else {
    const std::size_t at = std::stoul(d.what.substr(5));
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
  }
  write_all(file, bytes);
}

// What a reader of `dir` gets, in a child process killed after `seconds`: "answer: ..." or
// "error: ...", or "crashed"/"hung".
std::string read_in_child(const std::string& dir, bool read_only, unsigned seconds = 20) {
  int out[2];
  BOOST_REQUIRE(::pipe(out) == 0);
  const pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    ::close(out[0]);
    ::alarm(seconds);
    std::string result;
    try {
      storage::rocksdb_saver_options options;
      options.read_only = read_only;
      options.sync = false;
      auto saver = rocksdb_saver::open(dir, options);
      result = "answer: " + answer(*saver);
    } catch (const error& e) {
      result = std::string("error: ") + e.what();
    } catch (const std::exception& e) {
      result = std::string("exception: ") + e.what();
    }
    if (read_only)
      result += storage::check_rocksdb_database(dir).ok() ? "\ncheck: ok" : "\ncheck: damaged";
    if (!read_only && result.rfind("error: ", 0) == 0) {
      const std::string files_before = listing(dir);
      try {
        storage::repair_options from_tables;
        from_tables.from_tables = true;
        const auto repaired = storage::repair_rocksdb_database(dir, nullptr, from_tables);
        if (!repaired.backup.empty()) fs::remove_all(repaired.backup);
        auto saver = rocksdb_saver::open(dir);
        (void)answer(*saver);
        result += repaired.after.ok() ? "\nrepair: ok" : "\nrepair: not ok";
      } catch (const std::exception& e) {
        const std::string what = e.what();
        // A refusal changes nothing.
        result += what.find("not repairing") != std::string::npos && listing(dir) == files_before
                      ? "\nrepair: refused: " + what
                      : "\nrepair: failed: " + what;
      }
    }
    for (std::size_t done = 0; done < result.size();) {
      const ssize_t n = ::write(out[1], result.data() + done, result.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(out[1]);
  std::string result;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
    result.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFSIGNALED(status))
    return WTERMSIG(status) == SIGALRM ? "hung"
                                       : "crashed: signal " + std::to_string(WTERMSIG(status));
  return result;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_damage_of_a_finished_thread_gives_its_answer_or_an_error) {
#if defined(__SANITIZE_THREAD__)
  return;  // ThreadSanitizer cannot run forked children that start threads (RocksDB's)
#endif
  test::temp_dir original("superstep-damage");
  build_finished_thread(original.str());
  const std::string undamaged_output = read_in_child(original.str(), true);
  const std::string undamaged = undamaged_output.substr(0, undamaged_output.find("\ncheck: "));
  BOOST_TEST(undamaged_output.find("\ncheck: ok") != std::string::npos, undamaged_output);
  BOOST_REQUIRE_MESSAGE(undamaged.rfind("answer: ", 0) == 0, undamaged);
  {
    test::temp_dir copy("superstep-undamaged");  // a writer's open changes the files
    fs::copy(original.path, copy.path, fs::copy_options::recursive);
    const std::string writer = read_in_child(copy.str(), false);
    BOOST_REQUIRE(writer.substr(0, writer.find("\ncheck: ")) == undamaged);
  }

  std::map<std::string, int> counts;
  const auto cases = damages_of(original.path);
  BOOST_TEST_MESSAGE(cases.size() << " damages");
  for (const auto& d : cases) {
    for (bool read_only : {true, false}) {
      test::temp_dir copy("superstep-damaged");
      fs::copy(original.path, copy.path, fs::copy_options::recursive);
      apply(copy.path, d);
      const std::string output = read_in_child(copy.str(), read_only);
      const std::string got = output.substr(0, output.find("\ncheck: "));
      const std::string label = d.file + " " + d.what + (read_only ? " (read-only)" : " (writer)");
      if (got == undamaged) {
        ++counts["unaffected"];
      } else if (got.rfind("error: ", 0) == 0) {
        ++counts["error"];
        BOOST_TEST_MESSAGE(label << ": " << output);
        if (read_only)
          BOOST_TEST(output.find("\ncheck: damaged") != std::string::npos,
                     label << ": check finds nothing wrong: " << output);
        else
          BOOST_TEST((output.find("\nrepair: ok") != std::string::npos ||
                      output.find("\nrepair: refused: ") != std::string::npos),
                     label << ": repair neither leaves a sound database nor refuses: " << output);
      } else {
        ++counts["wrong"];
        BOOST_ERROR(label << ": neither the answer nor an error: " << got.substr(0, 300));
      }
    }
  }
  BOOST_TEST_MESSAGE("unaffected " << counts["unaffected"] << ", errors " << counts["error"]
                                   << ", wrong " << counts["wrong"]);
  BOOST_TEST(counts["wrong"] == 0);
  BOOST_TEST(counts["error"] > 0);
}

BOOST_AUTO_TEST_CASE(
    check_names_an_unreadable_checkpoint_and_repair_drops_only_what_does_not_read) {
  test::temp_dir dir("superstep-damaged-record");
  build_finished_thread(dir.str());
  std::vector<std::string> ids;  // newest first
  {
    auto saver = rocksdb_saver::open(dir.str());
    ids = ids_of(saver->list({thread, "", ""}, {}));
  }
  BOOST_REQUIRE_EQUAL(ids.size(), 6u);
  {
    // The record of the fourth checkpoint becomes bytes that do not decode.
    rocksdb::DBOptions options;
    std::vector<std::string> names;
    BOOST_REQUIRE(rocksdb::DB::ListColumnFamilies(options, dir.str(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    BOOST_REQUIRE(rocksdb::DB::Open(options, dir.str(), families, &handles, &db).ok());
    const auto at = std::find(names.begin(), names.end(), "checkpoints") - names.begin();
    std::string key = std::string(thread) + std::string("\0\1\0\1", 4) + ids[2];
    std::string old;
    BOOST_REQUIRE(db->Get({}, handles[at], key, &old).ok());
    BOOST_REQUIRE(db->Put({}, handles[at], key, "not a checkpoint").ok());
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    BOOST_REQUIRE(db->Close().ok());
    delete db;
  }
  const auto checked = storage::check_rocksdb_database(dir.str());
  BOOST_TEST(!checked.ok());
  BOOST_TEST(checked.checkpoints == 6u);
  BOOST_REQUIRE(!checked.problems.empty());
  BOOST_TEST(checked.problems.front().find(ids[2]) != std::string::npos, checked.problems.front());

  // What each checkpoint reads as before (those that read: its children do, though their
  // parent does not).
  std::map<std::string, std::string> before;
  {
    storage::rocksdb_saver_options read_only;
    read_only.read_only = true;
    auto saver = rocksdb_saver::open(dir.str(), read_only);
    for (const auto& id : ids) try {
        if (auto t = saver->get_tuple({thread, "", id}))
          before[id] =
              checkpoint_value(t->checkpoint).to_json() + writes_value(t->pending_writes).to_json();
      } catch (const error&) {
      }
  }
  BOOST_TEST(!before.count(ids[2]));
  BOOST_TEST(before.count(ids[1]));

  const auto repaired = storage::repair_rocksdb_database(dir.str());
  BOOST_TEST(repaired.after.ok());
  BOOST_REQUIRE(!repaired.backup.empty());
  fs::remove_all(repaired.backup);
  BOOST_TEST(repaired.after.checkpoints == before.size());
  for (const auto& l : repaired.lost) BOOST_TEST_MESSAGE(l);
  // Each checkpoint that did not read is dropped and named; nothing else is.
  for (const auto& id : ids) {
    const bool named = std::any_of(repaired.lost.begin(), repaired.lost.end(),
                                   [&](const std::string& l) { return l.find(id) != l.npos; });
    BOOST_TEST(named == !before.count(id), id);
  }
  auto saver = rocksdb_saver::open(dir.str());
  for (const auto& [id, was] : before) {
    auto t = saver->get_tuple({thread, "", id});
    BOOST_REQUIRE(t);
    BOOST_TEST(checkpoint_value(t->checkpoint).to_json() +
                   writes_value(t->pending_writes).to_json() ==
               was);
  }
  if (before.count(ids[0])) BOOST_TEST(saver->get_tuple({thread, "", ""})->checkpoint.id == ids[0]);
  saver.reset();
  // A sound database is left as it is.
  const auto again = storage::repair_rocksdb_database(dir.str());
  BOOST_TEST(again.lost.empty());
  BOOST_TEST(again.backup.empty());
}

namespace {

// Each checkpoint of the thread (`ids`) as a read-only reader gets it: its JSON, or "" when it
// does not read; nothing at all when the database does not open.
std::map<std::string, std::string> each_checkpoint(const std::string& dir,
                                                   const std::vector<std::string>& ids) {
  std::map<std::string, std::string> out;
  try {
    storage::rocksdb_saver_options options;
    options.read_only = true;
    auto saver = rocksdb_saver::open(dir, options);
    for (const auto& id : ids) {
      try {
        auto t = saver->get_tuple({thread, "", id});
        out[id] = t ? value(object{{"checkpoint", checkpoint_value(t->checkpoint)},
                                   {"metadata", metadata_to_value(t->metadata)},
                                   {"writes", writes_value(t->pending_writes)}})
                          .to_json()
                    : "";
      } catch (const error&) {
        out[id] = "";
      }
    }
  } catch (const error&) {
    out.clear();
  }
  return out;
}

}  // namespace

// One flipped byte in the middle of each table: repair keeps every checkpoint that read before
// exactly as it read, names each one it dropped, and leaves a database that checks, or
// refuses and leaves the folder as it was. (It used to rebuild from the readable tables and
// drop every child of a checkpoint it lost: 16 of 16 gone with "ok": true.)
BOOST_AUTO_TEST_CASE(repair_after_a_flipped_table_byte_loses_nothing_that_read) {
  test::temp_dir original("superstep-flipped-table");
  build_finished_thread(original.str());
  std::vector<std::string> ids;
  {
    auto saver = rocksdb_saver::open(original.str());
    ids = ids_of(saver->list({thread, "", ""}, {}));
  }
  int tables = 0, repaired = 0, refused = 0;
  std::vector<damage> cases;
  for (const auto& entry : fs::directory_iterator(original.path)) {
    if (entry.path().extension() != ".sst") continue;
    ++tables;
    const auto size = fs::file_size(entry.path());
    for (auto at : {size / 16, size / 8, size / 4, size / 2})
      cases.push_back({entry.path().filename().string(), "flip@" + std::to_string(at)});
  }
  int opened = 0;
  for (const auto& d : cases) {
    const std::string name = d.file + " " + d.what;
    test::temp_dir copy("superstep-flipped");
    fs::copy(original.path, copy.path, fs::copy_options::recursive);
    apply(copy.path, d);
    const auto before = each_checkpoint(copy.str(), ids);
    // A database that does not open read nothing: refusing it loses nothing either.
    if (!before.empty()) ++opened;
    const std::string files_before = listing(copy.str());
    BOOST_TEST_CONTEXT(name) {
      try {
        const auto r = storage::repair_rocksdb_database(copy.str());
        ++repaired;
        BOOST_TEST(r.after.ok());
        const auto after = each_checkpoint(copy.str(), ids);
        BOOST_REQUIRE(!after.empty());
        std::string lost;
        for (const auto& l : r.lost) lost += l + "\n";
        for (const auto& [id, json] : before) {
          if (json.empty()) continue;
          BOOST_TEST(after.at(id) == json, "checkpoint " << id << " read before, not after");
        }
        // What did not read before and is gone now is in the report: by its id, or as the
        // records of a damaged block (whose keys cannot be read).
        for (const auto& id : ids) {
          const bool gone = after.count(id) == 0 || after.at(id).empty();
          if (gone)
            BOOST_TEST((lost.find(id) != std::string::npos ||
                        lost.find("the records in it are lost") != std::string::npos),
                       id << " dropped unnamed: " << lost);
        }
        if (!r.backup.empty()) fs::remove_all(r.backup);
      } catch (const error& e) {
        ++refused;
        BOOST_TEST_MESSAGE(name << ": " << e.what());
        BOOST_TEST(std::string(e.what()).find("not repairing") != std::string::npos, e.what());
        BOOST_TEST(listing(copy.str()) == files_before, "a refusal changed the folder");
      }
    }
  }
  BOOST_TEST_MESSAGE(tables << " tables, " << cases.size() << " flips, " << opened
                            << " of them opening: " << repaired << " repaired, " << refused
                            << " refused");
  BOOST_TEST(opened > 0);
  BOOST_TEST(repaired > 0);
}
