#include "superstep/storage/store_rocksdb.hpp"

#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>

#include "ann_index.hpp"
#include "rocksdb_database.hpp"
#include "rocksdb_keys.hpp"
#include "rocksdb_store_ann.hpp"
#include "store_index_record.hpp"
#include "store_sweeper.hpp"
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

// Item records are serialized objects. Format 1 (no "format" field): {"v", "created_at",
// "updated_at", "us"}. Format 2 adds "format": 2 and, for an item with a TTL, "ttl" (minutes)
// and "exp" (microseconds since the epoch when it expires). Fields are only ever added, each
// with a new format number, so older records stay readable; a format 1 record never expires.
constexpr std::int64_t record_format = 2;

struct stored {
  item it;
  long long micros = 0;
  std::optional<double> ttl_minutes;
  long long expires = support::never_expires;
};

value encode_record(const stored& s) {
  object record{{"v", s.it.v},
                {"created_at", s.it.created_at},
                {"updated_at", s.it.updated_at},
                {"us", s.micros},
                {"format", record_format}};
  if (s.ttl_minutes) {
    record.set("ttl", *s.ttl_minutes);
    record.set("exp", s.expires);
  }
  return record;
}

}  // namespace

struct rocksdb_store::impl {
  std::shared_ptr<rocksdb_database> db_owner;  // shared with a saver on the same folder
  rocksdb_database& db;
  rocksdb_store_options options;
  std::shared_ptr<const serializer> serde;
  std::mutex write_mutex;  // read-modify-writes (put, refresh, sweep) and the timestamp clock
  long long last_micros = 0;
  // Keyed by item key ('i'...); logs and follows each write under write_mutex.
  rocksdb_store_ann ann;
  std::unique_ptr<store_index_record> index_record;  // with an index
  std::unique_ptr<ttl_sweeper> sweeper;  // set last by open(), reset first by the destructor

  impl(const std::string& dir, rocksdb_store_options o)
      : db_owner(rocksdb_database::shared(dir, {o.read_only, o.env})),
        db(*db_owner),
        options(std::move(o)),
        serde(options.serde ? options.serde : make_capnp_serializer()),
        ann(db, options.index, options.sync) {}

  stored decode(std::string_view key, std::string_view bytes) const {
    auto [ns, k] = parse_key(key);
    const value record = serde->loads(bytes);
    const auto malformed = [&k = k](const std::string& why) {
      return error(error_code::storage_error,
                   "rocksdb_store: malformed record of item \"" + k + "\": " + why);
    };
    if (!record.is_object() || !record.get("v").is_object() ||
        !record.get("created_at").is_string() || !record.get("updated_at").is_string() ||
        !record.get("us").is_int())
      throw malformed("missing v, created_at, updated_at or us");
    stored out{
        item{std::move(ns), std::move(k), record.get("v"), record.get("created_at").as_string(),
             record.get("updated_at").as_string(), std::nullopt},
        record.get("us").as_int(), std::nullopt, support::never_expires};
    const value* format = record.find("format");
    if (!format) return out;  // format 1
    if (!format->is_int()) throw malformed("format is not an integer");
    if (format->as_int() > record_format)
      throw error(error_code::storage_error,
                  "rocksdb_store: the record of item \"" + out.it.key + "\" has format " +
                      std::to_string(format->as_int()) + ", newer than this build reads (" +
                      std::to_string(record_format) + ")");
    const value* ttl = record.find("ttl");
    const value* exp = record.find("exp");
    if (!ttl && !exp) return out;
    if (!ttl || !exp || !ttl->is_number() || !exp->is_int())
      throw malformed("needs both ttl (a number) and exp (an integer)");
    out.ttl_minutes = ttl->as_double();
    out.expires = exp->as_int();
    return out;
  }

  // Rewrites the records of `targets` (item keys and the "us" their readers saw) with their
  // TTL restarted at `now`, skipping any overwritten, removed or expired since.
  // Read-only: the TTLs are not restarted (a reader beside the writing process).
  void refresh(const std::vector<std::pair<std::string, long long>>& targets, long long now) {
    if (targets.empty() || db.read_only()) return;
    std::lock_guard lock(write_mutex);
    rocksdb::WriteBatch batch;
    for (const auto& [ikey, micros] : targets) {
      std::string bytes;
      const auto s = db.db().Get(rocksdb::ReadOptions(), db.store, ikey, &bytes);
      if (s.IsNotFound()) continue;
      check(s, "refresh ttl");
      stored current = decode(ikey, bytes);
      if (current.micros != micros || !current.ttl_minutes ||
          support::hidden(current.expires, now, options.ttl))
        continue;
      current.expires = support::expiry_micros(now, current.ttl_minutes);
      check(batch.Put(db.store, ikey, serde->dumps(encode_record(current))), "batch");
    }
    if (batch.Count() > 0) db.write(write_options(), batch, "refresh ttl");
  }

  // The ANN index, loaded or built on the first semantic search (see rocksdb_store_ann).
  void ensure_ann() {
    if (ann.made()) return;
    std::lock_guard lock(write_mutex);
    ann.ensure();
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
  support::check_ttl_config(options.ttl);
  std::unique_ptr<rocksdb_store> s(
      new rocksdb_store(std::make_unique<impl>(dir, std::move(options))));
  if (!s->impl_->db.store)
    throw error(error_code::storage_error, "rocksdb_store: " + dir + " has no store yet");
  if (s->impl_->options.index)
    s->impl_->index_record = std::make_unique<store_index_record>(s->impl_->db, *s->impl_->serde,
                                                                  *s->impl_->options.index);
  const auto& ttl = s->impl_->options.ttl;
  if (ttl.sweep_interval) {
    rocksdb_store* self = s.get();
    s->impl_->sweeper = std::make_unique<ttl_sweeper>(
        *ttl.sweep_interval, [self] { return self->sweep(); }, ttl.on_sweep);
  }
  return s;
}

rocksdb_store::rocksdb_store(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}

// The sweeper calls sweep(), so it stops before the database closes; the ANN index may be
// saved before it does.
rocksdb_store::~rocksdb_store() {
  impl_->sweeper.reset();
  std::lock_guard lock(impl_->write_mutex);
  impl_->ann.close();
}

void rocksdb_store::put(const namespace_path& ns, const std::string& key, value v, put_index index,
                        put_ttl ttl) {
  support::check_put_namespace(ns);
  store_item(ns, key, std::move(v), std::move(index), std::move(ttl));
}

void rocksdb_store::put_from_batch(const put_op& op) {
  store_item(op.ns, op.key, op.v, op.index, op.ttl);
}

void rocksdb_store::store_item(const namespace_path& ns, const std::string& key, value v,
                               put_index index, put_ttl ttl) {
  support::check_namespace(ns);
  support::check_item(key, v);
  const auto minutes = ttl.resolve(impl_->options.ttl);
  support::check_ttl(minutes, "the TTL of item \"" + key + "\"");
  const auto& config = impl_->options.index;
  std::vector<std::vector<float>> vectors;
  if (config && index.enabled) {
    const auto& fields = index.fields ? *index.fields : config->fields;
    impl_->index_record->check();  // before the embedder runs (a model's calls cost)
    vectors = support::embed_checked(*config, support::texts_to_embed(v, fields));
  }

  std::lock_guard lock(impl_->write_mutex);
  auto& db = impl_->db;
  const std::string ikey = item_key('i', ns, key), ekey = item_key('e', ns, key);
  const long long now = support::now_micros(impl_->options.ttl);
  const long long micros = std::max(now, impl_->last_micros + 1);
  impl_->last_micros = micros;
  stored record{item{ns, key, std::move(v), support::format_timestamp(micros), {}, std::nullopt},
                micros, minutes, support::expiry_micros(now, minutes)};
  record.it.updated_at = record.it.created_at;
  std::string old;
  const auto s = db.db().Get(rocksdb::ReadOptions(), db.store, ikey, &old);
  if (s.ok()) {
    // An expired item that no sweep has deleted yet is gone all the same.
    auto previous = impl_->decode(ikey, old);
    if (!support::expired(previous.expires, now)) record.it.created_at = previous.it.created_at;
  } else if (!s.IsNotFound()) {
    check(s, "get " + key);
  }
  rocksdb::WriteBatch batch;
  check(batch.Put(db.store, ikey, impl_->serde->dumps(encode_record(record))), "batch");
  if (vectors.empty()) {
    check(batch.Delete(db.store, ekey), "batch");
  } else {
    impl_->index_record->add_if_missing(batch);
    check(batch.Put(db.store, ekey, encode_vectors(vectors)), "batch");
  }
  impl_->ann.log_write(batch, ikey);
  db.write(impl_->write_options(), batch, "put " + key);
  if (!vectors.empty()) impl_->index_record->written();
  impl_->ann.wrote(ikey, vectors);
}

std::optional<item> rocksdb_store::get(const namespace_path& ns, const std::string& key,
                                       std::optional<bool> refresh_ttl) {
  support::check_namespace(ns);
  const std::string ikey = item_key('i', ns, key);
  std::string bytes;
  const auto s = impl_->db.db().Get(rocksdb::ReadOptions(), impl_->db.store, ikey, &bytes);
  if (s.IsNotFound()) return std::nullopt;
  check(s, "get " + key);
  auto found = impl_->decode(ikey, bytes);
  const long long now = support::now_micros(impl_->options.ttl);
  if (support::hidden(found.expires, now, impl_->options.ttl)) return std::nullopt;
  if (found.ttl_minutes && support::refresh_on_read(refresh_ttl, impl_->options.ttl))
    impl_->refresh({{ikey, found.micros}}, now);
  return std::move(found.it);
}

void rocksdb_store::remove(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  std::lock_guard lock(impl_->write_mutex);
  auto& db = impl_->db;
  const std::string ikey = item_key('i', ns, key);
  rocksdb::WriteBatch batch;
  check(batch.Delete(db.store, ikey), "batch");
  check(batch.Delete(db.store, item_key('e', ns, key)), "batch");
  impl_->ann.log_write(batch, ikey);
  db.write(impl_->write_options(), batch, "delete " + key);
  impl_->ann.wrote(ikey, {});
}

std::vector<item> rocksdb_store::search(const search_options& options) {
  support::check_filter(options.filter);
  const auto& config = impl_->options.index;
  const bool semantic = config && support::is_query(options.query);
  std::vector<float> query;
  if (semantic) {
    impl_->index_record->check();
    query = std::move(support::embed_checked(*config, {*options.query}).front());
    impl_->ensure_ann();
  }
  auto& db = impl_->db;
  snapshot_read read(db);
  const long long now = support::now_micros(impl_->options.ttl);
  const bool refreshing = support::refresh_on_read(options.refresh_ttl, impl_->options.ttl);
  if (semantic && impl_->ann.index()) {
    struct candidate {
      double score;
      stored s;
      std::string ikey;
    };
    const std::string under = ns_prefix('i', options.ns_prefix);
    const auto accept = [&](const std::string& ikey) -> std::optional<candidate> {
      if (!ikey.starts_with(under)) return std::nullopt;
      std::string bytes;
      auto st = db.db().Get(read.options, db.store, ikey, &bytes);
      if (st.IsNotFound()) return std::nullopt;
      check(st, "search");
      auto s = impl_->decode(ikey, bytes);
      if (support::hidden(s.expires, now, impl_->options.ttl) ||
          !support::matches_filter(s.it.v, options.filter))
        return std::nullopt;
      std::string ekey = ikey;
      ekey[0] = 'e';
      st = db.db().Get(read.options, db.store, ekey, &bytes);
      if (st.IsNotFound()) return std::nullopt;
      check(st, "search");
      const auto best =
          support::best_similarity(config->distance, query, decode_vectors(bytes, config->dims));
      if (!best) return std::nullopt;
      return candidate{*best, std::move(s), ikey};
    };
    // The exact search's order: score, then newest first, then namespace and key.
    const auto before = [](const candidate& a, const candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.s.micros != b.s.micros) return a.s.micros > b.s.micros;
      return a.ikey < b.ikey;
    };
    if (auto page = ann_page<candidate>(*impl_->ann.index(), query, options, accept, before)) {
      std::vector<std::pair<std::string, long long>> to_refresh;
      std::vector<item> out;
      for (auto& c : *page) {
        if (refreshing && c.s.ttl_minutes) to_refresh.emplace_back(c.ikey, c.s.micros);
        out.push_back(std::move(c.s.it));
        out.back().score = c.score;
      }
      impl_->refresh(to_refresh, now);
      return out;
    }
  }
  std::vector<stored> found;
  {
    const std::string lower = ns_prefix('i', options.ns_prefix);
    std::string upper = lower;
    upper.back() = static_cast<char>(upper.back() + 1);  // 'j', or S(last) with 00 02
    range_scan scan(db, db.store, read.options, lower, upper);
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      auto s = impl_->decode(scan->key().ToStringView(), scan->value().ToStringView());
      if (!support::hidden(s.expires, now, impl_->options.ttl) &&
          support::matches_filter(s.it.v, options.filter))
        found.push_back(std::move(s));
    }
    scan.check_status("search");
  }
  // Newest first, ties by namespace then key (the scan's order, kept by a stable sort).
  std::stable_sort(found.begin(), found.end(),
                   [](const stored& a, const stored& b) { return a.micros > b.micros; });

  std::vector<std::pair<std::string, long long>> to_refresh;
  const auto take = [&](stored& s, std::vector<item>& out) {
    if (refreshing && s.ttl_minutes)
      to_refresh.emplace_back(item_key('i', s.it.ns, s.it.key), s.micros);
    out.push_back(std::move(s.it));
  };

  std::vector<item> out;
  if (!semantic) {
    for (std::size_t i = options.offset; i < found.size() && out.size() < options.limit; ++i)
      take(found[i], out);
    impl_->refresh(to_refresh, now);
    return out;
  }
  // Items with nothing embedded come last, newest first, without a score (LangGraph fills the
  // page with them).
  std::vector<std::pair<std::optional<double>, std::size_t>> scored, unscored;
  for (std::size_t i = 0; i < found.size(); ++i) {
    std::string bytes;
    const auto s =
        db.db().Get(read.options, db.store, item_key('e', found[i].it.ns, found[i].it.key), &bytes);
    if (!s.IsNotFound()) check(s, "search");
    std::optional<double> best;
    if (s.ok())
      best = support::best_similarity(config->distance, query, decode_vectors(bytes, config->dims));
    if (best) {
      scored.emplace_back(best, i);
    } else {
      unscored.emplace_back(std::nullopt, i);
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return *a.first > *b.first; });
  scored.insert(scored.end(), unscored.begin(), unscored.end());
  for (std::size_t i = options.offset; i < scored.size() && out.size() < options.limit; ++i) {
    take(found[scored[i].second], out);
    out.back().score = scored[i].first;
  }
  impl_->refresh(to_refresh, now);
  return out;
}

const std::optional<index_config>& rocksdb_store::index() const noexcept {
  return impl_->options.index;
}

std::size_t rocksdb_store::ann_items() const {
  impl_->ensure_ann();
  return impl_->ann.index() ? impl_->ann.index()->items() : 0;
}

void rocksdb_store::set_ann_ef_search(std::size_t ef) {
  // Under the write mutex: ensure_ann may be replacing the index.
  std::lock_guard lock(impl_->write_mutex);
  impl_->ann.set_ef_search(ef);
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
  const long long now = support::now_micros(impl_->options.ttl);
  std::vector<namespace_path> namespaces;
  for (scan->SeekToFirst(); scan->Valid();) {
    auto ns = parse_key(scan->key().ToStringView()).first;
    // This namespace's own items start with `own`; its children (or the next namespace)
    // follow from `next`.
    std::string own = ns_prefix('i', ns);
    std::string next = own;
    own += ns_end;
    next += std::string_view("\0\x01", 2);
    if (support::matches(ns, options)) {
      // Listed when one of its items has not expired.
      for (; scan->Valid() && scan->key().starts_with(own); scan->Next()) {
        if (!support::hidden(
                impl_->decode(scan->key().ToStringView(), scan->value().ToStringView()).expires,
                now, impl_->options.ttl)) {
          namespaces.push_back(std::move(ns));
          break;
        }
      }
      scan.check_status("list_namespaces");
    }
    scan->Seek(next);
  }
  scan.check_status("list_namespaces");
  return support::finish_list(std::move(namespaces), options);
}

std::size_t rocksdb_store::sweep() {
  auto& db = impl_->db;
  const long long now = support::now_micros(impl_->options.ttl);
  // Find the candidates on a snapshot without blocking writers...
  std::vector<std::string> candidates;
  {
    snapshot_read read(db);
    const std::string lower = ns_prefix('i', {});
    std::string upper = lower;
    upper.back() = static_cast<char>(upper.back() + 1);
    range_scan scan(db, db.store, read.options, lower, upper);
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      const auto key = scan->key().ToStringView();
      if (support::expired(impl_->decode(key, scan->value().ToStringView()).expires, now))
        candidates.emplace_back(key);
    }
    scan.check_status("sweep");
  }
  if (candidates.empty()) return 0;
  // ...then delete those still expired: a put may have renewed one since.
  std::lock_guard lock(impl_->write_mutex);
  rocksdb::WriteBatch batch;
  std::size_t swept = 0;
  std::vector<std::string> deleted;
  for (const auto& ikey : candidates) {
    std::string bytes;
    const auto s = db.db().Get(rocksdb::ReadOptions(), db.store, ikey, &bytes);
    if (s.IsNotFound()) continue;
    check(s, "sweep");
    if (!support::expired(impl_->decode(ikey, bytes).expires, now)) continue;
    std::string ekey = ikey;
    ekey[0] = 'e';
    check(batch.Delete(db.store, ikey), "batch");
    check(batch.Delete(db.store, ekey), "batch");
    impl_->ann.log_write(batch, ikey);
    deleted.push_back(ikey);
    ++swept;
  }
  if (swept > 0) db.write(impl_->write_options(), batch, "sweep");
  for (const auto& ikey : deleted) impl_->ann.wrote(ikey, {});
  return swept;
}

}  // namespace superstep::storage
