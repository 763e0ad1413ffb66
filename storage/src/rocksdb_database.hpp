#pragma once

// The RocksDB database under a rocksdb_saver: opening it with its column families, closing it
// in the order RocksDB needs, status checks and bounded scans.

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "blob_chains.hpp"
#include "superstep/checkpoint/thread_runs.hpp"
#include "version_chains.hpp"

namespace superstep::storage {

/// Throws `superstep::error` (storage_error) "rocksdb_saver: <what>: <status>" unless `s` is ok.
void check(const rocksdb::Status& s, std::string_view what);

/// How a database is opened.
struct database_options {
  /// Read-only: nothing is written, not even RocksDB's info log, and the folder's lock is not
  /// taken, so it works beside the process that writes (it sees the database as of opening).
  /// The database must exist.
  bool read_only = false;
  /// The environment RocksDB runs on (tests inject one whose writes fail); nullptr: the
  /// default.
  rocksdb::Env* env = nullptr;
  /// For repairing (writable only): the write-ahead log is replayed skipping damaged records
  /// (kSkipAnyCorruptedRecords), the mark of the last clean close is not checked, and the
  /// saver's column families are created even in an existing database that lacks them (RocksDB's
  /// repair leaves out a family none of whose tables it could read).
  bool salvage = false;
};

/// An open database with the saver's column families.
///
/// Damage is an error, never a different answer: the write-ahead log is replayed with
/// kTolerateCorruptedTailRecords (a record cut short at the end of the last log, which a crash
/// or a full disk leaves, is dropped; any other damage fails the open), paranoid checks are on
/// and every read verifies checksums. The first failed write stops writing: later writes throw
/// the same error without touching the files (RocksDB asserts when a file that failed is
/// written again), while reads go on.
class rocksdb_database {
 public:
  /// Opens the database in `dir` with the column families `checkpoints`, `writes`, `blobs`,
  /// `store`, `runs` and `records`, and any others it already has; unless read-only, creates the
  /// folder, the database and missing families. Throws storage_error naming `dir`: "no space left
  /// on DIR", "DIR is in use by another process (pid N)", or RocksDB's reason.
  explicit rocksdb_database(const std::string& dir, database_options options = {});
  /// Releases the column-family handles, then closes the database (another order crashes).
  ~rocksdb_database();
  rocksdb_database(const rocksdb_database&) = delete;
  rocksdb_database& operator=(const rocksdb_database&) = delete;

  /// The database in `dir` as this process has it open: a saver and a store on one folder
  /// share it (RocksDB lets one process open a database once). Opened on first use, closed
  /// when its last user lets go.
  /// A read-only and a writable opening of a folder are kept apart.
  static std::shared_ptr<rocksdb_database> shared(const std::string& dir,
                                                  database_options options = {});

  rocksdb::DB& db() const noexcept { return *db_; }
  const std::string& dir() const noexcept { return dir_; }
  bool read_only() const noexcept { return read_only_; }

  /// Writes `batch` atomically. Throws storage_error "<what>: no space left on DIR" (or
  /// "<what>: cannot write to DIR: <reason>") when the write fails, and from then on for every
  /// write; "<what>: DIR is open read-only" on a read-only database.
  void write(const rocksdb::WriteOptions& options, rocksdb::WriteBatch& batch,
             std::string_view what);
  /// A write of this many bytes or more has the memtables it filled flushed at once.
  static constexpr std::size_t big_write = std::size_t{32} << 20;
  /// Adds the table file at `path` (keys of `cf`, written by a `table_write`) to the
  /// database, atomically, moving it in. Throws as `write` does.
  void ingest(rocksdb::ColumnFamilyHandle* cf, const std::string& path, std::string_view what);
  /// The path of a new file for a `table_write`, in the database's folder.
  std::string table_file_path();
  rocksdb::Env* env() const noexcept { return env_; }

  rocksdb::ColumnFamilyHandle* checkpoints = nullptr;
  rocksdb::ColumnFamilyHandle* writes = nullptr;
  rocksdb::ColumnFamilyHandle* blobs = nullptr;
  rocksdb::ColumnFamilyHandle* store = nullptr;
  /// The family `runs`, the checkpoints of each run (rocksdb_keys.hpp); null in a database
  /// opened read-only that was written before the family existed.
  rocksdb::ColumnFamilyHandle* run_index = nullptr;
  /// The family `records` (rocksdb_records: the server API's records); null in a database
  /// opened read-only that was written before the family existed.
  rocksdb::ColumnFamilyHandle* records = nullptr;

  /// Which list values savers write as deltas, for every saver on this database: a saver that
  /// deletes or prunes a thread clears it for the others too.
  blob_chains chains;
  /// Which checkpoints savers store with their version maps as deltas (cleared with `chains`).
  version_chains versions;
  /// Held by copy_thread, prune and delete_thread (one at a time, whichever saver calls them),
  /// and by a put that stores a checkpoint against a base, from checking that the base is
  /// still there to writing.
  std::mutex maintenance;
  /// The runs in progress on the database's threads (one run per thread in this process).
  thread_runs runs;

 private:
  friend class table_write;
  std::string dir_;
  bool read_only_ = false;
  std::atomic<bool> stopped_{false};
  std::mutex stop_mutex_;
  std::string stop_reason_;  // under stop_mutex_, set once stopped_
  rocksdb::DB* db_ = nullptr;
  rocksdb::Env* env_ = nullptr;
  std::atomic<std::uint64_t> table_files_{0};
  void flush_big_memtables();
  /// Throws the error of a failed write, stopping later writes when it is about the files.
  [[noreturn]] void failed(const rocksdb::Status& s, std::string_view what);
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

/// Keys of one column family, written in increasing order to a table file in the database's
/// folder, then added to the database at once (RocksDB's ingestion): every key or none. For a
/// write of many megabytes (a fan-out's pending Sends, a big list in parts), which a write batch
/// and then the memtable would each hold whole while it is written and until it is flushed:
/// here only a block of the file is held. The file is removed unless it was added; one left
/// by a crash is removed when the database is next opened for writing.
class table_write {
 public:
  table_write(rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf, std::string what);
  ~table_write();
  table_write(const table_write&) = delete;
  table_write& operator=(const table_write&) = delete;
  /// Throws storage_error naming what is written when the file cannot be written or the key
  /// is not after the last one.
  void put(std::string_view key, std::string_view value);
  /// Finishes the file and adds it; at most once. A table_write with no key adds nothing.
  void commit();

 private:
  rocksdb_database& db_;
  rocksdb::ColumnFamilyHandle* cf_;
  std::string what_;
  std::string path_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  bool any_ = false;
  bool added_ = false;
};

/// An iterator over the keys in [lower, upper) of one column family, as seen by `base` (its
/// snapshot). Owns the bounds, which RocksDB only points to.
class range_scan {
 public:
  range_scan(const rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf,
             const rocksdb::ReadOptions& base, std::string lower, std::string upper);
  rocksdb::Iterator& operator*() const noexcept { return *it_; }
  rocksdb::Iterator* operator->() const noexcept { return it_.get(); }
  /// Throws when the iteration stopped on an error rather than at the end of the range.
  void check_status(std::string_view what) const;

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

/// Read options on a snapshot that lives as long as this object.
class snapshot_read {
 public:
  explicit snapshot_read(const rocksdb_database& db) : snapshot_(&db.db()) {
    options.snapshot = snapshot_.snapshot();
  }
  rocksdb::ReadOptions options;

 private:
  rocksdb::ManagedSnapshot snapshot_;
};

}  // namespace superstep::storage
