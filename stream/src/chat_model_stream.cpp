// LangChain's ChatModelStream (langchain_core/language_models/chat_model_stream.py) as
// LangGraph's v3 messages projection uses it.

#include "superstep/stream/chat_model_stream.hpp"

#include <utility>

#include "superstep/core/error.hpp"

namespace superstep {

chat_model_stream::chat_model_stream(std::vector<std::string> ns, std::optional<std::string> node,
                                     std::optional<std::string> message_id)
    : ns_(std::move(ns)), node_(std::move(node)), message_id_(std::move(message_id)) {}

std::string chat_model_stream::label() const {
  return "chat_model_stream" + (message_id_ ? " '" + *message_id_ + "'" : std::string());
}

void chat_model_stream::dispatch(const value& event) {
  const value& kind_v = event.get("event");
  if (!event.is_object() || !kind_v.is_string())
    throw superstep::error(
        error_code::invalid_argument,
        label() + ": a protocol event needs a string \"event\": " + event.to_json());
  const std::string& kind = kind_v.as_string();
  if (error_) return;  // failed: what the call still sends changes nothing
  if (done_)
    throw superstep::error(error_code::invalid_argument,
                           label() + ": event after message-finish: " + event.to_json());
  if (kind == "message-start") {
    if (started_)
      throw superstep::error(error_code::invalid_argument, label() + ": a second message-start");
    started_ = true;
    const value* id = event.find("message_id");
    if (!id) id = event.find("id");
    if (id && id->is_string() && !message_id_) message_id_ = id->as_string();
  } else if (kind.rfind("content-block-", 0) == 0) {
    on_block(kind, event);
  } else if (kind == "message-finish") {
    reason_ = event.get("reason");
    usage_ = event.get("usage");
  } else if (kind == "error") {
    // The call failed (the wire protocol's {"event": "error", "message", "code"}).
    events_.push_back(event);
    const value& what = event.get("message");
    fail(std::make_exception_ptr(superstep::error(
        error_code::unavailable, label() + ": the chat model call failed: " +
                                     (what.is_string() ? what.as_string() : event.to_json()))));
    return;
  }
  events_.push_back(event);
  if (kind == "message-finish") done_ = true;
}

void chat_model_stream::on_block(const std::string& kind, const value& event) {
  const value& index = event.get("index");
  // The block: "content_block" (LangChain's chat model events), or the wire protocol's
  // "delta" (a delta) and "content" (a start or finish).
  const value* cb = event.find("content_block");
  if (!cb) cb = event.find(kind == "content-block-delta" ? "delta" : "content");
  if (!index.is_int() || !cb || !cb->is_object())
    throw superstep::error(
        error_code::invalid_argument,
        label() + ": " + kind +
            " needs an integer \"index\" and an object \"content_block\": " + event.to_json());
  block& b = blocks_[index.as_int()];
  const value& type = cb->get("type");
  const bool text_type = type == value("text") || type == value("text-delta");
  if (kind == "content-block-start") {
    if (type.is_string()) b.type = type.as_string();
    b.id = cb->get("id");
    b.name = cb->get("name");
    if (const value& t = cb->get("text"); t.is_string()) b.text = t.as_string();
  } else if (kind == "content-block-delta") {
    if (b.type.empty() && type.is_string()) b.type = text_type ? "text" : type.as_string();
    if (text_type) {
      if (const value& t = cb->get("text"); t.is_string() && !t.as_string().empty()) {
        b.text += t.as_string();
        text_deltas_.push_back(t.as_string());
      }
    } else {
      if (const value& a = cb->get("args"); a.is_string()) b.args += a.as_string();
      if (!cb->get("id").is_null()) b.id = cb->get("id");
      if (!cb->get("name").is_null()) b.name = cb->get("name");
    }
  } else if (kind == "content-block-finish") {
    b.finished = *cb;
    if (type == value("tool_call"))
      tool_calls_.push_back(object{{"name", cb->get("name")},
                                   {"args", cb->get("args")},
                                   {"id", cb->get("id")},
                                   {"type", "tool_call"}});
  }
}

void chat_model_stream::fail(std::exception_ptr err) noexcept {
  if (done_ || error_) return;
  error_ = std::move(err);
}

value chat_model_stream::output() {
  while (!done_ && !error_)
    if (!request_more()) break;
  if (error_) std::rethrow_exception(error_);
  if (!done_)
    throw superstep::error(
        error_code::unavailable,
        label() + " has no output: the run ended before the call's message-finish");
  std::string text;
  list calls, invalid;
  for (const auto& [index, b] : blocks_) {
    const value& fin = b.finished;
    const std::string type = fin.get("type").is_string() ? fin.get("type").as_string() : b.type;
    if (type == "text") {
      text += fin.get("text").is_string() ? fin.get("text").as_string() : b.text;
    } else if (type == "tool_call") {
      calls.push_back(object{{"name", fin.get("name")},
                             {"args", fin.get("args")},
                             {"id", fin.get("id")},
                             {"type", "tool_call"}});
    } else if (type == "tool_call_chunk") {
      // A call whose block never finished: its streamed arguments, when they parse.
      value args;
      try {
        args = b.args.empty() ? value(object{}) : value::parse_json(b.args);
      } catch (const superstep::error&) {
      }
      if (args.is_object())
        calls.push_back(
            object{{"name", b.name}, {"args", args}, {"id", b.id}, {"type", "tool_call"}});
      else
        invalid.push_back(object{{"name", b.name},
                                 {"args", b.args},
                                 {"id", b.id},
                                 {"error", "the arguments are not a JSON object"},
                                 {"type", "invalid_tool_call"}});
    }
  }
  object m{{"type", "ai"}, {"content", std::move(text)}, {"tool_calls", value(std::move(calls))}};
  if (!invalid.empty()) m.set("invalid_tool_calls", value(std::move(invalid)));
  if (message_id_) m.set("id", *message_id_);
  m.set("response_metadata", object{{"finish_reason", reason_}});
  if (usage_.is_object()) m.set("usage_metadata", usage_);
  return value(std::move(m));
}

std::string chat_model_stream::output_text() { return output().get("content").as_string(); }

}  // namespace superstep
