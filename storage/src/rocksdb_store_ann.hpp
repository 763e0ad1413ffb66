#pragma once

// The ANN index of a rocksdb_store and its saved copy in the database. Private to the storage
// library.

#include <rocksdb/write_batch.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ann_index.hpp"
#include "rocksdb_database.hpp"

namespace superstep::storage {

/// The vectors record of an item: u32 count (little-endian), then count * dims f32 (native).
std::string encode_vectors(const std::vector<std::vector<float>>& vectors);
/// The vectors of a record; throws storage_error unless they have `dims` components.
std::vector<std::vector<float>> decode_vectors(std::string_view bytes, std::size_t dims);

/// The HNSW index of a rocksdb_store's vectors. It lives in memory and is made the first time
/// a semantic search needs it (opening a store, as every `superstep` command does, stays
/// cheap): loaded from the copy saved in the database, or built from the stored vectors by
/// several threads and then saved, so that the next process loads it instead.
///
/// A saved copy stays right across writes through a change log: while the database holds one,
/// every write that changes or removes an item's vectors also writes a 'c' key for the item
/// in the same batch (`log_write`), whatever the writing store's index configuration. Loading
/// gives the logged items their current vectors; saving clears the log. A copy is saved again
/// at close once enough items changed, and not used when the index configuration (dims,
/// ann_m, ann_ef_construction) differs. Keys in the store column family:
///
///   change log   'c' S(label)... 00 00 S(key)   -> empty
///   saved copy   'a'                           -> u64 format, generation, bytes, chunks
///                'x' U(generation) U(chunk)    -> up to 1 MiB of ann_index::save's bytes
///
/// Assumes one rocksdb_store per database in a process: another's writes would not reach this
/// index. Not thread-safe: the store calls it under its write mutex, except `index`.
class rocksdb_store_ann {
 public:
  /// Without `index`, or with `index->ann` false, there is no index; writes are still logged.
  rocksdb_store_ann(rocksdb_database& db, const std::optional<index_config>& index, bool sync);
  ~rocksdb_store_ann();
  rocksdb_store_ann(const rocksdb_store_ann&) = delete;
  rocksdb_store_ann& operator=(const rocksdb_store_ann&) = delete;

  /// Adds the change-log entry of item `ikey` (its 'i' key) to `batch` when the database holds
  /// a saved copy.
  void log_write(rocksdb::WriteBatch& batch, std::string_view ikey);
  /// Keeps a made index in step with a write that landed: `vectors` are the item's (none: it
  /// has none or is gone).
  void wrote(const std::string& ikey, const std::vector<std::vector<float>>& vectors);
  /// Loads or builds the index unless that is done; throws storage_error (a failed save
  /// included, after which the index is made all the same).
  void ensure();
  /// Sets `index_config::ann_ef_search`, for an index made later too; no effect without an
  /// index, invalid_argument for 0.
  void set_ef_search(std::size_t ef);
  /// Whether `ensure` has made the index. Thread-safe.
  [[nodiscard]] bool made() const noexcept { return made_; }
  /// The index (null without one), searchable once `ensure` returned. Thread-safe.
  [[nodiscard]] ann_index* index() const { return index_.get(); }
  /// Saves the index if made and changed much since its saved copy. Never throws (the
  /// store's destructor calls it): a copy that cannot be saved is built again next time.
  void close() noexcept;

 private:
  // Whether the saved copy (header at 'a') could be loaded; applies the change log to it.
  bool load();
  void build();
  void save();

  rocksdb_database& db_;
  std::optional<index_config> config_;  // with an index
  std::unique_ptr<ann_index> index_;
  bool sync_;
  std::atomic<bool> made_{false};  // loaded or built
  bool saved_copy_;                // the database holds a saved copy (so writes are logged)
  std::uint64_t generation_ = 0;
  std::size_t changed_ = 0;  // items changed since the saved copy (an upper bound)
};

}  // namespace superstep::storage
