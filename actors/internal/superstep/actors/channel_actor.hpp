#pragma once

// Channel actors: each owns a group of a run's channels (channel_group). Tasks' writes reach
// them straight from the node actors that ran the tasks (or, for a channel actor in the
// coordinator's process, from the task batch's result there: result_takes_writes); the
// coordinator commits a step over them in two phases (prepare, then commit or abort) and they
// push committed values to their subscribers (node actors' replicas). Include only from actor
// translation units: it pulls in CAF.

#include <caf/all.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "superstep/actors/protocol.hpp"
#include "superstep/pregel/channel_group.hpp"

namespace superstep::actors {

/// Node actor → channel actor: writes of the tasks of batch `chunk` of step `step` to
/// channels the actor owns (one message per channel actor per task batch, an empty one too:
/// the prepare counts batches). A batch sent again (its node actor went away) replaces the
/// writes of its first run. The coordinator's own share of a step's writes comes as chunk
/// `coordinator_chunk`. Writes to channels the actor does not own are not staged: the
/// coordinator checks every write's channel.
/// With `prepare`, the step's prepare rides with the writes (chunk 0's and the coordinator's
/// share only: the other chunks' come without it; it would otherwise come as a
/// message of its own): the actor takes the first that arrives for the step.
struct channel_writes {
  std::int64_t step = 0;
  std::vector<ordered_write> writes;
  std::uint32_t chunk = 0;
  std::optional<step_prepare> prepare;
  /// The batch's result, for the coordinator (task_batch::result_with_writes): it goes with
  /// the vote the writes complete, or at once when they complete none. Only between actors of
  /// the coordinator's process: encoding a message that carries one is an internal error.
  std::optional<task_batch_done> result;
};

/// The chunk number of the writes a coordinator sends itself.
inline constexpr std::uint32_t coordinator_chunk = 0xffffffffu;

/// Which of `groups` channel actors owns `channel`. One group owns every channel. Several are
/// the groups of a run whose channels are spread over the workers, with one more beside the
/// coordinator: the last owns the tasks topic, which only the coordinator reads (it plans the
/// next step's PUSH tasks from its Sends); the others split the rest by a stable hash of the
/// name (the same split on every run of a graph).
std::uint32_t channel_owner(std::string_view channel, std::size_t groups) noexcept;

/// The writes of a batch's tasks split by the group owning their channel
/// (`channel_owner(channel, wanted.size())`), each ordered by its task's position in the
/// step's task-path order (`orders`, one per task), for the groups `wanted` names; the others'
/// lists stay empty. Writes to names that are no channel (a task's reserved writes) go with
/// the rest; owners drop them.
std::vector<std::vector<ordered_write>> writes_by_owner(const std::vector<pregel_task>& tasks,
                                                        const std::vector<std::uint32_t>& orders,
                                                        const std::vector<bool>& wanted);

/// Whether the writes to `group` of a task batch run in process `runner` go with the batch's
/// result to the coordinator's process `coordinator` (to the run's writes saver there,
/// task_batch::saver, or to the coordinator) rather than straight from the node actor: when
/// the group is in that process and the batch ran in another. The result is decoded there,
/// writes and all, anyway, and its writes are handed on to the group, so what a task writes
/// there (a fan-out's Sends to the tasks topic) crosses the network once.
inline bool result_takes_writes(const caf::node_id& coordinator, const caf::actor& group,
                                const caf::node_id& runner) {
  return group && group.node() == coordinator && runner != coordinator;
}

/// Channel actor → coordinator: the vote on a prepared step. A yes vote (`error` empty)
/// carries the staged values of the channels that changed; a no vote aborted the step there.
struct step_vote {
  std::int64_t step = 0;
  std::optional<task_error> error;
  group_changes changes;
  /// Results of batches that came with the step's writes (channel_writes::result), which the
  /// coordinator takes before the vote. Only in the coordinator's process: never encoded.
  std::vector<task_batch_done> results;
};

/// Channel actor → subscriber: the committed values of channels it subscribed to, after a
/// commit that changed them (and once, with every subscribed channel, when it subscribes).
struct channel_push {
  std::int64_t step = 0;
  std::vector<channel_delta> values;
  std::vector<std::uint64_t> versions;  ///< each value's channel version
};

/// Coordinator → a process's channel host (a worker's host actor): own the channels named in
/// `values` for one run of graph `graph` (the key the host loaded it by), restored from their
/// values as replicas take them (channel::transfer). Answered with the channel actor, which
/// stops when the coordinator that asked goes down; an error when the host does not have the
/// graph or a channel.
struct channel_placement {
  std::string graph;
  std::vector<channel_delta> values;
  std::vector<std::uint64_t> versions;  ///< each value's channel version
  /// Placed again in the middle of this step (the group it replaces was lost): task batches'
  /// writes for steps up to it are not taken, the coordinator's prepare carries them.
  std::int64_t closed_through = -1;
};

using commit_atom = caf::atom_constant<caf::atom("ch_commit")>;
using abort_atom = caf::atom_constant<caf::atom("ch_abort")>;
using subscribe_atom = caf::atom_constant<caf::atom("ch_sub")>;
using read_atom = caf::atom_constant<caf::atom("ch_read")>;
using place_atom = caf::atom_constant<caf::atom("ch_place")>;

/// Where a coordinator places a group of its run's channels (a worker's host actor, whose
/// interface extends this one): `place_atom, channel_placement` → the channel actor that owns
/// them, spawned in the host's process.
using channel_host =
    caf::typed_actor<caf::replies_to<place_atom, channel_placement>::with<caf::actor>>;

/// Where a channel actor sends the votes of prepares that rode with writes: its coordinator.
using vote_receiver = caf::typed_actor<caf::reacts_to<step_vote>>;
/// Where a channel actor sends a batch's result that came with writes and that no vote took
/// (channel_writes::result): its coordinator.
using result_receiver = caf::typed_actor<caf::reacts_to<task_batch_done>>;

/// The protocol of a channel actor, checked by the compiler.
/// - `channel_writes`: buffered by step (and chunk) until the step is prepared; the step's
///   prepare riding with them is taken from the first, and its vote goes to the actor's
///   coordinator (`vote_receiver`); a batch's result riding with them goes with that vote,
///   or to the coordinator at once when they complete none (`result_receiver`).
/// - `step_prepare` → `step_vote` (after committing the step it carries the commit of).
/// - `commit_atom, step, version`: the staged step becomes visible (its changed channels at
///   `version`) and is pushed; a commit of a step
///   that is not the staged one is ignored (already committed, or aborted), so a coordinator
///   may send it again.
/// - `abort_atom, step`: the staged step is dropped; ignored when not the staged one.
/// - `subscribe_atom, subscriber, channels` → the committed values of `channels` now; later
///   commits push changes to `subscriber` (dropped when it goes down).
/// - `read_atom, channels` → their committed values.
using channel_actor = caf::typed_actor<
    caf::reacts_to<channel_writes>, caf::replies_to<step_prepare>::with<step_vote>,
    caf::reacts_to<commit_atom, std::int64_t, std::uint64_t>,
    caf::reacts_to<abort_atom, std::int64_t>,
    caf::replies_to<subscribe_atom, caf::actor, std::vector<std::string>>::with<channel_push>,
    caf::replies_to<read_atom, std::vector<std::string>>::with<channel_push>>;

/// Spawns a channel actor owning `group`. With `owner`, the actor sends it the votes of
/// prepares that ride with writes, and stops when `owner` (the coordinator of its run, in any
/// process) goes down: a staged step whose commit never came is dropped with it. With
/// `closed_through` (a group placed again mid-step), writes of task batches for steps up to it
/// are dropped (`channel_placement::closed_through`).
channel_actor spawn_channel_actor(caf::actor_system& sys, channel_group group,
                                  caf::actor owner = caf::actor(),
                                  std::unordered_map<std::string, std::uint64_t> versions = {},
                                  std::int64_t closed_through = -1);
/// `spawn_channel_actor` for a group beside its coordinator `owner`, which sends it the run's
/// first prepare: the actor is scheduled only when a message comes (no wake-up of an idle
/// scheduler thread per run).
channel_actor spawn_channel_actor_beside(caf::actor_system& sys, channel_group group,
                                         caf::actor owner,
                                         std::unordered_map<std::string, std::uint64_t> versions);

/// A group owning the channels named in `values`, made from `prototypes` (a graph's channels
/// by name) restored from the values. Throws `superstep::error` (invalid_argument) naming a
/// channel `prototypes` lacks.
channel_group group_from(
    const std::map<std::string, std::shared_ptr<const channels::channel>>& prototypes,
    std::vector<channel_delta> values);

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, channel_writes& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.channel_writes");
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, step_prepare& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.step_prepare");
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, step_vote& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.step_vote");
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, channel_placement& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.channel_placement");
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, channel_push& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.channel_push");
}

}  // namespace superstep::actors
