#pragma once

// Verifying and repairing the RocksDB database of a rocksdb_saver and rocksdb_store
// (`superstep check` and `superstep repair`).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

/// What `check_rocksdb_database` found.
struct database_check {
  std::size_t threads = 0;
  std::size_t checkpoints = 0;
  std::size_t pending_writes = 0;
  std::size_t store_items = 0;
  /// One line per problem, naming the file, or the thread and checkpoint, it concerns.
  std::vector<std::string> problems;

  bool ok() const noexcept { return problems.empty(); }
};

/// Verifies the database in `dir` without changing it (read-only, so beside a process that
/// writes to it too): that it opens (its write-ahead log and MANIFEST whole), RocksDB's
/// checksums of every table, that every checkpoint record decodes with its channel values,
/// version maps and pending writes, that every parent and delta base it names exists, and that
/// every item of the store decodes. `serde` reads the records (null: Cap'n Proto). Never
/// throws for damage: it is in `problems`.
database_check check_rocksdb_database(const std::string& dir,
                                      std::shared_ptr<const serializer> serde = nullptr);

/// What `repair_rocksdb_database` did.
struct database_repair {
  /// The check before repairing.
  database_check before;
  /// What was lost: each checkpoint dropped (with why), and each file RocksDB's repair set
  /// aside in DIR/lost: a write-ahead log whose damaged records are lost (the rest was kept),
  /// a MANIFEST rebuilt, a table it could not read.
  std::vector<std::string> lost;
  /// The check after repairing.
  database_check after;
};

/// Salvages what it can of the database in `dir` (a sound one is left as it is): opens it as
/// it is, else replaying its write-ahead log skipping damaged records, else rebuilds it with
/// RocksDB's RepairDB from the tables and logs it can read (setting the others aside in
/// DIR/lost; RepairDB does not keep blob files, so values stored in them are lost then); then
/// drops every checkpoint that still cannot be read whole or whose parent was lost (with its
/// pending writes), until every remaining one reads. Throws storage_error when another process
/// has the database open, or RocksDB cannot repair it at all.
database_repair repair_rocksdb_database(const std::string& dir,
                                        std::shared_ptr<const serializer> serde = nullptr);

}  // namespace superstep::storage
