#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// Stream modes, as in LangGraph. `tasks`: each task as it starts ({id, name, input, triggers})
/// and as it ends ({id, name, error, result, interrupts}); `checkpoints`: each checkpoint a
/// run with a checkpointer saves, as `get_state` shows it ({config, parent_config, values,
/// metadata, next, tasks}); `debug`: both, wrapped as {type, timestamp, step, payload}.
/// `messages`: [message, metadata] pairs, as LangGraph's: the chunks a node emits with
/// `node_context::emit_message`, and the messages a node returns (objects with a string
/// "type" or "role" and a "content", as add_messages keeps them): its output itself, its
/// items, or its state update's values and their items (a Command's update likewise, and each
/// Command of a list), streamed as the node ends, in the order found. A returned message whose
/// id the run has already seen (in a task's input, or streamed before, subgraphs included) is
/// not streamed again; one without an id gets a fresh one (a random uuid4), in the stream and in
/// the state the node's update makes. The metadata: the
/// config's configurable thread_id, checkpoint_id, checkpoint_ns, task_id, run_id,
/// assistant_id and graph_id when present, langgraph_step, langgraph_node,
/// langgraph_triggers, langgraph_path, langgraph_checkpoint_ns (the task's namespace,
/// "node:task id" after its graph's) and ls_integration ("langgraph"). Subgraphs' messages
/// are streamed (and their inputs seen) only with `subgraphs`. With
/// `stream_options::message_events` (set by `pregel::stream_events`), chat model calls come
/// as [protocol event, metadata with the call's "run_id"] pairs (message_events.hpp) instead
/// of chunks, `emit_message` chunks are dropped, and tool messages a node returns are not
/// streamed (LangGraph's StreamMessagesHandlerV2).
/// `tools`: the life of each tool call the prebuilt tool node runs (LangGraph's
/// StreamToolCallHandler): {"event": "tool-started", "tool_call_id", "tool_name", "input"},
/// {"event": "tool-output-delta", "tool_call_id", "delta"} for each
/// `tool_runtime::emit_output_delta`, then {"event": "tool-finished", "tool_call_id",
/// "output"} or {"event": "tool-error", "tool_call_id", "message"}; sent by nodes with
/// `node_context::emit_tool_event`, under the namespace of the graph running the node.
enum class stream_mode : std::uint8_t {
  values,
  updates,
  custom,
  messages,
  debug,
  tasks,
  checkpoints,
  tools
};

/// The last stream mode (for loops over all of them).
inline constexpr stream_mode last_stream_mode = stream_mode::tools;

/// Parses "values", "updates", "custom", "messages", "debug", "tasks", "checkpoints",
/// "tools"; throws `superstep::error` (invalid_argument) otherwise.
stream_mode parse_stream_mode(std::string_view name);
std::string_view stream_mode_name(stream_mode m) noexcept;

/// One streamed event: the namespace of the graph that produced it (empty at the top level,
/// ["node:<task id>", ...] inside subgraphs), the mode, and the payload.
struct stream_event {
  std::vector<std::string> ns;
  stream_mode mode = stream_mode::values;
  value data;
};

/// A stream event as LangGraph's stream(version="v2") yields it (a `StreamPart`): the mode
/// as `type`, the namespace, the data, and for a `values` part the interrupts apart: taken
/// out of the data's "__interrupt__" (the data keeps its other keys), empty when it had none.
struct stream_part {
  stream_mode type = stream_mode::values;
  std::vector<std::string> ns;
  value data;
  /// Set (possibly empty) on `values` parts only.
  std::optional<list> interrupts;

  /// {"type": mode name, "ns": [...], "data": ...} and, on a values part, "interrupts": [...].
  value to_value() const;
};

/// The v2 part of `e` (as LangGraph's stream(version="v2") makes it from a v1 chunk).
stream_part to_stream_part(stream_event e);

/// Receives events in the order they happen. Called from the thread driving the run or from
/// node threads (custom, messages and subgraph events, as they happen); calls never overlap.
/// Throwing `stream_stop` closes the stream.
using stream_sink = std::function<void(const stream_event&)>;

/// Thrown by a stream sink to close the stream early (LangGraph: leaving an `astream` loop
/// inside `aclosing`): the sink gets no more events and the run is cancelled as by
/// `run_control::request_cancel`, its running nodes told through `node_context::stop_token()`
/// and no new step started; `pregel::stream` then throws error(cancelled, "run cancelled: its
/// stream was closed by its sink"). The writes of the nodes that finished stay saved as
/// pending writes. Any other exception a sink throws fails the run once its step's tasks
/// have ended.
struct stream_stop {};

class stream_transformer;

/// Makes a fresh transformer for a mux of scope `scope` (LangGraph's transformer factory):
/// called once per mux, for the run and for each subgraph handle
/// (superstep/stream/stream_transformer.hpp).
using transformer_factory =
    std::function<std::shared_ptr<stream_transformer>(const std::vector<std::string>& scope)>;

}  // namespace superstep
