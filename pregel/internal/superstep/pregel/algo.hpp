#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/pregel/channel_group.hpp"
#include "superstep/pregel/pregel_graph.hpp"
#include "superstep/pregel/task.hpp"

/// The superstep algorithm as pure functions over plain data (LangGraph's `_algo.py`): no
/// actors, threads or I/O. The coordinator actor and the synchronous runner both call these.
namespace superstep::algo {

/// The live channels of one run, by name.
using channel_map = actors::channel_map;

/// Indexes derived once per compiled graph.
struct graph_index {
  /// channel -> nodes (indices) it triggers, sorted by node name.
  std::unordered_map<std::string, std::vector<std::uint32_t>> trigger_to_nodes;
  std::unordered_map<std::string, std::uint32_t> node_by_name;
  /// Each node's name as its tasks carry it (by node index): a task takes it by copying.
  std::vector<actors::channel_name> node_names;
  /// Channels whose finish() may change them (only the *_after_finish kinds).
  std::vector<std::string> finishable;
  /// Channels whose checkpoints hold no value (delta_channel), sorted by name.
  std::vector<std::string> delta_channels;
  /// Topics without accumulate: each step's value starts afresh, never extending the last
  /// (checkpoint_changes::not_extended).
  std::vector<std::string> not_extended;
  /// pregel_graph::delta_max_steps_since_snapshot.
  std::int64_t delta_max_steps_since_snapshot = 5000;

  static graph_index build(const pregel_graph& g);
};

/// Live run state besides the channels: the checkpoint being built, and the set of available
/// channels that may clear when a step passes without writes (so a step costs O(changed)).
struct run_state {
  superstep::checkpoint checkpoint;
  channel_map channels;
  std::unordered_set<std::string> volatile_available;
  channel_version max_version = 0;
  /// Per node, the channels it reads, resolved once per run: building a task's input then
  /// costs no name lookups.
  /// (Slots of `channels`: a replica rebuilds a channel in its slot.)
  std::vector<std::vector<std::pair<const std::string*, const std::unique_ptr<channels::channel>*>>>
      node_reads;
  /// Channels whose values only their owners hold (channel actors on other processes): the
  /// run keeps their versions and whether each is available (`available_elsewhere`), not
  /// their values; their slots in `channels` stay empty. See `hold_elsewhere`.
  std::unordered_set<std::string> held_elsewhere;
  std::unordered_set<std::string> available_elsewhere;
  /// By node: it reads a channel held elsewhere, so its PULL tasks' inputs are built where
  /// they run, from a replica, and planned without one.
  std::vector<bool> input_elsewhere;

  /// Whether channel `name` (`c` its slot) holds a value readers see.
  bool available(const std::string& name, const channels::channel& c) const {
    return held_elsewhere.empty() || !held_elsewhere.count(name)
               ? c.is_available()
               : available_elsewhere.count(name) != 0;
  }
};

/// From now on `state` keeps only the versions and availability of `names` (their owners,
/// elsewhere, keep the values): their channels are emptied and their checkpoint values
/// dropped. Planning then leaves the input of a PULL task reading one of them to be built
/// where the task runs; `take_changes` takes their availability, not their values.
void hold_elsewhere(run_state& state, const pregel_graph& g, std::unordered_set<std::string> names);

/// Drops the checkpoint values of the channels held elsewhere among `changed`, once the
/// checkpoint holding them is saved (or queued to be): O(changed).
void drop_values_held_elsewhere(run_state& state,
                                const std::map<std::string, channel_version>& changed);

/// The version of `channel` in `cp` (0: it has none yet).
channel_version version_of(const checkpoint& cp, const std::string& channel);

/// Creates the channels of `g`, restored from `cp` (empty checkpoint: all empty).
run_state restore(const pregel_graph& g, superstep::checkpoint cp);

/// Plans the tasks of step `step` (LangGraph `prepare_next_tasks`): one PUSH task per pending
/// Send in the tasks topic, then one PULL task per node whose triggers advanced. With
/// `updated_channels`, only nodes those channels trigger are candidates; without, every node.
/// With `released`, the Sends released from the tasks topic (channels::topic::release): the
/// PUSH tasks are planned from them, and when `released` is their only copy each Send goes once
/// its task is made (its argument stays, as the task's input).
task_list prepare_next_tasks(const pregel_graph& g, const graph_index& index,
                             const run_state& state,
                             const std::unordered_set<std::string>* updated_channels,
                             std::int64_t step, std::string_view checkpoint_ns,
                             value* released = nullptr);
/// The same, planned into `tasks`, which it clears first: a run keeps one list from step to
/// step (a deque allocates its first block when made).
void prepare_next_tasks(task_list& tasks, const pregel_graph& g, const graph_index& index,
                        const run_state& state,
                        const std::unordered_set<std::string>* updated_channels, std::int64_t step,
                        std::string_view checkpoint_ns, value* released = nullptr);

/// The outcome of `apply_writes`.
struct applied {
  /// Available channels whose value changed: candidates to trigger nodes next step.
  std::unordered_set<std::string> updated_channels;
  /// Every channel whose version was bumped (its checkpoint value must be saved).
  std::map<std::string, channel_version> new_versions;
  /// Every node whose versions_seen entry was written (the nodes of the tasks that ran).
  std::set<std::string> seen_changed;
};

/// Applies the writes of finished tasks (LangGraph `apply_writes`): sort by path, record
/// versions_seen, consume triggers, update channels grouped by channel, let unwritten
/// volatile channels clear, and call finish() when nothing more would run.
/// Throws `superstep::error` (invalid_update) when a channel rejects its writes.
applied apply_writes(run_state& state, const graph_index& index, std::vector<pregel_task*>& tasks);

/// A step's writes for the owners of its channels when they live apart from the coordinator
/// (channel actors): what `apply_writes` hands to the channels, without applying it.
struct step_writes {
  /// Some task ran triggered or as a Send: channels nobody wrote learn that a step passed.
  bool bump_step = false;
  /// The channels that triggered the step's tasks, to consume (sorted).
  std::vector<std::string> consumed;
  /// Every write, `order` being the writing task's position in task-path order.
  std::vector<actors::ordered_write> writes;
};

/// The first half of `apply_writes` for channels owned elsewhere: sorts `tasks` by path,
/// records versions_seen (`out.seen_changed`) and collects the writes and consumed channels.
/// Whether a task may write `channel`: a channel of the run, or a reserved one (an interrupt,
/// an error, a Send's tasks topic...), which staging a step skips.
bool known_channel(const run_state& state, const std::string& channel);

/// The writes of the tasks for which `sent` is true (by position in `tasks` as given) went to
/// their owners from where the tasks ran: they are checked, not collected again. Throws
/// `superstep::error` (invalid_update) for a write to a channel the graph lacks.
step_writes stage_writes(run_state& state, std::vector<pregel_task*>& tasks, applied& out,
                         const std::vector<bool>& sent = {});

/// What the owners need besides the writes to stage a step, known once it is planned (equal
/// to what `stage_writes` returns then, without writes): the consumed channels, bump_step.
step_writes step_effects(const task_list& tasks);

/// Each task's position in task-path order (the `order` of its writes), by its index in
/// `tasks`: the order `stage_writes` sorts them in. O(n) when they are in that order already.
std::vector<std::uint32_t> path_orders(const task_list& tasks);

/// `step_effects` with every write of the step's tasks, ordered by `path_orders`: what an
/// owner placed again mid-step needs to stage it. Touches no state.
step_writes all_step_writes(const task_list& tasks);

/// The second half, once per round of the owners' prepare (the step's, then the finish of a
/// tentatively last step): each changed channel gets `version` (one per step), the checkpoint
/// keeps its value, and its channel in `state` (the coordinator's replica) is rebuilt from
/// its staged value. O(channels changed).
void take_changes(run_state& state, const actors::group_changes& changes, channel_version version,
                  applied& out);

/// Whether a step that applied `out` is tentatively the last (it ran some task and none of
/// its updated channels triggers a node): then deferred channels finish.
bool tentatively_last(const graph_index& index, const applied& out, bool bump_step);

/// Whether the run must stop before/after executing `tasks` because one of them runs a node
/// in `interrupt_nodes` (LangGraph `should_interrupt`); `{"*"}` names every node of `g` but
/// the hidden ones (`__start__`).
bool should_interrupt(const pregel_graph& g, const run_state& state,
                      const std::vector<std::string>& interrupt_nodes, const task_list& tasks);

/// The value of `channels` as output: the single channel's value, or an object of the
/// available ones. Returns nullopt for a single unavailable channel.
std::optional<value> read_channels(const channel_map& channels,
                                   const std::vector<std::string>& names, bool single);

/// Writes of an input value to the input channels (LangGraph `map_input`).
std::vector<std::pair<std::string, value>> map_input(const pregel_graph& g, const value& input);

}  // namespace superstep::algo
