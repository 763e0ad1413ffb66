#pragma once

// LangChain's chat messages as superstep values (langchain_core.messages), the form the
// `add_messages` reducer keeps in state and the `messages` stream mode carries:
//
//   {"type": "system"|"human"|"ai"|"tool"|"remove", "content": text or content blocks,
//    "id": "...", "name"?: "...",
//    "tool_calls"?: [{"name", "args": {...}, "id", "type": "tool_call"}],   (ai)
//    "invalid_tool_calls"?: [{"name", "args": "raw text", "id", "error"}],   (ai)
//    "usage_metadata"?: {"input_tokens", "output_tokens", "total_tokens"},   (ai)
//    "response_metadata"?: {...},                                            (ai)
//    "tool_call_id": "...", "status"?: "success"|"error", "artifact"?: ... } (tool)
//
// The functions below build, read and convert them; all take and give plain values, so a node
// returns {"messages": {ai_message(...)}} like a LangGraph node returns an AIMessage.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep::agents {

/// The id of a RemoveMessage that clears every message before it (LangGraph's
/// REMOVE_ALL_MESSAGES).
inline constexpr std::string_view remove_all_messages_id = "__remove_all__";

/// One tool call of an AI message (LangChain's ToolCall).
struct tool_call {
  std::string name;
  /// The call's arguments, an object.
  value args = value(object{});
  std::string id;

  /// {"name", "args", "id", "type": "tool_call"}.
  value to_value() const;
  /// The call in `v`; throws `superstep::error` (invalid_argument) naming the missing or
  /// mistyped field.
  static tool_call from_value(const value& v);
  friend bool operator==(const tool_call&, const tool_call&) = default;
};

/// Token counts of one model call (LangChain's UsageMetadata).
struct usage_metadata {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t total_tokens = 0;

  value to_value() const;
  friend bool operator==(const usage_metadata&, const usage_metadata&) = default;
};

/// A SystemMessage.
value system_message(value content, std::optional<std::string> id = std::nullopt);
/// A HumanMessage.
value human_message(value content, std::optional<std::string> id = std::nullopt);
/// An AIMessage with its tool calls ("tool_calls" is always present, as LangChain's) and, when
/// given, its token usage.
value ai_message(value content, const std::vector<tool_call>& tool_calls = {},
                 std::optional<std::string> id = std::nullopt,
                 std::optional<usage_metadata> usage = std::nullopt);
/// A ToolMessage answering the call `tool_call_id`; `name` is the tool's (empty: left out);
/// `status` "success" or "error".
value tool_message(value content, std::string tool_call_id, std::string name = "",
                   std::string status = "success", std::optional<std::string> id = std::nullopt);
/// A RemoveMessage: given to `add_messages`, deletes the message `id` (remove_all_messages_id:
/// all of them).
value remove_message(std::string id);

/// The message's "type" ("human", "ai", ...), or "" when `m` is not an object with a string
/// type.
std::string_view message_type(const value& m) noexcept;
/// True when `m` is an AI message (type "ai" or "AIMessageChunk").
bool is_ai_message(const value& m) noexcept;
/// The tool calls of an AI message (none for other messages). Throws `superstep::error`
/// (invalid_argument) naming the call that is malformed.
std::vector<tool_call> tool_calls_of(const value& m);
/// The message's text: its string content, or the "text" of its text blocks joined (as
/// LangChain's `BaseMessage.text`).
std::string message_text(const value& m);

/// Messages as LangChain's `convert_to_messages` makes them: a list of message objects,
/// strings (human messages), [role, content] pairs or {"role", "content"} objects, or one of
/// those alone. Throws `superstep::error` (invalid_argument) naming the item it cannot read.
list to_messages(const value& input);

/// The OpenAI chat-completions form of a message (what `ChatOpenAI` sends):
/// {"role": "system"|"user"|"assistant"|"tool", "content", "name"?,
///  "tool_calls"?: [{"id", "type": "function", "function": {"name", "arguments": JSON text}}],
///  "tool_call_id"?}. An AI message with tool calls and empty content sends content null.
/// Throws `superstep::error` (invalid_argument) for a message of a type OpenAI has no role
/// for (remove) or without a type.
value to_openai_message(const value& message);
/// Every message of `messages` in the OpenAI form, in order.
value to_openai_messages(const list& messages);
/// The message of an OpenAI chat message (a response's choices[i].message, or a request's):
/// roles user/developer/system/assistant/tool map to human/system/system/ai/tool; the
/// "arguments" text of each tool call is parsed as JSON, and a call whose arguments are not a
/// JSON object becomes an "invalid_tool_calls" entry (as LangChain's parser). Throws
/// `superstep::error` (invalid_argument) naming the field that is missing or mistyped.
value from_openai_message(const value& openai);

}  // namespace superstep::agents
