#include "superstep/agents/chat_model.hpp"

#include <utility>

#include "superstep/coordinator/node_context.hpp"
#include "superstep/core/error.hpp"

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

value chat_model::invoke(const list& messages, const chat_options& options) const {
  if (!options.stream_to) return generate(messages, options);
  node_context* ctx = options.stream_to;
  chat_options inner = options;
  inner.stream_to = nullptr;
  return generate_stream(messages, inner, [ctx](const value& chunk) { ctx->emit_message(chunk); });
}

value chat_model::stream(const list& messages, const chat_options& options,
                         const chunk_callback& on_chunk) const {
  chat_options inner = options;
  node_context* ctx = inner.stream_to;
  inner.stream_to = nullptr;
  if (!ctx) return generate_stream(messages, inner, on_chunk);
  return generate_stream(messages, inner, [&](const value& chunk) {
    ctx->emit_message(chunk);
    if (on_chunk) on_chunk(chunk);
  });
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
