#pragma once

// Tables of records on a Redis server (record_tables.hpp): beside the checkpoints of a
// redis_saver on the same server, one hash per table, `P:records:T` (P the prefix, T the
// table's name with '%' and ':' escaped as redis_key_part does), its fields the records' keys.

#include <memory>
#include <string>

#include "superstep/storage/record_tables.hpp"

namespace superstep::storage {

class redis_records final : public record_tables {
 public:
  /// Connects to the server of `url` (redis://[user:password@]host[:port][/db]). Throws
  /// invalid_argument for a bad URL or an empty prefix, storage_error naming the server when
  /// it cannot be reached.
  static std::unique_ptr<redis_records> open(const std::string& url,
                                             const std::string& prefix = "superstep");
  ~redis_records() override;
  redis_records(const redis_records&) = delete;
  redis_records& operator=(const redis_records&) = delete;

  void put(std::string_view table, std::string_view key, std::string_view bytes) override;
  void put_all(const std::vector<record_put>& puts) override;
  bool erase(std::string_view table, std::string_view key) override;
  std::vector<std::pair<std::string, std::string>> all(std::string_view table) const override;
  void clear(std::string_view table) override;

 private:
  struct impl;
  explicit redis_records(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
