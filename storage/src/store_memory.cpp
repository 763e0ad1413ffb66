#include "superstep/storage/store_memory.hpp"

#include <algorithm>
#include <mutex>
#include <utility>

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

memory_store::memory_store(index_config index) {
  if (!index.embed) throw error(error_code::invalid_argument, "memory_store: index has no embed");
  if (index.dims == 0) throw error(error_code::invalid_argument, "memory_store: index dims is 0");
  index_ = std::move(index);
}

void memory_store::put(const namespace_path& ns, const std::string& key, value v, put_index index) {
  support::check_namespace(ns);
  support::check_item(key, v);
  std::vector<std::vector<float>> vectors;
  if (index_ && index.enabled) {
    const auto& fields = index.fields ? *index.fields : index_->fields;
    vectors = support::embed_checked(*index_, support::texts_to_embed(v, fields));
  }

  std::unique_lock lock(mutex_);
  // Strictly increasing, so an overwrite in the same microsecond still changes updated_at.
  const long long micros = std::max(support::now_micros(), last_micros_ + 1);
  last_micros_ = micros;
  const std::string now = support::format_timestamp(micros);
  auto& slot = data_[ns][key];
  const bool fresh = slot.seq == 0;
  slot.it.ns = ns;
  slot.it.key = key;
  slot.it.v = std::move(v);
  if (fresh) slot.it.created_at = now;
  slot.it.updated_at = now;
  slot.vectors = std::move(vectors);
  slot.seq = ++seq_;
}

std::optional<item> memory_store::get(const namespace_path& ns, const std::string& key) {
  support::check_namespace(ns);
  std::shared_lock lock(mutex_);
  const auto n = data_.find(ns);
  if (n == data_.end()) return std::nullopt;
  const auto k = n->second.find(key);
  if (k == n->second.end()) return std::nullopt;
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
  const bool semantic = index_ && options.query;
  std::vector<float> query;
  if (semantic) query = std::move(support::embed_checked(*index_, {*options.query}).front());

  std::shared_lock lock(mutex_);
  std::vector<const entry*> found;
  for (auto n = data_.lower_bound(options.ns_prefix); n != data_.end(); ++n) {
    if (!support::has_prefix(n->first, options.ns_prefix)) break;
    for (const auto& [key, e] : n->second)
      if (support::matches_filter(e.it.v, options.filter)) found.push_back(&e);
  }

  if (!semantic) {
    std::sort(found.begin(), found.end(), newest_first{});
    std::vector<item> out;
    const std::size_t begin = std::min(options.offset, found.size());
    const std::size_t end = std::min(found.size(), begin + options.limit);
    for (std::size_t i = begin; i < end; ++i) out.push_back(found[i]->it);
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
  std::vector<item> out;
  for (std::size_t i = options.offset; i < scored.size() && out.size() < options.limit; ++i) {
    out.push_back(scored[i].second->it);
    out.back().score = scored[i].first;
  }
  return out;
}

std::vector<namespace_path> memory_store::list_namespaces(const list_namespaces_options& options) {
  std::vector<namespace_path> namespaces;
  {
    std::shared_lock lock(mutex_);
    for (const auto& [ns, _] : data_)
      if (support::matches(ns, options)) namespaces.push_back(ns);
  }
  return support::finish_list(std::move(namespaces), options);
}

}  // namespace superstep::storage
