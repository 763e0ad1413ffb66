#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/storage/redis_client.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

/// How `redis_store::open` sets up a store.
struct redis_store_options {
  /// Semantic search; nullopt: none. The first vector stored records the index's
  /// embedder_id, dims and distance type (key P:index); a put or query through another
  /// throws invalid_argument naming both, as a rocksdb_store does.
  std::optional<index_config> index;
  /// Turns item records into bytes; null: `make_capnp_serializer()`.
  std::shared_ptr<const serializer> serde;
  /// Expiry of items; the sweeper thread, if configured, starts with the store.
  ttl_config ttl;
  /// Every key starts with this and ':'. Must not be empty.
  std::string prefix = "superstep";
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{10000};
};

/// The long-term store on a Redis server, with memory_store's semantics (the store
/// conformance suites hold for it).
///
/// Keys (P the prefix; NS a namespace's labels joined by '.', which no label contains; '%'
/// and ':' in NS and K escaped as %25 and %3A):
///
///   P:namespaces      sorted set: every namespace that has items, each label as bytes that
///                     keep prefixes contiguous (a prefix search is one ZRANGEBYLEX)
///   P:ns:NS           sorted set: the keys of the namespace's items, scored by when each
///                     expires (microseconds; +inf: never)
///   P:item:NS:K       hash: "rec" (the item: value, timestamps, TTL, expiry, by the
///                     serializer) and "vec" (its vectors: float32s, dims per vector)
///   P:index           what made the vectors (embedder id, dims, distance)
///
/// A put writes the item and its indexes in one MULTI/EXEC; a remove is one Lua script.
/// Search reads the namespaces under its prefix, their live keys and then the records, in
/// three pipelined round trips, and orders, filters and pages as memory_store does. Semantic
/// search scores every item under the prefix exactly (no ANN index: `index_config::ann` is
/// ignored).
///
/// TTL: an item's expiry is kept in its record and its namespace's scores, so reads hide
/// expired items at once and `sweep` deletes them. When the store runs on the system clock
/// (no `ttl_config::clock`), each item key also gets a Redis expiry (PEXPIREAT) at the same
/// moment, moved by refreshing reads: Redis drops expired items by itself, and a sweep only
/// clears their index entries. With an injected clock, only sweeps delete.
///
/// Thread-safe: writes of this store are serialized by a mutex (a put keeps created_at, a
/// read-modify-write); several processes may share a server, with last-writer-wins puts.
class redis_store final : public store {
 public:
  /// Connects to `url` (see `redis_url::parse`). Throws invalid_argument for a bad URL, an
  /// empty prefix, a bad index or TTL configuration; storage_error when the server cannot be
  /// reached.
  static std::unique_ptr<redis_store> open(const std::string& url,
                                           redis_store_options options = {});
  /// Stops the sweeper, if any.
  ~redis_store() override;
  redis_store(const redis_store&) = delete;
  redis_store& operator=(const redis_store&) = delete;

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

  struct impl;

 protected:
  void put_from_batch(const put_op& op) override;

 private:
  void store_item(const namespace_path& ns, const std::string& key, value v, put_index index,
                  put_ttl ttl);
  explicit redis_store(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
