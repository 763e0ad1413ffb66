// rocksdb_saver on a damaged folder: every file of a finished thread's database, each flipped
// at several places (among them the header of the write-ahead log's last record), cut to half
// and deleted, read as the `state` and `history` commands read it (read-only) and as a writer
// opening it to continue the thread reads it. Each case must give exactly the undamaged answer
// or an error, never another answer, a crash or a hang (each runs in a child process with a
// time limit).
#include <rocksdb/db.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "saver_test_support.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::rocksdb_saver;

namespace {

namespace fs = std::filesystem;

constexpr const char* thread = "finished";

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
                               static_cast<std::size_t>(static_cast<unsigned char>(bytes[pos + 5])) << 8;
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
      for (std::uintmax_t at : {std::uintmax_t(0), bytes.size() / 3, bytes.size() / 2,
                                bytes.size() * 2 / 3, bytes.size() - 1})
        flips.push_back(at);
    if (entry.path().extension() == ".log" || name.rfind("MANIFEST-", 0) == 0) {
      // The last record's length and type: damage there looks most like a record a crash cut
      // short.
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
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) result.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFSIGNALED(status))
    return WTERMSIG(status) == SIGALRM ? "hung" : "crashed: signal " + std::to_string(WTERMSIG(status));
  return result;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_damage_of_a_finished_thread_gives_its_answer_or_an_error) {
#if defined(__SANITIZE_THREAD__)
  return;  // ThreadSanitizer cannot run forked children that start threads (RocksDB's)
#endif
  test::temp_dir original("superstep-damage");
  build_finished_thread(original.str());
  const std::string undamaged = read_in_child(original.str(), true);
  BOOST_REQUIRE_MESSAGE(undamaged.rfind("answer: ", 0) == 0, undamaged);
  {
    test::temp_dir copy("superstep-undamaged");  // a writer's open changes the files
    fs::copy(original.path, copy.path, fs::copy_options::recursive);
    BOOST_REQUIRE(read_in_child(copy.str(), false) == undamaged);
  }

  std::map<std::string, int> counts;
  const auto cases = damages_of(original.path);
  BOOST_TEST_MESSAGE(cases.size() << " damages");
  for (const auto& d : cases) {
    for (bool read_only : {true, false}) {
      test::temp_dir copy("superstep-damaged");
      fs::copy(original.path, copy.path, fs::copy_options::recursive);
      apply(copy.path, d);
      const std::string got = read_in_child(copy.str(), read_only);
      const std::string label = d.file + " " + d.what + (read_only ? " (read-only)" : " (writer)");
      if (got == undamaged) {
        ++counts["unaffected"];
      } else if (got.rfind("error: ", 0) == 0) {
        ++counts["error"];
        BOOST_TEST_MESSAGE(label << ": " << got);
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
