#include "store_index_record.hpp"

#include <string>

#include "superstep/core/error.hpp"

namespace superstep::storage {

namespace {

std::string describe(const std::string& embedder, std::int64_t dims, const std::string& distance) {
  return (embedder.empty() ? std::string("an unnamed embedder") : "embedder \"" + embedder + "\"") +
         " with " + std::to_string(dims) + " dimensions and " + distance + " distance";
}

// The distance type a record names: cosine when it has none (a record from before distance
// types, when cosine was the only one).
std::string recorded_distance(const value& record) {
  const value* d = record.find("distance");
  return d ? d->as_string() : distance_type_name(distance_type::cosine);
}

}  // namespace

value store_index_record::read() const {
  std::string bytes;
  const auto s = db_.db().Get(rocksdb::ReadOptions(), db_.store, key, &bytes);
  if (s.IsNotFound()) return value();
  storage::check(s, "read the index record");
  value record = serde_.loads(bytes);
  const value* distance = record.find("distance");
  if (!record.get("embedder").is_string() || !record.get("dims").is_int() ||
      (distance && !distance->is_string()))
    throw error(error_code::storage_error,
                "rocksdb_store: malformed index record (needs embedder and dims, and a distance "
                "that is a string)");
  return record;
}

void store_index_record::check() {
  if (matches_) return;
  const value record = read();
  if (record.is_null()) return;  // the first put with vectors writes it
  const std::string& embedder = record.get("embedder").as_string();
  const std::int64_t dims = record.get("dims").as_int();
  const std::string distance = recorded_distance(record);
  const std::string configured = distance_type_name(index_.distance);
  const bool same_embedder =
      embedder.empty() || index_.embedder_id.empty() || embedder == index_.embedder_id;
  if (!same_embedder || dims != static_cast<std::int64_t>(index_.dims) || distance != configured)
    throw error(
        error_code::invalid_argument,
        "rocksdb_store: the database " + db_.dir() + " was indexed by " +
            describe(embedder, dims, distance) + ", not " +
            describe(index_.embedder_id, static_cast<std::int64_t>(index_.dims), configured) +
            " as this store is configured (its vectors could not be compared, or would be "
            "scored otherwise); open it with that embedder, dims and distance, or use another "
            "database");
  matches_ = true;
}

void store_index_record::add_if_missing(rocksdb::WriteBatch& batch) {
  if (matches_) return;
  check();
  if (matches_) return;
  // Vectors stored before records existed: "u32 count, then count * dims floats".
  std::string lower(1, 'e'), upper(1, 'f'), first;
  {
    range_scan scan(db_, db_.store, rocksdb::ReadOptions(), lower, upper);
    scan->SeekToFirst();
    if (scan->Valid()) first = scan->value().ToString();
    scan.check_status("read the first stored vectors");
  }
  if (first.size() > 4) {
    std::uint32_t count = 0;
    for (int i = 0; i < 4; ++i)
      count |= std::uint32_t(static_cast<unsigned char>(first[i])) << (8 * i);
    const std::size_t floats = (first.size() - 4) / sizeof(float);
    if (count != 0 && floats % count == 0 && floats / count != index_.dims)
      throw error(error_code::invalid_argument,
                  "rocksdb_store: the database " + db_.dir() + " holds vectors of " +
                      std::to_string(floats / count) + " dimensions, not " +
                      std::to_string(index_.dims) + " as this store's index has");
  }
  storage::check(batch.Put(db_.store, key,
                           serde_.dumps(object{{"embedder", index_.embedder_id},
                                               {"dims", static_cast<std::int64_t>(index_.dims)},
                                               {"distance", distance_type_name(index_.distance)}})),
                 "batch");
}

}  // namespace superstep::storage
