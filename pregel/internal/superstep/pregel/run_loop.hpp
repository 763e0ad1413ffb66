#pragma once

// Internal: one run of a graph as a state machine (LangGraph's PregelLoop): begin() applies
// the input, plan() prepares a step's tasks, task_finished() takes each task's result as it
// arrives, commit_step() applies the step and checkpoints. A synchronous driver and the
// coordinator actor both drive it.

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/algo.hpp"
#include "superstep/pregel/config.hpp"
#include "superstep/pregel/delta_channels.hpp"
#include "superstep/pregel/run_cancel.hpp"
#include "superstep/pregel/run_config.hpp"
#include "superstep/pregel/run_context.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep {
class pregel;
}

namespace superstep::detail {

/// When checkpoints reach the saver (LangGraph `durability`).
enum class durability : std::uint8_t {
  sync,   ///< each step's checkpoint is saved before the next step starts (the default)
  async,  ///< saved in the background, in order, while the next step runs
  exit,   ///< only the last checkpoint is saved, when the run ends (done, interrupted, failed)
};

class background_saves;
struct background_saves_deleter {
  void operator()(background_saves* p) const noexcept;
};
using background_saves_ptr = std::unique_ptr<background_saves, background_saves_deleter>;
/// Adds changes made since to `into` (a channel's later version wins).
inline void add_changes(checkpoint_changes& into,
                        const std::map<std::string, channel_version>& versions,
                        const std::set<std::string>& seen) {
  for (const auto& [ch, v] : versions) into.versions[ch] = v;
  into.seen.insert(seen.begin(), seen.end());
}

/// The config key of a run resumed by interrupt id: the Command's {id: value} map, seen by
/// the run's subgraphs (LangGraph's CONFIG_KEY_RESUME_MAP). run_loop_resume.cpp.
inline constexpr std::string_view resume_map_key = "__pregel_resume_map";
/// Puts `map` under config.configurable[resume_map_key].
void set_resume_map(value& config, const value& map);
/// The resume map of a run's config, or null.
const value* resume_map_of(const value& config);

/// A thread saving checkpoints in order, for async durability (run_loop_saves.cpp).
background_saves_ptr start_background_saves(checkpoint_saver& saver);

class run_loop {
 public:
  run_loop(const pregel_graph& graph, const algo::graph_index& index, checkpoint_saver* saver,
           run_shared& shared);

  /// Loads the thread's checkpoint (with a saver) and applies `input` as step -1.
  void begin(const value& input);

  /// Prepares the next step. Returns false when the run is over: no task left, or an
  /// interrupt_before node is next. Throws graph_recursion past the recursion limit.
  bool plan();

  task_list& tasks() noexcept { return tasks_; }
  std::int64_t step() const noexcept { return step_; }
  const algo::channel_map& channels() const noexcept { return state_.channels; }
  const run_shared& shared() const noexcept { return shared_; }
  const pregel_graph& graph() const noexcept { return g_; }

  /// The run's max_concurrency (LangGraph's config["max_concurrency"]): at most this many
  /// tasks of a step run at once; 0: no limit. Read by begin().
  std::size_t max_concurrency() const noexcept { return max_concurrency_; }
  /// The run's cancellation: what its tasks watch (run_cancel.hpp).
  run_cancel& cancellation() noexcept { return *cancel_; }

  /// Records a finished task: saves its writes, streams its update. Thread-safe. A task that
  /// failed cancels the step's other tasks (LangGraph's runner stops the others on the first
  /// failure).
  void task_finished(const pregel_task& t);
  /// The same for a batch of tasks that finished together: their writes in one saver call
  /// (none with `saved_apart`: a writes saver saved them with `save_finished_writes`).
  void tasks_finished(const std::vector<const pregel_task*>& tasks, bool saved_apart = false);
  /// The saving part of `tasks_finished`: the tasks' pending writes (held until the run ends
  /// under exit durability). Thread-safe: a writes saver calls it while the step runs.
  void save_finished_writes(const std::vector<const pregel_task*>& tasks);

  /// Whether the writes of tasks run in other processes may be saved apart from their results,
  /// which then carry the channels written without the values: the run keeps pending writes
  /// as tasks finish (a checkpointer, durability other than exit) and needs no write value
  /// otherwise (no updates, debug or tasks stream, no cache).
  bool writes_saved_apart() const noexcept;
  /// Gives back to the tasks at `which` (by slot) the values of their writes, from the saver's
  /// pending writes of the step: an interrupted step shows them, a group placed again gets
  /// them.
  void restore_write_values(const std::vector<bool>& which);

  /// Applies the step's writes and checkpoints. Throws the first task error (in task-path
  /// order) when a task failed. Returns false when an interrupt_after node ran.
  bool commit_step();

  /// `commit_step` in halves, for a run whose channels are owned by channel actors (the
  /// coordinator actor's two-phase commit):
  /// - `stage_step` fails or stops the step as `commit_step` does (nullopt: the run stopped
  ///   at an interrupt), else records what the step's tasks saw and returns the writes for
  ///   the owners to prepare;
  /// - `take_votes` takes the changes an owner voted with, in each round of the prepare;
  /// - `finish_due`, after the first round: whether a second round must let deferred
  ///   channels finish (the step is tentatively the last);
  /// - `complete_step` checkpoints (the commit point) and returns as `commit_step` does. When
  ///   it throws, the owners must abort the step.
  /// With `sent` (by task index), the writes of those tasks went to their owners from the
  /// node actors that ran them: they are checked, not returned.
  std::optional<algo::step_writes> stage_step(const std::vector<bool>& sent = {});
  void take_votes(const actors::group_changes& changes);
  bool finish_due() const;
  bool complete_step();
  /// The version the step being committed gives the channels it changes.
  channel_version step_version() const noexcept { return staged_version_; }

  /// Channels owned by channel actors in other processes (run_loop_elsewhere.cpp):
  /// - `values_read_here`: the channels whose values the run reads where it is coordinated
  ///   (the tasks topic it plans Sends from, what it streams each step, delta channels and
  ///   the reads of nodes that cache), or nullopt when it reads them all (debug, tasks or
  ///   checkpoints streams) or keeps no checkpoint to place a lost owner again from (no
  ///   saver, exit durability, a subgraph);
  /// - `hold_elsewhere`: from now on the run keeps those channels' versions, not their values;
  /// - `committed_values`: their committed values, as a replica takes them, from the last
  ///   checkpoint (a lost owner is placed again from them), and with `versions` their
  ///   versions there;
  /// - `read_back`: the channels held elsewhere whose committed values the end of the run
  ///   reads (its output, or the state an interrupted step shows), which `take_read_back`
  ///   then takes.
  std::optional<std::unordered_set<std::string>> values_read_here() const;
  void hold_elsewhere(std::unordered_set<std::string> names);
  bool holds_elsewhere(const std::string& channel) const {
    return state_.held_elsewhere.count(channel) != 0;
  }
  std::vector<actors::channel_delta> committed_values(
      const std::vector<std::string>& names, std::vector<channel_version>* versions = nullptr);
  /// Whether each step's checkpoint is saved as the step commits (a checkpointer, durability
  /// other than exit): the last one then holds every channel's committed value and version.
  bool steps_checkpointed() const noexcept { return saver_ && durability_ != durability::exit; }
  /// Whether `channel` changed since the last checkpoint outside a step (a resumed run's
  /// Command update or saved null writes, applied before its first step).
  bool changed_since_checkpoint(const std::string& channel) const {
    return unsaved_changes_.versions.count(channel) != 0;
  }
  std::vector<std::string> read_back() const;
  void take_read_back(std::vector<actors::channel_delta> values);

  /// The error that ended the run, recorded by the coordinator actor for its caller.
  void set_failure(std::exception_ptr e) noexcept { failure_ = std::move(e); }
  std::exception_ptr take_failure() noexcept { return std::move(failure_); }

  const algo::run_state& state() const noexcept { return state_; }

  /// Whether the run stopped at an interrupt (interrupt(), interrupt_before/after).
  bool interrupted() const noexcept { return interrupted_; }
  /// Where it stopped: at a breakpoint, else pending (graph_callbacks.hpp).
  graph_lifecycle_status status() const noexcept { return status_; }
  const list& interrupts() const noexcept { return interrupts_; }

  /// The run's output: its latest `values` event, as LangGraph's invoke returns.
  const value& output();

  /// Tasks of the current step that must run: those not restored from saved writes.
  /// Restored ones are reported (streamed) here.
  std::vector<std::uint32_t> runnable();

  /// Ends the run on every path (done, interrupted, or `failed`): saves what the durability
  /// mode held back and waits for background saves. Throws a saver's error when not `failed`.
  void finish(bool failed);

  /// Drives begin/plan/execute/commit to the end with `run_batch` executing tasks.
  template <class RunBatch>
  value run(const value& input, RunBatch&& run_batch) {
    try {
      begin(input);
      while (plan()) {
        auto todo = runnable();
        run_batch(tasks_, todo);
        if (!commit_step()) break;
      }
    } catch (...) {
      finish(true);
      throw;
    }
    finish(false);
    return output();
  }

  ~run_loop();

 private:
  /// Fails the step on a task error, or stops it at an interrupt (false).
  bool check_step();
  std::vector<pregel_task*> step_batch();
  /// What follows applying a step's writes: checkpoint, stream, interrupt_after.
  bool end_step(algo::applied applied);
  void attach_resumed_writes();
  /// Starts a top-level run given a subgraph's checkpoint in namespace `ns` from its parent's.
  void enter_through_subgraph(const std::string& ns);
  void take_command(const command& cmd);
  /// Applies the writes of no task: those saved with the loaded checkpoint (the updates of
  /// earlier Commands on it) and `added` (this run's Command), saving `added` with them.
  void apply_null_writes(std::vector<std::pair<std::string, value>> added);
  bool has_pending_interrupt() const;
  std::vector<std::string> pending_interrupt_ids() const;
  void save_writes(const std::vector<const pregel_task*>& tasks);
  void report_finished(const pregel_task& t);
  void report_interrupts(const pregel_task& t);
  void take_cached_writes();
  /// Before planning: takes the Sends out of the tasks topic when nothing else of the run
  /// needs them (run_loop.cpp), for the step's PUSH tasks to be planned from; null otherwise.
  value release_sends();
  /// Stores a task's writes in the graph's cache when its node has a cache policy.
  void cache_writes(const pregel_task& t);
  /// Stops the run at a breakpoint (interrupt_before/after).
  void stop_at_breakpoint(graph_lifecycle_status why);
  // The tasks / checkpoints / debug streams (run_loop_debug.cpp).
  bool wants_task_events() const noexcept;
  void emit_debug_event(stream_mode m, const char* type, std::int64_t step, value payload);
  void emit_task_events();
  void emit_task_result(const pregel_task& t);
  void emit_checkpoint_event();
  void emit_values_if(const std::unordered_set<std::string>& updated);
  void show_finished_writes();
  /// What a step stopped at an interrupt shows (its finished writes, then the empty interrupt
  /// a subgraph's breakpoint streams as): at once, or once `take_read_back` brought the
  /// committed values of output channels held elsewhere (`pause_shown_later_`).
  void show_pause();
  bool pause_shown_later_ = false;
  /// Under async durability, the background writer's copy of the checkpoint keeps no value of
  /// `names` from now on.
  void forget_in_background(const std::unordered_set<std::string>& names);
  /// Saves the loop's checkpoint; `applied` (nullptr: none) is what changed since the last.
  /// `delta`: which delta channels get a snapshot (those due, unless the checkpoint's writes
  /// are saved nowhere).
  void put_checkpoint(const char* source, const algo::applied* applied,
                      delta_snapshots delta = delta_snapshots::due);

  const pregel_graph& g_;
  const algo::graph_index& index_;
  checkpoint_saver* saver_;
  run_shared& shared_;
  checkpoint_config cp_config_;
  algo::run_state state_;
  task_list tasks_;
  std::unordered_set<std::string> updated_;
  bool have_updated_ = false;
  bool replaying_ = false;
  std::string replay_source_;           // metadata source of the checkpoint loaded
  checkpoint_changes unsaved_changes_;  // changes since the last put
  bool sends_read_ = false;             // a node reads the tasks topic, or the run shows it
  durability durability_ = durability::sync;
  background_saves_ptr background_;  // async durability
  // exit durability: what the last (unsaved) checkpoint needs when it is finally saved
  std::string last_saved_id_;
  checkpoint_changes unsaved_versions_;  // since last_saved_id_
  checkpoint_metadata unsaved_meta_;
  bool unsaved_ = false;
  std::vector<const pregel_task*> held_writes_;
  std::mutex held_mutex_;  // the current step's, saved if the run stops
  bool interrupted_ = false;
  graph_lifecycle_status status_ = graph_lifecycle_status::pending;
  bool output_with_interrupts_ = false;
  list interrupts_;              // raised by the last step's tasks
  std::optional<value> resume_;  // from Command(resume=...), for the interrupted tasks
  bool resume_by_id_ = false;    // resume_ is an object of interrupt id -> value
  value latest_values_;
  std::unordered_set<std::string> output_set_;
  // What `values` and `updates` stream, as a set and in order.
  std::unordered_set<std::string> stream_set_;
  const std::vector<std::string>* stream_channels_ = nullptr;
  bool stream_single_ = false;     // `values` streams the one channel's value, not an object
  bool stream_is_output_ = false;  // `values` streams what the run returns
  bool values_pending_ = false;    // output channels changed since latest_values_ was read
  bool outputs_volatile_ = false;  // some output channel can clear without a values event
  // The current checkpoint's metadata and the checkpoint streamed as its parent (the one
  // saved before it; under exit durability, the parent of the checkpoint the run started
  // from), for the checkpoints stream.
  checkpoint_metadata stream_meta_;
  std::string stream_parent_id_;
  std::exception_ptr failure_;
  std::vector<pending_write> resumed_writes_;
  // The cache keys of the step's tasks whose node caches and whose input missed, by task id.
  std::unordered_map<std::string, std::string> cache_keys_;
  // The step being committed in halves (stage_step .. complete_step).
  algo::applied staged_;
  channel_version staged_version_ = 0;
  bool staged_bump_ = false;
  std::int64_t step_ = 0;
  std::int64_t stop_ = 0;
  std::int64_t limit_ = default_recursion_limit;
  std::size_t max_concurrency_ = 0;
  std::unique_ptr<run_cancel> cancel_;
  checkpoint_id_generator ids_;
  delta_counters delta_counters_;  // of the last checkpoint made (delta_channels.hpp)
  // exit durability: the delta channels' writes of the steps whose writes are not saved
  // (LangGraph's _exit_delta_writes), oldest first, and the id of the empty checkpoint they
  // are saved against on a thread with no checkpoint before the run (LangGraph's stub).
  struct exit_delta_write {
    std::int64_t step;
    std::string task_id;
    std::string channel;
    value v;
  };
  std::vector<exit_delta_write> exit_delta_writes_;
  std::string exit_stub_id_;
  bool delta_snapshot_all_ = false;  // the next checkpoint saved snapshots every delta channel
  void hold_exit_delta_writes(const std::string& task_id,
                              const std::vector<std::pair<std::string, value>>& writes);
  /// Saves the held delta writes of channels the last checkpoint does not snapshot, against
  /// the checkpoint the run started from (or a stub made for them): so they rebuild it.
  void save_exit_delta_writes(const std::set<std::string>& snapshotted);
};

}  // namespace superstep::detail
