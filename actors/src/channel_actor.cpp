// The channel actor: owns a group of a run's channels, collects a step's writes, and takes
// part in the coordinator's two-phase commit of each step.
#include "superstep/actors/channel_actor.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "superstep/actors/fault_point.hpp"
#include "superstep/core/error.hpp"

namespace superstep::actors {

namespace {

// Whether `group` owns every channel of `writes`, each looked up once: a batch's writes go to
// a few channels, many times over.
bool all_owned(const channel_group& group, const std::vector<ordered_write>& writes) {
  std::array<const std::string*, 8> owned{};
  std::size_t known = 0;
  for (const auto& w : writes) {
    if (std::any_of(owned.begin(), owned.begin() + known,
                    [&](const std::string* name) { return *name == w.channel; }))
      continue;
    if (!group.owns(w.channel)) return false;
    if (known < owned.size()) owned[known++] = &w.channel.str();
  }
  return true;
}

// A step's writes as they arrive, before the step is prepared: by chunk (task batch), in
// the order the chunks arrived. A chunk that comes again (its batch ran again elsewhere)
// replaces what came first.
struct step_inbox {
  std::vector<std::pair<std::uint32_t, std::vector<ordered_write>>> chunks;
  // chunk -> position in chunks, once there are more than a few (most steps have one)
  std::unordered_map<std::uint32_t, std::size_t> index;
  static constexpr std::size_t few = 8;

  std::uint32_t messages() const { return static_cast<std::uint32_t>(chunks.size()); }

  void add(channel_writes& m) {
    std::size_t at = chunks.size();
    if (chunks.size() < few) {
      for (std::size_t i = 0; i < chunks.size(); ++i)
        if (chunks[i].first == m.chunk) at = i;
    } else {
      if (index.empty())
        for (std::size_t i = 0; i < chunks.size(); ++i) index.emplace(chunks[i].first, i);
      at = index.try_emplace(m.chunk, chunks.size()).first->second;
    }
    if (at == chunks.size())
      chunks.emplace_back(m.chunk, std::move(m.writes));
    else
      chunks[at].second = std::move(m.writes);
  }

  // Every chunk's writes, added to `parts` (channel_group::prepare puts them in task-path
  // order). Writes of a task batch to a channel the group does not own are dropped (the
  // coordinator names them).
  void take(const channel_group& group, std::vector<std::vector<ordered_write>>& parts) {
    for (auto& [chunk, writes] : chunks) {
      if (chunk != coordinator_chunk && !all_owned(group, writes))
        std::erase_if(writes, [&](const ordered_write& w) { return !group.owns(w.channel); });
      if (!writes.empty()) parts.push_back(std::move(writes));
    }
  }
};

// A prepare that arrived before all the step's writes did: as a message (its vote is the
// answer) or riding with writes (its vote goes to the coordinator).
struct waiting_prepare {
  step_prepare request;
  std::optional<caf::typed_response_promise<step_vote>> promise;
};

struct channel_actor_state {
  std::optional<channel_group> group;
  std::map<std::int64_t, step_inbox> inbox;  // by step
  std::optional<waiting_prepare> waiting;
  std::optional<std::int64_t> staged;  // the prepared step
  std::optional<std::int64_t> voted;   // the last step voted on (a prepare riding again)
  std::vector<std::string> staged_changed;
  vote_receiver coordinator;  // where votes of prepares that rode with writes go
  // Results of batches that came with their writes (channel_writes::result), until a vote
  // takes them to the coordinator.
  std::vector<task_batch_done> results;
  // Each owned channel's version (the coordinator's), for subscribers' replicas: from the
  // placement, then the version of each commit that changed it.
  std::unordered_map<std::string, std::uint64_t> versions;
  std::unordered_map<caf::actor_addr, std::pair<caf::actor, std::set<std::string>>> subscribers;
  // Placed again during this step (its first group was lost): task batches' writes for steps
  // up to it are not taken; the coordinator's prepare carries every write of the step.
  std::int64_t closed_through = -1;
};

using self_pointer = channel_actor::stateful_pointer<channel_actor_state>;

step_vote prepare_now(channel_actor_state& st, step_prepare& req) {
  step_vote vote;
  vote.step = req.step;
  try {
    if (req.finish) {
      if (st.staged != req.step)
        throw error(error_code::internal,
                    "step " + std::to_string(req.step) + " is not prepared here: it cannot finish");
      vote.changes = st.group->finish();
    } else {
      fault_point("channel.before_vote", req.step);  // every write of the step is in
      // The prepare's own writes and those that came in messages of their own.
      std::vector<std::vector<ordered_write>> parts;
      parts.push_back(std::move(req.writes));
      if (auto node = st.inbox.extract(req.step); !node.empty())
        node.mapped().take(*st.group, parts);
      vote.changes = st.group->prepare(std::move(parts), req.consumed, req.bump_step);
      st.staged = req.step;
      st.staged_changed.clear();
    }
    for (const auto& c : vote.changes.changed) st.staged_changed.push_back(c.channel);
  } catch (const error& e) {
    st.staged.reset();
    vote.error = task_error::of(e);
  } catch (const std::exception& e) {
    st.staged.reset();
    vote.error = task_error{error_code::internal, e.what()};
  } catch (...) {  // a reducer of a node library may throw anything
    st.staged.reset();
    vote.error = task_error{error_code::internal,
                            "a reducer threw an exception that is not a std::exception"};
  }
  return vote;
}

// Answers a waiting prepare once its step's writes are all in.
void try_waiting(self_pointer self) {
  auto& st = self->state;
  if (!st.waiting) return;
  auto it = st.inbox.find(st.waiting->request.step);
  const std::uint32_t arrived = it == st.inbox.end() ? 0 : it->second.messages();
  if (arrived < st.waiting->request.expected) return;
  waiting_prepare w = std::move(*st.waiting);
  st.waiting.reset();
  st.voted = w.request.step;
  step_vote vote = prepare_now(st, w.request);
  vote.results = std::move(st.results);
  st.results.clear();
  if (w.promise)
    w.promise->deliver(std::move(vote));
  else if (st.coordinator)
    self->send(st.coordinator, std::move(vote));
}

// Results that came with writes and that no vote took (the writes completed none): to the
// coordinator, each as a message of its own.
void hand_on_results(self_pointer self) {
  auto& st = self->state;
  if (st.results.empty()) return;
  if (st.coordinator)
    for (auto& r : st.results)
      self->send(caf::actor_cast<result_receiver>(st.coordinator), std::move(r));
  st.results.clear();
}

channel_push values_of(const channel_actor_state& st, std::int64_t step,
                       const std::vector<std::string>& channels) {
  channel_push out;
  out.step = step;
  for (const auto& name : channels) {
    if (!st.group->owns(name)) continue;
    out.values.push_back(channel_delta::of(name, st.group->read(name)));
    auto v = st.versions.find(name);
    out.versions.push_back(v == st.versions.end() ? 0 : v->second);
  }
  return out;
}

// Commit of the staged step `step`: it becomes visible and is pushed to subscribers. Any
// other step is ignored (already committed, or aborted).
void commit_step(channel_actor_state& st, std::int64_t step, std::uint64_t version) {
  if (st.staged != step) return;
  st.group->commit();
  for (const auto& name : st.staged_changed) st.versions[name] = version;
  fault_point("channel.after_commit", step);
  st.staged.reset();
  // Writes buffered for steps up to this one can never be prepared now.
  st.inbox.erase(st.inbox.begin(), st.inbox.upper_bound(step));
  if (st.staged_changed.empty()) return;
  for (auto& [_, sub] : st.subscribers) {
    std::vector<std::string> mine;
    for (const auto& name : st.staged_changed)
      if (sub.second.count(name)) mine.push_back(name);
    if (!mine.empty()) caf::anon_send(sub.first, values_of(st, step, mine));
  }
  st.staged_changed.clear();
}

// The commit of the step before, when it travels with a prepare: it comes first.
void commit_carried(channel_actor_state& st, const step_prepare& p) {
  if (p.commits >= 0) commit_step(st, p.commits, p.commits_version);
}

channel_actor::behavior_type channel_actor_behavior(
    self_pointer self, channel_group group, caf::actor owner,
    std::unordered_map<std::string, std::uint64_t> versions, std::int64_t closed_through) {
  self->state.group.emplace(std::move(group));
  self->state.versions = std::move(versions);
  self->state.closed_through = closed_through;
  caf::actor_addr owner_addr;
  if (owner) {
    owner_addr = owner.address();
    self->monitor(owner);
    self->state.coordinator = caf::actor_cast<vote_receiver>(owner);
  }
  self->set_down_handler([self, owner_addr](caf::down_msg& msg) {
    // The coordinator went: whatever it staged here can never commit.
    if (owner_addr && msg.source == owner_addr) {
      self->quit(msg.reason);
      return;
    }
    self->state.subscribers.erase(msg.source);
  });
  return {
      [self](channel_writes& m) {
        auto& st = self->state;
        if (m.result) {
          st.results.push_back(std::move(*m.result));
          m.result.reset();
        }
        if (detail::fault_armed && fault_armed_at("channel.stop_on_writes", m.step)) [[unlikely]] {
          // A test hook (SUPERSTEP_FAULT): the actor stops, what it holds lost with it.
          self->quit(caf::sec::runtime_error);
          return;
        }
        if (m.step <= st.closed_through) {
          hand_on_results(self);
          return;
        }
        // The step's prepare rides with the writes of the step's first batch (chunk 0, again
        // when that batch is sent again) and with the coordinator's share: the first counts.
        // Other chunks' writes may come before it; they wait in the inbox.
        if (m.prepare && st.voted != m.step &&
            !(st.waiting && st.waiting->request.step == m.step)) {
          commit_carried(st, *m.prepare);
          st.waiting.emplace(waiting_prepare{std::move(*m.prepare), std::nullopt});
        }
        st.inbox[m.step].add(m);
        try_waiting(self);
        hand_on_results(self);
      },
      [self](step_prepare& req) -> caf::result<step_vote> {
        auto& st = self->state;
        if (req.finish) fault_point("channel.before_finish", req.step);
        commit_carried(st, req);
        auto it = st.inbox.find(req.step);
        const std::uint32_t arrived = it == st.inbox.end() ? 0 : it->second.messages();
        if (req.finish || arrived >= req.expected) {
          if (!req.finish) st.voted = req.step;
          return prepare_now(st, req);
        }
        if (st.waiting && st.waiting->promise) {  // superseded: the coordinator asks again
          step_vote stale;
          stale.step = st.waiting->request.step;
          stale.error = task_error{error_code::internal, "prepare superseded by another"};
          st.waiting->promise->deliver(std::move(stale));
        }
        auto promise = self->make_response_promise<step_vote>();
        st.waiting.emplace(waiting_prepare{std::move(req), promise});
        return promise;
      },
      [self](commit_atom, std::int64_t step, std::uint64_t version) {
        fault_point("channel.after_vote", step);  // voted; the commit arrived, not applied
        commit_step(self->state, step, version);
      },
      [self](abort_atom, std::int64_t step) {
        auto& st = self->state;
        st.inbox.erase(st.inbox.begin(), st.inbox.upper_bound(step));
        // A prepare still waiting for writes of the step is dropped with it; one riding with
        // writes that come late is not taken again.
        if (st.waiting && st.waiting->request.step <= step) {
          if (st.waiting->promise) {
            step_vote dropped;
            dropped.step = st.waiting->request.step;
            dropped.error = task_error{error_code::internal, "the step was aborted"};
            st.waiting->promise->deliver(std::move(dropped));
          }
          st.waiting.reset();
        }
        if (!st.voted || *st.voted < step) st.voted = step;
        if (st.staged != step) return;
        st.group->abort();
        st.staged.reset();
        st.staged_changed.clear();
      },
      [self](subscribe_atom, caf::actor& subscriber,
             std::vector<std::string>& channels) -> channel_push {
        auto& st = self->state;
        auto& sub = st.subscribers[subscriber.address()];
        if (!sub.first) {
          sub.first = subscriber;
          self->monitor(subscriber);
        }
        sub.second.insert(channels.begin(), channels.end());
        return values_of(st, -1, channels);
      },
      [self](read_atom, std::vector<std::string>& channels) -> channel_push {
        return values_of(self->state, -1, channels);
      },
  };
}

}  // namespace

std::uint32_t channel_owner(std::string_view channel, std::size_t groups) noexcept {
  if (groups <= 1) return 0;
  const std::size_t spread_over = groups - 1;
  if (channel == tasks_topic) return static_cast<std::uint32_t>(spread_over);
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : channel) h = (h ^ c) * 1099511628211ull;
  return static_cast<std::uint32_t>(h % spread_over);
}

std::vector<std::vector<ordered_write>> writes_by_owner(const std::vector<pregel_task>& tasks,
                                                        const std::vector<std::uint32_t>& orders,
                                                        const std::vector<bool>& wanted) {
  const std::size_t n = wanted.size();
  std::vector<std::vector<ordered_write>> out(n);
  // Each write's owner, then each owner's vector sized once (a fan-out's batch holds
  // thousands of writes): no write is moved twice.
  std::vector<std::uint32_t> owners;
  std::vector<std::size_t> counts(n);
  if (n > 1) {
    for (const auto& t : tasks)
      for (const auto& w : t.writes) {
        owners.push_back(channel_owner(w.first, n));
        ++counts[owners.back()];
      }
  } else if (n == 1) {
    for (const auto& t : tasks) counts[0] += t.writes.size();
  }
  for (std::size_t g = 0; g < n; ++g)
    if (wanted[g]) out[g].reserve(counts[g]);
  std::size_t k = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const std::uint32_t order = i < orders.size() ? orders[i] : 0;
    for (const auto& [ch, v] : tasks[i].writes) {
      const std::uint32_t g = n > 1 ? owners[k++] : 0;
      if (wanted[g]) out[g].emplace_back(order, ch, v);
    }
  }
  return out;
}

channel_actor spawn_channel_actor(caf::actor_system& sys, channel_group group, caf::actor owner,
                                  std::unordered_map<std::string, std::uint64_t> versions,
                                  std::int64_t closed_through) {
  return sys.spawn(channel_actor_behavior, std::move(group), std::move(owner), std::move(versions),
                   closed_through);
}

channel_actor spawn_channel_actor_beside(caf::actor_system& sys, channel_group group,
                                         caf::actor owner,
                                         std::unordered_map<std::string, std::uint64_t> versions) {
  return sys.spawn<caf::lazy_init>(channel_actor_behavior, std::move(group), std::move(owner),
                                   std::move(versions), std::int64_t{-1});
}

channel_group group_from(
    const std::map<std::string, std::shared_ptr<const channels::channel>>& prototypes,
    std::vector<channel_delta> values) {
  channel_map owned;
  owned.reserve(values.size());
  for (auto& d : values) {
    auto proto = prototypes.find(d.channel);
    if (proto == prototypes.end())
      throw error(error_code::invalid_argument,
                  "cannot own channel '" + d.channel + "': the graph has no such channel");
    std::optional<value> v;
    if (d.present) v = std::move(d.v);
    owned.emplace(proto->first, proto->second->from_transfer(v));
  }
  return channel_group(std::move(owned));
}

}  // namespace superstep::actors
