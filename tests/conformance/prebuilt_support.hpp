#pragma once

// What the ports of LangGraph's prebuilt tests (libs/prebuilt/tests) share: its scripted model
// (tests/model.py FakeToolCallingModel) and shorthands for tools and messages.

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/agents/chat_model.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/agents/tool_node.hpp"

namespace superstep::conformance {

/// LangGraph's FakeToolCallingModel: answers with the contents of the messages joined by "-",
/// id the number of the call ("0", "1", ...), and the tool calls of `tool_calls[call % n]`.
class fake_tool_calling_model final : public agents::chat_model {
 public:
  explicit fake_tool_calling_model(std::vector<std::vector<agents::tool_call>> tool_calls = {},
                                   std::size_t index = 0)
      : tool_calls_(std::move(tool_calls)), index_(index) {}

  /// The object a structured-output call answers (FakeToolCallingModel.structured_response).
  void set_structured_response(value response) {
    std::lock_guard lock(mutex_);
    structured_response_ = std::move(response);
  }
  void set_tool_calls(std::vector<std::vector<agents::tool_call>> tool_calls) {
    std::lock_guard lock(mutex_);
    tool_calls_ = std::move(tool_calls);
  }
  /// The tools of each call, in order.
  std::vector<std::vector<std::string>> tools_of_calls() const {
    std::lock_guard lock(mutex_);
    return bound_;
  }

  std::string describe() const override { return "fake tool calling model"; }

 protected:
  value generate(const list& messages, const agents::chat_options& options) const override {
    if (options.response_format) {
      std::lock_guard lock(mutex_);
      if (structured_response_.is_null())
        throw std::invalid_argument("Structured response is not set");
      return agents::ai_message(structured_response_.to_json());
    }
    std::string content;
    for (const value& m : messages) {
      if (!content.empty()) content += "-";
      content += agents::message_text(m);
    }
    std::lock_guard lock(mutex_);
    const std::size_t call = index_++;
    std::vector<std::string> tools;
    for (const auto& t : options.tools) tools.push_back(t.name);
    bound_.push_back(std::move(tools));
    const std::vector<agents::tool_call> calls = tool_calls_.empty()
                                                     ? std::vector<agents::tool_call>{}
                                                     : tool_calls_[call % tool_calls_.size()];
    return agents::ai_message(content, calls, std::to_string(call));
  }
  value generate_stream(const list& messages, const agents::chat_options& options,
                        const agents::chunk_callback& on_chunk) const override {
    value m = generate(messages, options);
    if (on_chunk) {
      object chunk = m.as_object();
      chunk.set("type", "AIMessageChunk");
      on_chunk(value(std::move(chunk)));
    }
    return m;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::vector<agents::tool_call>> tool_calls_;
  mutable std::size_t index_;
  mutable std::vector<std::vector<std::string>> bound_;
  value structured_response_;
};

/// A tool call {name, args, id}.
inline agents::tool_call call(std::string name, value args, std::string id) {
  agents::tool_call c;
  c.name = std::move(name);
  c.args = std::move(args);
  c.id = std::move(id);
  return c;
}

/// A JSON schema of an object with these (name, type) properties, all required.
inline value args_schema(std::initializer_list<std::pair<std::string, std::string>> fields) {
  object properties;
  list required;
  for (const auto& [name, type] : fields) {
    properties.set(name, object{{"type", type}});
    required.push_back(name);
  }
  return object{{"type", "object"},
                {"properties", value(std::move(properties))},
                {"required", value(std::move(required))}};
}

/// A tool.
inline agents::tool make_tool(std::string name, value parameters, agents::tool_function f,
                              std::string description = "") {
  agents::tool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.parameters = std::move(parameters);
  t.function = std::move(f);
  return t;
}

/// `m` without its "id" (for LangGraph's _AnyId* messages), after checking it has a string one.
inline value without_id(const value& m) {
  BOOST_TEST(m.get("id").is_string(), m.to_json());
  object o = m.as_object();
  o.erase("id");
  return value(std::move(o));
}

}  // namespace superstep::conformance
