#pragma once

// The head's record of its workers and of the graphs loaded on them (head/head.cpp).

#include <algorithm>
#include <caf/all.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "net/protocol.hpp"
#include "superstep/actors/protocol.hpp"

namespace superstep::net {

/// A worker as the head knows it: what it can run and, per loaded graph, its node actors.
struct worker_record {
  std::string name;
  host_actor host;
  std::set<std::string> functions;
  std::map<std::string, std::map<std::uint32_t, std::vector<actors::node_actor>>> graphs;
};

/// The head's workers and the graphs (specs by key) they were asked to load, at most
/// `evict`'s bound of them while no run uses them. Shared by the gate actor, the request
/// threads and the coordinators' directories; thread-safe.
class worker_registry {
 public:
  void add(const caf::actor_addr& id, worker_record w) {
    std::lock_guard lock(m_);
    workers_[id] = std::move(w);
  }
  std::optional<std::string> remove(const caf::actor_addr& id) {
    std::lock_guard lock(m_);
    auto it = workers_.find(id);
    if (it == workers_.end()) return std::nullopt;
    std::string name = it->second.name;
    workers_.erase(it);
    return name;
  }
  // Whether a worker runs in process `n` (a node of one may be a client of the head too).
  bool on_process(const caf::node_id& n) {
    std::lock_guard lock(m_);
    return std::any_of(workers_.begin(), workers_.end(),
                       [&](const auto& w) { return w.second.host.node() == n; });
  }
  void set_hosts(const caf::actor_addr& id, const std::string& key, const graph_hosts& h) {
    std::lock_guard lock(m_);
    auto it = workers_.find(id);
    if (it == workers_.end() || !specs_.count(key)) return;  // gone, or unloaded meanwhile
    auto& nodes = it->second.graphs[key];
    nodes.clear();  // loaded twice (joining while a request loads it): the same actors
    for (std::size_t i = 0; i < h.nodes.size() && i < h.actors.size(); ++i)
      nodes[h.nodes[i]].push_back(caf::actor_cast<actors::node_actor>(h.actors[i]));
  }
  std::vector<actors::node_actor> instances(const std::string& key, std::uint32_t node) {
    std::lock_guard lock(m_);
    std::vector<actors::node_actor> out;
    for (auto& [id, w] : workers_) {
      auto g = w.graphs.find(key);
      if (g == w.graphs.end()) continue;
      auto n = g->second.find(node);
      if (n != g->second.end()) out.insert(out.end(), n->second.begin(), n->second.end());
    }
    return out;
  }
  // The hosts of the workers that loaded `key`, in a stable order (by worker name).
  std::vector<host_actor> hosts_of(const std::string& key) {
    std::lock_guard lock(m_);
    std::vector<std::pair<std::string, host_actor>> found;
    for (auto& [id, w] : workers_)
      if (w.graphs.count(key)) found.emplace_back(w.name, w.host);
    std::sort(found.begin(), found.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<host_actor> out;
    out.reserve(found.size());
    for (auto& [_, host] : found) out.push_back(std::move(host));
    return out;
  }
  // Remembers the spec as used by one more run (until `release`); returns the workers that
  // have not loaded it.
  std::vector<std::pair<caf::actor_addr, worker_record>> acquire(const std::string& key,
                                                                 const value& spec) {
    std::lock_guard lock(m_);
    auto& e = specs_[key];
    if (e.spec.is_null()) e.spec = spec;
    ++e.users;
    e.used = ++clock_;
    std::vector<std::pair<caf::actor_addr, worker_record>> out;
    for (auto& [id, w] : workers_)
      if (!w.graphs.count(key)) out.emplace_back(id, worker_record{w.name, w.host, {}, {}});
    return out;
  }
  void release(const std::string& key) {
    std::lock_guard lock(m_);
    auto it = specs_.find(key);
    if (it != specs_.end() && it->second.users > 0) --it->second.users;
  }
  // Forgets the least recently used specs that no run uses while more than `bound` are
  // known; returns their keys and the workers to tell.
  std::pair<std::vector<std::string>, std::vector<host_actor>> evict(std::size_t bound) {
    std::lock_guard lock(m_);
    std::vector<std::string> gone;
    while (specs_.size() > bound) {
      auto oldest = specs_.end();
      for (auto it = specs_.begin(); it != specs_.end(); ++it)
        if (it->second.users == 0 &&
            (oldest == specs_.end() || it->second.used < oldest->second.used))
          oldest = it;
      if (oldest == specs_.end()) break;  // every one is in use
      for (auto& [id, w] : workers_) w.graphs.erase(oldest->first);
      gone.push_back(oldest->first);
      specs_.erase(oldest);
    }
    std::vector<host_actor> hosts;
    if (!gone.empty())
      for (auto& [id, w] : workers_) hosts.push_back(w.host);
    return {std::move(gone), std::move(hosts)};
  }
  std::map<std::string, value> specs() {
    std::lock_guard lock(m_);
    std::map<std::string, value> out;
    for (auto& [key, e] : specs_) out.emplace(key, e.spec);
    return out;
  }
  std::size_t size() {
    std::lock_guard lock(m_);
    return workers_.size();
  }
  // A run's suspect task (one in flight on a worker that went away) holds worker process
  // `host` alone while it runs there (actors::node_directory::claim_host): false when another
  // run's suspect holds it.
  bool claim_host(const caf::node_id& host) {
    std::lock_guard lock(m_);
    return suspects_on_.insert(host).second;
  }
  void release_host(const caf::node_id& host) {
    std::lock_guard lock(m_);
    suspects_on_.erase(host);
  }

 private:
  // A spec the head knows: loaded on the workers while it is known.
  struct spec_entry {
    value spec;
    std::uint64_t used = 0;  // `clock_` when a run last took it
    int users = 0;           // runs using it now
  };
  std::mutex m_;
  std::map<caf::actor_addr, worker_record> workers_;
  std::map<std::string, spec_entry> specs_;
  std::set<caf::node_id> suspects_on_;
  std::uint64_t clock_ = 0;
};

}  // namespace superstep::net
