#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "superstep/storage/store.hpp"

namespace superstep::storage {

/// A store that keeps everything in process memory (LangGraph `InMemoryStore`). For tests,
/// debugging and single-process runs; nothing survives the process.
///
/// Layout: namespace -> key -> (item, the vectors of its embedded fields, the sequence
/// number of its last put). Searches scan the namespaces under the prefix; semantic search
/// is exact (cosine against every vector). Timestamps within one store strictly increase, so
/// an overwrite always changes `updated_at` and "newest first" is well defined.
///
/// Thread-safe: reads share a lock, writes take it alone. The embedder runs outside the
/// lock, so a slow embedding model does not block readers.
class memory_store final : public store {
 public:
  /// A store without semantic search.
  memory_store() = default;
  /// A store with semantic search; throws invalid_argument when `index` has no embedder or
  /// zero dims.
  explicit memory_store(index_config index);

  void put(const namespace_path& ns, const std::string& key, value v,
           put_index index = {}) override;
  [[nodiscard]] std::optional<item> get(const namespace_path& ns, const std::string& key) override;
  void remove(const namespace_path& ns, const std::string& key) override;
  [[nodiscard]] std::vector<item> search(const search_options& options) override;
  [[nodiscard]] std::vector<namespace_path> list_namespaces(
      const list_namespaces_options& options) override;

 private:
  struct entry {
    item it;
    std::vector<std::vector<float>> vectors;
    std::uint64_t seq = 0;
  };

  std::optional<index_config> index_;
  mutable std::shared_mutex mutex_;
  std::map<namespace_path, std::map<std::string, entry>> data_;
  std::uint64_t seq_ = 0;
  long long last_micros_ = 0;
};

}  // namespace superstep::storage
