// The coordinator actor's dispatch of a step's task batches: to node actors in this process
// (the tasks move), or in others (copied and tracked, sent again if their process dies), fed
// to each remote actor as its window allows, and under max_concurrency a few at a time.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "coordinator_state.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail::coord {
namespace {

// Channels of `node`'s replica that changed since actor `to` last saw them: those read fresh,
// and with `inputs` those PULL inputs are built from too.
std::vector<actors::channel_delta> deltas_for(coordinator_state& st, std::uint32_t node,
                                              const actors::node_actor& to, bool inputs) {
  std::vector<actors::channel_delta> out;
  const auto& reads = inputs ? st.pool->replica_reads(node) : st.pool->fresh_reads(node);
  if (reads.empty()) return out;
  auto& seen = st.synced[to.address()];
  const checkpoint& cp = st.loop->state().checkpoint;
  for (const auto& ch : reads) {
    const channel_version now = algo::version_of(cp, ch);
    auto s = seen.find(ch);
    if (s != seen.end() && s->second == now) continue;
    seen[ch] = now;
    out.push_back(actors::channel_delta::of(ch, st.loop->channels().at(ch)->transfer()));
  }
  return out;
}

// The actor's process keeps a replica subscribed to the channel actors: the batch says which
// versions its tasks need, not what changed.
void need_from_replica(coordinator_state& st, actors::task_batch& b, std::uint32_t node,
                       bool pulls) {
  const auto& reads = pulls ? st.pool->replica_reads(node) : st.pool->fresh_reads(node);
  const checkpoint& cp = st.loop->state().checkpoint;
  b.groups = group_handles(st);
  for (const auto& ch : reads) {
    b.need_channels.push_back(ch);
    b.need_versions.push_back(algo::version_of(cp, ch));
  }
}

}  // namespace

// Sends a chunk to one of this process's node actors: the tasks move, nothing is tracked.
void send_local(coordinator_actor* self, const actors::node_actor& to, chunk c) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  actors::task_batch b;
  b.header = st.header;
  if (st.spread) {
    // The groups are on the workers: this process's replica of the run has what the tasks
    // read (the coordinator may hold only versions of those channels).
    const bool pulls = std::any_of(c.slots.begin(), c.slots.end(),
                                   [&](std::uint32_t s) { return !tasks[s].push; });
    b.header.inputs_from_replica = pulls;
    need_from_replica(st, b, c.node, pulls);
  } else {
    b.deltas = deltas_for(st, c.node, to, false);
  }
  b.tasks.reserve(c.slots.size());
  for (auto s : c.slots) b.tasks.push_back(std::move(tasks[s]));
  // A batch here is never sent again: when it is the step's last unfinished one and the
  // coordinator has no share to send, nothing needs the prepares after it.
  const bool last = st.pending == 1 && !st.share_due;
  route_writes(st, b, c, last);
  // Its writes then complete the step at the run's one group, beside the coordinator: the
  // result goes with them and comes back with the group's vote, one message for both.
  if (last && st.early_prepare && !st.spread && b.groups.size() == 1 &&
      b.groups.front().node() == self->node() && b.need_channels.empty()) {
    b.result_with_writes = true;
    st.routed_to = to;
  }
  b.slots = std::move(c.slots);
  ++st.local_out;
  self->send(to, std::move(b));
}

namespace {

// The run, as a batch to another process describes it (batch_header), once per step.
void describe_run(coordinator_state& st) {
  auto& header = st.header;
  if (st.wire_step == header.step) return;
  st.wire_step = header.step;
  const run_shared& shared = st.loop->shared();
  header.stop = shared.stop;
  header.checkpoint_id = shared.checkpoint_id;
  header.resuming = shared.resuming;
  header.config = shared.config;
  header.ns = shared.ns;
  header.modes = shared.modes;
  header.subgraphs = shared.subgraphs;
  header.message_events = shared.message_events;
  header.replay_checkpoint_id = shared.replay ? shared.replay->checkpoint_id() : std::string();
  header.replay_visited = shared.replay ? shared.replay->visited() : std::vector<std::string>{};
}

// Sends a chunk to a remote node actor: the tasks are copied and the batch tracked, so it can
// be sent again if the actor's process dies before answering. PULL tasks go without their
// input: the actor builds it from its replica, which the batch's deltas bring up to date, so
// a step sends the channels that changed, not every task's whole input.
void send_remote(coordinator_actor* self, const actors::node_actor& to, chunk c,
                 bool isolated = false) {
  auto& st = self->state;
  describe_run(st);
  auto& tasks = st.loop->tasks();
  actors::task_batch b;
  b.id = ++st.last_batch;
  b.header = st.header;
  // Input channels only for a batch with PULL tasks: Sends bring their own input.
  const bool pulls =
      std::any_of(c.slots.begin(), c.slots.end(), [&](std::uint32_t s) { return !tasks[s].push; });
  b.header.inputs_from_replica = pulls;
  if (st.spread) {
    need_from_replica(st, b, c.node, pulls);
  } else {
    b.deltas = deltas_for(st, c.node, to, pulls);
  }
  b.tasks.reserve(c.slots.size());
  for (auto s : c.slots) {
    pregel_task& t = tasks[s];
    if (t.push) {
      b.tasks.push_back(t);
      continue;
    }
    value input = std::exchange(t.input, value());  // copied without it, kept here
    b.tasks.push_back(t);
    t.input = std::move(input);
  }
  // Its writes go to their owners: those in this process get them with its result.
  route_writes(st, b, c, false);
  // What its result brings for the groups in this process (actors::result_takes_writes).
  batch_expected e;
  e.step = st.loop->step();
  e.id = b.id;
  e.groups = static_cast<std::uint32_t>(b.groups.size());
  for (std::uint32_t g = 0; g < b.groups.size(); ++g) {
    if (!actors::result_takes_writes(self->node(), b.groups[g], to.node())) continue;
    e.here.push_back(g);
    e.here_actors.push_back(b.groups[g]);
    e.prepares.push_back(g < b.prepares.size() ? std::optional(b.prepares[g]) : std::nullopt);
  }
  if (!e.here.empty()) {
    e.chunk = b.chunk;
    e.orders = b.orders;
  }
  in_flight f{to, {}, {}, isolated};
  if (st.saver) {
    // Its result comes through the writes saver, which learns the batch's tasks first and
    // hands those writes on.
    b.saver = caf::actor_cast<caf::actor>(st.saver);
    e.name = st.loop->graph().nodes[c.node].name;
    e.tasks.reserve(c.slots.size());
    for (auto s : c.slots) {
      e.tasks.push_back({tasks[s].id, tasks[s].push, tasks[s].push_index});
      st.stripped[s] = true;
    }
    self->send(st.saver, std::move(e));
  } else {
    f.hand_on = std::move(e);
  }
  b.slots = c.slots;
  if (st.monitored.emplace(to.address(), to).second) self->monitor(to);
  ++st.load[to.address()];
  f.work = std::move(c);
  st.flight.emplace(b.id, std::move(f));
  self->send(to, std::move(b));
}

// After a worker went away in this step: a suspect chunk (one of its tasks was in flight
// there) goes only to a process with nothing else of the run out, which no other run's
// suspect holds, and nothing else goes to a process while a suspect is out there: the next
// loss is that batch's own (send_again). Other chunks pass a suspect that cannot go yet.
void pump_isolating(coordinator_actor* self, std::deque<chunk>& queue,
                    const std::vector<actors::node_actor>& live, std::size_t window) {
  auto& st = self->state;
  std::map<caf::node_id, std::pair<std::size_t, bool>> busy;  // batches out, a suspect's among
  for (const auto& [id, f] : st.flight) {
    auto& b = busy[f.to.node()];
    ++b.first;
    b.second = b.second || f.isolated;
  }
  std::set<caf::node_id> held;  // by another run's suspect
  for (auto it = queue.begin(); it != queue.end();) {
    const bool alone = suspect(st, *it);
    const actors::node_actor* best = nullptr;
    for (;;) {
      best = nullptr;
      std::size_t best_load = window;
      for (const auto& a : live) {
        auto b = busy.find(a.node());
        if (b != busy.end() && (alone ? b->second.first > 0 : b->second.second)) continue;
        if (alone && held.count(a.node())) continue;
        std::size_t l = st.load[a.address()];
        if (l < best_load) best = &a, best_load = l;
      }
      if (!best || !alone || st.directory->claim_host(best->node())) break;
      held.insert(best->node());
    }
    if (!best) {
      if (alone) {
        ++it;
        continue;
      }
      break;  // no process takes more: answers pump again
    }
    auto& b = busy[best->node()];
    ++b.first;
    b.second = b.second || alone;
    if (alone) st.claimed.insert(best->node());
    chunk c = std::move(*it);
    it = queue.erase(it);
    send_remote(self, *best, std::move(c), alone);
  }
}

// For the error of a step that waited in vain for a worker: the waiting task lost with the
// most workers, when one was (its workers may have gone because of it).
std::string most_lost(const coordinator_state& st, const std::deque<chunk>& queue) {
  if (st.losses.empty()) return {};
  const pregel_task* worst = nullptr;
  std::uint8_t most = 0;
  for (const auto& c : queue)
    for (auto s : c.slots)
      if (st.losses[s] > most) most = st.losses[s], worst = &st.loop->tasks()[s];
  if (!worst) return {};
  return "; task '" + worst->id + "'" +
         (worst->push ? " (Send #" + std::to_string(worst->push_index) + ")" : std::string()) +
         " was running on " + std::to_string(most) + " worker" + (most == 1 ? "" : "s") +
         " that went away: it may crash its worker";
}

}  // namespace

// Sends waiting chunks of remote `node` to its least loaded live actors while their windows
// have room. With no actor left for it, checks again soon; the run fails after policy.wait.
void pump(coordinator_actor* self, std::uint32_t node) {
  auto& st = self->state;
  auto w = st.waiting.find(node);
  if (w == st.waiting.end()) return;
  auto& queue = w->second;
  std::vector<actors::node_actor> live;
  if (auto found = st.directory->instances(node))
    for (auto& a : *found)
      if (!st.dead.count(a.address()) && !st.dead_nodes.count(a.node()))
        live.push_back(std::move(a));
  const std::size_t window = std::max<std::size_t>(1, st.policy.window);
  if (st.isolating && !live.empty()) pump_isolating(self, queue, live, window);
  while (!st.isolating && !queue.empty() && !live.empty()) {
    const actors::node_actor* best = nullptr;
    std::size_t best_load = window;
    for (const auto& a : live) {
      std::size_t l = st.load[a.address()];
      if (l < best_load) best = &a, best_load = l;
    }
    if (!best) break;  // every window is full: answers pump again
    chunk c = std::move(queue.front());
    queue.pop_front();
    send_remote(self, *best, std::move(c));
  }
  if (!live.empty()) st.starved_since.reset();
  if (queue.empty()) {
    st.waiting.erase(w);
    return;
  }
  if (!live.empty()) {
    // A suspect waits for a process to itself, which another run's may hold: look again soon.
    if (st.isolating && !st.retry_scheduled) {
      st.retry_scheduled = true;
      self->delayed_send(self, std::chrono::milliseconds(50), retry_atom::value);
    }
    return;
  }
  auto now = std::chrono::steady_clock::now();
  if (!st.starved_since) st.starved_since = now;
  if (now - *st.starved_since > st.policy.wait) {
    fail(self, std::make_exception_ptr(
                   error(error_code::unavailable, st.directory->unavailable(node) + " (waited " +
                                                      std::to_string(st.policy.wait.count()) +
                                                      " ms" + most_lost(st, queue) + ")")));
    return;
  }
  if (!st.retry_scheduled) {
    st.retry_scheduled = true;
    self->delayed_send(self, std::chrono::milliseconds(50), retry_atom::value);
  }
}

void pump_all(coordinator_actor* self) {
  std::vector<std::uint32_t> nodes;
  for (const auto& [node, queue] : self->state.waiting) nodes.push_back(node);
  for (auto node : nodes) {
    if (self->state.failing || self->getf(caf::abstract_actor::is_terminated_flag)) return;
    pump(self, node);
  }
}

// Sends the step's waiting tasks while fewer than max_concurrency are out (LangGraph's
// semaphore around a step's tasks); a remote one joins its node's queue.
void release_capped(coordinator_actor* self) {
  auto& st = self->state;
  while (!st.capped.empty() && st.capped_out < st.cap) {
    chunk c = std::move(st.capped.front());
    st.capped.pop_front();
    st.capped_out += c.slots.size();
    if (st.directory && st.directory->instances(c.node)) {
      const std::uint32_t node = c.node;
      st.waiting[node].push_back(std::move(c));
      pump(self, node);
      if (st.failing || self->getf(caf::abstract_actor::is_terminated_flag)) return;
      continue;
    }
    const auto& instances = st.pool->instances(c.node);
    send_local(self, instances[st.capped_sent++ % instances.size()], std::move(c));
  }
}

// Tasks per batch for `tasks` tasks of a node with `actors` remote actors: at most
// max_batch, and at least four batches per actor when there are enough tasks.
std::size_t remote_batch_size(const coordinator_state& st, std::size_t tasks, std::size_t actors) {
  const std::size_t k = std::max<std::size_t>(1, actors);
  const std::size_t size = (tasks + 4 * k - 1) / (4 * k);
  return std::clamp<std::size_t>(size, 1, std::max<std::size_t>(1, st.policy.max_batch));
}

}  // namespace superstep::detail::coord
