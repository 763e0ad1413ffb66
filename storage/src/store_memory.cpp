#include "superstep/storage/store_memory.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

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
  if (support::expired(k->second.expires.load(), now)) return std::nullopt;
  if (refreshing) refresh(k->second, now);
  return k->second.it;
}

void memory_store::remove(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  std::unique_lock lock(mutex_);
  const auto n = data_.find(ns);
  if (n == data_.end()) return;
  n->second.erase(key);
  // A namespace lives as long as it holds items, so list_namespaces never shows empty ones.
  if (n->second.empty()) data_.erase(n);
}

std::vector<item> memory_store::search(const search_options& options) {
  support::check_filter(options.filter);
  const bool refreshing = support::refresh_on_read(options.refresh_ttl, ttl_);
  const bool semantic = index_ && options.query;
  std::vector<float> query;
  if (semantic) query = std::move(support::embed_checked(*index_, {*options.query}).front());

  std::shared_lock lock(mutex_);
  const long long now = support::now_micros(ttl_);
  std::vector<const entry*> found;
  for (auto n = data_.lower_bound(options.ns_prefix); n != data_.end(); ++n) {
    if (!support::has_prefix(n->first, options.ns_prefix)) break;
    for (const auto& [key, e] : n->second)
      if (!support::expired(e.expires.load(), now) &&
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
  std::vector<std::pair<double, const entry*>> scored;
  for (const entry* e : found) {
    if (e->vectors.empty()) continue;
    double best = -2;
    for (const auto& vec : e->vectors) best = std::max(best, support::cosine(query, vec));
    scored.emplace_back(best, e);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = options.offset; i < scored.size() && out.size() < options.limit; ++i) {
    if (refreshing) refresh(*scored[i].second, now);
    out.push_back(scored[i].second->it);
    out.back().score = scored[i].first;
  }
  return out;
}

std::vector<namespace_path> memory_store::list_namespaces(const list_namespaces_options& options) {
  std::vector<namespace_path> namespaces;
  {
    std::shared_lock lock(mutex_);
    const long long now = support::now_micros(ttl_);
    for (const auto& [ns, items] : data_) {
      if (!support::matches(ns, options)) continue;
      const bool live = std::any_of(items.begin(), items.end(), [now](const auto& i) {
        return !support::expired(i.second.expires.load(), now);
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
    swept += std::erase_if(
        n->second, [now](const auto& i) { return support::expired(i.second.expires.load(), now); });
    n = n->second.empty() ? data_.erase(n) : std::next(n);
  }
  return swept;
}

}  // namespace superstep::storage
