// rocksdb_saver on a full disk, on a file system that fails writes with ENOSPC on demand (as
// a full disk does: the write that fails leaves part of its bytes), and on a real one (a
// small tmpfs, when this process may mount one): the first failed write is an error naming
// the folder and stops writing, reads go on, nothing aborts (RocksDB's own info log asserts
// on the line after a failed one), and once space is freed the database opens again with
// every checkpoint written before.
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <sys/mount.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "raw_db.hpp"
#include "saver_test_support.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::rocksdb_saver;

namespace {

// The disk, shared by the files of one file system.
struct disk {
  std::atomic<bool> full{false};
  std::atomic<int> appends_while_full{0};
  /// Files are still made, but nothing more fits in them.
  std::atomic<bool> refuse_appends{false};
};

class file_on_disk final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  file_on_disk(std::unique_ptr<rocksdb::FSWritableFile> file, disk& d)
      : FSWritableFileOwnerWrapper(std::move(file)), disk_(d) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    if (!disk_.full && !disk_.refuse_appends)
      return FSWritableFileOwnerWrapper::Append(data, options, dbg);
    ++disk_.appends_while_full;
    // What fits goes in: half the bytes.
    FSWritableFileOwnerWrapper::Append(rocksdb::Slice(data.data(), data.size() / 2), options, dbg)
        .PermitUncheckedError();
    return rocksdb::IOStatus::NoSpace("No space left on device (injected)");
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo&,
                           rocksdb::IODebugContext* dbg) override {
    return Append(data, options, dbg);
  }

 private:
  disk& disk_;
};

class file_system_on_disk final : public rocksdb::FileSystemWrapper {
 public:
  file_system_on_disk(disk& d) : FileSystemWrapper(rocksdb::FileSystem::Default()), disk_(d) {}
  const char* Name() const override { return "file_system_on_disk"; }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    if (disk_.full) return rocksdb::IOStatus::NoSpace("No space left on device (injected)");
    auto s = FileSystemWrapper::NewWritableFile(name, options, result, dbg);
    if (s.ok()) *result = std::make_unique<file_on_disk>(std::move(*result), disk_);
    return s;
  }

 private:
  disk& disk_;
};

struct full_disk_fixture {
  disk d;
  std::unique_ptr<rocksdb::Env> env =
      rocksdb::NewCompositeEnv(std::make_shared<file_system_on_disk>(d));
  test::temp_dir dir{"superstep-full-disk"};
  checkpoint_builder b;

  storage::rocksdb_saver_options options(bool read_only = false) {
    storage::rocksdb_saver_options o;
    o.sync = false;
    o.env = env.get();
    o.read_only = read_only;
    return o;
  }
  checkpoint_config put_step(rocksdb_saver& saver, const checkpoint_config& parent, int i) {
    return put_all(
        saver, "t", "", parent.checkpoint_id,
        b.make({{"n", i}, {"text", std::string(5000, 'x')}}, {{"n", i + 1}, {"text", i + 1}}),
        loop_metadata(i));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(the_first_failed_write_is_an_error_naming_the_folder_and_stops_writing,
                        full_disk_fixture) {
  checkpoint_config last;
  {
    auto saver = rocksdb_saver::open(dir.str(), options());
    for (int i = 0; i < 3; ++i) last = put_step(*saver, last, i);
    d.full = true;
    expect_error([&] { put_step(*saver, last, 3); }, error_code::storage_error,
                 "no space left on " + dir.str());
    const int tried = d.appends_while_full;
    BOOST_TEST(tried > 0);
    // Stopped: the next writes fail the same way without touching the files.
    expect_error([&] { put_step(*saver, last, 3); }, error_code::storage_error,
                 "no space left on " + dir.str());
    expect_error(
        [&] {
          saver->put_writes(last, {{"n", 9}}, "task", "p");
        },
        error_code::storage_error, "no space left on " + dir.str());
    BOOST_TEST(d.appends_while_full == tried);
    // Reads go on.
    auto latest = saver->get_tuple({"t", "", ""});
    BOOST_REQUIRE(latest);
    BOOST_TEST(latest->checkpoint.id == last.checkpoint_id);
    BOOST_TEST(saver->list({"t", "", ""}, {}).size() == 3u);
  }  // closing on a full disk does not abort either
  // Still full: a writer cannot open it, and says why; a reader can.
  expect_error([&] { (void)rocksdb_saver::open(dir.str(), options()); }, error_code::storage_error,
               "no space left on " + dir.str());
  {
    auto reader = rocksdb_saver::open(dir.str(), options(true));
    BOOST_TEST(reader->list({"t", "", ""}, {}).size() == 3u);
    expect_error([&] { put_step(*reader, last, 3); }, error_code::storage_error, "read-only");
  }
  // Space freed: the thread continues from its last checkpoint.
  d.full = false;
  auto saver = rocksdb_saver::open(dir.str(), options());
  auto latest = saver->get_tuple({"t", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(latest->checkpoint.id == last.checkpoint_id);
  last = put_step(*saver, last, 3);
  BOOST_TEST(saver->list({"t", "", ""}, {}).size() == 4u);
}

BOOST_FIXTURE_TEST_CASE(a_disk_full_before_opening_fails_the_open_without_aborting,
                        full_disk_fixture) {
  { auto saver = rocksdb_saver::open(dir.str(), options()); }
  d.full = true;
  for (int i = 0; i < 3; ++i)
    expect_error([&] { (void)rocksdb_saver::open(dir.str(), options()); },
                 error_code::storage_error, "no space left on " + dir.str());
  d.full = false;
  auto saver = rocksdb_saver::open(dir.str(), options());
  (void)put_step(*saver, {}, 0);
}

BOOST_AUTO_TEST_CASE(a_real_full_disk_is_an_error_and_the_thread_continues_once_space_is_freed) {
  test::temp_dir mount_point("superstep-tmpfs");
  std::filesystem::create_directories(mount_point.path);
  if (::mount("tmpfs", mount_point.str().c_str(), "tmpfs", 0, "size=4m") != 0) {
    BOOST_TEST_MESSAGE("skipped: cannot mount a tmpfs here (" << std::strerror(errno) << ")");
    return;
  }
  struct unmount {
    std::string path;
    ~unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount_at_end{mount_point.str()};
  const std::string dir = mount_point.str() + "/data";
  const std::string filler = mount_point.str() + "/filler";
  std::ofstream(filler, std::ios::binary) << std::string(3 << 20, 'f');  // 1 MiB left

  storage::rocksdb_saver_options options;
  options.sync = false;
  checkpoint_builder b;
  checkpoint_config last;
  int written = 0;
  const auto put_step = [&](rocksdb_saver& saver, int i) {
    // Incompressible, so that the disk fills in a few steps.
    std::string text(100 << 10, ' ');
    for (std::size_t k = 0; k < text.size(); ++k)
      text[k] = static_cast<char>(stable_hash(std::to_string(i * 1000003 + k)));
    return put_all(saver, "t", "", last.checkpoint_id,
                   b.make({{"n", i}, {"text", bytes{text}}}, {{"n", i + 1}, {"text", i + 1}}),
                   loop_metadata(i));
  };
  {
    auto saver = rocksdb_saver::open(dir, options);
    bool full = false;
    for (int i = 0; i < 100 && !full; ++i) {
      try {
        last = put_step(*saver, i);
        ++written;
      } catch (const error& e) {
        BOOST_TEST(std::string(e.what()).find("no space left on " + dir) != std::string::npos,
                   e.what());
        full = true;
      }
    }
    BOOST_REQUIRE_MESSAGE(full, "the disk never filled");
    BOOST_REQUIRE(written > 0);
    expect_error([&] { put_step(*saver, written); }, error_code::storage_error,
                 "no space left on " + dir);
    BOOST_TEST(saver->list({"t", "", ""}, {}).size() == static_cast<std::size_t>(written));
  }
  // Still full: a writer cannot open it, and says why; a reader can.
  for (int i = 0; i < 2; ++i)
    expect_error([&] { (void)rocksdb_saver::open(dir, options); }, error_code::storage_error,
                 "no space left on " + dir);
  {
    storage::rocksdb_saver_options reading = options;
    reading.read_only = true;
    auto reader = rocksdb_saver::open(dir, reading);
    BOOST_TEST(reader->get_tuple({"t", "", ""})->checkpoint.id == last.checkpoint_id);
  }
  std::filesystem::remove(filler);
  auto saver = rocksdb_saver::open(dir, options);
  BOOST_TEST(saver->get_tuple({"t", "", ""})->checkpoint.id == last.checkpoint_id);
  last = put_step(*saver, written);
  BOOST_TEST(saver->list({"t", "", ""}, {}).size() == static_cast<std::size_t>(written + 1));
}

BOOST_FIXTURE_TEST_CASE(a_table_file_on_a_full_disk_is_an_error_and_leaves_nothing_behind,
                        full_disk_fixture) {
  // A big list and a task's many writes go through table files (rocksdb_big_values_test),
  // made in the database's folder: on a full disk the file cannot be made, or fills up half
  // written.
  list many;
  std::vector<std::pair<std::string, value>> writes;
  for (int i = 0; i < 70'000; ++i) {
    many.push_back(object{{"n", i}});
    writes.emplace_back("n", i);
  }
  const auto table_files = [&] { return test::table_files(dir.str()); };
  const auto put_many = [&](rocksdb_saver& saver, const checkpoint_config& parent) {
    return put_all(saver, "t", "", parent.checkpoint_id,
                   b.make({{"sends", value(many)}}, {{"sends", 9}}), loop_metadata(1));
  };
  checkpoint_config last;
  for (std::atomic<bool>* full : {&d.full, &d.refuse_appends}) {
    {
      auto saver = rocksdb_saver::open(dir.str(), options());
      if (last.checkpoint_id.empty()) last = put_step(*saver, last, 0);
      *full = true;
      expect_error([&] { saver->put_writes(last, writes, "sender", "p"); },
                   error_code::storage_error, "no space left on " + dir.str());
      BOOST_TEST(table_files() == 0);
      auto latest = saver->get_tuple({"t", "", ""});
      BOOST_REQUIRE(latest);
      BOOST_TEST(latest->checkpoint.id == last.checkpoint_id);
      BOOST_TEST(latest->pending_writes.empty());
      *full = false;
    }
    {
      auto saver = rocksdb_saver::open(dir.str(), options());
      *full = true;
      expect_error([&] { put_many(*saver, last); }, error_code::storage_error,
                   "no space left on " + dir.str());
      BOOST_TEST(table_files() == 0);
      BOOST_TEST(saver->get_tuple({"t", "", ""})->checkpoint.id == last.checkpoint_id);
      *full = false;
    }
  }
  auto saver = rocksdb_saver::open(dir.str(), options());
  saver->put_writes(last, writes, "sender", "p");
  auto next = put_many(*saver, last);
  BOOST_TEST(saver->get_tuple(last)->pending_writes.size() == writes.size());
  BOOST_TEST(saver->get_tuple(next)->checkpoint.channel_values.at("sends") == value(many));
}
