// LangGraph's MessagesTransformer (langgraph/stream/transformers.py): the v3 messages
// projection, a chat_model_stream per chat model call.

#include "superstep/stream/message_events.hpp"
#include "superstep/stream/stream_mux.hpp"
#include "superstep/stream/stream_transformers.hpp"

namespace superstep {

namespace {

const std::string* string_at(const value& v, std::string_view key) {
  const value* f = v.is_object() ? v.find(key) : nullptr;
  return f && f->is_string() ? &f->as_string() : nullptr;
}

// A whole message a node returned: an object with a string "type" (or "role") and a
// "content", not a streamed chunk ("AIMessageChunk") and not a tool result.
bool is_whole_message(const value& v) {
  const std::string* type = string_at(v, "type");
  if (!type) type = string_at(v, "role");
  if (!type || !v.find("content")) return false;
  const std::string& t = *type;
  const bool chunk = t.size() >= 5 && t.compare(t.size() - 5, 5, "Chunk") == 0;
  return !chunk && t != "tool" && t != "ToolMessage";
}

}  // namespace

messages_transformer::messages_transformer(std::vector<std::string> scope)
    : stream_transformer(std::move(scope)),
      log_(std::make_shared<stream_channel<std::shared_ptr<chat_model_stream>>>()) {}

stream_projections messages_transformer::init() { return {{"messages", log_}}; }

std::function<bool()> messages_transformer::pump() const {
  if (pump_) return pump_;
  if (mux_) return mux_->pump();
  return nullptr;
}

std::shared_ptr<chat_model_stream> messages_transformer::make_stream(
    std::vector<std::string> ns, std::optional<std::string> node,
    std::optional<std::string> message_id) const {
  auto stream =
      std::make_shared<chat_model_stream>(std::move(ns), std::move(node), std::move(message_id));
  if (auto p = pump()) stream->set_pump(std::move(p));
  return stream;
}

bool messages_transformer::process(protocol_event& event) {
  if (event.method != "messages" || event.params.ns != scope()) return true;
  const value& data = event.params.data;
  if (!data.is_list() || data.as_list().size() != 2)
    throw error(error_code::invalid_argument,
                "messages_transformer: a messages event's data is not a [payload, metadata] "
                "pair: " +
                    data.to_json());
  const value& payload = data.as_list()[0];
  const value& metadata = data.as_list()[1];
  std::optional<std::string> node;
  if (const std::string* n = string_at(metadata, "langgraph_node")) node = *n;
  if (payload.is_object() && payload.find("event")) {
    const std::string* run_id = string_at(metadata, "run_id");
    route_protocol_event(payload, run_id ? *run_id : std::string(), node, event.params.ns);
  } else if (is_whole_message(payload)) {
    route_whole_message(payload, node, event.params.ns);
  }
  return true;
}

void messages_transformer::route_protocol_event(const value& event, const std::string& run_id,
                                                const std::optional<std::string>& node,
                                                const std::vector<std::string>& ns) {
  const value& kind = event.get("event");
  if (kind == value("message-start")) {
    // Tool results are the state's and the tools' business; run.messages is the chat tokens'.
    if (event.get("role") == value("tool")) {
      ignored_runs_.insert(run_id);
      return;
    }
    std::optional<std::string> message_id;
    if (const std::string* id = string_at(event, "message_id")) message_id = *id;
    auto stream = make_stream(ns, node, std::move(message_id));
    by_run_[run_id] = stream;
    log_->push(stream);
    stream->dispatch(event);
    return;
  }
  if (ignored_runs_.count(run_id)) {
    if (kind == value("message-finish")) ignored_runs_.erase(run_id);
    return;
  }
  auto it = by_run_.find(run_id);
  if (it == by_run_.end()) return;
  auto stream = it->second;
  if (kind == value("message-finish")) by_run_.erase(it);
  stream->dispatch(event);
}

void messages_transformer::route_whole_message(const value& message,
                                               const std::optional<std::string>& node,
                                               const std::vector<std::string>& ns) {
  std::optional<std::string> id;
  if (const std::string* i = string_at(message, "id")) id = *i;
  auto stream = make_stream(ns, node, id);
  for (const value& e : message_to_events(message, id)) stream->dispatch(e);
  log_->push(std::move(stream));
}

void messages_transformer::finalize() {
  // Streams end themselves with their message-finish.
  by_run_.clear();
  ignored_runs_.clear();
}

void messages_transformer::fail(const std::exception_ptr& err) {
  for (auto& [run_id, stream] : by_run_) stream->fail(err);
  by_run_.clear();
  ignored_runs_.clear();
}

}  // namespace superstep
