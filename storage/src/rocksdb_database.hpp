#pragma once

// The RocksDB database under a rocksdb_saver: opening it with its column families, closing it
// in the order RocksDB needs, status checks and bounded scans.

#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "blob_chains.hpp"
#include "superstep/coordinator/thread_runs.hpp"
#include "version_chains.hpp"

namespace superstep::storage {

/// Throws `superstep::error` (storage_error) "rocksdb_saver: <what>: <status>" unless `s` is ok.
void check(const rocksdb::Status& s, std::string_view what);

/// An open database with the saver's column families.
class rocksdb_database {
 public:
  /// Opens (creating as needed) the database in `dir` with the column families `checkpoints`,
  /// `writes`, `blobs` and `store`, and any others it already has.
  explicit rocksdb_database(const std::string& dir);
  /// Releases the column-family handles, then closes the database (another order crashes).
  ~rocksdb_database();
  rocksdb_database(const rocksdb_database&) = delete;
  rocksdb_database& operator=(const rocksdb_database&) = delete;

  /// The database in `dir` as this process has it open: a saver and a store on one folder
  /// share it (RocksDB lets one process open a database once). Opened on first use, closed
  /// when its last user lets go.
  static std::shared_ptr<rocksdb_database> shared(const std::string& dir);

  rocksdb::DB& db() const noexcept { return *db_; }
  const std::string& dir() const noexcept { return dir_; }

  rocksdb::ColumnFamilyHandle* checkpoints = nullptr;
  rocksdb::ColumnFamilyHandle* writes = nullptr;
  rocksdb::ColumnFamilyHandle* blobs = nullptr;
  rocksdb::ColumnFamilyHandle* store = nullptr;

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
  std::string dir_;
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
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
