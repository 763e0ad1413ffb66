// A process's replica of a run's channels: subscribed to the run's channel actors, it keeps
// each channel's committed value at its version and answers node actors waiting for the
// versions their tasks need. A channel is read once the first time a task here needs it, and
// subscribed to when a task needs a later version of it: a node run in one step only in this
// process (the input node, whose routers read the state; a fan-out's fold) does not have every
// later change of what it read pushed here (at a fan-out's commit, a list of 10^6 results).
#include "superstep/actors/process_replica.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace superstep::actors {

namespace {

struct held {
  std::optional<value> v;  // as channel::transfer gives it (nullopt: empty)
  std::uint64_t version = 0;
};

struct waiting {
  replica_wait wait;
  caf::typed_response_promise<channel_push> promise;
};

struct replica_state {
  std::vector<caf::actor> groups;
  std::unordered_map<std::string, held> channels;
  std::unordered_set<std::string> subscribed;  // asked of their channel actor
  std::unordered_set<std::string> read_once;   // read, not subscribed to (yet)
  std::unordered_set<std::string> reading;     // of those, the reads not answered yet
  std::vector<std::string> orphaned;           // asked of a group that went down
  std::vector<waiting> parked;
};

using replica_self = process_replica::stateful_pointer<replica_state>;

// The registry of this process's replicas, by coordinator.
std::mutex registry_mutex;
std::unordered_map<caf::actor_addr, process_replica> registry;
std::atomic<std::uint64_t> made{0};

void take(replica_state& st, channel_push& p) {
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    channel_delta& d = p.values[i];
    const std::uint64_t version = i < p.versions.size() ? p.versions[i] : 0;
    auto& h = st.channels[d.channel];
    if (version < h.version) continue;  // an older value than held (a late answer)
    h.version = version;
    h.v.reset();
    if (d.present) h.v = std::move(d.v);
  }
}

// Whether every channel of `w` is held at its version; then its values.
std::optional<channel_push> ready(const replica_state& st, const replica_wait& w) {
  channel_push out;
  out.step = -1;
  for (std::size_t i = 0; i < w.channels.size(); ++i) {
    // Held once its channel actor answered the subscription (with every channel it owns).
    auto it = st.channels.find(w.channels[i]);
    if (it == st.channels.end() || it->second.version < w.versions[i]) return std::nullopt;
    const std::uint64_t have = it->second.version;
    out.values.push_back(channel_delta::of(w.channels[i], it->second.v));
    out.versions.push_back(have);
  }
  return out;
}

void answer_parked(replica_self self) {
  auto& st = self->state;
  for (std::size_t i = 0; i < st.parked.size();) {
    if (auto out = ready(st, st.parked[i].wait)) {
      st.parked[i].promise.deliver(std::move(*out));
      st.parked.erase(st.parked.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

// Subscribes to `channels` (those not subscribed to yet), one request per channel actor.
void subscribe(replica_self self, const std::vector<std::string>& channels) {
  auto& st = self->state;
  const std::size_t n = st.groups.size();
  std::vector<std::vector<std::string>> ask(n);
  for (const auto& ch : channels)
    if (st.subscribed.insert(ch).second) {
      st.read_once.erase(ch);
      st.reading.erase(ch);
      ask[channel_owner(ch, n)].push_back(ch);
    }
  for (std::size_t g = 0; g < n; ++g) {
    if (ask[g].empty()) continue;
    auto asked = ask[g];
    self->request(caf::actor_cast<channel_actor>(st.groups[g]), caf::infinite,
                  subscribe_atom::value, caf::actor_cast<caf::actor>(self), std::move(ask[g]))
        .then(
            [self](channel_push& p) {
              take(self->state, p);
              answer_parked(self);
            },
            [self, g, to = st.groups[g], asked](caf::error&) {
              // The group went down with its process: the coordinator places its channels
              // again and names the new actor (regroup), which they are asked of then.
              auto& st = self->state;
              if (st.groups[g] != to) return;
              for (const auto& ch : asked)
                if (st.subscribed.erase(ch)) st.orphaned.push_back(ch);
            });
  }
}

// The channels of `w` read once, answered, and held at an older version than it wants: the
// read's answer came before the commit the wait needs (only a subscription gets it pushed),
// or the wait is for a later step.
std::vector<std::string> behind(const replica_state& st, const replica_wait& w) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < w.channels.size(); ++i) {
    const auto& ch = w.channels[i];
    if (!st.read_once.count(ch) || st.reading.count(ch)) continue;
    auto it = st.channels.find(ch);
    if (it != st.channels.end() && it->second.version >= w.versions[i]) continue;
    out.push_back(ch);
  }
  return out;
}

// `behind` for every parked wait.
std::vector<std::string> behind_parked(const replica_state& st) {
  std::vector<std::string> out;
  for (const auto& p : st.parked) {
    auto more = behind(st, p.wait);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

// What a wait not ready needs: a channel never asked for is read once; one read before and
// held at an older version than wanted is subscribed to (one whose read is not answered yet
// is looked at again when it is).
void ask(replica_self self, const replica_wait& w) {
  auto& st = self->state;
  const std::size_t n = st.groups.size();
  std::vector<std::vector<std::string>> reads(n);
  for (const auto& ch : w.channels)
    if (!st.subscribed.count(ch) && st.read_once.insert(ch).second) {
      st.reading.insert(ch);
      reads[channel_owner(ch, n)].push_back(ch);
    }
  subscribe(self, behind(st, w));
  for (std::size_t g = 0; g < n; ++g) {
    if (reads[g].empty()) continue;
    auto asked = reads[g];
    self->request(caf::actor_cast<channel_actor>(st.groups[g]), caf::infinite, read_atom::value,
                  std::move(reads[g]))
        .then(
            [self, asked](channel_push& p) {
              auto& st = self->state;
              for (const auto& ch : asked) st.reading.erase(ch);
              take(st, p);
              answer_parked(self);
              subscribe(self, behind_parked(st));
            },
            [self, asked](caf::error&) {
              // The group went down with its process: asked again, by subscription, once the
              // coordinator has placed its channels again (regroup).
              auto& st = self->state;
              for (const auto& ch : asked) {
                st.reading.erase(ch);
                if (st.read_once.erase(ch)) st.orphaned.push_back(ch);
              }
            });
  }
}

// The run's channel actors after the coordinator placed a lost one's channels again: the
// channels asked of a replaced actor are asked of the new one, with those parked waits need.
void regroup(replica_self self, std::vector<caf::actor>& groups) {
  auto& st = self->state;
  const std::size_t n = st.groups.size();
  if (groups.size() != n) return;
  std::vector<bool> changed(n, false);
  for (std::size_t g = 0; g < n; ++g) {
    if (groups[g] == st.groups[g]) continue;
    changed[g] = true;
    st.groups[g] = std::move(groups[g]);
  }
  std::vector<std::string> again = std::move(st.orphaned);
  st.orphaned.clear();
  for (auto it = st.subscribed.begin(); it != st.subscribed.end();) {
    if (changed[channel_owner(*it, n)]) {
      again.push_back(*it);
      it = st.subscribed.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& p : st.parked)
    again.insert(again.end(), p.wait.channels.begin(), p.wait.channels.end());
  subscribe(self, again);
}

process_replica::behavior_type replica_behavior(replica_self self, caf::actor coordinator,
                                                std::vector<caf::actor> groups) {
  self->state.groups = std::move(groups);
  self->monitor(coordinator);
  self->set_down_handler([self, gone = coordinator.address()](caf::down_msg& msg) {
    if (msg.source != gone) return;
    {
      std::lock_guard lock(registry_mutex);
      registry.erase(gone);
    }
    self->quit(msg.reason);
  });
  return {
      [self](await_atom, replica_wait& w) -> caf::result<channel_push> {
        auto& st = self->state;
        if (auto out = ready(st, w)) return std::move(*out);
        ask(self, w);
        auto promise = self->make_response_promise<channel_push>();
        st.parked.push_back(waiting{std::move(w), promise});
        return promise;
      },
      [self](channel_push& p) {
        take(self->state, p);
        answer_parked(self);
      },
      [self](regroup_atom, std::vector<caf::actor>& groups) { regroup(self, groups); },
  };
}

}  // namespace

process_replica replica_of_run(caf::actor_system& sys, const caf::actor& coordinator,
                               const std::vector<caf::actor>& groups) {
  std::lock_guard lock(registry_mutex);
  auto it = registry.find(coordinator.address());
  if (it != registry.end()) return it->second;
  auto r = sys.spawn(replica_behavior, coordinator, groups);
  registry.emplace(coordinator.address(), r);
  made.fetch_add(1, std::memory_order_relaxed);
  return r;
}

void regroup_replica(const caf::actor& coordinator, std::vector<caf::actor> groups) {
  std::lock_guard lock(registry_mutex);
  auto it = registry.find(coordinator.address());
  if (it != registry.end()) caf::anon_send(it->second, regroup_atom::value, std::move(groups));
}

std::uint64_t replicas_made() noexcept { return made.load(std::memory_order_relaxed); }

}  // namespace superstep::actors
