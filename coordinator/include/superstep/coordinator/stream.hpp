#pragma once

#include <functional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// Stream modes, as in LangGraph. `tasks`: each task as it starts ({id, name, input, triggers})
/// and as it ends ({id, name, error, result, interrupts}); `checkpoints`: each checkpoint a
/// run with a checkpointer saves, as `get_state` shows it ({config, parent_config, values,
/// metadata, next, tasks}); `debug`: both, wrapped as {type, timestamp, step, payload}.
enum class stream_mode : std::uint8_t {
  values,
  updates,
  custom,
  messages,
  debug,
  tasks,
  checkpoints
};

/// Parses "values", "updates", "custom", "messages", "debug", "tasks", "checkpoints"; throws
/// `superstep::error` (invalid_argument) otherwise.
stream_mode parse_stream_mode(std::string_view name);
std::string_view stream_mode_name(stream_mode m) noexcept;

/// One streamed event: the namespace of the graph that produced it (empty at the top level,
/// ["node:<task id>", ...] inside subgraphs), the mode, and the payload.
struct stream_event {
  std::vector<std::string> ns;
  stream_mode mode = stream_mode::values;
  value data;
};

/// Receives events in the order they happen. Called from the thread driving the run or from
/// node threads (custom, messages and subgraph events, as they happen); calls never overlap.
using stream_sink = std::function<void(const stream_event&)>;

}  // namespace superstep
