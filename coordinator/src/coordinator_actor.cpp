// The coordinator actor: drives one run's loop (plan, dispatch task batches to node actors,
// barrier, commit) by messages. The caller blocks on a scoped actor until the run ends.
#include "coordinator_actor.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "node_actor_pool.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/fault_point.hpp"
#include "superstep/actors/node_directory.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/coordinator/constants.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail {

namespace {

using start_atom = caf::atom_constant<caf::atom("start")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;

// Tasks of one node in the current step that travel together as one batch.
struct chunk {
  std::uint32_t node = 0;
  std::vector<std::uint32_t> slots;
  std::uint32_t index = 0;  // its number in the step, kept when it is sent again
};

// A batch sent to a remote node actor and not answered yet: resent elsewhere if that actor
// goes down.
struct in_flight {
  actors::node_actor to;
  chunk work;
};

struct coordinator_state {
  run_loop* loop = nullptr;
  node_actor_pool* pool = nullptr;
  actors::node_directory* directory = nullptr;
  const progress_fn* progress = nullptr;
  actors::dispatch_policy policy;
  std::promise<bool>* done = nullptr;  // the caller waits on its future
  actors::batch_header header;         // of the current step
  std::uint32_t pending = 0;           // chunks of the step not finished yet
  std::uint32_t local_out = 0;         // batches at this process's node actors, unanswered
  bool failing = false;                // failed; waits for local_out to reach 0 to end
  std::size_t step_tasks = 0, step_finished = 0;
  // Remote dispatch: batches in flight by id, chunks waiting for room in an actor's window
  // (or for an actor at all) by node, batches in flight per actor.
  std::uint64_t last_batch = 0;
  std::unordered_map<std::uint64_t, in_flight> flight;
  std::map<std::uint32_t, std::deque<chunk>> waiting;
  std::unordered_map<caf::actor_addr, std::size_t> load;
  std::unordered_set<caf::actor_addr> monitored, dead;
  bool retry_scheduled = false;
  std::optional<std::chrono::steady_clock::time_point> starved_since;
  // Per node actor: the channel versions its replica holds, in this run.
  std::unordered_map<caf::actor_addr, std::unordered_map<std::string, channel_version>> synced;
  // The run's max_concurrency (0: none): the step's tasks wait here, one per chunk, and are
  // sent while fewer than that many are out.
  std::size_t cap = 0;
  std::size_t capped_out = 0;
  std::size_t capped_sent = 0;  // round robin over a node's local actors
  std::deque<chunk> capped;
  // The channel actors owning the run's channels (runtime_options::channel_actors), placed
  // once the input is applied: one beside the coordinator, or one group per worker with
  // --spread-channels (the directory's channel hosts). The loop's channels are then their
  // replica, rebuilt from the votes. Empty: the loop applies writes itself.
  bool use_channel_actors = false;
  std::vector<actors::channel_actor> groups;
  std::unordered_map<std::string, std::uint32_t> owner;  // channel -> group (several groups)
  // The round of the two-phase commit in progress: votes by group, how many are due, and
  // whether it is the finish round of a tentatively last step.
  std::vector<actors::step_vote> votes;
  std::size_t votes_due = 0;
  bool finish_round = false;
  std::size_t placements_due = 0;
  // A group in this process learns of a commit with the next prepare (or not at all when
  // the run ends): nothing reads its committed values between the two. The step whose
  // commit is owed, or -1.
  std::int64_t owed_commit = -1;
  channel_version owed_version = 0;
  // Writes straight from node actors to the groups: every batch names the groups, and the
  // step's prepare goes out with its tasks (`early_prepare`), so each group stages the step
  // as soon as the writes of every batch (and the coordinator's share of the rest, when
  // `share_due`: restored tasks') are in. `sent_direct`: the tasks whose writes went that
  // way, by slot; `orders`: each task's position in task-path order; `chunks`: the step's
  // batches so far. The votes are taken once the step reached its barrier (`at_barrier`).
  std::vector<caf::actor> group_handles;
  // The groups live in other processes (--spread-channels): batches sent there route their
  // writes to them too. Otherwise a remote batch's writes come with its result, which
  // reaches the process of the groups anyway.
  bool spread = false;
  std::vector<actors::step_prepare> prepares;  // by group, riding with the writes
  std::uint32_t chunks = 0;
  std::vector<bool> sent_direct;
  std::vector<std::uint32_t> orders;
  bool early_prepare = false;
  bool share_due = false;
  bool at_barrier = false;
};

// The coordinator's protocol, checked by the compiler: the run's start, node actors' results
// and stream events, and its own timer for starved remote dispatch.
using coordinator_protocol =
    caf::typed_actor<caf::reacts_to<start_atom, value>, caf::reacts_to<actors::task_batch_done>,
                     caf::reacts_to<retry_atom>, caf::reacts_to<actors::stream_chunk>,
                     caf::reacts_to<actors::step_vote>>;
using coordinator_actor = coordinator_protocol::stateful_base<coordinator_state>;

// Channels of `node`'s replica that changed since actor `to` last saw them: those read fresh,
// and with `inputs` those PULL inputs are built from too.
std::vector<actors::channel_delta> deltas_for(coordinator_state& st, std::uint32_t node,
                                              const actors::node_actor& to, bool inputs) {
  std::vector<actors::channel_delta> out;
  const auto& reads = inputs ? st.pool->replica_reads(node) : st.pool->fresh_reads(node);
  if (reads.empty()) return out;
  auto& seen = st.synced[to.address()];
  const auto& versions = st.loop->state().checkpoint.channel_versions;
  for (const auto& ch : reads) {
    auto v = versions.find(ch);
    channel_version now = v == versions.end() ? 0 : v->second;
    auto s = seen.find(ch);
    if (s != seen.end() && s->second == now) continue;
    seen[ch] = now;
    actors::channel_delta d;
    d.channel = ch;
    auto saved = st.loop->channels().at(ch)->transfer();
    d.present = saved.has_value();
    if (saved) d.v = std::move(*saved);
    out.push_back(std::move(d));
  }
  return out;
}

// With the step's prepare out, the batch's tasks send their writes to the groups themselves.
void route_writes(coordinator_state& st, actors::task_batch& b, const chunk& c) {
  if (!st.early_prepare) return;
  b.groups = st.group_handles;
  b.prepares = st.prepares;
  b.chunk = c.index;
  b.orders.reserve(c.slots.size());
  for (auto s : c.slots) {
    b.orders.push_back(st.orders[s]);
    st.sent_direct[s] = true;
  }
}

// Sends a chunk to one of this process's node actors: the tasks move, nothing is tracked.
void send_local(coordinator_actor* self, const actors::node_actor& to, chunk c) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  actors::task_batch b;
  b.header = st.header;
  b.deltas = deltas_for(st, c.node, to, false);
  b.tasks.reserve(c.slots.size());
  for (auto s : c.slots) b.tasks.push_back(std::move(tasks[s]));
  route_writes(st, b, c);
  b.slots = std::move(c.slots);
  ++st.local_out;
  self->send(to, std::move(b));
}

// Sends a chunk to a remote node actor: the tasks are copied and the batch tracked, so it can
// be sent again if the actor's process dies before answering. PULL tasks go without their
// input: the actor builds it from its replica, which the batch's deltas bring up to date, so
// a step sends the channels that changed, not every task's whole input.
void send_remote(coordinator_actor* self, const actors::node_actor& to, chunk c) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  actors::task_batch b;
  b.id = ++st.last_batch;
  b.header = st.header;
  // Input channels only for a batch with PULL tasks: Sends bring their own input.
  const bool pulls =
      std::any_of(c.slots.begin(), c.slots.end(), [&](std::uint32_t s) { return !tasks[s].push; });
  b.header.inputs_from_replica = pulls;
  if (st.spread) {
    // The actor's process keeps a replica subscribed to the channel actors: the batch says
    // which versions its tasks need, not what changed.
    const auto& reads = pulls ? st.pool->replica_reads(c.node) : st.pool->fresh_reads(c.node);
    const auto& versions = st.loop->state().checkpoint.channel_versions;
    b.groups = st.group_handles;
    for (const auto& ch : reads) {
      auto v = versions.find(ch);
      b.need_channels.push_back(ch);
      b.need_versions.push_back(v == versions.end() ? 0 : v->second);
    }
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
  // Beside the coordinator, the owners get a remote batch's writes with its result.
  if (st.spread) route_writes(st, b, c);
  b.slots = c.slots;
  if (st.monitored.insert(to.address()).second) self->monitor(to);
  ++st.load[to.address()];
  st.flight.emplace(b.id, in_flight{to, std::move(c)});
  self->send(to, std::move(b));
}

// Tells the caller how the run ended and stops, with the run's channel actor.
void end_run(coordinator_actor* self, bool ok) {
  auto& st = self->state;
  for (const auto& g : st.groups) self->send_exit(g, caf::exit_reason::user_shutdown);
  st.groups.clear();
  st.done->set_value(ok);
  self->quit();
}

// Ends the run with `e`. Batches still at this process's node actors use the graph and the
// saver, which the caller may free once told: the end waits for them to come back.
void fail(coordinator_actor* self, std::exception_ptr e) {
  auto& st = self->state;
  if (st.failing) return;
  st.failing = true;
  st.loop->set_failure(e);
  if (st.local_out > 0) return;
  end_run(self, false);
}

// A local batch came back after the run failed: end it once none is left.
void drain_after_failure(coordinator_actor* self) {
  if (self->state.local_out == 0) end_run(self, false);
}

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
      if (!st.dead.count(a.address())) live.push_back(std::move(a));
  const std::size_t window = std::max<std::size_t>(1, st.policy.window);
  while (!queue.empty() && !live.empty()) {
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
  if (!live.empty()) return;
  auto now = std::chrono::steady_clock::now();
  if (!st.starved_since) st.starved_since = now;
  if (now - *st.starved_since > st.policy.wait) {
    fail(self, std::make_exception_ptr(error(error_code::unavailable,
                                             st.directory->unavailable(node) + " (waited " +
                                                 std::to_string(st.policy.wait.count()) + " ms)")));
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

void next_step(coordinator_actor* self);

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

// Sends `msg` to every channel group of the run.
template <class... Ts>
void to_groups(coordinator_actor* self, const Ts&... msg) {
  for (const auto& g : self->state.groups) self->send(g, msg...);
}

// The commit point of a prepared step: the checkpoint, then the owners' commit (or their
// abort when the checkpoint could not be made), then the next step.
void complete_commit(coordinator_actor* self, std::int64_t step) {
  auto& st = self->state;
  actors::fault_point("coordinator.after_votes", step);
  bool more = false;
  try {
    more = st.loop->complete_step();
  } catch (...) {
    to_groups(self, actors::abort_atom::value, step);
    throw;
  }
  actors::fault_point("coordinator.after_checkpoint", step);
  // Groups in other processes commit now (the failure of a participant after the commit
  // point must not lose it, and replicas wait for their pushes); the one beside the
  // coordinator with the next prepare.
  if (st.owner.empty()) {
    st.owed_commit = step;
    st.owed_version = st.loop->step_version();
  } else {
    to_groups(self, actors::commit_atom::value, step, st.loop->step_version());
  }
  if (!more) {
    end_run(self, true);
    return;
  }
  next_step(self);
}

void ask_votes(coordinator_actor* self, std::vector<actors::step_prepare> prepares,
               bool finish_round);

// Every group voted in this round: a no from any aborts the step everywhere and fails the
// run; yeses are taken into the loop, then the finish round or the commit follows.
void votes_in(coordinator_actor* self) {
  auto& st = self->state;
  const std::int64_t step = st.loop->step();
  auto votes = std::move(st.votes);
  for (const auto& v : votes)
    if (v.error) {
      to_groups(self, actors::abort_atom::value, step);
      throw error(v.error->code, v.error->message);
    }
  for (const auto& v : votes) st.loop->take_votes(v.changes);
  if (!st.finish_round && st.loop->finish_due()) {
    std::vector<actors::step_prepare> finish(st.groups.size());
    for (auto& f : finish) {
      f.step = step;
      f.finish = true;
    }
    ask_votes(self, std::move(finish), true);
    return;
  }
  complete_commit(self, step);
}

// Phase one: each group is asked to prepare and answers with its vote, a message of its own
// (a group that goes away instead is noticed by the down handler: every group is monitored).
void expect_votes(coordinator_actor* self, bool finish_round) {
  auto& st = self->state;
  st.votes.assign(st.groups.size(), actors::step_vote{});
  st.votes_due = st.groups.size();
  st.finish_round = finish_round;
}

void ask_votes(coordinator_actor* self, std::vector<actors::step_prepare> prepares,
               bool finish_round) {
  auto& st = self->state;
  expect_votes(self, finish_round);
  for (std::uint32_t g = 0; g < st.groups.size(); ++g)
    self->send(st.groups[g], std::move(prepares[g]));
}

// A group's vote in the round in progress; the last one ends the round.
void take_vote(coordinator_actor* self, actors::step_vote& v) {
  auto& st = self->state;
  if (st.votes_due == 0 || v.step != st.loop->step()) return;
  const auto from = self->current_sender();
  for (std::size_t g = 0; g < st.groups.size(); ++g) {
    if (st.groups[g].address() != from) continue;
    st.votes[g] = std::move(v);
    if (--st.votes_due == 0 && st.at_barrier) votes_in(self);
    return;
  }
}

// Ends the step at the barrier and starts the next one, or finishes the run. With channel
// actors, the step commits in two phases: each group gets its share of the writes and a
// prepare, and votes with what changed.
void commit_and_continue(coordinator_actor* self) {
  auto& st = self->state;
  if (st.groups.empty()) {
    if (!st.loop->commit_step()) {
      end_run(self, true);
      return;
    }
    next_step(self);
    return;
  }
  auto staged = st.loop->stage_step(st.early_prepare ? st.sent_direct : std::vector<bool>{});
  if (!staged) {
    end_run(self, true);
    return;
  }
  const std::int64_t step = st.loop->step();
  const std::size_t n = st.groups.size();
  st.at_barrier = true;
  if (st.early_prepare) {
    // The groups were asked with the step's tasks; what did not go to them from a node
    // actor (restored tasks' writes, remote batches' results) is the coordinator's share.
    if (st.share_due) {
      std::vector<actors::channel_writes> share(n);
      for (std::size_t g = 0; g < n; ++g) {
        share[g].step = step;
        share[g].chunk = actors::coordinator_chunk;
        share[g].prepare = st.prepares[g];
      }
      for (auto& w : staged->writes)
        share[n == 1 ? 0 : st.owner.at(w.channel)].writes.push_back(std::move(w));
      for (std::size_t g = 0; g < n; ++g) self->send(st.groups[g], std::move(share[g]));
    }
    if (st.votes_due == 0) votes_in(self);
    return;
  }
  std::vector<actors::step_prepare> prepares(n);
  for (std::size_t g = 0; g < n; ++g) {
    prepares[g].step = step;
    prepares[g].bump_step = staged->bump_step;
    prepares[g].commits = st.owed_commit;
    prepares[g].commits_version = st.owed_version;
  }
  st.owed_commit = -1;
  // The writes travel inside the prepare: one message per group and step.
  if (n == 1) {
    prepares[0].consumed = std::move(staged->consumed);
    prepares[0].writes = std::move(staged->writes);
  } else {
    for (auto& c : staged->consumed) prepares[st.owner.at(c)].consumed.push_back(std::move(c));
    for (auto& w : staged->writes) prepares[st.owner.at(w.channel)].writes.push_back(std::move(w));
  }
  ask_votes(self, std::move(prepares), false);
}

// The step's prepare for each group, riding with its tasks' writes: a group votes once the
// write messages of `messages` chunks of the step arrived (one per batch, and the
// coordinator's share).
void prepare_early(coordinator_actor* self, std::uint32_t messages) {
  auto& st = self->state;
  auto effects = algo::step_effects(st.loop->tasks());
  const std::size_t n = st.groups.size();
  std::vector<actors::step_prepare> prepares(n);
  for (auto& p : prepares) {
    p.step = st.loop->step();
    p.expected = messages;
    p.bump_step = effects.bump_step;
    p.commits = st.owed_commit;
    p.commits_version = st.owed_version;
  }
  st.owed_commit = -1;
  for (auto& c : effects.consumed)
    prepares[n == 1 ? 0 : st.owner.at(c)].consumed.push_back(std::move(c));
  st.prepares = std::move(prepares);
  expect_votes(self, false);
}

// Places the run's channels, as they are once the input is applied: one group beside the
// coordinator, or one per channel host of the directory (--spread-channels), each restored
// from the loop's values. The run's first step starts once every group is placed.
void place_channels(coordinator_actor* self) {
  auto& st = self->state;
  const auto& live = st.loop->channels();
  std::vector<caf::actor> hosts;
  if (st.directory) hosts = st.directory->channel_hosts();
  if (hosts.empty()) {
    actors::channel_map owned;
    owned.reserve(live.size());
    for (const auto& [name, c] : live) owned.emplace(name, c->copy());
    st.groups.push_back(
        actors::spawn_channel_actor(self->system(), actors::channel_group(std::move(owned)),
                                    caf::actor_cast<caf::actor>(self)));
    self->monitor(st.groups.back());
    st.group_handles.push_back(caf::actor_cast<caf::actor>(st.groups.back()));
    next_step(self);
    return;
  }
  std::vector<actors::channel_placement> placements(hosts.size());
  for (auto& p : placements) p.graph = st.directory->graph_key();
  for (const auto& [name, c] : live) {
    const std::uint32_t g = actors::channel_owner(name, hosts.size());
    st.owner.emplace(name, g);
    actors::channel_delta d;
    d.channel = name;
    if (auto v = c->transfer()) {
      d.present = true;
      d.v = std::move(*v);
    }
    placements[g].values.push_back(std::move(d));
    auto v = st.loop->state().checkpoint.channel_versions.find(name);
    placements[g].versions.push_back(
        v == st.loop->state().checkpoint.channel_versions.end() ? 0 : v->second);
  }
  st.groups.resize(hosts.size());
  st.placements_due = hosts.size();
  for (std::uint32_t g = 0; g < hosts.size(); ++g)
    self->request(hosts[g], std::chrono::seconds(30), actors::place_atom::value,
                  std::move(placements[g]))
        .then(
            [self, g](caf::actor& placed) {
              auto& st = self->state;
              if (st.failing) {
                self->send_exit(placed, caf::exit_reason::user_shutdown);
                return;
              }
              st.groups[g] = caf::actor_cast<actors::channel_actor>(placed);
              self->monitor(placed);
              if (--st.placements_due > 0) return;
              try {
                st.spread = true;
                for (const auto& h : st.groups)
                  st.group_handles.push_back(caf::actor_cast<caf::actor>(h));
                next_step(self);
              } catch (...) {
                fail(self, std::current_exception());
              }
            },
            [self](caf::error& e) {
              fail(self,
                   std::make_exception_ptr(error(error_code::unavailable,
                                                 "cannot place the run's channels on a worker: " +
                                                     self->system().render(e))));
            });
}

// Tasks per batch for `tasks` tasks of a node with `actors` remote actors: at most
// max_batch, and at least four batches per actor when there are enough tasks.
std::size_t remote_batch_size(const coordinator_state& st, std::size_t tasks, std::size_t actors) {
  const std::size_t k = std::max<std::size_t>(1, actors);
  const std::size_t size = (tasks + 4 * k - 1) / (4 * k);
  return std::clamp<std::size_t>(size, 1, std::max<std::size_t>(1, st.policy.max_batch));
}

// Plans the next step and dispatches it; finishes the run when there is nothing to do.
void next_step(coordinator_actor* self) {
  auto& st = self->state;
  if (!st.loop->plan()) {
    end_run(self, true);
    return;
  }
  const run_shared& shared = st.loop->shared();
  auto& header = st.header;
  header.step = st.loop->step();
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

  std::map<std::uint32_t, std::vector<std::uint32_t>> by_node;
  auto runnable = st.loop->runnable();
  for (std::uint32_t i : runnable) by_node[st.loop->tasks()[i].node].push_back(i);
  st.pending = 0;
  st.step_tasks = runnable.size();
  st.step_finished = 0;
  if (st.progress && st.step_tasks > 1) (*st.progress)(header.step, 0, st.step_tasks);
  st.starved_since.reset();
  st.dead.clear();  // a worker that went away may be back (same actor addresses)
  st.cap = st.loop->max_concurrency();
  const bool capped = st.cap && runnable.size() > st.cap;
  if (!capped) st.cap = 0;
  // Where each node's tasks go: node actors in other processes, or this process's.
  std::map<std::uint32_t, std::optional<std::vector<actors::node_actor>>> remote;
  for (const auto& [node, _] : by_node)
    remote[node] = st.directory ? st.directory->instances(node) : std::nullopt;
  // Batches run here write straight to the channel groups: count them, and ask the groups to
  // prepare with the tasks (local chunks as below: several per instance, or one per task).
  st.at_barrier = st.early_prepare = st.share_due = false;
  st.chunks = 0;
  if (!st.groups.empty()) {
    std::uint32_t direct = 0;
    for (const auto& [node, slots] : by_node) {
      if (remote[node] && !st.spread) {  // its writes come with its results
        st.share_due = true;
        continue;
      }
      std::size_t n = slots.size();  // capped: a batch per task
      if (!capped && !remote[node]) {
        n = std::min(n, st.pool->instances(node).size() * 4);
      } else if (!capped) {
        const std::size_t size = remote_batch_size(st, slots.size(), remote[node]->size());
        n = (slots.size() + size - 1) / size;
      }
      direct += static_cast<std::uint32_t>(n);
    }
    if (direct > 0) {
      if (runnable.size() < st.loop->tasks().size()) st.share_due = true;
      st.early_prepare = true;
      st.sent_direct.assign(st.loop->tasks().size(), false);
      st.orders = algo::path_orders(st.loop->tasks());
      prepare_early(self, direct + (st.share_due ? 1 : 0));
    }
  }
  if (capped) {
    // One task per batch, in task order, at most max_concurrency out at once.
    st.capped.clear();
    st.capped_out = 0;
    for (std::uint32_t i : runnable)
      st.capped.push_back(chunk{st.loop->tasks()[i].node, {i}, st.chunks++});
    st.pending = static_cast<std::uint32_t>(runnable.size());
    release_capped(self);
    return;
  }
  for (auto& [node, slots] : by_node) {
    if (!remote[node]) {
      const auto& instances = st.pool->instances(node);
      const std::size_t k = instances.size();
      // Several chunks per instance balance uneven tasks; one per task when there are few.
      const std::size_t chunks = std::min(slots.size(), k * 4);
      for (std::size_t c = 0; c < chunks; ++c) {
        std::size_t begin = slots.size() * c / chunks, end = slots.size() * (c + 1) / chunks;
        send_local(
            self, instances[c % k],
            chunk{node, std::vector<std::uint32_t>(slots.begin() + begin, slots.begin() + end),
                  st.chunks++});
        ++st.pending;
      }
      continue;
    }
    // Remote: batches of at most max_batch tasks, at least four per actor when there are
    // enough tasks, queued and fed to the actors as their windows allow.
    const std::size_t size = remote_batch_size(st, slots.size(), remote[node]->size());
    auto& queue = st.waiting[node];
    for (std::size_t begin = 0; begin < slots.size(); begin += size) {
      std::size_t end = std::min(slots.size(), begin + size);
      queue.push_back(chunk{
          node, std::vector<std::uint32_t>(slots.begin() + begin, slots.begin() + end), st.chunks++});
      ++st.pending;
    }
    pump(self, node);
    if (self->state.failing || self->getf(caf::abstract_actor::is_terminated_flag)) return;
  }
  if (st.pending == 0) commit_and_continue(self);  // every task was restored from saved writes
}

// Files the results of a batch; returns the node whose waiting chunks may now be sent, when
// the batch came from a remote actor. Throws when a remote answer does not match its batch.
std::optional<std::uint32_t> take_results(coordinator_actor* self, actors::task_batch_done& done) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  std::optional<std::uint32_t> node;
  std::vector<std::uint32_t> slots;
  if (done.id != 0) {
    auto it = st.flight.find(done.id);
    if (it == st.flight.end()) return std::nullopt;  // answered after it was sent elsewhere
    // Only the coordinator's own record says which tasks a batch holds.
    slots = std::move(it->second.work.slots);
    node = it->second.work.node;
    auto l = st.load.find(it->second.to.address());
    if (l != st.load.end() && l->second > 0) --l->second;
    st.flight.erase(it);
    if (done.tasks.size() != slots.size())
      throw error(error_code::internal, "a worker answered a batch of " +
                                            std::to_string(slots.size()) + " tasks with " +
                                            std::to_string(done.tasks.size()));
    for (std::size_t i = 0; i < slots.size(); ++i)
      if (done.tasks[i].id != tasks[slots[i]].id)
        throw error(error_code::internal, "a worker answered for task " + done.tasks[i].id +
                                              " instead of " + tasks[slots[i]].id);
  } else {
    slots = std::move(done.slots);
    if (slots.size() != done.tasks.size())
      throw error(error_code::internal, "a node actor answered with mismatched slots");
    for (auto s : slots)
      if (s >= tasks.size()) throw error(error_code::internal, "a node actor answered a bad slot");
  }
  std::vector<const pregel_task*> finished;
  finished.reserve(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    pregel_task& t = tasks[slots[i]];
    pregel_task& r = done.tasks[i];
    if (node) {
      // From another process: only the outcome is taken; what the task is stays ours.
      t.writes = std::move(r.writes);
      t.output = std::move(r.output);
      t.interrupts = std::move(r.interrupts);
      t.error = std::move(r.error);
      t.handled_error = std::move(r.handled_error);
      t.done = r.done;
    } else {
      value input = std::move(t.input);  // the node actor sends no input back
      t = std::move(r);
      t.input = std::move(input);
    }
    finished.push_back(&t);
  }
  st.loop->tasks_finished(finished);
  st.step_finished += slots.size();
  if (st.progress) (*st.progress)(st.header.step, st.step_finished, st.step_tasks);
  return node;
}

// A remote node actor went down (its process died or disconnected): its unanswered batches
// go back to the front of their queues and on to other actors.
void actor_lost(coordinator_actor* self, const caf::actor_addr& gone) {
  auto& st = self->state;
  st.dead.insert(gone);
  st.monitored.erase(gone);
  st.load.erase(gone);
  st.synced.erase(gone);
  std::vector<std::uint64_t> ids;
  for (const auto& [id, f] : st.flight)
    if (f.to.address() == gone) ids.push_back(id);
  std::sort(ids.rbegin(), ids.rend());  // newest first, so the oldest ends up in front
  for (auto id : ids) {
    auto it = st.flight.find(id);
    st.waiting[it->second.work.node].push_front(std::move(it->second.work));
    st.flight.erase(it);
  }
  if (!ids.empty()) pump_all(self);
}

coordinator_protocol::behavior_type coordinator(
    coordinator_actor* self, run_loop* loop, actor_run run, std::promise<bool>* done,
    std::shared_ptr<const actors::stream_forward> local_forward) {
  auto& st = self->state;
  st.loop = loop;
  st.header.local_forward = std::move(local_forward);
  st.header.local_hooks = loop->shared().hooks;
  st.header.local_stop = loop->shared().cancel;
  st.pool = &run.pool;
  st.directory = run.directory;
  st.progress = run.progress;
  st.use_channel_actors = run.channel_actors;
  if (run.directory) st.policy = run.directory->policy();
  st.done = done;
  self->set_down_handler([self](caf::down_msg& msg) {
    if (self->state.failing) return;
    try {
      // A group of the run's channels is gone with its process: the step cannot commit, and
      // the thread resumes from its last checkpoint.
      const auto& groups = self->state.groups;
      if (std::any_of(groups.begin(), groups.end(),
                      [&](const auto& g) { return g.address() == msg.source; }))
        throw error(error_code::unavailable,
                    "lost a channel actor of the run (its worker went away: " +
                        self->system().render(msg.reason) + ") at step " +
                        std::to_string(self->state.loop->step()) +
                        "; the thread resumes from its last checkpoint");
      actor_lost(self, msg.source);
    } catch (...) {
      fail(self, std::current_exception());
    }
  });
  return {
      [self](start_atom, value& input) {
        try {
          self->state.loop->begin(input);
          if (self->state.use_channel_actors)
            place_channels(self);
          else
            next_step(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::task_batch_done& done) {
        auto& st = self->state;
        if (done.id == 0) {
          // Unnumbered batches are this process's: refuse one from elsewhere.
          const auto& sender = self->current_sender();
          if (!sender || sender->node() != self->node()) return;
          if (st.local_out > 0) --st.local_out;
        }
        if (st.failing) {
          drain_after_failure(self);
          return;
        }
        try {
          if (done.id != 0) {
            // Only the actor a batch went to may answer it (and only once).
            auto it = st.flight.find(done.id);
            if (it == st.flight.end() ||
                caf::actor_cast<caf::actor_addr>(self->current_sender()) != it->second.to.address())
              return;
          }
          const std::size_t returned = done.tasks.size();
          auto node = take_results(self, done);
          if (--st.pending > 0) {
            if (node) pump(self, *node);
            if (st.cap) {
              st.capped_out -= std::min(st.capped_out, returned);
              release_capped(self);
            }
            return;
          }
          commit_and_continue(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](retry_atom) {
        self->state.retry_scheduled = false;
        if (self->state.failing) return;
        try {
          pump_all(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::step_vote& v) {
        if (self->state.failing) return;
        try {
          take_vote(self, v);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::stream_chunk& chunk) {
        if (self->state.failing) return;
        const run_shared& shared = self->state.loop->shared();
        if (!shared.sink) return;
        try {
          stream_event ev{std::move(chunk.ns), static_cast<stream_mode>(chunk.mode),
                          std::move(chunk.data)};
          std::lock_guard lock(*shared.sink_mutex);
          (*shared.sink)(ev);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
  };
}

}  // namespace

value run_on_actors(run_loop& loop, const actor_run& run, const value& input) {
  auto& sys = run.pool.runtime().internals().system;
  // The caller blocks on a future, not a scoped actor: it is not an actor, and creating one
  // per run costs more than the run of a short graph.
  std::promise<bool> done;
  auto finished = done.get_future();
  // Node actors of this process stream straight to the run's sink while their tasks run; the
  // line is cut when the run ends, so a task still running after a failure reaches nothing.
  struct direct_line {
    std::mutex m;
    const run_shared* shared = nullptr;
  };
  auto line = std::make_shared<direct_line>();
  line->shared = &loop.shared();
  auto local_forward = std::make_shared<const actors::stream_forward>(
      [line](const std::vector<std::string>& ns, std::uint8_t mode, value data) {
        std::lock_guard lock(line->m);
        const run_shared* shared = line->shared;
        if (!shared || !shared->sink) return;
        stream_event ev{ns, static_cast<stream_mode>(mode), std::move(data)};
        std::lock_guard sink_lock(*shared->sink_mutex);
        (*shared->sink)(ev);
      });
  struct cut_line {
    direct_line& l;
    ~cut_line() {
      std::lock_guard lock(l.m);
      l.shared = nullptr;
    }
  } cut{*line};
  auto coord = sys.spawn(coordinator, &loop, run, &done, std::move(local_forward));
  caf::anon_send(coord, start_atom::value, input);
  // Short runs end within microseconds: spin a little before sleeping, since waking a
  // sleeping thread costs tens of microseconds on a VM.
  for (int i = 0; i < 2000; ++i) {
    if (finished.wait_for(std::chrono::seconds(0)) == std::future_status::ready) break;
    std::this_thread::yield();
  }
  if (!finished.get()) {
    auto failure = loop.take_failure();
    loop.finish(true);
    std::rethrow_exception(failure);
  }
  loop.finish(false);
  return loop.output();
}

}  // namespace superstep::detail
