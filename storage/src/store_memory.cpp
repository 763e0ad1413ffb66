#include "superstep/storage/store_memory.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

#include "ann_index.hpp"
#include "rocksdb_keys.hpp"
#include "store_sweeper.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::storage {

namespace support = store_support;

namespace {

// Newest put first (every put takes a new sequence number).
struct newest_first {
  template <class Entry>
  bool operator()(const Entry* a, const Entry* b) const {
    return a->seq > b->seq;
  }
};

// An item's identity in the ANN index: its namespace and key, decodable.
std::string ann_id(const namespace_path& ns, const std::string& key) {
  std::string id;
  for (const auto& label : ns) keys::append_string(id, label);
  id += std::string_view("\0\0", 2);
  keys::append_string(id, key);
  return id;
}

std::pair<namespace_path, std::string> parse_ann_id(std::string_view id) {
  namespace_path ns;
  std::size_t pos = 0;
  while (pos + 1 < id.size() && id.substr(pos, 2) != std::string_view("\0\0", 2))
    ns.push_back(keys::read_string(id, pos).value());
  pos += 2;
  return {std::move(ns), keys::read_string(id, pos).value()};
}

}  // namespace

memory_store::memory_store() : memory_store(ttl_config{}) {}

memory_store::memory_store(ttl_config ttl) : ttl_(std::move(ttl)) {
  support::check_ttl_config(ttl_);
  if (ttl_.sweep_interval)
    sweeper_ = std::make_unique<ttl_sweeper>(
        *ttl_.sweep_interval, [this] { return sweep(); }, ttl_.on_sweep);
}

memory_store::memory_store(index_config index, ttl_config ttl) : ttl_(std::move(ttl)) {
  if (!index.embed) throw error(error_code::invalid_argument, "memory_store: index has no embed");
  if (index.dims == 0) throw error(error_code::invalid_argument, "memory_store: index dims is 0");
  support::check_ttl_config(ttl_);
  index_ = std::move(index);
  if (index_->ann) ann_ = std::make_unique<ann_index>(*index_);
  if (ttl_.sweep_interval)
    sweeper_ = std::make_unique<ttl_sweeper>(
        *ttl_.sweep_interval, [this] { return sweep(); }, ttl_.on_sweep);
}

// The sweeper calls sweep(), so it stops before the data goes.
memory_store::~memory_store() { sweeper_.reset(); }

void memory_store::refresh(const entry& e, long long now) {
  if (!e.ttl_minutes) return;
  const long long target = support::expiry_micros(now, e.ttl_minutes);
  long long current = e.expires.load();
  while (current < target && !e.expires.compare_exchange_weak(current, target)) {
  }
}

void memory_store::put(const namespace_path& ns, const std::string& key, value v, put_index index,
                       put_ttl ttl) {
  support::check_put_namespace(ns);
  store_item(ns, key, std::move(v), std::move(index), std::move(ttl));
}

void memory_store::put_from_batch(const put_op& op) {
  store_item(op.ns, op.key, op.v, op.index, op.ttl);
}

void memory_store::store_item(const namespace_path& ns, const std::string& key, value v,
                              put_index index, put_ttl ttl) {
  support::check_namespace(ns);
  support::check_item(key, v);
  const auto minutes = ttl.resolve(ttl_);
  support::check_ttl(minutes, "the TTL of item \"" + key + "\"");
  std::vector<std::vector<float>> vectors;
  if (index_ && index.enabled) {
    const auto& fields = index.fields ? *index.fields : index_->fields;
    vectors = support::embed_checked(*index_, support::texts_to_embed(v, fields));
  }

  std::unique_lock lock(mutex_);
  const long long now = support::now_micros(ttl_);
  // Strictly increasing, so an overwrite in the same microsecond still changes updated_at.
  const long long micros = std::max(now, last_micros_ + 1);
  last_micros_ = micros;
  const std::string stamp = support::format_timestamp(micros);
  auto& slot = data_[ns][key];
  // An expired item that no sweep has deleted yet is gone all the same.
  const bool fresh = slot.seq == 0 || support::expired(slot.expires.load(), now);
  slot.it.ns = ns;
  slot.it.key = key;
  slot.it.v = std::move(v);
  if (fresh) slot.it.created_at = stamp;
  slot.it.updated_at = stamp;
  slot.vectors = std::move(vectors);
  if (ann_) ann_->set(ann_id(ns, key), slot.vectors);
  slot.seq = ++seq_;
  slot.ttl_minutes = minutes;
  slot.expires.store(support::expiry_micros(now, minutes));
}

std::optional<item> memory_store::get(const namespace_path& ns, const std::string& key,
                                      std::optional<bool> refresh_ttl) {
  support::check_namespace(ns);
  const bool refreshing = support::refresh_on_read(refresh_ttl, ttl_);
  std::shared_lock lock(mutex_);
  const auto n = data_.find(ns);
  if (n == data_.end()) return std::nullopt;
  const auto k = n->second.find(key);
  if (k == n->second.end()) return std::nullopt;
  const long long now = support::now_micros(ttl_);
  if (support::hidden(k->second.expires.load(), now, ttl_)) return std::nullopt;
  if (refreshing) refresh(k->second, now);
  return k->second.it;
}

void memory_store::remove(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  std::unique_lock lock(mutex_);
  const auto n = data_.find(ns);
  if (n == data_.end()) return;
  if (n->second.erase(key) && ann_) ann_->remove(ann_id(ns, key));
  // A namespace lives as long as it holds items, so list_namespaces never shows empty ones.
  if (n->second.empty()) data_.erase(n);
}

std::vector<item> memory_store::search(const search_options& options) {
  support::check_filter(options.filter);
  const bool refreshing = support::refresh_on_read(options.refresh_ttl, ttl_);
  const bool semantic = index_ && support::is_query(options.query);
  std::vector<float> query;
  if (semantic) query = std::move(support::embed_checked(*index_, {*options.query}).front());

  std::shared_lock lock(mutex_);
  const long long now = support::now_micros(ttl_);
  if (semantic && ann_)
    if (auto page = ann_search(options, query, refreshing, now)) return std::move(*page);
  std::vector<const entry*> found;
  for (auto n = data_.lower_bound(options.ns_prefix); n != data_.end(); ++n) {
    if (!support::has_prefix(n->first, options.ns_prefix)) break;
    for (const auto& [key, e] : n->second)
      if (!support::hidden(e.expires.load(), now, ttl_) &&
          support::matches_filter(e.it.v, options.filter))
        found.push_back(&e);
  }

  std::vector<item> out;
  if (!semantic) {
    std::sort(found.begin(), found.end(), newest_first{});
    const std::size_t begin = std::min(options.offset, found.size());
    const std::size_t end = std::min(found.size(), begin + options.limit);
    for (std::size_t i = begin; i < end; ++i) {
      if (refreshing) refresh(*found[i], now);
      out.push_back(found[i]->it);
    }
    return out;
  }

  // Exact nearest neighbours; an item scores as its best-matching field (LangGraph's max
  // pooling). Ties keep newest first.
  std::sort(found.begin(), found.end(), newest_first{});
  // Items with nothing embedded come last, newest first, without a score (LangGraph fills the
  // page with them).
  std::vector<std::pair<std::optional<double>, const entry*>> scored, unscored;
  for (const entry* e : found) {
    if (e->vectors.empty()) {
      unscored.emplace_back(std::nullopt, e);
      continue;
    }
    scored.emplace_back(support::best_similarity(index_->distance, query, e->vectors), e);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return *a.first > *b.first; });
  scored.insert(scored.end(), unscored.begin(), unscored.end());
  for (std::size_t i = options.offset; i < scored.size() && out.size() < options.limit; ++i) {
    if (refreshing) refresh(*scored[i].second, now);
    out.push_back(scored[i].second->it);
    out.back().score = scored[i].first;
  }
  return out;
}

std::optional<std::vector<item>> memory_store::ann_search(const search_options& options,
                                                          const std::vector<float>& query,
                                                          bool refreshing, long long now) const {
  struct candidate {
    double score;
    const entry* e;
  };
  const auto accept = [&](const std::string& id) -> std::optional<candidate> {
    const auto [ns, key] = parse_ann_id(id);
    if (!support::has_prefix(ns, options.ns_prefix)) return std::nullopt;
    const auto n = data_.find(ns);
    if (n == data_.end()) return std::nullopt;
    const auto k = n->second.find(key);
    if (k == n->second.end() || k->second.vectors.empty()) return std::nullopt;
    const entry& e = k->second;
    if (support::hidden(e.expires.load(), now, ttl_) ||
        !support::matches_filter(e.it.v, options.filter))
      return std::nullopt;
    return candidate{*support::best_similarity(index_->distance, query, e.vectors), &e};
  };
  // The exact search's order: score, then newest first.
  const auto before = [](const candidate& a, const candidate& b) {
    return a.score != b.score ? a.score > b.score : a.e->seq > b.e->seq;
  };
  auto page = ann_page<candidate>(*ann_, query, options, accept, before);
  if (!page) return std::nullopt;
  std::vector<item> out;
  for (const auto& c : *page) {
    if (refreshing) refresh(*c.e, now);
    out.push_back(c.e->it);
    out.back().score = c.score;
  }
  return out;
}

const std::optional<index_config>& memory_store::index() const noexcept { return index_; }

std::size_t memory_store::ann_items() const { return ann_ ? ann_->items() : 0; }

void memory_store::set_ann_ef_search(std::size_t ef) {
  if (ann_) ann_->set_ef_search(ef);
}

std::vector<namespace_path> memory_store::list_namespaces(const list_namespaces_options& options) {
  std::vector<namespace_path> namespaces;
  {
    std::shared_lock lock(mutex_);
    const long long now = support::now_micros(ttl_);
    for (const auto& [ns, items] : data_) {
      if (!support::matches(ns, options)) continue;
      const bool live = std::any_of(items.begin(), items.end(), [this, now](const auto& i) {
        return !support::hidden(i.second.expires.load(), now, ttl_);
      });
      if (live) namespaces.push_back(ns);
    }
  }
  return support::finish_list(std::move(namespaces), options);
}

std::size_t memory_store::sweep() {
  std::unique_lock lock(mutex_);
  const long long now = support::now_micros(ttl_);
  std::size_t swept = 0;
  for (auto n = data_.begin(); n != data_.end();) {
    swept += std::erase_if(n->second, [&](const auto& i) {
      if (!support::expired(i.second.expires.load(), now)) return false;
      if (ann_) ann_->remove(ann_id(n->first, i.first));
      return true;
    });
    n = n->second.empty() ? data_.erase(n) : std::next(n);
  }
  return swept;
}

}  // namespace superstep::storage
