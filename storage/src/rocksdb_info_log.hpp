#pragma once

// RocksDB's info log (DIR/LOG) as the databases of rocksdb_database keep it.

#include <rocksdb/env.h>

#include <memory>
#include <string>

namespace superstep::storage {

/// The info log of the database in `dir`: DIR/LOG, the previous one kept as DIR/LOG.old. A
/// line that cannot be written (a full disk) stops the log, silently: RocksDB's own logger
/// asserts when it writes again after a failure.
std::shared_ptr<rocksdb::Logger> make_info_log(const std::string& dir);

/// A log that drops every line, for a database opened read-only: its folder's LOG belongs to
/// the process that writes.
std::shared_ptr<rocksdb::Logger> make_silent_info_log();

}  // namespace superstep::storage
