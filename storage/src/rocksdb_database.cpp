#include "rocksdb_database.hpp"

#include <fcntl.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

#include "rocksdb_clean_close.hpp"
#include "rocksdb_info_log.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/rocksdb_saver.hpp"

namespace superstep::storage {

void check(const rocksdb::Status& s, std::string_view what) {
  if (!s.ok())
    throw error(error_code::storage_error,
                "rocksdb_saver: " + std::string(what) + ": " + s.ToString());
}

namespace {

// The name of a table_write's file in the database's folder, before it is added.
constexpr std::string_view table_file_prefix = "superstep-table-";

}  // namespace

// RocksDB's lock is an fcntl lock on DIR/LOCK; F_GETLK names its holder when that is another
// process.
int rocksdb_lock_holder(const std::string& dir) {
  const std::string lock = (std::filesystem::path(dir) / "LOCK").string();
  const int fd = ::open(lock.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct flock query {};
  query.l_type = F_WRLCK;
  query.l_whence = SEEK_SET;
  const bool asked = ::fcntl(fd, F_GETLK, &query) == 0;
  ::close(fd);
  return asked && query.l_type != F_UNLCK ? query.l_pid : 0;
}

namespace {

// Why `dir` cannot be opened, from RocksDB's status.
[[noreturn]] void fail_open(const std::string& dir, const rocksdb::Status& s) {
  if (s.IsNoSpace())
    throw error(error_code::storage_error, "rocksdb_saver: no space left on " + dir +
                                               " (cannot open it: " + s.ToString() + ")");
  if (s.IsIOError()) {
    if (const int holder = rocksdb_lock_holder(dir))
      throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                                 " is in use by another process (pid " +
                                                 std::to_string(holder) + "), which writes to it");
  }
  throw error(error_code::storage_error, "rocksdb_saver: cannot open " + dir + ": " + s.ToString());
}

// Throws unless `dir` holds none of a database's files: without CURRENT, which names the
// MANIFEST, they are a database that lost it, which a new one must not be made over.
void require_no_database_files(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const std::string ext = it->path().extension().string();
    if (name.rfind("MANIFEST-", 0) == 0 || ext == ".sst" || ext == ".log" || ext == ".blob")
      throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                                 " is damaged: it has database files (" + name +
                                                 ") but no CURRENT file");
  }
}

// The families every database of ours has had since its first open: one missing from an
// existing database means its MANIFEST lost them.
constexpr const char* core_families[] = {"checkpoints", "writes", "blobs"};

// The families to open: every one the database has (a newer build may have added some),
// plus, for writing, ours.
std::vector<std::string> family_names(const rocksdb::DBOptions& options, const std::string& dir,
                                      bool exists, const database_options& open) {
  std::vector<std::string> names;
  if (exists) {
    rocksdb::Status listed = rocksdb::DB::ListColumnFamilies(options, dir, &names);
    if (!listed.ok()) fail_open(dir, listed);
    for (const char* core : core_families)
      if (!open.salvage && std::find(names.begin(), names.end(), core) == names.end())
        throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                                   " is damaged: its MANIFEST has no column "
                                                   "family '" +
                                                   std::string(core) + "'");
  } else {
    names = {rocksdb::kDefaultColumnFamilyName};  // a new database
  }
  if (!open.read_only)
    for (const char* ours : {"checkpoints", "writes", "blobs", "store", "runs", "records"})
      if (std::find(names.begin(), names.end(), ours) == names.end()) names.emplace_back(ours);
  return names;
}

// The options of each family of `names`.
std::vector<rocksdb::ColumnFamilyDescriptor> family_descriptors(
    const std::vector<std::string>& names) {
  // Saving a pending write first looks for an earlier copy (a retried task keeps its first
  // writes): nearly always a miss, which bloom filters answer without searching the memtable
  // (whole keys) or the tables. Without them a fan-out of 10^6 Sends spends most of its time
  // in those lookups, growing with the database.
  // The memtable's filter costs every insert, so only the column family probed for misses
  // has one; every table has a filter.
  rocksdb::ColumnFamilyOptions cf_options;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // Values of 64 KiB and more (a fan-out's pending Sends, a big channel) go to blob files
  // when their memtable is flushed, streamed, rather than into a table block: a block holding a
  // 200 MB value is built, then compressed, in two more buffers of its size.
  rocksdb::ColumnFamilyOptions large = cf_options;
  large.enable_blob_files = true;
  large.min_blob_size = 64 << 10;
  large.enable_blob_garbage_collection = true;
  rocksdb::ColumnFamilyOptions probed = large;
  probed.memtable_whole_key_filtering = true;
  probed.memtable_prefix_bloom_size_ratio = 0.05;
  // A fan-out step saves 10^6 pending writes (about 60 MB) as its tasks finish: flushed to a
  // table every 16 MiB rather than held in memory to RocksDB's default 64 MiB (twice that with
  // the memtable being flushed), which a cluster's head would carry through the step.
  probed.write_buffer_size = 16 << 20;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names)
    families.emplace_back(name, name == "writes" ? probed : name == "blobs" ? large : cf_options);
  return families;
}

}  // namespace

rocksdb_database::rocksdb_database(const std::string& dir, database_options open)
    : dir_(dir), read_only_(open.read_only) {
  std::error_code ec;
  const bool exists = std::filesystem::exists(std::filesystem::path(dir) / "CURRENT", ec);
  if (!exists) require_no_database_files(dir);
  if (read_only_ && !exists)
    throw error(error_code::storage_error, "rocksdb_saver: " + dir + " has no database");
  if (!read_only_) {
    // RocksDB creates only the last level of the path.
    std::filesystem::create_directories(dir, ec);
    if (ec)
      throw error(error_code::storage_error,
                  "rocksdb_saver: cannot create the directory " + dir + ": " + ec.message());
  }

  // Damage must fail the open, never silently drop the rest of the write-ahead log as
  // point-in-time recovery (RocksDB's default) does. After a clean close the logs must be
  // whole (and are checked against the mark it left). Otherwise (a crash, a full disk, or the
  // writer is still running) a record cut short at the end of the last log is tolerated: it
  // is what those leave; a checksum that does not match still fails.
  bool closed_cleanly = false;
  if (exists) {
    const int holder = rocksdb_lock_holder(dir);
    if (holder != 0 && !read_only_)
      throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                                 " is in use by another process (pid " +
                                                 std::to_string(holder) + "), which writes to it");
    closed_cleanly = holder == 0 && !open.salvage && verify_clean_close(dir);
  }
  rocksdb::DBOptions options;
  if (open.env) options.env = open.env;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.wal_recovery_mode = open.salvage ? rocksdb::WALRecoveryMode::kSkipAnyCorruptedRecords
                              : closed_cleanly
                                  ? rocksdb::WALRecoveryMode::kAbsoluteConsistency
                                  : rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  options.paranoid_checks = true;
  // Our own info log: RocksDB's asserts (Debian builds it with assertions) when it writes a
  // line after one failed on a full disk, and its read-only open would take the writer's log
  // away from it.
  options.info_log = read_only_ ? make_silent_info_log() : make_info_log(dir);

  const std::vector<std::string> names = family_names(options, dir, exists, open);
  const auto families = family_descriptors(names);
  rocksdb::Status opened;
  for (int attempt = 1;; ++attempt) {
    handles_.clear();
    opened = read_only_ ? rocksdb::DB::OpenForReadOnly(options, dir, families, &handles_, &db_)
                        : rocksdb::DB::Open(options, dir, families, &handles_, &db_);
    // A writer beside a reader may delete a log or a MANIFEST the reader was about to read,
    // or be in the middle of appending a record: a few more tries, while it holds the folder.
    const bool racing = read_only_ && (opened.IsIOError() || opened.IsCorruption()) &&
                        rocksdb_lock_holder(dir) != 0;
    if (opened.ok() || !racing || attempt == 5) break;
  }
  if (!opened.ok()) fail_open(dir, opened);  // the mark stays: a damaged folder stays damaged
  // The open made a new MANIFEST, so a crash before this leaves a stale mark, which
  // verify_clean_close ignores; from here on the files change.
  if ((closed_cleanly || open.salvage) && !read_only_) forget_clean_close(dir);

  env_ = options.env ? options.env : rocksdb::Env::Default();
  if (!read_only_) {
    // A table_write's file left by a crash was never added: nothing reads it.
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().rfind(table_file_prefix, 0) == 0) {
        std::error_code removed;
        std::filesystem::remove(it->path(), removed);
      }
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "checkpoints") checkpoints = handles_[i];
    if (names[i] == "writes") writes = handles_[i];
    if (names[i] == "blobs") blobs = handles_[i];
    if (names[i] == "store") store = handles_[i];
    if (names[i] == "runs") run_index = handles_[i];
    if (names[i] == "records") records = handles_[i];
  }
}

std::shared_ptr<rocksdb_database> rocksdb_database::shared(const std::string& dir,
                                                           database_options options) {
  static std::mutex m;
  static std::map<std::string, std::weak_ptr<rocksdb_database>> open;
  std::error_code ec;
  if (!options.read_only)
    std::filesystem::create_directories(dir, ec);  // for canonical(); the constructor reports
  auto canonical = std::filesystem::weakly_canonical(dir, ec);
  const std::string name = (ec ? dir : canonical.string()) + (options.read_only ? "\n(ro)" : "");
  std::lock_guard lock(m);
  if (auto db = open[name].lock()) return db;
  auto db = std::make_shared<rocksdb_database>(dir, options);
  open[name] = db;
  return db;
}

void rocksdb_database::flush_big_memtables() {
  // RocksDB flushes a full memtable only when the next write comes, which may be a whole
  // step later: a fan-out's Sends (its first task's pending writes, then the checkpoint with
  // the tasks topic, about 120 MB each) would stay in memory, twice, while their tasks are
  // planned. A flush is started now instead, in the background (the write is in the log:
  // nothing waits for it).
  rocksdb::FlushOptions flush;
  flush.wait = false;
  flush.allow_write_stall = true;
  for (auto* cf : {writes, blobs, store}) {
    std::uint64_t bytes = 0;
    if (!cf || !db_->GetIntProperty(cf, rocksdb::DB::Properties::kCurSizeActiveMemTable, &bytes) ||
        bytes < big_write)
      continue;
    // A failed flush leaves the memtable for the next write to flush: nothing is lost.
    const rocksdb::Status started = db_->Flush(flush, cf);
    (void)started;
  }
}

void rocksdb_database::write(const rocksdb::WriteOptions& options, rocksdb::WriteBatch& batch,
                             std::string_view what) {
  const auto stopped = [&] {
    std::lock_guard lock(stop_mutex_);
    return error(error_code::storage_error,
                 "rocksdb_saver: " + std::string(what) + ": " + stop_reason_);
  };
  if (read_only_)
    throw error(error_code::storage_error,
                "rocksdb_saver: " + std::string(what) + ": " + dir_ + " is open read-only");
  if (stopped_.load(std::memory_order_acquire)) throw stopped();
  rocksdb::Status s = db_->Write(options, &batch);
  if (s.ok()) {
    if (batch.GetDataSize() >= big_write) flush_big_memtables();
    return;
  }
  failed(s, what);
}

void rocksdb_database::failed(const rocksdb::Status& s, std::string_view what) {
  const auto stopped = [&] {
    std::lock_guard lock(stop_mutex_);
    return error(error_code::storage_error,
                 "rocksdb_saver: " + std::string(what) + ": " + stop_reason_);
  };
  if (!s.IsIOError()) check(s, what);  // not about the files: nothing to stop
  {
    std::lock_guard lock(stop_mutex_);
    if (!stopped_.load(std::memory_order_relaxed)) {
      stop_reason_ = s.IsNoSpace() ? "no space left on " + dir_ + " (" + s.ToString() + ")"
                                   : "cannot write to " + dir_ + ": " + s.ToString();
      stop_reason_ += "; nothing more is written until it is opened again";
      stopped_.store(true, std::memory_order_release);
    }
  }
  throw stopped();
}

std::string rocksdb_database::table_file_path() {
  return (std::filesystem::path(dir_) /
          (std::string(table_file_prefix) + std::to_string(::getpid()) + "-" +
           std::to_string(table_files_.fetch_add(1)) + ".tmp"))
      .string();
}

void rocksdb_database::ingest(rocksdb::ColumnFamilyHandle* cf, const std::string& path,
                              std::string_view what) {
  if (read_only_)
    throw error(error_code::storage_error,
                "rocksdb_saver: " + std::string(what) + ": " + dir_ + " is open read-only");
  if (stopped_.load(std::memory_order_acquire)) failed(rocksdb::Status::IOError(), what);
  // (RocksDB's repair, the last resort of `superstep repair`, rebuilds the database from its
  // tables and gives an added table's keys the oldest sequence number: a key deleted by a
  // range deletion and then added this way would read as deleted after it.)
  rocksdb::IngestExternalFileOptions options;
  options.move_files = true;  // linked in, then the file here is removed
  // Keys added after the file was written are not in it; a memtable holding keys of its
  // range is flushed first, so that the file's keys are newer than theirs.
  options.allow_blocking_flush = true;
  options.write_global_seqno = false;
  rocksdb::Status s = db_->IngestExternalFile(cf, {path}, options);
  if (!s.ok()) failed(s, what);
}

table_write::table_write(rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf, std::string what)
    : db_(db), cf_(cf), what_(std::move(what)), path_(db.table_file_path()) {
  // Nothing is encoded for a database that takes no more writes.
  if (db.stopped_.load(std::memory_order_acquire)) db.failed(rocksdb::Status::IOError(), what_);
  rocksdb::Options options(rocksdb::DBOptions(), db.db().GetOptions(cf));
  options.env = db.env();
  writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(), options, cf);
}

table_write::~table_write() {
  if (added_) return;
  writer_.reset();  // closes the file
  std::error_code ec;
  std::filesystem::remove(path_, ec);  // nothing to do about a file that stays: open removes it
}

void table_write::put(std::string_view key, std::string_view value) {
  if (added_) throw error(error_code::internal, "table_write::put after commit");
  if (!any_) {
    rocksdb::Status opened = writer_->Open(path_);
    if (!opened.ok()) db_.failed(opened, what_);
    any_ = true;
  }
  rocksdb::Status s = writer_->Put(rocksdb::Slice(key.data(), key.size()),
                                   rocksdb::Slice(value.data(), value.size()));
  if (!s.ok()) db_.failed(s, what_);
}

void table_write::commit() {
  if (added_ || !any_) return;
  rocksdb::Status s = writer_->Finish();
  if (!s.ok()) db_.failed(s, what_);
  writer_.reset();
  db_.ingest(cf_, path_, what_);
  added_ = true;
}

rocksdb_database::~rocksdb_database() {
  // A writer that never failed leaves the mark of a clean close, its logs synced first so
  // that the mark holds after a power loss too.
  // (Not after an I/O error: syncing a log that failed asserts in RocksDB.)
  std::uint64_t background_errors = 0;
  const bool clean = !read_only_ && !stopped_.load() &&
                     db_->GetIntProperty("rocksdb.background-errors", &background_errors) &&
                     background_errors == 0 && db_->FlushWAL(true).ok();
  for (auto* handle : handles_) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  // Close flushes nothing we need (every write is in the WAL).
  const bool closed = db_->Close().ok();
  delete db_;
  if (clean && closed) static_cast<void>(write_clean_close(dir_));  // else: as after a crash
}

range_scan::range_scan(const rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf,
                       const rocksdb::ReadOptions& base, std::string lower, std::string upper)
    : lower_(std::move(lower)),
      upper_(std::move(upper)),
      lower_slice_(lower_),
      upper_slice_(upper_) {
  rocksdb::ReadOptions options = base;
  options.iterate_lower_bound = &lower_slice_;
  options.iterate_upper_bound = &upper_slice_;
  it_.reset(db.db().NewIterator(options, cf));
}

void range_scan::check_status(std::string_view what) const { check(it_->status(), what); }

}  // namespace superstep::storage
