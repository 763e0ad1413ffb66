#include "rocksdb_store_ann.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "rocksdb_keys.hpp"
#include "superstep/core/error.hpp"

namespace superstep::storage {

namespace {

const std::string header_key = "a";
constexpr std::uint64_t header_format = 1;
constexpr std::size_t chunk_bytes = std::size_t(1) << 20;
constexpr std::size_t chunks_per_batch = 16;
// Items changed since the saved copy after which closing saves it again: a load gives each
// logged item its vectors again, a point insertion (about a millisecond at 10^5 items).
constexpr std::size_t resave_after = 1000;
// Items read from the database, then added to the index from several threads, at a time.
constexpr std::size_t build_batch = 4096;

struct header {
  std::uint64_t generation = 0, bytes = 0, chunks = 0, items = 0;
};

std::string encode_header(const header& h) {
  std::string out;
  for (std::uint64_t x : {header_format, h.generation, h.bytes, h.chunks, h.items})
    out.append(reinterpret_cast<const char*>(&x), sizeof x);
  return out;
}

std::optional<header> decode_header(std::string_view bytes) {
  std::uint64_t x[5];
  if (bytes.size() != sizeof x) return std::nullopt;
  std::memcpy(x, bytes.data(), sizeof x);
  if (x[0] != header_format) return std::nullopt;
  return header{x[1], x[2], x[3], x[4]};
}

std::string chunk_key(std::uint64_t generation, std::uint64_t chunk) {
  std::string key = "x";
  keys::append_u64(key, generation);
  keys::append_u64(key, chunk);
  return key;
}

// The key of the same item in another family ('i' record, 'e' vectors, 'c' change log).
std::string in_family(std::string_view key, char family) {
  std::string out(key);
  out[0] = family;
  return out;
}

}  // namespace

std::string encode_vectors(const std::vector<std::vector<float>>& vectors) {
  std::string out;
  const auto count = static_cast<std::uint32_t>(vectors.size());
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<char>(count >> shift));
  for (const auto& vec : vectors)
    out.append(reinterpret_cast<const char*>(vec.data()), vec.size() * sizeof(float));
  return out;
}

std::vector<std::vector<float>> decode_vectors(std::string_view bytes, std::size_t dims) {
  std::uint32_t count = 0;
  for (int i = 0; i < 4 && i < static_cast<int>(bytes.size()); ++i)
    count |= std::uint32_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  if (bytes.size() != 4 + std::size_t(count) * dims * sizeof(float))
    throw error(
        error_code::storage_error,
        "rocksdb_store: stored vectors do not have the index's dimension " + std::to_string(dims));
  std::vector<std::vector<float>> out(count, std::vector<float>(dims));
  for (std::uint32_t i = 0; i < count; ++i)
    std::memcpy(out[i].data(), bytes.data() + 4 + i * dims * sizeof(float), dims * sizeof(float));
  return out;
}

rocksdb_store_ann::rocksdb_store_ann(rocksdb_database& db, const std::optional<index_config>& index,
                                     bool sync)
    : db_(db), sync_(sync) {
  std::string bytes;
  const auto s = db_.db().Get(rocksdb::ReadOptions(), db_.store, header_key, &bytes);
  if (!s.IsNotFound()) check(s, "read the saved ANN index");
  saved_copy_ = s.ok();
  if (const auto h = saved_copy_ ? decode_header(bytes) : std::nullopt) generation_ = h->generation;
  if (uses_ann(index)) {
    config_ = *index;
    index_ = std::make_unique<ann_index>(*config_);
  }
}

rocksdb_store_ann::~rocksdb_store_ann() = default;

void rocksdb_store_ann::log_write(rocksdb::WriteBatch& batch, std::string_view ikey) {
  if (!saved_copy_) return;
  check(batch.Put(db_.store, in_family(ikey, 'c'), ""), "batch");
  ++changed_;
}

void rocksdb_store_ann::wrote(const std::string& ikey,
                              const std::vector<std::vector<float>>& vectors) {
  if (!made_) return;
  if (vectors.empty()) {
    index_->remove(ikey);
  } else {
    index_->set(ikey, vectors);
  }
}

void rocksdb_store_ann::set_ef_search(std::size_t ef) {
  if (!index_) return;
  index_->set_ef_search(ef);
  config_->ann_ef_search = ef;
}

void rocksdb_store_ann::ensure() {
  if (!index_ || made_) return;
  if (saved_copy_ && load()) {
    made_ = true;
    return;
  }
  build();
  made_ = true;
  save();
}

bool rocksdb_store_ann::load() {
  snapshot_read read(db_);
  std::string bytes;
  const auto s = db_.db().Get(read.options, db_.store, header_key, &bytes);
  if (s.IsNotFound()) return false;
  check(s, "read the saved ANN index");
  const auto h = decode_header(bytes);
  if (!h) return false;
  std::vector<std::string> changed;
  {
    range_scan scan(db_, db_.store, read.options, "c", "d");
    for (scan->SeekToFirst(); scan->Valid(); scan->Next())
      changed.push_back(in_family(scan->key().ToStringView(), 'i'));
    scan.check_status("read the ANN change log");
  }
  // Giving a quarter of the items their vectors again takes about as long as building.
  if (changed.size() > h->items / 4) return false;
  std::string saved;
  saved.reserve(h->bytes);
  {
    range_scan scan(db_, db_.store, read.options, chunk_key(h->generation, 0),
                    chunk_key(h->generation + 1, 0));
    std::uint64_t n = 0;
    for (scan->SeekToFirst(); scan->Valid(); scan->Next(), ++n) {
      if (scan->key() != chunk_key(h->generation, n)) return false;
      saved.append(scan->value().data(), scan->value().size());
    }
    scan.check_status("read the saved ANN index");
    if (n != h->chunks || saved.size() != h->bytes) return false;
  }
  if (!index_->load(saved)) return false;
  for (const auto& ikey : changed) {
    const auto found = db_.db().Get(read.options, db_.store, in_family(ikey, 'e'), &bytes);
    if (found.IsNotFound()) {
      index_->remove(ikey);
      continue;
    }
    check(found, "read the vectors of a changed item");
    index_->set(ikey, decode_vectors(bytes, config_->dims));
  }
  changed_ = changed.size();
  return true;
}

// Reads the stored vectors a batch at a time (they need not all be in memory twice) and adds
// each batch from several threads, into a new index: a failed load may have filled the old.
void rocksdb_store_ann::build() {
  index_ = std::make_unique<ann_index>(*config_);
  const std::size_t threads = config_->ann_build_threads
                                  ? config_->ann_build_threads
                                  : std::max(1u, std::thread::hardware_concurrency());
  snapshot_read read(db_);
  range_scan scan(db_, db_.store, read.options, "e", "f");
  std::vector<std::pair<std::string, std::vector<std::vector<float>>>> batch;
  for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
    batch.emplace_back(in_family(scan->key().ToStringView(), 'i'),
                       decode_vectors(scan->value().ToStringView(), config_->dims));
    if (batch.size() == build_batch) {
      index_->set_many(batch, threads);
      batch.clear();
    }
  }
  scan.check_status("build the ANN index");
  index_->set_many(batch, threads);
}

// Writes the copy under a new generation, then, in one batch, the header that points to it,
// with the change log and every other generation deleted: a crash before that batch leaves
// the previous copy and its log whole.
void rocksdb_store_ann::save() {
  if (db_.read_only()) return;  // the index built here lives in memory only
  const std::string bytes = index_->save();
  const header h{generation_ + 1, bytes.size(), (bytes.size() + chunk_bytes - 1) / chunk_bytes,
                 index_->items()};
  rocksdb::WriteBatch batch;
  for (std::uint64_t c = 0; c < h.chunks; ++c) {
    const auto chunk = std::string_view(bytes).substr(c * chunk_bytes, chunk_bytes);
    check(batch.Put(db_.store, chunk_key(h.generation, c), chunk), "batch");
    if ((c + 1) % chunks_per_batch == 0) {
      db_.write(rocksdb::WriteOptions(), batch, "save the ANN index");
      batch.Clear();
    }
  }
  check(batch.Put(db_.store, header_key, encode_header(h)), "batch");
  check(batch.DeleteRange(db_.store, "c", "d"), "batch");
  check(batch.DeleteRange(db_.store, "x", chunk_key(h.generation, 0)), "batch");
  check(batch.DeleteRange(db_.store, chunk_key(h.generation, h.chunks), "y"), "batch");
  rocksdb::WriteOptions last;
  last.sync = sync_;
  db_.write(last, batch, "save the ANN index");
  generation_ = h.generation;
  saved_copy_ = true;
  changed_ = 0;
}

void rocksdb_store_ann::close() noexcept {
  if (!made_ || (saved_copy_ && changed_ < resave_after)) return;
  try {
    save();
  } catch (...) {
    // Deliberately dropped: the next process applies the change log to the older copy or, if
    // there is none, builds the index again.
  }
}

}  // namespace superstep::storage
