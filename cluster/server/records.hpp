#pragma once

// What the server API creates besides checkpoints (assistants, threads' metadata and status,
// runs, crons), kept beside the checkpoints (data_dir::records): in the data folder's database
// (the `records` column family) or on the Redis server of a redis:// saver (a hash per table),
// one table per kind, each record a value encoded by the folder's serializer (Cap'n Proto,
// encrypted with SUPERSTEP_AES_KEY when it is set). All are read into memory at start; writes
// go to the database (RocksDB's write-ahead log, or Redis, as durable as its own settings
// make it) before they return.

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/storage/record_tables.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::server {

/// One kind of record (a table of objects keyed by id). Thread-safe.
class record_set {
 public:
  /// Reads every record of table `kind`. A record that does not decode is reported through
  /// `warn` and skipped (left in place). The JSON files an older build kept in
  /// `data_dir`/api/`kind` are moved into the table.
  record_set(storage::record_tables& table, std::shared_ptr<const storage::serializer> serde,
             const std::string& data_dir, const std::string& kind,
             const std::function<void(const std::string&)>& warn);

  std::optional<value> get(const std::string& id) const;
  /// Writes the record (replacing one with the same id).
  void put(const std::string& id, const value& record);
  /// Changes the record in memory only: for what a server that starts again need not see (it
  /// goes on from what the database holds). Nothing when there is no such record.
  void put_in_memory(const std::string& id, value record);
  /// Removes it; false when there was none.
  bool erase(const std::string& id);
  /// Every record, in no particular order.
  std::vector<value> all() const;
  /// Records for which `keep` is true.
  std::vector<value> where(const std::function<bool(const value&)>& keep) const;
  std::size_t size() const;
  /// Removes every record.
  void clear();

 private:
  friend class record_batch;
  storage::record_tables& table_;
  std::shared_ptr<const storage::serializer> serde_;
  std::string kind_;
  mutable std::mutex mutex_;
  std::map<std::string, value> records_;
};

/// Records of several sets on one record_tables written as one (record_tables::put_all): all
/// of them or none, and one write to the database where each alone would be one.
class record_batch {
 public:
  /// Adds `record` to write into `set` under `id` (after any put before it of the same one).
  void put(record_set& set, const std::string& id, value record);
  /// Writes them, then the sets show them, and empties the batch. Throws what the write
  /// throws, and then nothing has changed.
  void commit();

 private:
  struct entry {
    record_set* set;
    std::string id;
    value record;
  };
  std::vector<entry> entries_;
};

/// The time now as LangGraph Server writes it (ISO 8601, UTC, microseconds, "+00:00").
std::string now_iso();

/// A random (version 4) UUID.
std::string uuid4();

/// The version 5 UUID of `name` in namespace `ns` (a UUID in its text form), as Python's
/// uuid.uuid5: LangGraph Server's system assistant of a graph is uuid5(NAMESPACE, graph_id).
std::string uuid5(const std::string& ns, const std::string& name);

/// Whether `text` is a UUID in its text form (8-4-4-4-12 hex digits).
bool is_uuid(const std::string& text);

/// Whether `metadata` contains `filter` as Postgres's jsonb `@>` does (LangGraph Server's
/// metadata and values filters): each key of `filter` with a value it contains, nested objects
/// by their keys, arrays by their elements.
bool metadata_matches(const value& metadata, const value& filter);

}  // namespace superstep::server
