#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"

namespace superstep::storage {

class ttl_sweeper;
class ann_index;

/// A store that keeps everything in process memory (LangGraph `InMemoryStore`). For tests,
/// debugging and single-process runs; nothing survives the process.
///
/// Layout: namespace -> key -> (item, the vectors of its embedded fields, the sequence
/// number of its last put). Searches scan the namespaces under the prefix. Semantic search
/// asks an HNSW index of every item's vectors for candidates and scores them exactly
/// (`index_config::ann`), or, with `ann` false or when the index cannot fill the page,
/// scores every item under the prefix. Timestamps within one store strictly increase, so
/// an overwrite always changes `updated_at` and "newest first" is well defined.
///
/// Thread-safe: reads share a lock, writes (and sweeps) take it alone. The embedder runs
/// outside the lock, so a slow embedding model does not block readers. A read that refreshes
/// TTLs only moves expiry times forward, atomically, so it shares the lock too.
class memory_store final : public store {
 public:
  /// A store without semantic search or TTLs.
  memory_store();
  /// A store without semantic search; throws invalid_argument for a bad `ttl` (see
  /// `store_support::check_ttl_config`). Starts the sweeper if `ttl` has a sweep interval.
  explicit memory_store(ttl_config ttl);
  /// A store with semantic search; throws invalid_argument when `index` has no embedder or
  /// zero dims, or for a bad `ttl`.
  explicit memory_store(index_config index, ttl_config ttl = {});
  /// Stops the sweeper, if any, before anything else goes.
  ~memory_store() override;

  void put(const namespace_path& ns, const std::string& key, value v, put_index index = {},
           put_ttl ttl = {}) override;
  [[nodiscard]] std::optional<item> get(const namespace_path& ns, const std::string& key,
                                        std::optional<bool> refresh_ttl = {}) override;
  void remove(const namespace_path& ns, const std::string& key) override;
  [[nodiscard]] std::vector<item> search(const search_options& options) override;
  [[nodiscard]] std::vector<namespace_path> list_namespaces(
      const list_namespaces_options& options) override;
  std::size_t sweep() override;
  [[nodiscard]] const std::optional<index_config>& index() const noexcept override;

  /// Items in the ANN index of semantic search (0 without one, or with `index_config::ann`
  /// false): those with at least one vector, expired or not. For tests and monitoring.
  [[nodiscard]] std::size_t ann_items() const;

  /// Sets `index_config::ann_ef_search` for later searches: trades recall for latency without
  /// rebuilding the index. No effect without an ANN index; with one, 0 is invalid_argument.
  void set_ann_ef_search(std::size_t ef);

 protected:
  void put_from_batch(const put_op& op) override;

 private:
  // `put` after the check of the reserved root label.
  void store_item(const namespace_path& ns, const std::string& key, value v, put_index index,
                  put_ttl ttl);
  struct entry {
    item it;
    std::vector<std::vector<float>> vectors;
    std::uint64_t seq = 0;
    std::optional<double> ttl_minutes;
    /// Microseconds since the epoch (store_support::never_expires without a TTL); refreshing
    /// reads move it forward under the shared lock.
    mutable std::atomic<long long> expires{0};
  };

  // Moves `e`'s expiry to `now` plus its TTL, if that is later.
  static void refresh(const entry& e, long long now);

  // The ANN pass of a semantic search; nullopt: score every item instead.
  std::optional<std::vector<item>> ann_search(const search_options& options,
                                              const std::vector<float>& query, bool refreshing,
                                              long long now) const;

  std::optional<index_config> index_;
  std::unique_ptr<ann_index> ann_;  // with index_->ann
  ttl_config ttl_;
  mutable std::shared_mutex mutex_;
  std::map<namespace_path, std::map<std::string, entry>> data_;
  std::uint64_t seq_ = 0;
  long long last_micros_ = 0;
  std::unique_ptr<ttl_sweeper> sweeper_;
};

}  // namespace superstep::storage
