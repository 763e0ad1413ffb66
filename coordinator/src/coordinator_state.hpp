#pragma once

// Internal: the coordinator actor's state and protocol, shared by its four translation units
// (coordinator_actor.cpp: planning and the barrier; coordinator_dispatch.cpp: sending task
// batches to node actors; coordinator_commit.cpp: the two-phase commit of each step;
// coordinator_placement.cpp: where the channel actors are placed). Include only from actor
// translation units: it pulls in CAF.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "coordinator_actor.hpp"
#include "node_actor_pool.hpp"
#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/node_directory.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/actors/result_parts.hpp"

namespace superstep::detail::coord {

using start_atom = caf::atom_constant<caf::atom("start")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;

// The run's writes saver (writes_saver.cpp), in the coordinator's process: told by the
// coordinator which tasks each batch to another process holds, it takes that batch's result
// (delegated by the node actor), saves its writes as pending writes and answers the
// coordinator with the result without the writes' values. It reaches the loop through
// `saver_line`, cut when the run ends.
struct saver_line {
  std::mutex m;
  run_loop* loop = nullptr;
};
// What a saved pending write names of its task (its id and path): a remote result's tasks
// come without it (actors::task_batch_done).
struct task_identity {
  std::string id;
  bool push = false;
  std::uint64_t push_index = 0;
};

// What the saver is told of a batch to another process before its result comes: its step and
// id, its node and what its tasks are, and what it needs to hand on the batch's writes to the
// groups in this process (actors::result_takes_writes): those groups (`here`, indices among the
// run's `groups`), their handles and the step's prepare riding along for each, the batch's number
// in the step and each task's position in task-path order. Without a saver, the coordinator keeps
// the same with the batch in flight and hands the writes on itself.
struct batch_expected {
  std::int64_t step = 0;
  std::uint64_t id = 0;
  std::string name;
  std::vector<task_identity> tasks;
  std::uint32_t groups = 0;
  std::vector<std::uint32_t> here;
  std::vector<caf::actor> here_actors;
  std::vector<std::optional<actors::step_prepare>> prepares;
  std::uint32_t chunk = 0;
  std::vector<std::uint32_t> orders;
};
// `flush_atom` is answered once every result that reached the saver before it has been
// answered: what the saver still holds of a lost worker's batches is known then.
using writes_saver =
    caf::typed_actor<caf::reacts_to<batch_expected>,
                     caf::replies_to<actors::pending_writes>::with<actors::task_batch_done>,
                     caf::reacts_to<actors::result_part>, caf::replies_to<flush_atom>::with<bool>>;

// The writes of a batch's tasks (its result's) for the groups of `e.here`, one message each,
// as the node actor would have sent them.
std::vector<actors::channel_writes> writes_handed_on(batch_expected& e,
                                                     const std::vector<pregel_task>& tasks);

// Sends those to their groups, from the coordinator or the saver.
template <class Self>
void hand_on_writes(Self* self, batch_expected& e, const std::vector<pregel_task>& tasks) {
  auto writes = writes_handed_on(e, tasks);
  for (std::size_t k = 0; k < writes.size(); ++k)
    self->send(caf::actor_cast<actors::channel_actor>(e.here_actors[k]), std::move(writes[k]));
}
writes_saver spawn_writes_saver(caf::actor_system& sys, std::shared_ptr<saver_line> line);

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
  batch_expected hand_on;  // without a writes saver: the writes its result brings for groups here
  bool isolated = false;   // a suspect, sent to a process with nothing else of the run out
};

struct coordinator_state {
  run_loop* loop = nullptr;
  node_actor_pool* pool = nullptr;
  actors::node_directory* directory = nullptr;
  const progress_fn* progress = nullptr;
  actors::dispatch_policy policy;
  std::promise<bool>* done = nullptr;  // the caller waits on its future
  actors::batch_header header;         // of the current step
  std::int64_t wire_step = -1;         // the step whose run description `header` holds
  // This process's node actors' tasks stream through it (batch_header::local_run): to the
  // run's sink while the run lasts, to nothing after.
  std::shared_ptr<const stream_sink> local_sink;
  std::uint32_t pending = 0;    // chunks of the step not finished yet
  std::uint32_t local_out = 0;  // batches at this process's node actors, unanswered
  // The node actor of the step's batch whose result comes with the group's vote
  // (task_batch::result_with_writes), until it came: a group lost before then loses it too.
  std::optional<actors::node_actor> routed_to;
  bool failing = false;  // failed; waits for local_out to reach 0 to end
  std::size_t step_tasks = 0, step_finished = 0;
  // Remote dispatch: batches in flight by id, chunks waiting for room in an actor's window
  // (or for an actor at all) by node, batches in flight per actor.
  std::uint64_t last_batch = 0;
  std::unordered_map<std::uint64_t, in_flight> flight;
  std::map<std::uint32_t, std::deque<chunk>> waiting;
  std::unordered_map<caf::actor_addr, std::size_t> load;
  std::unordered_map<caf::actor_addr, actors::node_actor> monitored;  // remote node actors
  std::unordered_set<caf::actor_addr> dead;
  // Lost workers in this step (policy.task_loss_limit): by slot, the workers that went away
  // while the task was in flight (allocated at the first loss); the processes they were, with
  // the batches of the run in flight there then (one actor's down stands for its process's,
  // whose other actors' downs may come later); the processes this run's suspects hold alone
  // (node_directory::claim_host). `isolating` from the first loss.
  std::vector<std::uint8_t> losses;
  std::map<caf::node_id, std::size_t> dead_nodes;
  std::set<caf::node_id> claimed;
  bool isolating = false;
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
  // --spread-channels (the directory's channel hosts) and one beside the coordinator owning
  // the tasks topic, a channel's group being
  // `actors::channel_owner(name, groups.size())`. The loop's channels are then their replica,
  // rebuilt from the votes. Empty: the loop applies writes itself.
  bool use_channel_actors = false;
  std::vector<actors::channel_actor> groups;
  // The round of the two-phase commit in progress: votes by group, how many are due, and
  // whether it is the finish round of a tentatively last step.
  std::vector<actors::step_vote> votes;
  std::vector<bool> voted;  // by group, in this round
  std::size_t votes_due = 0;
  bool round_open = false;  // a round's prepare went out and not every vote is taken yet
  bool finish_round = false;
  std::size_t placements_due = 0;
  // Channel hosts asked to own a group and not answered yet, monitored while they are: a host
  // that goes down refuses what it was asked (each placement settles once, `settled`).
  struct placement_asked {
    std::shared_ptr<bool> settled;
    std::function<void(caf::error)> refuse;
  };
  std::unordered_map<caf::actor_addr, std::vector<placement_asked>> placing;
  // A group lost with its process (--spread-channels) is placed again on another worker,
  // from the loop's channels (the committed values), and the run goes on. By group: its new
  // placement not answered yet (`lost`); whether it gets, at the barrier, a prepare carrying
  // every write of the step (`redo`: the step's prepare had gone to the lost one).
  std::vector<bool> lost, redo;
  // A group lost in the finish round of a tentatively last step is placed again from the
  // last checkpoint (the step's first round is in the loop's channels by then): it stages
  // the step again from every write (`redo`), then finishes (`refinish`); the vote of that
  // first round was taken from the lost group already and is skipped (`skip_votes`).
  std::vector<bool> refinish;
  std::vector<std::uint32_t> skip_votes;
  std::vector<caf::node_id> lost_nodes;  // processes that lost a group: no host for another
  // The barrier's prepares (without riding ones) while a group is lost: sent once it is placed.
  std::optional<std::vector<actors::step_prepare>> deferred;
  // With the groups on the workers and pending writes kept as tasks finish
  // (run_loop::writes_saved_apart): results of batches to other processes come through the
  // writes saver, which saved their writes, without the writes' values (`stripped`, by slot).
  writes_saver saver;
  std::shared_ptr<saver_line> line;
  // The parts of big results from node actors in other processes, ahead of the results that
  // close them (without a writes saver; with one, it takes them).
  actors::result_assembly parts;
  std::vector<bool> stripped;

  // A group in this process learns of a commit with the next prepare (or not at all when
  // the run ends): nothing reads its committed values between the two. The step whose
  // commit is owed, or -1.
  std::int64_t owed_commit = -1;
  channel_version owed_version = 0;
  // Writes straight from node actors to the groups: every batch names the groups, and the
  // step's prepare goes out with its tasks (`early_prepare`), so each group stages the step
  // as soon as the writes of every batch (and the coordinator's share of the rest, when
  // `share_due`: restored tasks') are in. `sent_direct`: the tasks whose writes went that
  // way, by slot; `orders`: each task's position in task-path order. The votes are taken
  // once the step reached its barrier (`at_barrier`).
  // A remote batch sends its writes to the groups in other processes (--spread-channels)
  // itself; those for a group in this process come with its result, and the writes saver (or
  // the coordinator, without one) hands them on. `spread`: the groups are on the workers.
  bool spread = false;
  std::vector<actors::step_prepare> prepares;  // by group, riding with chunk 0's writes
  std::vector<bool> sent_direct;
  std::vector<std::uint32_t> orders;
  bool early_prepare = false;
  bool share_due = false;
  bool at_barrier = false;
  // The run ended and reads back from the groups the values of channels it holds as
  // versions only (run_loop::read_back) before it tells its caller.
  bool reading_back = false;
};

// The coordinator's protocol, checked by the compiler: the run's start, node actors' results
// and stream events, and its own timer for starved remote dispatch.
using coordinator_protocol =
    caf::typed_actor<caf::reacts_to<start_atom, value>, caf::reacts_to<actors::task_batch_done>,
                     caf::reacts_to<retry_atom>, caf::reacts_to<actors::stream_chunk>,
                     caf::reacts_to<actors::result_part>, caf::reacts_to<actors::step_vote>>;
using coordinator_actor = coordinator_protocol::stateful_base<coordinator_state>;

/// Whether chunk `c` holds a task that was in flight on a worker that went away in this step.
inline bool suspect(const coordinator_state& st, const chunk& c) {
  if (st.losses.empty()) return false;
  for (auto s : c.slots)
    if (st.losses[s] > 0) return true;
  return false;
}

/// A suspect's batch is back or lost: the process it held alone is free for another.
inline void release_isolated(coordinator_state& st, const in_flight& f) {
  if (!f.isolated) return;
  if (st.claimed.erase(f.to.node()) > 0 && st.directory) st.directory->release_host(f.to.node());
}

// coordinator_actor.cpp
/// Plans the next step and dispatches it; finishes the run when there is nothing to do.
void next_step(coordinator_actor* self);
/// Tells the caller how the run ended and stops, with the run's channel actors.
void end_run(coordinator_actor* self, bool ok);
/// Ends the run with `e` (once the batches at this process's node actors are back).
void fail(coordinator_actor* self, std::exception_ptr e);

// coordinator_dispatch.cpp
/// Sends chunk `c` to `to`, one of this process's node actors (the tasks move).
void send_local(coordinator_actor* self, const actors::node_actor& to, chunk c);
/// Sends waiting chunks of remote `node` to its least loaded live actors while their windows
/// have room; with no actor left for it, checks again soon (the run fails after policy.wait).
void pump(coordinator_actor* self, std::uint32_t node);
/// `pump` for every node with waiting chunks.
void pump_all(coordinator_actor* self);
/// Sends the step's waiting chunks while fewer than max_concurrency tasks are out.
void release_capped(coordinator_actor* self);
/// Tasks per batch for `tasks` tasks of a node with `actors` remote actors.
std::size_t remote_batch_size(const coordinator_state& st, std::size_t tasks, std::size_t actors);

// coordinator_commit.cpp
/// The step's prepare for each group, to ride with the writes of `messages` chunks.
void prepare_early(coordinator_actor* self, std::uint32_t messages);
/// Gives a batch the route of its tasks' writes to the groups (when the prepare is out), and
/// the step's prepares when it is the step's chunk 0 (no other batch carries them);
/// `last_use`: no other batch of the step needs the step's prepares (they move).
void route_writes(coordinator_state& st, actors::task_batch& b, const chunk& c, bool last_use);
/// The groups' handles as a task batch carries them.
std::vector<caf::actor> group_handles(const coordinator_state& st);
/// A group's vote in the round in progress.
void take_vote(coordinator_actor* self, actors::step_vote& v);
/// Ends the step at the barrier (two-phase with channel actors) and goes on.
void commit_and_continue(coordinator_actor* self);
/// Whether a group of the run is lost and not placed again yet.
bool any_lost(const coordinator_state& st);
/// Group `g`, lost mid-run, is placed again: it takes its part in the step.
void group_placed(coordinator_actor* self, std::uint32_t g);

// coordinator_placement.cpp
/// Places the run's channels in channel actors, then starts the first step.
void place_channels(coordinator_actor* self);
/// Group `g` went down with its process (`why`, on `node`): places its channels again on
/// another worker, and the step goes on. Throws when the run cannot go on without it.
void replace_group(coordinator_actor* self, std::uint32_t g, const caf::node_id& node,
                   const std::string& why);
/// Reads from their groups the committed values of `names` (channels the loop holds as
/// versions), gives them to the loop, then ends the run.
void read_back_then_end(coordinator_actor* self, std::vector<std::string> names);

}  // namespace superstep::detail::coord

// Sent only between the coordinator and its writes saver, in one process: never serialized.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(superstep::detail::coord::batch_expected)
