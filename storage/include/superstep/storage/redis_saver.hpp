#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/storage/redis_client.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

/// How `redis_saver::open` sets up a saver.
struct redis_saver_options {
  /// Turns channel values, pending writes and metadata values into bytes; null:
  /// `make_capnp_serializer()`.
  std::shared_ptr<const serializer> serde;
  /// Every key of the saver starts with this and ':' (several applications, or tests, on one
  /// server). Must not be empty.
  std::string prefix = "superstep";
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{10000};
};

/// A checkpoint saver on a Redis server (the seed's reference saver, issue 17), with the
/// semantics of `memory_saver`, so the one conformance suite holds for it too.
///
/// Keys (P the prefix; T a thread id and N a namespace, each with '%' and ':' written %25 and
/// %3A so keys split unambiguously on ':' and read well in redis-cli):
///
///   P:threads            sorted set: the thread ids (all scores 0: ordered by bytes)
///   P:t:T:ns             sorted set: the namespaces of thread T
///   P:t:T:runs           set: the run ids of T's checkpoints
///   P:t:T:N:ids          sorted set: the checkpoint ids of (T, N); ids sort by creation, so
///                        newest first and `before` are ZREVRANGEBYLEX ranges
///   P:t:T:N:cp           hash: id -> the checkpoint record (storage/schema/checkpoint.capnp,
///                        as the RocksDB saver's: the checkpoint without its values)
///   P:t:T:N:blobs        hash: "<version>:<channel>" -> value bytes; empty bytes mark a
///                        version at which the channel was cleared. `put` writes only the
///                        channels of `new_versions`
///   P:t:T:N:top          string: the highest version `put` stored in (T, N)
///   P:t:T:N:w:ID         hash: task id and index (sortable bytes) -> a pending write record
///   P:run:R              set: (T, N, id) of every checkpoint of run R
///
/// `get_tuple` and `list` are O(log n + results): a ZREVRANGEBYLEX of the ids, an HMGET of
/// the records, then the values and writes of every checkpoint in one pipeline; nothing ever
/// scans the database (no KEYS, no SCAN). A checkpoint with its blobs and indexes, and a
/// task's writes, are written in one MULTI/EXEC each, pipelined (one round trip). `put_changes`
/// stores the checkpoint whole (as `put`). Thread-safe: calls share one connection, one
/// command or pipeline at a time; a broken connection is reopened once per call (see
/// `redis_connection`). Failures throw `superstep::error` (storage_error) naming the server and
/// the command; a record that cannot be read names the thread and checkpoint.
class redis_saver final : public checkpoint_saver {
 public:
  /// Connects to `url` (`redis://[user:password@]host[:port][/db]`, see `redis_url::parse`).
  /// Throws invalid_argument for a bad URL or an empty prefix, storage_error when the server
  /// cannot be reached or refuses the login.
  static std::unique_ptr<redis_saver> open(const std::string& url,
                                           redis_saver_options options = {});
  ~redis_saver() override;
  redis_saver(const redis_saver&) = delete;
  redis_saver& operator=(const redis_saver&) = delete;

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override;
  /// As `memory_saver::put_writes`: HSETNX for a normal write (the first copy stays), HSET for
  /// a special one, in one transaction.
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override;
  /// Every task's writes in one transaction.
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override;
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override;
  /// One GET.
  channel_version latest_version(const checkpoint_config& config) override;
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override;
  /// Removes every key of the thread in one transaction.
  void delete_thread(const std::string& thread_id) override;
  /// COPY of every key of the source thread, in one transaction with the removal of what the
  /// target held.
  void copy_thread(const std::string& source, const std::string& target) override;
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last = 1) override;
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override;
  void delete_writes(const checkpoint_config& config) override;
  /// Reads the runs' sets (P:run:R), not every checkpoint.
  void delete_for_runs(const std::vector<std::string>& run_ids) override;

  /// The server this saver talks to ("host:port"), for messages.
  [[nodiscard]] std::string server() const;

  struct impl;

 private:
  explicit redis_saver(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
