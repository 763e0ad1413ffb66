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
/// every item of the store decodes. A parent that a repair dropped (and recorded) is not a
/// problem. `serde` reads the records (null: Cap'n Proto). Never throws for damage: it is in
/// `problems`.
database_check check_rocksdb_database(const std::string& dir,
                                      std::shared_ptr<const serializer> serde = nullptr);

/// How `repair_rocksdb_database` may salvage a database.
struct repair_options {
  /// When the database does not open at all (a table or the MANIFEST damaged or missing):
  /// rebuild it with RocksDB's RepairDB from the tables and logs it can read. RepairDB keeps
  /// no blob file (the values stored in them are lost), sets aside every table with one
  /// damaged block whole, and a deletion recorded only in a table it set aside is lost with
  /// it (what was deleted may be back), so it is never done unless asked for
  /// (`superstep repair --from-tables`). Without it such a database is refused.
  bool from_tables = false;
};

/// What `repair_rocksdb_database` did.
struct database_repair {
  /// The check before repairing.
  database_check before;
  /// What was dropped, each naming what it was and why: every checkpoint that did not read
  /// whole (with its pending writes), every record that did not read, every damaged block of
  /// a table (with the keys it lies between), the damaged records of a write-ahead log, and
  /// with `from_tables` each file RocksDB's repair set aside or left out. Nothing that read
  /// before is in it: that is all kept, byte for byte.
  std::vector<std::string> lost;
  /// Where the folder as it was before is kept (DIR.before-repair-TIME); empty when nothing
  /// was changed (a sound database).
  std::string backup;
  /// The check of the repaired database (always ok: a repair that would leave problems is
  /// refused).
  database_check after;
};

/// Salvages the database in `dir` (a sound one is left as it is), never in place: the
/// salvage is made beside it (DIR.repairing-PID) and swapped in only when every checkpoint
/// that read before reads again with identical contents, every record of every column family
/// that read before is there with identical bytes, and the result checks; the folder as it was
/// is then kept as `backup`. When the database opens (read-only, as `state` and `history`
/// open it), the salvage is a new database holding every record that reads, found table by
/// table past damaged blocks (RocksDB's RepairDB is not used: it drops whole tables and every
/// blob file). When it does not open, a copy is opened skipping the damaged records of its
/// write-ahead log, else (with `options.from_tables`) rebuilt with RepairDB. Then each
/// checkpoint that does not read whole is dropped with its pending writes, and recorded as
/// dropped, so that its children, which still read, keep it as their parent without a
/// problem. Throws storage_error, leaving `dir` untouched, when another process has the
/// database open, it cannot be salvaged without losing or guessing something (the message says
/// what), or the salvage cannot be written (no space).
database_repair repair_rocksdb_database(const std::string& dir,
                                        std::shared_ptr<const serializer> serde = nullptr,
                                        repair_options options = {});

}  // namespace superstep::storage
