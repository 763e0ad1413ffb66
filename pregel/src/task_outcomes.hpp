#pragma once

// Internal: what a checkpoint's pending writes say of the tasks it would run (LangGraph's
// tasks_w_writes, langgraph/pregel/debug.py): each task's error, interrupts and result, as
// get_state and the `checkpoints` stream show them.

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/pregel/pregel_graph.hpp"

namespace superstep::detail {

/// What the saved writes of a checkpoint say of one task: its error, its interrupts, and its
/// other writes (for its result). Points into the writes it was gathered from.
struct task_outcome {
  std::optional<std::string> error;
  list interrupts;
  std::vector<const pending_write*> writes;  // to channels, in the order written
  const value* returned = nullptr;           // its RETURN write (a functional API task)
  bool has_writes = false;                   // any write but ERROR and INTERRUPT
};

/// The outcome of each task with a write in `writes`, by task id, gathered in one pass (a
/// crashed step of 10^5 Sends has as many tasks and writes: no scan of all writes per task).
/// The keys and outcomes refer to `writes`, which must outlive them.
std::unordered_map<std::string_view, task_outcome> task_outcomes(
    const std::vector<pending_write>& writes);

/// A task's result as LangGraph's tasks_w_writes makes it: what it returned (a functional
/// task), else its writes to the output channels as {channel: value} (a channel written twice:
/// {channel: {"$writes": [...]}}), or the one output channel's value; null without writes.
value task_result(const pregel_graph& g, const task_outcome& o);

}  // namespace superstep::detail
