#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

/// The error a task ended with: a code and the node's message.
struct task_error {
  error_code code = error_code::node_error;
  std::string message;
};

/// One unit of work in a superstep (LangGraph `PregelExecutableTask`), as plain data that can
/// travel to whichever process runs it.
struct pregel_task {
  std::string id;
  std::uint32_t node = 0;  ///< index into pregel_graph::nodes
  std::string name;
  bool push = false;  ///< PUSH (from a Send) or PULL (triggered by channels)
  std::uint64_t push_index = 0;
  std::vector<std::string> triggers;
  value input;
  /// The time limits of a PUSH task whose Send gave its own (LangGraph `Send(timeout=...)`),
  /// as `timeout_to_value` encodes them; null: the node's.
  value timeout;

  // Filled in by execution:
  std::vector<std::pair<std::string, value>> writes;
  value output;  ///< what the node returned, for `updates` streams and metadata
  /// Values answering this task's interrupt() calls, in call order (from Command(resume=...)).
  list resume;
  /// The interrupts the task raised ({"value", "id"}), when it was interrupted.
  list interrupts;
  std::optional<task_error> error;
  /// Set when the node failed (after its retries) and its error handler ran instead: the
  /// node's error. Set before the task runs (a resume after the handler failed), the node is
  /// skipped and the handler runs again.
  std::optional<task_error> handled_error;
  bool done = false;
  /// Restored from writes saved before an interruption; not run again.
  bool cached = false;
};

/// Orders tasks as LangGraph applies writes: PULL tasks by node name, then PUSH tasks by index.
bool task_path_less(const pregel_task& a, const pregel_task& b) noexcept;

}  // namespace superstep
