#include "superstep/storage/redis_store.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "rocksdb_keys.hpp"
#include "store_sweeper.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::storage {

namespace support = store_support;

namespace {

constexpr const char* store_name = "redis_store";

std::string enc(std::string_view part) { return redis_key_part(part); }

std::string joined(const namespace_path& ns) {
  std::string out;
  for (const auto& label : ns) {
    if (!out.empty()) out += '.';
    out += label;
  }
  return out;
}

// A namespace as a member of P:namespaces: S(label)... (every prefix of labels a byte prefix).
std::string ns_member(const namespace_path& ns) {
  std::string out;
  for (const auto& label : ns) keys::append_string(out, label);
  return out;
}

namespace_path parse_ns_member(std::string_view member) {
  namespace_path ns;
  std::size_t pos = 0;
  while (pos < member.size()) {
    auto label = keys::read_string(member, pos);
    if (!label)
      throw error(error_code::storage_error,
                  std::string(store_name) + ": a damaged namespace in the namespace index");
    ns.push_back(std::move(*label));
  }
  return ns;
}

// The score of an expiry: +inf for never.
std::string score_of(long long expires) {
  return expires == support::never_expires ? "+inf" : std::to_string(expires);
}

// Removes an item and its index entry, and the namespace's when it was the last one.
constexpr const char* remove_script =
    "redis.call('DEL', KEYS[1]) "
    "redis.call('ZREM', KEYS[2], ARGV[1]) "
    "if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('ZREM', KEYS[3], ARGV[2]) end "
    "return 0";

// An item as read back: the item, its TTL and expiry, its put time and vectors.
struct stored_item {
  item it;
  std::optional<double> ttl;
  long long expires = support::never_expires;
  long long micros = 0;
  std::vector<std::vector<float>> vectors;
};

}  // namespace

struct redis_store::impl {
  impl(redis_options connection, redis_store_options o)
      : conn(std::move(connection)),
        serde(o.serde ? std::move(o.serde) : make_capnp_serializer()),
        prefix(std::move(o.prefix)),
        index(std::move(o.index)),
        ttl(std::move(o.ttl)) {
    conn.set_owner(store_name);
  }

  std::string namespaces() const { return prefix + ":namespaces"; }
  std::string ns_key(const namespace_path& ns) const { return prefix + ":ns:" + enc(joined(ns)); }
  std::string item_key(const namespace_path& ns, const std::string& key) const {
    return prefix + ":item:" + enc(joined(ns)) + ":" + enc(key);
  }
  std::string index_key() const { return prefix + ":index"; }

  std::string encode(const stored_item& s) const {
    object rec{{"v", s.it.v},
               {"created_at", s.it.created_at},
               {"updated_at", s.it.updated_at},
               {"us", static_cast<std::int64_t>(s.micros)},
               {"exp", static_cast<std::int64_t>(s.expires)}};
    rec.set("ttl", s.ttl ? value(*s.ttl) : value());
    return serde->dumps(value(std::move(rec)));
  }

  std::string encode_vectors(const std::vector<std::vector<float>>& vectors) const {
    std::string out;
    for (const auto& v : vectors)
      out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
    return out;
  }

  stored_item decode(const namespace_path& ns, const std::string& key, const std::string& rec,
                     const std::string* vec) const {
    stored_item s;
    try {
      const value v = serde->loads(rec);
      const auto field = [&](const char* name) -> const value& {
        const value* f = v.find(name);
        if (!f) throw error(error_code::storage_error, std::string("no field '") + name + "'");
        return *f;
      };
      s.it.ns = ns;
      s.it.key = key;
      s.it.v = field("v");
      s.it.created_at = field("created_at").as_string();
      s.it.updated_at = field("updated_at").as_string();
      s.micros = field("us").as_int();
      s.expires = field("exp").as_int();
      if (const value& t = field("ttl"); !t.is_null()) s.ttl = t.as_double();
    } catch (const std::exception& e) {
      throw error(error_code::storage_error, std::string(store_name) + ": cannot read item '" +
                                                 key + "' of namespace '" + joined(ns) +
                                                 "': " + e.what());
    }
    if (vec && !vec->empty() && index) {
      const std::size_t width = index->dims * sizeof(float);
      if (vec->size() % width != 0)
        throw error(error_code::storage_error,
                    std::string(store_name) + ": the vectors of item '" + key + "' of namespace '" +
                        joined(ns) + "' are not of " + std::to_string(index->dims) + " dimensions");
      for (std::size_t at = 0; at < vec->size(); at += width) {
        std::vector<float> v(index->dims);
        std::memcpy(v.data(), vec->data() + at, width);
        s.vectors.push_back(std::move(v));
      }
    }
    return s;
  }

  // Sets or clears the Redis expiry of an item key (system clock only).
  void expiry_command(const std::string& key, long long expires,
                      std::vector<redis_command>& cmds) const {
    if (ttl.clock) return;
    if (expires == support::never_expires)
      cmds.push_back({"PERSIST", key});
    else
      cmds.push_back({"PEXPIREAT", key, std::to_string(expires / 1000 + 1)});
  }

  // Checks (and on the first vector, records) what made the vectors.
  void check_index() {
    if (!index || index_matches) return;
    const value mine(object{{"embedder", index->embedder_id},
                            {"dims", static_cast<std::int64_t>(index->dims)},
                            {"distance", distance_type_name(index->distance)}});
    auto r = conn.command({"SET", index_key(), serde->dumps(mine), "NX", "GET"});
    if (!r.is_nil()) {
      const value theirs = serde->loads(r.str);
      if (theirs != mine)
        throw error(error_code::invalid_argument,
                    std::string(store_name) + ": the store's vectors were made by " +
                        theirs.to_json() + ", not by this index's " + mine.to_json());
    }
    index_matches = true;
  }

  // Makes the refreshes of `items` (those with a TTL) that a read asked for.
  void refresh(std::vector<stored_item*>& items, long long now) {
    std::vector<redis_command> cmds;
    for (stored_item* s : items) {
      if (!s->ttl) continue;
      const long long target = support::expiry_micros(now, s->ttl);
      if (target <= s->expires) continue;
      s->expires = target;
      const std::string key = item_key(s->it.ns, s->it.key);
      cmds.push_back({"HSET", key, "rec", encode(*s)});
      cmds.push_back({"ZADD", ns_key(s->it.ns), "XX", score_of(target), s->it.key});
      expiry_command(key, target, cmds);
    }
    if (!cmds.empty()) conn.transaction(cmds);
  }

  // The namespaces under `prefix` (every one when empty), in order.
  std::vector<namespace_path> namespaces_under(const namespace_path& ns_prefix) {
    redis_reply r;
    if (ns_prefix.empty()) {
      r = conn.command({"ZRANGE", namespaces(), "0", "-1"});
    } else {
      const std::string p = ns_member(ns_prefix);
      r = conn.command({"ZRANGEBYLEX", namespaces(), "[" + p, "(" + keys::successor(p)});
    }
    std::vector<namespace_path> out;
    for (const auto& e : r.elements) out.push_back(parse_ns_member(e.str));
    return out;
  }

  // The unexpired (or, without omit_expired, every) item of each namespace, read whole.
  std::vector<stored_item> read_items(const std::vector<namespace_path>& nss, long long now,
                                      bool with_vectors) {
    std::vector<redis_command> cmds;
    for (const auto& ns : nss)
      cmds.push_back(ttl.omit_expired ? redis_command{"ZRANGEBYSCORE", ns_key(ns),
                                                      "(" + std::to_string(now), "+inf"}
                                      : redis_command{"ZRANGE", ns_key(ns), "0", "-1"});
    auto key_lists = conn.pipeline(cmds);
    cmds.clear();
    std::vector<std::pair<const namespace_path*, const std::string*>> which;
    for (std::size_t i = 0; i < nss.size(); ++i)
      for (const auto& k : key_lists[i].elements) {
        redis_command hmget{"HMGET", item_key(nss[i], k.str), "rec"};
        if (with_vectors) hmget.push_back("vec");
        cmds.push_back(std::move(hmget));
        which.emplace_back(&nss[i], &k.str);
      }
    auto recs = conn.pipeline(cmds);
    std::vector<stored_item> out;
    for (std::size_t i = 0; i < which.size(); ++i) {
      const redis_reply& r = recs[i];
      if (r.elements.empty() || r.elements[0].is_nil()) continue;  // gone (Redis expired it)
      const std::string* vec = with_vectors && r.elements.size() > 1 && !r.elements[1].is_nil()
                                   ? &r.elements[1].str
                                   : nullptr;
      auto s = decode(*which[i].first, *which[i].second, r.elements[0].str, vec);
      if (support::hidden(s.expires, now, ttl)) continue;
      out.push_back(std::move(s));
    }
    return out;
  }

  redis_connection conn;
  std::shared_ptr<const serializer> serde;
  std::string prefix;
  std::optional<index_config> index;
  ttl_config ttl;
  std::mutex write_mutex;
  long long last_micros = 0;
  bool index_matches = false;
  std::unique_ptr<ttl_sweeper> sweeper;
};

redis_store::redis_store(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}

redis_store::~redis_store() { impl_->sweeper.reset(); }

std::unique_ptr<redis_store> redis_store::open(const std::string& url,
                                               redis_store_options options) {
  if (options.prefix.empty())
    throw error(error_code::invalid_argument, "redis_store: the key prefix is empty");
  if (options.index) {
    if (!options.index->embed)
      throw error(error_code::invalid_argument, "redis_store: index has no embed");
    if (options.index->dims == 0)
      throw error(error_code::invalid_argument, "redis_store: index dims is 0");
  }
  support::check_ttl_config(options.ttl);
  redis_options connection;
  connection.url = redis_url::parse(url);
  connection.connect_timeout = options.connect_timeout;
  connection.command_timeout = options.command_timeout;
  std::unique_ptr<redis_store> s(
      new redis_store(std::make_unique<impl>(std::move(connection), std::move(options))));
  const ttl_config& ttl = s->impl_->ttl;
  if (ttl.sweep_interval)
    s->impl_->sweeper = std::make_unique<ttl_sweeper>(
        *ttl.sweep_interval, [raw = s.get()] { return raw->sweep(); }, ttl.on_sweep);
  return s;
}

void redis_store::put(const namespace_path& ns, const std::string& key, value v, put_index index,
                      put_ttl ttl) {
  support::check_put_namespace(ns);
  store_item(ns, key, std::move(v), std::move(index), std::move(ttl));
}

void redis_store::put_from_batch(const put_op& op) {
  store_item(op.ns, op.key, op.v, op.index, op.ttl);
}

void redis_store::store_item(const namespace_path& ns, const std::string& key, value v,
                             put_index index, put_ttl ttl) {
  impl& d = *impl_;
  support::check_namespace(ns);
  support::check_item(key, v);
  const auto minutes = ttl.resolve(d.ttl);
  support::check_ttl(minutes, "the TTL of item \"" + key + "\"");
  std::vector<std::vector<float>> vectors;
  if (d.index && index.enabled) {
    const auto& fields = index.fields ? *index.fields : d.index->fields;
    vectors = support::embed_checked(*d.index, support::texts_to_embed(v, fields));
  }

  std::lock_guard lock(d.write_mutex);
  if (!vectors.empty()) d.check_index();
  const std::string item_key = d.item_key(ns, key);
  const long long now = support::now_micros(d.ttl);
  // Strictly increasing, so an overwrite in the same microsecond still changes updated_at.
  const long long micros = std::max(now, d.last_micros + 1);
  d.last_micros = micros;
  stored_item s;
  s.it.ns = ns;
  s.it.key = key;
  s.it.v = std::move(v);
  s.it.updated_at = support::format_timestamp(micros);
  s.it.created_at = s.it.updated_at;
  s.micros = micros;
  s.ttl = minutes;
  s.expires = support::expiry_micros(now, minutes);
  // An expired item that no sweep has deleted yet is gone all the same: a new created_at.
  auto old = d.conn.command({"HGET", item_key, "rec"});
  if (!old.is_nil()) {
    auto before = d.decode(ns, key, old.str, nullptr);
    if (!support::expired(before.expires, now)) s.it.created_at = before.it.created_at;
  }
  std::vector<redis_command> cmds;
  cmds.push_back({"DEL", item_key});
  redis_command hset{"HSET", item_key, "rec", d.encode(s)};
  if (!vectors.empty()) {
    hset.push_back("vec");
    hset.push_back(d.encode_vectors(vectors));
  }
  cmds.push_back(std::move(hset));
  cmds.push_back({"ZADD", d.ns_key(ns), score_of(s.expires), key});
  cmds.push_back({"ZADD", d.namespaces(), "0", ns_member(ns)});
  d.expiry_command(item_key, s.expires, cmds);
  d.conn.transaction(cmds);
}

std::optional<item> redis_store::get(const namespace_path& ns, const std::string& key,
                                     std::optional<bool> refresh_ttl) {
  support::check_namespace(ns);
  impl& d = *impl_;
  const bool refreshing = support::refresh_on_read(refresh_ttl, d.ttl);
  auto r = d.conn.command({"HGET", d.item_key(ns, key), "rec"});
  if (r.is_nil()) return std::nullopt;
  auto s = d.decode(ns, key, r.str, nullptr);
  const long long now = support::now_micros(d.ttl);
  if (support::hidden(s.expires, now, d.ttl)) return std::nullopt;
  if (refreshing && s.ttl) {
    std::lock_guard lock(d.write_mutex);
    std::vector<stored_item*> one{&s};
    d.refresh(one, now);
  }
  return std::move(s.it);
}

void redis_store::remove(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  impl& d = *impl_;
  std::lock_guard lock(d.write_mutex);
  d.conn.command({"EVAL", remove_script, "3", d.item_key(ns, key), d.ns_key(ns), d.namespaces(),
                  key, ns_member(ns)});
}

std::vector<item> redis_store::search(const search_options& options) {
  support::check_filter(options.filter);
  impl& d = *impl_;
  const bool refreshing = support::refresh_on_read(options.refresh_ttl, d.ttl);
  const bool semantic = d.index && support::is_query(options.query);
  std::vector<float> query;
  if (semantic) {
    query = std::move(support::embed_checked(*d.index, {*options.query}).front());
    std::lock_guard lock(d.write_mutex);
    d.check_index();
  }
  const long long now = support::now_micros(d.ttl);
  auto found = d.read_items(d.namespaces_under(options.ns_prefix), now, semantic);
  std::vector<stored_item*> matching;
  for (auto& s : found)
    if (support::matches_filter(s.it.v, options.filter)) matching.push_back(&s);
  // Newest put first; ties by namespace, then key.
  std::sort(matching.begin(), matching.end(), [](const stored_item* a, const stored_item* b) {
    if (a->micros != b->micros) return a->micros > b->micros;
    if (a->it.ns != b->it.ns) return a->it.ns < b->it.ns;
    return a->it.key < b->it.key;
  });
  std::vector<std::pair<std::optional<double>, stored_item*>> ranked;
  if (!semantic) {
    for (auto* s : matching) ranked.emplace_back(std::nullopt, s);
  } else {
    // Exact nearest neighbours (an item scores as its best field); ties stay newest first;
    // items with nothing embedded last, newest first, without a score.
    std::vector<std::pair<std::optional<double>, stored_item*>> unscored;
    for (auto* s : matching) {
      if (s->vectors.empty())
        unscored.emplace_back(std::nullopt, s);
      else
        ranked.emplace_back(support::best_similarity(d.index->distance, query, s->vectors), s);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return *a.first > *b.first; });
    ranked.insert(ranked.end(), unscored.begin(), unscored.end());
  }
  std::vector<stored_item*> page;
  std::vector<item> out;
  for (std::size_t i = options.offset; i < ranked.size() && page.size() < options.limit; ++i) {
    page.push_back(ranked[i].second);
    out.push_back(ranked[i].second->it);
    out.back().score = ranked[i].first;
  }
  if (refreshing && !page.empty()) {
    std::lock_guard lock(d.write_mutex);
    d.refresh(page, now);
  }
  return out;
}

std::vector<namespace_path> redis_store::list_namespaces(const list_namespaces_options& options) {
  impl& d = *impl_;
  // Only the fixed labels before the first "*" narrow the range read.
  namespace_path fixed;
  for (const auto& label : options.prefix) {
    if (label == "*") break;
    fixed.push_back(label);
  }
  std::vector<namespace_path> candidates;
  for (auto& ns : d.namespaces_under(fixed))
    if (support::matches(ns, options)) candidates.push_back(std::move(ns));
  const long long now = support::now_micros(d.ttl);
  std::vector<redis_command> cmds;
  for (const auto& ns : candidates)
    cmds.push_back(d.ttl.omit_expired
                       ? redis_command{"ZCOUNT", d.ns_key(ns), "(" + std::to_string(now), "+inf"}
                       : redis_command{"ZCARD", d.ns_key(ns)});
  auto counts = d.conn.pipeline(cmds);
  std::vector<namespace_path> live;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (counts[i].integer > 0) live.push_back(std::move(candidates[i]));
  return support::finish_list(std::move(live), options);
}

std::size_t redis_store::sweep() {
  impl& d = *impl_;
  std::lock_guard lock(d.write_mutex);
  const long long now = support::now_micros(d.ttl);
  const auto nss = d.namespaces_under({});
  std::vector<redis_command> cmds;
  for (const auto& ns : nss)
    cmds.push_back({"ZRANGEBYSCORE", d.ns_key(ns), "-inf", std::to_string(now)});
  auto expired = d.conn.pipeline(cmds);
  cmds.clear();
  for (std::size_t i = 0; i < nss.size(); ++i)
    for (const auto& k : expired[i].elements)
      cmds.push_back({"EVAL", remove_script, "3", d.item_key(nss[i], k.str), d.ns_key(nss[i]),
                      d.namespaces(), k.str, ns_member(nss[i])});
  d.conn.pipeline(cmds);
  const std::size_t swept = cmds.size();
  return swept;
}

const std::optional<index_config>& redis_store::index() const noexcept { return impl_->index; }

}  // namespace superstep::storage
