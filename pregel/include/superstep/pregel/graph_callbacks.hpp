// Graph lifecycle callbacks (LangGraph's langgraph.callbacks): handlers a run's caller gives in
// `stream_options::callbacks`, told when the run pauses at interrupts and when it resumes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// Where a run's loop was when a lifecycle event came (LangGraph's GraphLifecycleStatus, of
/// which these are the values its events carry).
enum class graph_lifecycle_status : std::uint8_t {
  /// Running its steps: a resume, or an interrupt() raised by a task (of a subgraph too).
  pending,
  /// Stopped before a node of `interrupt_before`.
  interrupt_before,
  /// Stopped after a node of `interrupt_after`.
  interrupt_after,
};

/// A run paused at interrupts (LangGraph's GraphInterruptEvent). Told once per run, by the
/// top-level graph, after the checkpoint it stopped at is saved: an interrupt raised inside a
/// subgraph reaches it as the run's own.
struct graph_interrupt_event {
  /// The run's id: the config's "run_id", else the one the run made.
  std::string run_id;
  graph_lifecycle_status status = graph_lifecycle_status::pending;
  /// The checkpoint the run stopped at (its thread resumes from it).
  std::string checkpoint_id;
  /// The namespace of the graph that tells it, split at '|': empty, the top-level graph.
  std::vector<std::string> checkpoint_ns;
  /// {"value", "id"} of each interrupt that paused the run, subgraphs' included; empty at a
  /// breakpoint (interrupt_before/after), as LangGraph's.
  list interrupts;
};

/// A run, or a subgraph of it, resumed from a saved checkpoint (LangGraph's GraphResumeEvent):
/// a run given no input or a Command on a thread with a checkpoint, and each subgraph that
/// continues from its own checkpoint when its interrupted parent task runs again.
struct graph_resume_event {
  /// The id of the run the caller started (a subgraph's event carries its run's).
  std::string run_id;
  graph_lifecycle_status status = graph_lifecycle_status::pending;
  /// The checkpoint it resumes from (a replay: the fork it made of it).
  std::string checkpoint_id;
  /// Where: empty for the top-level graph, else the subgraph's namespace split at '|'
  /// ({"<node>:<task id>"}; {"<node>"} for a stateful subgraph).
  std::vector<std::string> checkpoint_ns;
};

/// Told of a run's lifecycle transitions (LangGraph's GraphCallbackHandler): derive from it and
/// override what you need; both do nothing by default. A run calls its handlers in the order
/// given, never two calls at once, from a thread of the run: for an interrupt the one that
/// called it (`stream_events`: the run's own); for a resume the one running that graph's loop
/// (the coordinator actor's, the caller's, or a subgraph's task's), so keep them cheap. A
/// handler that throws does not stop the run and the handlers after it are still told
/// (LangChain's handle_event logs the error; the runtime has no log, so it is dropped), unless
/// it is marked `raise_error`: then what it threw ends the run, and the handlers after it are
/// not told. An interrupt's is thrown by the run's call, the checkpoint saved; a resume's
/// before the resumed graph runs a step: the run's is thrown by its call, a subgraph's fails
/// its parent task (as a node's error: superstep::error node_error with its message) and so
/// the run.
class graph_callback_handler {
 public:
  virtual ~graph_callback_handler() = default;

  /// The run paused at interrupts.
  virtual void on_interrupt(const graph_interrupt_event& /*event*/) {}
  /// The run, or one of its subgraphs, resumed from a checkpoint.
  virtual void on_resume(const graph_resume_event& /*event*/) {}

  /// LangChain's `raise_error`: whether an exception this handler throws ends the run.
  bool raise_error() const noexcept { return raise_error_; }

 protected:
  explicit graph_callback_handler(bool raise_error = false) noexcept : raise_error_(raise_error) {}

 private:
  bool raise_error_;
};

}  // namespace superstep
