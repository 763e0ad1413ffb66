#include "superstep/agents/chat_model.hpp"

#include <utility>

#include "http_post.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/stream/message_events.hpp"

namespace superstep::agents {

namespace {

// A model with tools bound to each call (LangChain's RunnableBinding of bind_tools).
class bound_chat_model final : public chat_model {
 public:
  bound_chat_model(std::shared_ptr<const chat_model> inner, std::vector<tool_spec> tools,
                   value tool_choice)
      : inner_(std::move(inner)), tools_(std::move(tools)), tool_choice_(std::move(tool_choice)) {}

  std::string describe() const override { return inner_->describe(); }
  const std::vector<tool_spec>* bound_tools() const noexcept override { return &tools_; }
  std::shared_ptr<const chat_model> without_bindings() const override {
    return inner_->without_bindings();
  }

 protected:
  value generate(const list& messages, const chat_options& options) const override {
    return inner_->invoke(messages, merged(options));
  }
  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback& on_chunk) const override {
    return inner_->stream(messages, merged(options), on_chunk);
  }

 private:
  chat_options merged(chat_options options) const {
    std::vector<tool_spec> tools = tools_;
    tools.insert(tools.end(), options.tools.begin(), options.tools.end());
    options.tools = std::move(tools);
    if (options.tool_choice.is_null()) options.tool_choice = tool_choice_;
    return options;
  }

  std::shared_ptr<const chat_model> inner_;
  std::vector<tool_spec> tools_;
  value tool_choice_;
};

}  // namespace

value tool_spec::to_openai() const {
  object fn{{"name", name}};
  if (!description.empty()) fn.set("description", description);
  fn.set("parameters", parameters);
  return object{{"type", "function"}, {"function", value(std::move(fn))}};
}

namespace {

// `m` with the id `id` when it has none (LangChain's BaseChatModel names a call's chunks and
// message "run-<run id>" when the model does not).
value with_id(const value& m, const std::string& id) {
  if (!m.is_object()) return m;
  if (const value& have = m.get("id"); have.is_string() && !have.as_string().empty()) return m;
  object out = m.as_object();
  out.set("id", id);
  return value(std::move(out));
}

using streamed_call = std::function<value(const chunk_callback&)>;

// A streamed call whose chunks go to the node's `messages` stream as they are (v1).
value stream_as_chunks(node_context& ctx, const streamed_call& call,
                       const chunk_callback& on_chunk) {
  const std::string call_id = "run-" + detail::random_uuid();
  return with_id(call([&](const value& chunk) {
                   const value named = with_id(chunk, call_id);
                   ctx.emit_message(named);
                   if (on_chunk) on_chunk(named);
                 }),
                 call_id);
}

// A streamed call reported to the node's run as the v2 message protocol (LangChain's
// _stream_chat_model_events with LangGraph's StreamMessagesHandlerV2 listening).
value stream_as_events(node_context& ctx, const streamed_call& call,
                       const chunk_callback& on_chunk) {
  const std::string call_id = "run-" + detail::random_uuid();
  message_event_builder events(call_id);
  const auto emit = [&](const list& out) {
    for (const value& e : out) ctx.emit_message_event(e, call_id);
  };
  value answer;
  try {
    answer = call([&](const value& chunk) {
      emit(events.chunk(chunk));
      if (on_chunk) on_chunk(chunk);
    });
  } catch (const std::exception& e) {
    // The call's stream ends with the model's error (the protocol's "error" event), whether or
    // not the node goes on.
    if (events.started())
      ctx.emit_message_event(object{{"event", "error"}, {"message", std::string(e.what())}},
                             call_id);
    throw;
  }
  // The message the node returns is the one streamed: it keeps (or gets) the stream's id, and
  // an id of its own is marked seen, so the node's output does not replay it.
  answer = with_id(answer, events.started() ? events.message_id() : call_id);
  emit(events.finish(answer));
  if (const value& id = answer.get("id"); id.is_string() && id.as_string() != events.message_id())
    ctx.note_message_seen(id.as_string());
  return answer;
}

value stream_to_node(node_context& ctx, const streamed_call& call, const chunk_callback& on_chunk) {
  return ctx.message_events() ? stream_as_events(ctx, call, on_chunk)
                              : stream_as_chunks(ctx, call, on_chunk);
}

}  // namespace

value chat_model::invoke(const list& messages, const chat_options& options) const {
  if (!options.stream_to) return generate(messages, options);
  chat_options inner = options;
  inner.stream_to = nullptr;
  return stream_to_node(
      *options.stream_to,
      [&](const chunk_callback& cb) { return generate_stream(messages, inner, cb); }, nullptr);
}

value chat_model::stream(const list& messages, const chat_options& options,
                         const chunk_callback& on_chunk) const {
  chat_options inner = options;
  inner.stream_to = nullptr;
  if (!options.stream_to) return generate_stream(messages, inner, on_chunk);
  return stream_to_node(
      *options.stream_to,
      [&](const chunk_callback& cb) { return generate_stream(messages, inner, cb); }, on_chunk);
}

std::shared_ptr<const chat_model> chat_model::bind_tools(std::vector<tool_spec> tools,
                                                         value tool_choice) const {
  for (const tool_spec& t : tools)
    if (t.name.empty())
      throw error(error_code::invalid_argument,
                  describe() + ": bind_tools got a tool without a name");
  return std::make_shared<bound_chat_model>(shared_from_this(), std::move(tools),
                                            std::move(tool_choice));
}

std::shared_ptr<const structured_chat_model> chat_model::with_structured_output(
    agents::response_format format) const {
  return std::make_shared<structured_chat_model>(shared_from_this(), std::move(format));
}

structured_chat_model::structured_chat_model(std::shared_ptr<const chat_model> model,
                                             agents::response_format format)
    : model_(std::move(model)), format_(std::move(format)) {
  if (format_.name.empty())
    throw error(error_code::invalid_argument,
                model_->describe() + ": with_structured_output needs a schema name");
  if (!format_.schema.is_object())
    throw error(error_code::invalid_argument,
                model_->describe() + ": the structured output schema '" + format_.name +
                    "' is not a JSON schema object: " + format_.schema.to_json());
}

value structured_chat_model::invoke(const list& messages, chat_options options) const {
  options.response_format = format_;
  const value answer = model_->invoke(messages, options);
  const value& content = answer.get("content");
  std::string text;
  if (content.is_string()) {
    text = content.as_string();
  } else if (content.is_list()) {
    for (const value& block : content.as_list())
      if (block.get("text").is_string()) text += block.get("text").as_string();
  }
  value parsed;
  try {
    parsed = value::parse_json(text);
  } catch (const error& e) {
    throw error(error_code::protocol_error, model_->describe() + ": the structured answer ('" +
                                                format_.name + "') is not JSON: " + e.what());
  }
  if (!parsed.is_object())
    throw error(error_code::protocol_error, model_->describe() + ": the structured answer ('" +
                                                format_.name +
                                                "') is not a JSON object: " + text.substr(0, 200));
  return parsed;
}

}  // namespace superstep::agents
