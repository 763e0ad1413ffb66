#pragma once

// What made a rocksdb_store's vectors and how they compare, recorded beside them: vectors of
// another embedder or another dimension cannot be compared with them, and scores of another
// distance type would not order with theirs (nor would the saved ANN index answer), so a
// store opened with a different index must fail clearly instead of mixing them.

#include <rocksdb/write_batch.h>

#include <atomic>
#include <string_view>

#include "rocksdb_database.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage {

/// The record {"embedder": index_config::embedder_id, "dims": index_config::dims,
/// "distance": the name of index_config::distance} at key `store_index_record::key` of the
/// `store` column family, written in the batch of the first put that stores vectors and never
/// rewritten. A record without "distance" (written before distance types) is a cosine one.
///
/// The store checks it before it embeds (a put's fields, a query), not when it opens: a
/// database indexed by one embedder still opens, lists and gets under any other. Thread-safe.
class store_index_record {
 public:
  /// Outside the item ('i') and vector ('e') ranges, so no scan meets it.
  static constexpr std::string_view key = "mindex";

  /// `db`, `serde` and `index` must outlive this object.
  store_index_record(const rocksdb_database& db, const serializer& serde, const index_config& index)
      : db_(db), serde_(serde), index_(index) {}

  /// Throws invalid_argument naming both indexes when the database records another one.
  /// Once the record matched, it costs an atomic load.
  void check();

  /// Before a put that stores vectors, under the store's write mutex: adds the record to
  /// `batch` when the database has none yet, after checking that vectors stored before
  /// records existed have this index's dimension; throws as `check` does otherwise. Call
  /// `written` once the batch is written.
  void add_if_missing(rocksdb::WriteBatch& batch);
  void written() noexcept { matches_ = true; }

 private:
  // The record, or null when the database has none.
  value read() const;

  const rocksdb_database& db_;
  const serializer& serde_;
  const index_config& index_;
  std::atomic<bool> matches_{false};
};

}  // namespace superstep::storage
