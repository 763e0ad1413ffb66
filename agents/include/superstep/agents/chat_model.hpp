#pragma once

// The chat-model interface (LangChain's BaseChatModel as LangGraph uses it): messages in, an AI
// message out, optionally streamed chunk by chunk, with tools bound and structured output.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {
class node_context;
}

namespace superstep::agents {

/// A tool as a model sees it: its name, what it does, and the JSON schema of its arguments
/// (an object schema: {"type": "object", "properties": {...}, "required": [...]}).
struct tool_spec {
  std::string name;
  std::string description;
  value parameters = value(object{{"type", "object"}, {"properties", object{}}});

  /// The OpenAI form: {"type": "function", "function": {"name", "description", "parameters"}}.
  value to_openai() const;
};

/// Structured output by JSON schema (OpenAI's response_format json_schema).
struct response_format {
  /// The schema's name, as the server shows it to the model ([A-Za-z0-9_-]).
  std::string name = "response";
  /// A JSON schema of an object.
  value schema;
  /// Ask the server to follow the schema strictly.
  bool strict = true;
};

/// How one call is made.
struct chat_options {
  /// The tools the model may call.
  std::vector<tool_spec> tools;
  /// Null: the server's default; "auto", "none", "required" ("any" is taken as "required"), or
  /// the name of one of `tools`, which the model must then call.
  value tool_choice;
  /// Structured output: the answer's content is a JSON object following the schema.
  std::optional<agents::response_format> response_format;
  /// Further request fields ("temperature", "max_tokens", ...), an object (null: none).
  value extra;
  /// The node the call is made from, or null. When set, `invoke` streams the answer into the
  /// node's run, as LangGraph's StreamMessagesHandler sees a LangChain model called in a node:
  /// - by default, each chunk goes to the node's `emit_message` (a no-op unless the run
  ///   streams in `messages` mode): tokens reach the `messages` stream with the node's
  ///   metadata;
  /// - in a `pregel::stream_events` run (`node_context::message_events()`), the call is sent
  ///   as the v2 message protocol (message-start, content-block start/delta/finish for the
  ///   text and each tool call, message-finish; message_events.hpp) through
  ///   `emit_message_event` under a fresh call id, and becomes one `chat_model_stream` of
  ///   `run->messages()`.
  /// Chunks and message without an id get the call's ("run-<uuid>", as LangChain names
  /// them); the message the node returns is marked seen, so the stream does not show it again.
  node_context* stream_to = nullptr;
};

/// Called with each streamed chunk: {"type": "AIMessageChunk", "content": text delta, "id",
/// "tool_call_chunks": [{"name", "args": text delta, "id", "index", "type":
/// "tool_call_chunk"}], "usage_metadata"?}.
using chunk_callback = std::function<void(const value& chunk)>;

class structured_chat_model;

/// A chat model. Implementations: `openai_chat_model` (HTTP), test doubles.
///
/// Calls are const and may run concurrently (several nodes of a step call one model). Errors
/// are thrown as `superstep::error` naming the model and what failed. Models are held by
/// shared_ptr (`bind_tools` keeps the model it wraps alive).
class chat_model : public std::enable_shared_from_this<chat_model> {
 public:
  virtual ~chat_model() = default;

  /// Answers `messages` with an AI message (see messages.hpp): its content, "tool_calls",
  /// "usage_metadata" when the server counts tokens, "response_metadata" ({"finish_reason",
  /// "model_name"}) and an "id". With `options.stream_to`, streams (see chat_options).
  value invoke(const list& messages, const chat_options& options = {}) const;

  /// Answers `messages` streaming: calls `on_chunk` with each chunk as it arrives, then returns
  /// the whole message (the chunks assembled, tool-call arguments parsed). `on_chunk` runs on
  /// the calling thread; an exception from it stops the call and propagates.
  value stream(const list& messages, const chat_options& options,
               const chunk_callback& on_chunk) const;

  /// This model with `tools` bound to every call (LangChain's bind_tools): calls add them to
  /// their own, and use `tool_choice` unless they set one.
  std::shared_ptr<const chat_model> bind_tools(std::vector<tool_spec> tools,
                                               value tool_choice = value()) const;

  /// This model answering with an object following `format.schema` (LangChain's
  /// with_structured_output(method="json_schema")).
  std::shared_ptr<const structured_chat_model> with_structured_output(
      agents::response_format format) const;

  /// A name for errors and logs, e.g. "openai chat model (http://host/v1, model m)".
  virtual std::string describe() const = 0;

  /// The tools `bind_tools` bound to this model; null for a model without bound tools.
  virtual const std::vector<tool_spec>* bound_tools() const noexcept { return nullptr; }
  /// The model without what `bind_tools` bound (LangGraph's `_get_model`): this model, or the
  /// one a binding wraps.
  virtual std::shared_ptr<const chat_model> without_bindings() const { return shared_from_this(); }

 protected:
  /// One call without streaming.
  virtual value generate(const list& messages, const chat_options& options) const = 0;
  /// One call streaming chunks to `on_chunk`; returns the assembled message.
  virtual value generate_stream(const list& messages, const chat_options& options,
                                const chunk_callback& on_chunk) const = 0;
};

/// A chat model whose answers are objects following a schema (see
/// `chat_model::with_structured_output`).
class structured_chat_model {
 public:
  structured_chat_model(std::shared_ptr<const chat_model> model, agents::response_format format);

  /// The answer's content parsed as a JSON object. Throws `superstep::error` (protocol_error)
  /// naming the model when the content is not a JSON object; the model's own errors propagate.
  value invoke(const list& messages, chat_options options = {}) const;

  const agents::response_format& format() const noexcept { return format_; }

 private:
  std::shared_ptr<const chat_model> model_;
  agents::response_format format_;
};

}  // namespace superstep::agents
