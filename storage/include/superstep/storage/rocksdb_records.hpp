#pragma once

// Tables of records (a key and its bytes) in the `records` column family of the RocksDB
// database in a folder, beside the checkpoints and the store (the same database, opened once
// per process): what the LangGraph Server API creates besides checkpoints (assistants,
// threads, runs, crons) is kept here.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "superstep/storage/record_tables.hpp"

namespace superstep::storage {

class rocksdb_records final : public record_tables {
 public:
  /// Opens the database in `dir` (as rocksdb_saver::open does, sharing it with a saver and a
  /// store on the same folder). With `sync`, every write is flushed to disk before it returns.
  /// Throws `superstep::error` (storage_error) naming `dir` when it cannot be opened.
  static std::unique_ptr<rocksdb_records> open(const std::string& dir, bool sync = false);
  ~rocksdb_records() override;
  rocksdb_records(const rocksdb_records&) = delete;
  rocksdb_records& operator=(const rocksdb_records&) = delete;

  /// Writes the record `key` of `table` (replacing one with that key). Throws storage_error
  /// when the write fails; an empty table name or a table name with a NUL is invalid_argument.
  void put(std::string_view table, std::string_view key, std::string_view bytes) override;
  void put_all(const std::vector<record_put>& puts) override;
  /// Removes it; false when there was none.
  bool erase(std::string_view table, std::string_view key) override;
  /// Every record of `table`, in key order.
  std::vector<std::pair<std::string, std::string>> all(std::string_view table) const override;
  /// Removes every record of `table`, atomically.
  void clear(std::string_view table) override;

 private:
  struct impl;
  explicit rocksdb_records(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
