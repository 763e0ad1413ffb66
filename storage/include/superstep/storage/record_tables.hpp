#pragma once

// Tables of records (a key and its bytes): what the LangGraph Server API creates besides
// checkpoints (assistants, threads, runs, crons), kept beside the checkpoints: in the RocksDB
// database of a data folder (rocksdb_records.hpp) or on the Redis server that holds them
// (redis_records.hpp).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace superstep::storage {

/// One record of a write of several (record_tables::put_all).
struct record_put {
  std::string_view table, key, bytes;
};

/// Implementations are safe to call from several threads at once. Failures throw
/// `superstep::error` (storage_error) naming where the records are; an empty table name, or
/// one with a NUL, is invalid_argument.
class record_tables {
 public:
  virtual ~record_tables() = default;

  /// Writes the record `key` of `table` (replacing one with that key), durably before it
  /// returns as far as the place's own writes are.
  virtual void put(std::string_view table, std::string_view key, std::string_view bytes) = 0;
  /// Writes every record of `puts` at once: all of them or none, as one write to the place.
  virtual void put_all(const std::vector<record_put>& puts) = 0;
  /// Removes it; false when there was none.
  virtual bool erase(std::string_view table, std::string_view key) = 0;
  /// Every record of `table`, in key order.
  virtual std::vector<std::pair<std::string, std::string>> all(std::string_view table) const = 0;
  /// Removes every record of `table`, atomically.
  virtual void clear(std::string_view table) = 0;
};

}  // namespace superstep::storage
