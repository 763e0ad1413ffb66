#pragma once

// What the stream_v3_chat_* suites share (LangGraph's test_stream_messages_transformer.py and
// the messages cases of the v3 streaming tests): LangChain's GenericFakeChatModel as a chat
// model of ours, protocol events made by hand, and MessagesState graphs calling a model.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "stream_v3_support.hpp"
#include "superstep/agents/chat_model.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/stream/chat_model_stream.hpp"
#include "superstep/stream/message_events.hpp"

namespace superstep::conformance {

using strs = std::vector<std::string>;

/// LangChain's GenericFakeChatModel: answers each call with the next of `answers` (a string,
/// or an AI message), streamed as its content split at whitespace (the whitespace its own
/// chunks), as GenericFakeChatModel does. `chunk_id` / `final_id`: the ids its chunks and its
/// message carry (none by default: the framework names them after the call).
class generic_fake_chat_model final : public agents::chat_model {
 public:
  explicit generic_fake_chat_model(std::vector<value> answers,
                                   std::optional<std::string> chunk_id = std::nullopt,
                                   std::optional<std::string> final_id = std::nullopt)
      : answers_(std::move(answers)),
        chunk_id_(std::move(chunk_id)),
        final_id_(std::move(final_id)) {}

  std::string describe() const override { return "generic fake chat model"; }

 protected:
  value generate(const list&, const agents::chat_options&) const override { return next(); }
  value generate_stream(const list&, const agents::chat_options&,
                        const agents::chunk_callback& on_chunk) const override {
    value m = next();
    const std::string content = m.get("content").as_string();
    static const std::regex space(R"(\s)");
    std::size_t at = 0;
    const auto emit = [&](std::string piece) {
      if (piece.empty() || !on_chunk) return;
      object chunk{{"type", "AIMessageChunk"}, {"content", std::move(piece)}};
      if (chunk_id_) chunk.set("id", *chunk_id_);
      on_chunk(value(std::move(chunk)));
    };
    for (auto it = std::sregex_iterator(content.begin(), content.end(), space);
         it != std::sregex_iterator(); ++it) {
      const auto pos = static_cast<std::size_t>(it->position());
      emit(content.substr(at, pos - at));
      emit(it->str());
      at = pos + it->length();
    }
    emit(content.substr(at));
    return m;
  }

 private:
  value next() const {
    std::lock_guard lock(m_);
    if (i_ >= answers_.size())
      throw error(error_code::unavailable, "generic fake chat model: no answer left");
    const value& a = answers_[i_++];
    value m = a.is_string() ? agents::ai_message(a) : a;
    if (final_id_) {
      object with_id = m.as_object();
      with_id.set("id", *final_id_);
      m = value(std::move(with_id));
    }
    return m;
  }

  std::vector<value> answers_;
  std::optional<std::string> chunk_id_, final_id_;
  mutable std::mutex m_;
  mutable std::size_t i_ = 0;
};

/// `_proto_event`: a messages event carrying a protocol event of the call `run_id`.
inline protocol_event proto_event(value event, std::string run_id = "run-1",
                                  std::string node = "llm") {
  return pevent("messages",
                value::array({std::move(event), object{{"langgraph_node", std::move(node)},
                                                       {"run_id", std::move(run_id)}}}));
}

/// `_lifecycle`: message-start, a text block in two deltas, message-finish.
inline std::vector<value> lifecycle(const std::string& text = "hello world",
                                    const std::string& message_id = "run-1") {
  const std::size_t half = text.size() / 2;
  const auto block = [](const char* kind, std::string t) {
    return value(object{{"event", kind},
                        {"index", 0},
                        {"content_block", object{{"type", "text"}, {"text", std::move(t)}}}});
  };
  return {object{{"event", "message-start"}, {"role", "ai"}, {"message_id", message_id}},
          block("content-block-start", ""),
          block("content-block-delta", text.substr(0, half)),
          block("content-block-delta", text.substr(half)),
          block("content-block-finish", text),
          object{{"event", "message-finish"}, {"reason", "stop"}}};
}

/// `_make_sync_transformer`: a messages transformer whose log is subscribed (through the
/// cursor it returns) and whose streams get a pump that has nothing more.
struct sync_transformer {
  messages_transformer t;
  stream_cursor<std::shared_ptr<chat_model_stream>> log;
  sync_transformer() : log((t.init(), t.log().cursor())) {
    t.bind_pump([] { return false; });
  }
  /// What the log holds, once closed.
  std::vector<std::shared_ptr<chat_model_stream>> items() {
    t.log().close();
    return drain(log);
  }
};

/// MessagesState: an add_messages "messages" key.
inline state_graph messages_state() {
  state_graph g;
  g.add_key("messages", "add_messages");
  return g;
}

/// {"messages": [human "hi"]}.
inline value hi_input(const std::string& text = "hi") {
  return object{{"messages", value::array({agents::human_message(text)})}};
}

/// A node calling `model` from inside the node (LangChain's `model.invoke(state["messages"])`
/// in a node: the call streams into the run).
inline node_function model_node(std::shared_ptr<const agents::chat_model> model) {
  return [model](const value& state, node_context& ctx) -> value {
    agents::chat_options call;
    call.stream_to = &ctx;
    return object{{"messages", model->invoke(state.get("messages").as_list(), call)}};
  };
}

/// START -> `name` -> END over MessagesState.
inline std::shared_ptr<pregel> one_node_graph(const std::string& name, node_function fn) {
  state_graph g = messages_state();
  g.add_node(name, std::move(fn));
  g.add_edge("__start__", name);
  g.add_edge(name, "__end__");
  return g.compile(opts());
}

/// The text of a stream's deltas, read through its text cursor.
inline std::string joined_text(chat_model_stream& s) {
  std::string out;
  for (const std::string& d : s.text()) out += d;
  return out;
}

}  // namespace superstep::conformance
