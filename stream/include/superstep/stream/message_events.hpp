#pragma once

// The v2 message protocol of LangChain's chat models (langchain_protocol `MessagesData`, as
// `BaseChatModel.stream_events(version="v3")` emits it and LangGraph's v3 messages projection
// reads it): one model call is one message,
//
//   {"event": "message-start", "role": "ai", "message_id": id}
//   {"event": "content-block-start", "index": i, "content_block": block}   per block
//   {"event": "content-block-delta", "index": i, "content_block": delta}   0..n per block
//   {"event": "content-block-finish", "index": i, "content_block": whole block}
//   {"event": "message-finish", "reason": "stop" | "tool_calls" | ..., "usage"?: {...}}
//
// Blocks: {"type": "text", "text"} (a delta's text is the new part), {"type":
// "tool_call_chunk", "id"?, "name"?, "args": text part, "index"} while a tool call streams,
// finished as {"type": "tool_call", "id", "name", "args": object}.

#include <map>
#include <optional>
#include <string>

#include "superstep/core/value.hpp"

namespace superstep {

/// The protocol events that replay a whole message (LangChain's `message_to_events`):
/// message-start (role from the message's type: "ai", "human", "system", "tool"; message_id
/// `message_id`, else the message's "id"), a text block with its text as one delta when the
/// content has text, a finished tool_call block per tool call, then message-finish (reason
/// the response_metadata's finish_reason, else "tool_calls" with calls and "stop" without;
/// usage the message's usage_metadata). Throws `superstep::error` (invalid_argument) when
/// `message` is not an object.
list message_to_events(const value& message,
                       const std::optional<std::string>& message_id = std::nullopt);

/// Turns a streamed chat model call into protocol events (LangChain's
/// `_stream_chat_model_events`): `chunk` takes each streamed chunk ({"type":
/// "AIMessageChunk", "content": text delta, "id", "tool_call_chunks": [{"name", "args", "id",
/// "index"}]}) and returns the events it adds, `finish` the whole message the call returned
/// and returns the closing events (each open block finished, the tool calls with their parsed
/// arguments, then message-finish). Single use, not thread-safe.
class message_event_builder {
 public:
  /// `message_id`: the id message-start carries when the first chunk has none.
  explicit message_event_builder(std::string message_id) : message_id_(std::move(message_id)) {}

  /// The events of one chunk: message-start before the first, then a block start before a
  /// block's first delta, and the deltas. Throws `superstep::error` (invalid_argument) naming
  /// the chunk when it is not an object, or after `finish`.
  list chunk(const value& chunk);
  /// The closing events, given the call's whole message (message-start first when no chunk
  /// came). Throws `superstep::error` (invalid_argument) when called twice or `message` is not
  /// an object.
  list finish(const value& message);

  /// The id message-start carried (the first chunk's, else the one given).
  const std::string& message_id() const noexcept { return message_id_; }
  bool started() const noexcept { return started_; }

 private:
  void start(list& out, const value& first);
  int block_for_tool(std::int64_t tool_index);

  std::string message_id_;
  bool started_ = false;
  bool finished_ = false;
  std::optional<int> text_block_;
  std::string text_;
  std::map<std::int64_t, int> tool_blocks_;  // tool call index -> block index
  int next_block_ = 0;
};

}  // namespace superstep
