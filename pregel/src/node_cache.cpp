#include "superstep/pregel/node_cache.hpp"

namespace superstep {

std::optional<node_cache::writes> memory_cache::get(const cache_namespace& ns,
                                                    const std::string& key) {
  std::lock_guard lock(m_);
  auto n = entries_.find(ns);
  if (n == entries_.end()) return std::nullopt;
  auto e = n->second.find(key);
  if (e == n->second.end()) return std::nullopt;
  if (e->second.expiry && std::chrono::steady_clock::now() >= *e->second.expiry) {
    n->second.erase(e);
    return std::nullopt;
  }
  return e->second.w;
}

void memory_cache::set(const cache_namespace& ns, const std::string& key, writes w,
                       std::optional<std::int64_t> ttl_seconds) {
  entry e{std::move(w), std::nullopt};
  if (ttl_seconds) e.expiry = std::chrono::steady_clock::now() + std::chrono::seconds(*ttl_seconds);
  std::lock_guard lock(m_);
  entries_[ns][key] = std::move(e);
}

void memory_cache::clear(const std::vector<cache_namespace>* namespaces) {
  std::lock_guard lock(m_);
  if (!namespaces) {
    entries_.clear();
    return;
  }
  for (const auto& ns : *namespaces) entries_.erase(ns);
}

}  // namespace superstep
