// The coordinator actor's side of the channel actors: committing each step over them in two
// phases (prepare riding with the writes, votes, the checkpoint as the commit point, then
// commit or abort). Where the groups are placed: coordinator_placement.cpp.
#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

#include "coordinator_state.hpp"
#include "superstep/actors/fault_point.hpp"
#include "superstep/actors/process_replica.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail::coord {

std::vector<caf::actor> group_handles(const coordinator_state& st) {
  std::vector<caf::actor> out;
  out.reserve(st.groups.size());
  for (const auto& g : st.groups) out.push_back(caf::actor_cast<caf::actor>(g));
  return out;
}

// The step's prepare for each group: `effects`' consumed channels and writes split by owner,
// its bump_step, `expected` chunks, and the commit owed to a group beside the coordinator.
std::vector<actors::step_prepare> prepares_of(coordinator_state& st, algo::step_writes effects,
                                              std::uint32_t expected) {
  const std::size_t n = st.groups.size();
  std::vector<actors::step_prepare> prepares(n);
  for (auto& p : prepares) {
    p.step = st.loop->step();
    p.expected = expected;
    p.bump_step = effects.bump_step;
    p.commits = st.owed_commit;
    p.commits_version = st.owed_version;
  }
  st.owed_commit = -1;
  for (auto& c : effects.consumed)
    prepares[actors::channel_owner(c, n)].consumed.push_back(std::move(c));
  for (auto& w : effects.writes)
    prepares[actors::channel_owner(w.channel, n)].writes.push_back(std::move(w));
  return prepares;
}

// With the step's prepare out, the batch's tasks send their writes to the groups themselves.
// The step's prepares ride with the writes of its first batch (chunk 0) only, also when that
// batch is sent again: a group votes only once every chunk's writes are in, chunk 0's among
// them, so one copy is enough. (A copy in every batch would make the step O(batches x
// consumed channels): 5,000 parallel nodes, each triggered by a channel of its own, would be
// 25 million names on the head.)
void route_writes(coordinator_state& st, actors::task_batch& b, const chunk& c, bool last_use) {
  if (!st.early_prepare) return;
  b.groups = group_handles(st);
  if (c.index == 0) {
    if (last_use)
      b.prepares = std::move(st.prepares);
    else
      b.prepares = st.prepares;
  }
  b.chunk = c.index;
  b.orders.reserve(c.slots.size());
  for (auto s : c.slots) {
    b.orders.push_back(st.orders[s]);
    st.sent_direct[s] = true;
  }
}

std::vector<actors::channel_writes> writes_handed_on(batch_expected& e,
                                                     const std::vector<pregel_task>& tasks) {
  std::vector<actors::channel_writes> out(e.here.size());
  if (e.here.empty()) return out;
  std::vector<bool> wanted(e.groups);
  for (auto g : e.here) wanted[g] = true;
  auto writes = actors::writes_by_owner(tasks, e.orders, wanted);
  for (std::size_t k = 0; k < e.here.size(); ++k) {
    out[k].step = e.step;
    out[k].chunk = e.chunk;
    out[k].writes = std::move(writes[e.here[k]]);
    out[k].prepare = std::move(e.prepares[k]);
  }
  return out;
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
  // With the groups spread, every group commits now (the failure of a participant after the
  // commit point must not lose it, and replicas wait for their pushes); the one group beside
  // the coordinator otherwise learns of it with the next prepare.
  if (!st.spread) {
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
  st.round_open = false;
  auto votes = std::move(st.votes);
  for (const auto& v : votes)
    if (v.error) {
      to_groups(self, actors::abort_atom::value, step);
      throw v.error->to_error();
    }
  for (const auto& v : votes) st.loop->take_votes(v.changes);
  // Gone before the next step is planned (from this call): a vote may carry the tasks
  // topic's Sends, which the planning lets go of one by one. The list itself is kept for
  // the next round's votes (st.votes, moved from above, is empty).
  votes.clear();
  st.votes.swap(votes);
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
  st.votes.clear();  // made in place: no vote copied from a blank one
  st.votes.resize(st.groups.size());
  st.voted.assign(st.groups.size(), false);
  st.votes_due = st.groups.size();
  st.round_open = true;
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
    if (st.skip_votes[g] > 0) {  // a first round staged again after a loss in the finish round
      --st.skip_votes[g];
      return;
    }
    if (st.voted[g]) return;  // one vote per group and round
    st.voted[g] = true;
    st.votes[g] = std::move(v);
    if (--st.votes_due == 0 && st.at_barrier) votes_in(self);
    return;
  }
}

// Whether a group of the run is lost and not placed again yet.
bool any_lost(const coordinator_state& st) {
  return std::find(st.lost.begin(), st.lost.end(), true) != st.lost.end();
}

// The values of the step's writes that were saved apart from their results, back on the
// tasks (from the saver's pending writes).
void restore_write_values(coordinator_state& st) {
  if (std::find(st.stripped.begin(), st.stripped.end(), true) == st.stripped.end()) return;
  st.loop->restore_write_values(st.stripped);
  st.stripped.assign(st.stripped.size(), false);
}

// The step's prepare for group `g` placed again during the step: every write of the step it
// owns, carried by the prepare (writes task batches send it for the step are not taken).
void send_redo(coordinator_actor* self, std::uint32_t g) {
  auto& st = self->state;
  st.redo[g] = false;
  restore_write_values(st);
  auto prepares = prepares_of(st, algo::all_step_writes(st.loop->tasks()), 0);
  self->send(st.groups[g], std::move(prepares[g]));
  if (!st.refinish[g]) return;
  // Lost in the finish round: the first round's vote was taken; this one's is the finish.
  st.refinish[g] = false;
  ++st.skip_votes[g];
  actors::step_prepare finish;
  finish.step = st.loop->step();
  finish.finish = true;
  self->send(st.groups[g], std::move(finish));
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
  // An interrupted step shows its finished tasks' writes: their values, if saved apart, come
  // back from the saver.
  const auto& tasks = st.loop->tasks();
  if (std::any_of(tasks.begin(), tasks.end(),
                  [](const auto& t) { return !t.rare->interrupts.empty(); }))
    restore_write_values(st);
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
        share[actors::channel_owner(w.channel, n)].writes.push_back(std::move(w));
      for (std::size_t g = 0; g < n; ++g)
        if (!st.redo[g]) self->send(st.groups[g], std::move(share[g]));
    }
    for (std::uint32_t g = 0; g < n; ++g)
      if (st.redo[g] && !st.lost[g]) send_redo(self, g);
    if (st.votes_due == 0) votes_in(self);
    return;
  }
  // The writes travel inside the prepare: one message per group and step.
  auto prepares = prepares_of(st, std::move(*staged), 0);
  if (any_lost(st)) {
    st.deferred = std::move(prepares);
    return;
  }
  ask_votes(self, std::move(prepares), false);
}

// The step's prepare for each group, riding with its tasks' writes: a group votes once the
// write messages of `messages` chunks of the step arrived (one per batch, and the
// coordinator's share).
void prepare_early(coordinator_actor* self, std::uint32_t messages) {
  auto& st = self->state;
  st.prepares = prepares_of(st, algo::step_effects(st.loop->tasks()), messages);
  expect_votes(self, false);
}

// Group `g` is placed again: the node actors in other processes pass the run's groups on to
// their process's replica (which subscribes to the new one instead: a worker may not learn
// that one in another worker died), this process's replica is told directly, and the group
// takes its part in the step.
void group_placed(coordinator_actor* self, std::uint32_t g) {
  auto& st = self->state;
  if (st.redo[g] && st.at_barrier) send_redo(self, g);
  if (any_lost(st)) return;
  const auto groups = group_handles(st);
  for (const auto& [_, actor] : st.monitored)
    self->send(actor, actors::regroup_atom::value, groups);
  actors::regroup_replica(caf::actor_cast<caf::actor>(self), groups);
  if (st.deferred) {
    auto prepares = std::move(*st.deferred);
    st.deferred.reset();
    ask_votes(self, std::move(prepares), false);
  }
}

}  // namespace superstep::detail::coord
