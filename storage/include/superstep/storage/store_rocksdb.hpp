#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/storage/serializer.hpp"

namespace rocksdb {
class Env;
}

namespace superstep::storage {

/// How `rocksdb_store::open` sets up a store.
struct rocksdb_store_options {
  /// Semantic search; nullopt: none. A database keeps the vectors it was written with and
  /// records the embedder id, dims and distance type of the first: a put or a query through
  /// an index with another id, dims or distance type throws invalid_argument naming both
  /// (opening, gets, lists and searches without a query still work). Databases from before
  /// distance types were recorded are cosine ones.
  std::optional<index_config> index;
  /// Turns item records into bytes; null: `make_capnp_serializer()`.
  std::shared_ptr<const serializer> serde;
  /// True: every write is flushed to disk (fsync) before it returns.
  bool sync = true;
  /// Expiry of items; the sweeper thread, if configured, starts with the store.
  ttl_config ttl;
  /// Open the database read-only: nothing is written and the folder's lock is not taken, so
  /// it reads beside a process that writes to it (as of opening). It must exist; writes
  /// throw storage_error, reads do not restart TTLs, and the ANN index a search builds is
  /// not saved.
  bool read_only = false;
  /// The RocksDB environment to run on (tests inject one whose writes fail); nullptr: the
  /// default. It must outlive the database.
  rocksdb::Env* env = nullptr;
};

/// A store in the `store` column family of an embedded RocksDB database (the directory of a
/// `rocksdb_saver`'s database, opened by this object: one process opens a directory once, so
/// a saver and a store on the same directory need separate processes for now).
///
/// Keys (storage/src/rocksdb_keys.hpp's S(x) encoding, then NUL NUL to end the namespace):
///
///   item     'i' S(label)... 00 00 S(key)  -> record {"v", "created_at", "updated_at", "us",
///                                             "format": 2, with a TTL "ttl" and "exp"}
///   vectors  'e' S(label)... 00 00 S(key)  -> u32 count (little-endian), then count * dims f32
///   (native order)
///   index    "mindex"                      -> record {"embedder", "dims", "distance"}: what
///                                             made the vectors and how they compare
///                                             (index_config::embedder_id, dims, distance)
///   the saved HNSW index and its change log: 'a', 'x' and 'c' keys (storage/src/
///   rocksdb_store_ann.hpp)
///
/// A namespace prefix is one range scan, a namespace's own items come before its children's,
/// and `list_namespaces` skips over each namespace's items with one seek. A put writes the
/// item and its vectors in one atomic batch. Search semantics are memory_store's: semantic search
/// asks an in-memory HNSW index for candidates and scores them exactly from their stored
/// vectors (or scores every item, see `index_config::ann`). The first semantic search in a
/// process makes the index: it loads the copy saved in the database, bringing it up to date
/// with the items written since, or builds it from the stored vectors (in time proportional
/// to their number, on `index_config::ann_build_threads` threads) and saves it. Closing saves
/// it again once many items changed. Thread-safe: writes are serialized by a mutex (put keeps
/// created_at, a read-modify-write); reads run on RocksDB snapshots without it. Open one
/// store per database in a process: one store's index does not see another's writes.
///
/// An item's TTL ("ttl", minutes) and expiry ("exp", microseconds since the epoch) live in its
/// record, so they survive reopening; records written before TTLs (no "format") never
/// expire. A read that refreshes TTLs rewrites the records it returns (under the write
/// mutex); `sweep` scans every item record.
class rocksdb_store final : public store {
 public:
  /// Opens (creating as needed) the database in `dir`. Throws storage_error naming `dir`
  /// when RocksDB cannot open it, invalid_argument for an empty dir, a bad index or a bad
  /// TTL configuration.
  static std::unique_ptr<rocksdb_store> open(const std::string& dir,
                                             rocksdb_store_options options = {});
  /// Stops the sweeper, if any, saves the ANN index if it changed much since its saved copy,
  /// then closes the database.
  ~rocksdb_store() override;
  rocksdb_store(const rocksdb_store&) = delete;
  rocksdb_store& operator=(const rocksdb_store&) = delete;

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

  struct impl;

 protected:
  void put_from_batch(const put_op& op) override;

 private:
  // `put` after the check of the reserved root label.
  void store_item(const namespace_path& ns, const std::string& key, value v, put_index index,
                  put_ttl ttl);
  explicit rocksdb_store(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
