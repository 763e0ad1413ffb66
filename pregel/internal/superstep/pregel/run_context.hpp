#pragma once

// Internal: the node_context and write_scope the runtime hands to node code.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/checkpoint/thread_runs.hpp"
#include "superstep/pregel/algo.hpp"
#include "superstep/pregel/graph_callbacks.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/pregel/pregel_graph.hpp"
#include "superstep/pregel/replay_state.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/pregel/stream.hpp"
#include "superstep/pregel/task.hpp"

namespace superstep::detail {

/// What a run's owner gave it to reach its tasks and subgraphs (stream_options::control,
/// node_finished and callbacks): shared by the run's subgraphs, and lent to the node actors of
/// its process.
struct run_hooks {
  std::shared_ptr<run_control> control;
  std::function<void(const std::string&)> node_finished;
  std::vector<std::shared_ptr<graph_callback_handler>> callbacks;
  std::string run_id;    // what the callbacks' events carry
  mutable std::mutex m;  // node_finished and callback calls never overlap

  bool drain_requested() const noexcept { return control && control->drain_requested(); }
  void finished(const std::string& node) const {
    if (!node_finished) return;
    std::lock_guard lock(m);
    node_finished(node);
  }
  /// Tells each handler (run_context.cpp): one that throws is passed over unless it is marked
  /// raise_error, whose exception is rethrown.
  void resumed(graph_resume_event event) const;
  void interrupted(graph_interrupt_event event) const;
};

/// What a run shares with all of its tasks: config, streams, namespace.
struct run_shared {
  value config;
  std::vector<std::string> ns;  // namespace path of this graph
  std::string checkpoint_ns;    // ns joined with '|'
  std::int64_t stop = 0;        // the step past which the recursion limit ends the run
  std::uint32_t modes = 0;      // bit per stream_mode
  bool subgraphs = false;
  bool message_events = false;  // stream_options::message_events
  const stream_sink* sink = nullptr;
  std::mutex* sink_mutex = nullptr;
  // Persistence, shared with subgraphs: they save their checkpoints in the same thread, under
  // their own namespace, with `parents` naming the checkpoints of the graphs around them.
  checkpoint_saver* saver = nullptr;
  storage::store* store = nullptr;  // the graph's long-term store, shared by subgraphs
  node_cache* cache = nullptr;      // where tasks with a cache policy keep their writes
  std::string checkpoint_id;        // of the current step (the tasks' parent checkpoint)
  bool resuming = false;            // the run continues a thread (no input, or a Command)
  std::map<std::string, std::string> parents;
  list resume;  // a subgraph's: the resume values its parent task was given
  // Set while a run replays from a past checkpoint: where its subgraphs load from.
  std::shared_ptr<replay_state> replay;
  // The top-level run's hold on its thread (null in subgraphs and without a saver): set when
  // a later run asks this one to stop (multitask interrupt or rollback).
  thread_runs::slot* run_slot = nullptr;
  const std::function<bool()>* stop_asked = nullptr;  // stream_options::stop (top level only)
  // stream_options::interrupt_before/after (top level only); null: the graph's.
  const std::vector<std::string>* interrupt_before = nullptr;
  const std::vector<std::string>* interrupt_after = nullptr;
  std::shared_ptr<const run_hooks> hooks;  // null: the run's owner gave none
  // Stopped when the run loop cancels its tasks (run_cancel.hpp); before the loop exists, the
  // token it links to (the parent run's, or run_control's).
  std::stop_token cancel;

  bool wants(stream_mode m) const noexcept { return modes & (1u << static_cast<unsigned>(m)); }
  void emit(stream_mode m, value data) const;
};

/// The cache namespace of node `node`'s writes (LangGraph's (CACHE_NS_WRITES, ..., node)).
inline node_cache::cache_namespace cache_namespace_of(const std::string& node) {
  return {"__pregel_ns_writes", node};
}

/// A namespace path as a checkpoint_ns: its parts joined with '|' ("" at the top level).
std::string join_ns(const std::vector<std::string>& ns);

/// The context of one task.
class task_context final : public node_context, public write_scope {
 public:
  task_context(const run_shared& run, pregel_task& task, std::int64_t step,
               const algo::channel_map& channels)
      : run_(run), task_(task), step_(step), channels_(channels) {}

  const value& config() const noexcept override { return run_.config; }
  std::string_view node() const noexcept override { return task_.name; }
  std::string_view task_id() const noexcept override { return task_.id; }
  std::int64_t step() const noexcept override { return step_; }
  std::string_view checkpoint_ns() const noexcept override { return run_.checkpoint_ns; }
  std::string_view checkpoint_id() const noexcept override { return run_.checkpoint_id; }
  std::int64_t remaining_steps() const noexcept override { return run_.stop - step_; }
  value interrupt(value v) override;
  /// A retry starts the node anew: its interrupt() calls are answered from the first again.
  void reset_attempt() noexcept { interrupt_calls_ = subgraph_calls_ = 0; }
  /// How many graphs this task ran nested before this one (LangGraph's subgraph_counter): the
  /// second and later get their own namespace.
  std::size_t next_subgraph_call() noexcept { return subgraph_calls_++; }
  /// The values answering this task's interrupt() calls, before the node function runs (the
  /// functional API hands those meant for the tasks an entrypoint calls to those calls).
  list& resume_values() { return task_.rare.edit().resume; }
  void emit_custom(value data) override;
  void emit_tool_event(value event) override;
  bool streams(stream_mode m) const noexcept override { return run_.sink && run_.wants(m); }
  void emit_message(value chunk) override;
  bool message_events() const noexcept override {
    return run_.message_events && run_.wants(stream_mode::messages);
  }
  void emit_message_event(value event, std::string_view call_id) override;
  void note_message_seen(std::string_view id) override;
  /// The metadata of the `messages` events of this task (LangGraph's): the run's configurable
  /// keys LangGraph propagates (thread_id, checkpoint_id, checkpoint_ns, task_id, run_id,
  /// assistant_id, graph_id), langgraph_step, langgraph_node, langgraph_triggers,
  /// langgraph_path, langgraph_checkpoint_ns (the task's) and ls_integration.
  value message_metadata() const;
  value push_message(value message, std::string_view state_key) override;
  storage::store* store() const noexcept override { return run_.store; }
  std::int64_t node_attempt() const noexcept override { return attempt_; }
  double node_first_attempt_time() const noexcept override { return first_attempt_time_; }
  const node_failure* node_error() const noexcept override {
    return failure_ ? &*failure_ : nullptr;
  }
  std::vector<stream_mode> subgraph_stream_modes() const override;
  void emit_subgraph_event(stream_event event) override;
  list resume_values_given() const override { return task_.rare->resume; }
  std::shared_ptr<run_control> control() const noexcept override {
    return run_.hooks ? run_.hooks->control : nullptr;
  }
  /// The attempt about to run and when the first one started (run_task).
  void set_attempt(std::int64_t n, double first_time) noexcept {
    attempt_ = n;
    first_attempt_time_ = first_time;
  }
  void heartbeat() noexcept override {
    if (timeout_) touch();
  }
  void check_timeout() const override;
  std::stop_token stop_token() const noexcept override { return run_.cancel; }
  /// Starts the clocks of an attempt run under `policy` (null: no timeout).
  void start_clock(const timeout_policy* policy) noexcept {
    timeout_ = policy;
    if (!policy) return;  // no clock read on the path of the many tasks without a timeout
    attempt_start_ = std::chrono::steady_clock::now();
    last_progress_.store(attempt_start_.time_since_epoch().count(), std::memory_order_relaxed);
  }
  /// The limits this task's attempts run under: its Send's own (`pregel_task::timeout`) when
  /// it has one, else the node's; null: none.
  const timeout_policy* timeout_of(const pregel_node& node);
  /// The failure the error handler about to run handles.
  void set_node_error(node_failure f) { failure_ = std::move(f); }

  void write(std::string channel, value v) override {
    task_.writes.emplace_back(std::move(channel), std::move(v));
  }
  void expect_writes(std::size_t more) override {
    auto& w = task_.writes;
    if (w.size() + more > w.capacity()) w.reserve(std::max(w.size() + more, 2 * w.capacity()));
  }
  std::optional<value> fresh_read(const std::string& channel) override;
  node_context& context() override { return *this; }

  const run_shared& run() const noexcept { return run_; }
  const pregel_task& task() const noexcept { return task_; }

 private:
  const run_shared& run_;
  pregel_task& task_;
  std::int64_t step_;
  const algo::channel_map& channels_;
  std::size_t interrupt_calls_ = 0;
  std::size_t subgraph_calls_ = 0;
  std::int64_t attempt_ = 1;
  double first_attempt_time_ = 0;
  std::optional<node_failure> failure_;
  void touch() noexcept {
    last_progress_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                         std::memory_order_relaxed);
  }
  const timeout_policy* timeout_ = nullptr;
  std::optional<timeout_policy> send_timeout_;  // pregel_task::timeout, decoded
  std::chrono::steady_clock::time_point attempt_start_;
  // Of the last progress, for the idle timeout: stream events may come from other threads.
  std::atomic<std::chrono::steady_clock::rep> last_progress_{0};
};

/// The id of the interrupts a task raises: a hash of its namespace and task id, stable across
/// the re-runs of a resumed step (LangGraph's interrupt id).
std::string interrupt_id(std::string_view checkpoint_ns, std::string_view task_id);
/// Whether `s` has the form of those ids (32 lowercase hex digits, as LangGraph's xxh3_128
/// hexdigest): a Command's resume object keyed so is a map of interrupt id -> value.
bool is_interrupt_id(std::string_view s) noexcept;

/// The task whose node function the calling thread is running, or null (a graph invoked
/// from inside a node runs as that node's subgraph).
task_context* current_task() noexcept;

/// Runs one task: the node function, then its writers. Errors are caught and recorded on the
/// task (its writes are then dropped), never thrown.
void run_task(const pregel_graph& g, pregel_task& task, task_context& ctx) noexcept;

}  // namespace superstep::detail
