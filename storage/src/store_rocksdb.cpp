#include "superstep/storage/store_rocksdb.hpp"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

#include "rocksdb_database.hpp"
#include "rocksdb_keys.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::storage {

namespace support = store_support;

namespace {

constexpr std::string_view ns_end{"\0\0", 2};

std::string ns_prefix(char family, const namespace_path& labels) {
  std::string key(1, family);
  for (const auto& label : labels) keys::append_string(key, label);
  return key;
}

std::string item_key(char family, const namespace_path& ns, const std::string& k) {
  std::string key = ns_prefix(family, ns);
  key += ns_end;
  keys::append_string(key, k);
  return key;
}

// The namespace and key of an item key; throws storage_error when malformed.
std::pair<namespace_path, std::string> parse_key(std::string_view key) {
  namespace_path ns;
  std::size_t pos = 1;
  while (pos + 1 < key.size() && key.substr(pos, 2) != ns_end) {
    auto label = keys::read_string(key, pos);
    if (!label) break;
    ns.push_back(std::move(*label));
  }
  if (key.substr(pos, 2) == ns_end) {
    pos += 2;
    if (auto k = keys::read_string(key, pos); k && pos == key.size())
      return {std::move(ns), std::move(*k)};
  }
  throw error(error_code::storage_error, "rocksdb_store: malformed key in column family store");
}

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

struct stored {
  item it;
  long long micros = 0;
};

}  // namespace

struct rocksdb_store::impl {
  rocksdb_database db;
  rocksdb_store_options options;
  std::shared_ptr<const serializer> serde;
  std::mutex write_mutex;  // put's read-modify-write and the timestamp clock
  long long last_micros = 0;

  impl(const std::string& dir, rocksdb_store_options o)
      : db(dir),
        options(std::move(o)),
        serde(options.serde ? options.serde : make_capnp_serializer()) {}

  stored decode(std::string_view key, std::string_view bytes) const {
    auto [ns, k] = parse_key(key);
    const value record = serde->loads(bytes);
    if (!record.is_object() || !record.get("v").is_object() ||
        !record.get("created_at").is_string() || !record.get("updated_at").is_string() ||
        !record.get("us").is_int())
      throw error(error_code::storage_error,
                  "rocksdb_store: malformed record of item \"" + k + "\"");
    return {item{std::move(ns), std::move(k), record.get("v"), record.get("created_at").as_string(),
                 record.get("updated_at").as_string(), std::nullopt},
            record.get("us").as_int()};
  }

  rocksdb::WriteOptions write_options() const {
    rocksdb::WriteOptions w;
    w.sync = options.sync;
    return w;
  }
};

std::unique_ptr<rocksdb_store> rocksdb_store::open(const std::string& dir,
                                                   rocksdb_store_options options) {
  if (dir.empty()) throw error(error_code::invalid_argument, "rocksdb_store: empty directory");
  if (options.index && (!options.index->embed || options.index->dims == 0))
    throw error(error_code::invalid_argument, "rocksdb_store: index needs embed and dims > 0");
  return std::unique_ptr<rocksdb_store>(
      new rocksdb_store(std::make_unique<impl>(dir, std::move(options))));
}

rocksdb_store::rocksdb_store(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
rocksdb_store::~rocksdb_store() = default;

void rocksdb_store::put(const namespace_path& ns, const std::string& key, value v,
                        put_index index) {
  support::check_namespace(ns);
  support::check_item(key, v);
  const auto& config = impl_->options.index;
  std::vector<std::vector<float>> vectors;
  if (config && index.enabled) {
    const auto& fields = index.fields ? *index.fields : config->fields;
    vectors = support::embed_checked(*config, support::texts_to_embed(v, fields));
  }

  std::lock_guard lock(impl_->write_mutex);
  auto& db = impl_->db;
  const std::string ikey = item_key('i', ns, key), ekey = item_key('e', ns, key);
  const long long micros = std::max(support::now_micros(), impl_->last_micros + 1);
  impl_->last_micros = micros;
  const std::string now = support::format_timestamp(micros);
  std::string created_at = now;
  std::string old;
  const auto s = db.db().Get(rocksdb::ReadOptions(), db.store, ikey, &old);
  if (s.ok()) {
    created_at = impl_->decode(ikey, old).it.created_at;
  } else if (!s.IsNotFound()) {
    check(s, "get " + key);
  }
  const value record =
      object{{"v", std::move(v)}, {"created_at", created_at}, {"updated_at", now}, {"us", micros}};
  rocksdb::WriteBatch batch;
  check(batch.Put(db.store, ikey, impl_->serde->dumps(record)), "batch");
  if (vectors.empty()) {
    check(batch.Delete(db.store, ekey), "batch");
  } else {
    check(batch.Put(db.store, ekey, encode_vectors(vectors)), "batch");
  }
  check(db.db().Write(impl_->write_options(), &batch), "put " + key);
}

std::optional<item> rocksdb_store::get(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  const std::string ikey = item_key('i', ns, key);
  std::string bytes;
  const auto s = impl_->db.db().Get(rocksdb::ReadOptions(), impl_->db.store, ikey, &bytes);
  if (s.IsNotFound()) return std::nullopt;
  check(s, "get " + key);
  return impl_->decode(ikey, bytes).it;
}

void rocksdb_store::remove(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  std::lock_guard lock(impl_->write_mutex);
  auto& db = impl_->db;
  rocksdb::WriteBatch batch;
  check(batch.Delete(db.store, item_key('i', ns, key)), "batch");
  check(batch.Delete(db.store, item_key('e', ns, key)), "batch");
  check(db.db().Write(impl_->write_options(), &batch), "delete " + key);
}

std::vector<item> rocksdb_store::search(const search_options& options) {
  support::check_filter(options.filter);
  const auto& config = impl_->options.index;
  const bool semantic = config && options.query;
  std::vector<float> query;
  if (semantic) query = std::move(support::embed_checked(*config, {*options.query}).front());

  auto& db = impl_->db;
  snapshot_read read(db);
  std::vector<stored> found;
  {
    const std::string lower = ns_prefix('i', options.ns_prefix);
    std::string upper = lower;
    upper.back() = static_cast<char>(upper.back() + 1);  // 'j', or S(last) with 00 02
    range_scan scan(db, db.store, read.options, lower, upper);
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      auto s = impl_->decode(scan->key().ToStringView(), scan->value().ToStringView());
      if (support::matches_filter(s.it.v, options.filter)) found.push_back(std::move(s));
    }
    scan.check_status("search");
  }
  // Newest first, ties by namespace then key (the scan's order, kept by a stable sort).
  std::stable_sort(found.begin(), found.end(),
                   [](const stored& a, const stored& b) { return a.micros > b.micros; });

  std::vector<item> out;
  if (!semantic) {
    for (std::size_t i = options.offset; i < found.size() && out.size() < options.limit; ++i)
      out.push_back(std::move(found[i].it));
    return out;
  }
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t i = 0; i < found.size(); ++i) {
    std::string bytes;
    const auto s =
        db.db().Get(read.options, db.store, item_key('e', found[i].it.ns, found[i].it.key), &bytes);
    if (s.IsNotFound()) continue;
    check(s, "search");
    double best = -2;
    for (const auto& vec : decode_vectors(bytes, config->dims))
      best = std::max(best, support::cosine(query, vec));
    if (best > -2) scored.emplace_back(best, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = options.offset; i < scored.size() && out.size() < options.limit; ++i) {
    out.push_back(std::move(found[scored[i].second].it));
    out.back().score = scored[i].first;
  }
  return out;
}

std::vector<namespace_path> rocksdb_store::list_namespaces(const list_namespaces_options& options) {
  // Scan under the prefix's leading labels before any wildcard.
  namespace_path fixed;
  for (const auto& label : options.prefix) {
    if (label == "*") break;
    fixed.push_back(label);
  }
  auto& db = impl_->db;
  snapshot_read read(db);
  const std::string lower = ns_prefix('i', fixed);
  std::string upper = lower;
  upper.back() = static_cast<char>(upper.back() + 1);
  range_scan scan(db, db.store, read.options, lower, upper);
  std::vector<namespace_path> namespaces;
  for (scan->SeekToFirst(); scan->Valid();) {
    auto ns = parse_key(scan->key().ToStringView()).first;
    // Past this namespace's own items: its children (or the next namespace) follow.
    std::string next = ns_prefix('i', ns);
    next += std::string_view("\0\x01", 2);
    if (support::matches(ns, options)) namespaces.push_back(std::move(ns));
    scan->Seek(next);
  }
  scan.check_status("list_namespaces");
  return support::finish_list(std::move(namespaces), options);
}

}  // namespace superstep::storage
