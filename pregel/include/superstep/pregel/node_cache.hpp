#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// How a node's results are cached (LangGraph `CachePolicy`): a task of the node whose input
/// has the key of an entry still alive does not run; its writes come from the cache and its
/// `updates` event carries `"__metadata__": {"cached": true}`.
struct cache_policy {
  /// The cache key of a task's input. Null: the input's JSON (LangGraph hashes the pickled
  /// input).
  std::function<std::string(const value& input)> key_func = nullptr;
  /// Seconds an entry lives (LangGraph `ttl`); none: until the cache is cleared.
  std::optional<std::int64_t> ttl = std::nullopt;

  /// The key of `input` under this policy.
  std::string key(const value& input) const { return key_func ? key_func(input) : input.to_json(); }
};

/// Where cached task writes live (LangGraph `BaseCache`), shared by every run of the graphs
/// compiled with it. Entries are grouped by namespace: the graph's are
/// {"__pregel_ns_writes", node name}. Implementations are thread-safe.
class node_cache {
 public:
  using writes = std::vector<std::pair<std::string, value>>;
  using cache_namespace = std::vector<std::string>;

  virtual ~node_cache() = default;
  /// The writes stored under `key` in `ns`, unless absent or expired.
  virtual std::optional<writes> get(const cache_namespace& ns, const std::string& key) = 0;
  /// Stores `w` under `key` in `ns` for `ttl_seconds` (none: no expiry).
  virtual void set(const cache_namespace& ns, const std::string& key, writes w,
                   std::optional<std::int64_t> ttl_seconds) = 0;
  /// Drops every entry of each namespace of `namespaces`, or of all when it is null.
  virtual void clear(const std::vector<cache_namespace>* namespaces) = 0;
};

/// A node_cache in memory (LangGraph `InMemoryCache`). Thread-safe.
class memory_cache final : public node_cache {
 public:
  std::optional<writes> get(const cache_namespace& ns, const std::string& key) override;
  void set(const cache_namespace& ns, const std::string& key, writes w,
           std::optional<std::int64_t> ttl_seconds) override;
  void clear(const std::vector<cache_namespace>* namespaces) override;

 private:
  struct entry {
    writes w;
    std::optional<std::chrono::steady_clock::time_point> expiry;
  };
  std::mutex m_;
  std::map<cache_namespace, std::map<std::string, entry>> entries_;
};

}  // namespace superstep
