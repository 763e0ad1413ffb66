#include "superstep/stream/message_events.hpp"

#include <utility>

#include "superstep/core/error.hpp"

namespace superstep {

namespace {

// The text of a message's content: a string, or the "text" of its text blocks.
std::string content_text(const value& content) {
  if (content.is_string()) return content.as_string();
  std::string text;
  if (content.is_list())
    for (const value& block : content.as_list())
      if (const value& t = block.get("text"); t.is_string()) text += t.as_string();
  return text;
}

std::string role_of(const value& message) {
  std::string type;
  if (const value& t = message.get("type"); t.is_string())
    type = t.as_string();
  else if (const value& r = message.get("role"); r.is_string())
    type = r.as_string();
  if (type == "AIMessageChunk" || type == "assistant") return "ai";
  if (type == "user") return "human";
  if (type == "developer") return "system";
  return type.empty() ? "ai" : type;
}

value block_event(const char* kind, int index, value block) {
  return object{{"event", kind}, {"index", index}, {"content_block", std::move(block)}};
}

value text_block(std::string text) { return object{{"type", "text"}, {"text", std::move(text)}}; }

value tool_chunk_block(const value& id, const value& name, std::string args, std::int64_t index) {
  object b{{"type", "tool_call_chunk"}};
  if (!id.is_null()) b.set("id", id);
  if (!name.is_null()) b.set("name", name);
  b.set("args", std::move(args));
  b.set("index", index);
  return value(std::move(b));
}

value tool_call_block(const value& call) {
  return object{{"type", "tool_call"},
                {"id", call.get("id")},
                {"name", call.get("name")},
                {"args", call.get("args").is_null() ? value(object{}) : call.get("args")}};
}

value finish_event(const value& message) {
  object e{{"event", "message-finish"}};
  const value& reason = message.get("response_metadata").get("finish_reason");
  const value& calls = message.get("tool_calls");
  const bool has_calls = calls.is_list() && !calls.as_list().empty();
  e.set("reason", reason.is_string() ? reason : value(has_calls ? "tool_calls" : "stop"));
  if (const value& usage = message.get("usage_metadata"); usage.is_object()) e.set("usage", usage);
  return value(std::move(e));
}

void require_object(const value& v, const char* what) {
  if (!v.is_object())
    throw error(error_code::invalid_argument,
                std::string(what) + " is not a message object: " + v.to_json());
}

}  // namespace

list message_to_events(const value& message, const std::optional<std::string>& message_id) {
  require_object(message, "message_to_events: the message");
  list events;
  object start{{"event", "message-start"}, {"role", role_of(message)}};
  if (message_id)
    start.set("message_id", *message_id);
  else if (const value& id = message.get("id"); id.is_string())
    start.set("message_id", id);
  events.emplace_back(std::move(start));
  int index = 0;
  if (std::string text = content_text(message.get("content")); !text.empty()) {
    events.push_back(block_event("content-block-start", index, text_block("")));
    events.push_back(block_event("content-block-delta", index, text_block(text)));
    events.push_back(block_event("content-block-finish", index, text_block(std::move(text))));
    ++index;
  }
  if (const value& calls = message.get("tool_calls"); calls.is_list())
    for (const value& call : calls.as_list()) {
      events.push_back(block_event("content-block-start", index,
                                   tool_chunk_block(call.get("id"), call.get("name"), "", index)));
      events.push_back(block_event("content-block-finish", index, tool_call_block(call)));
      ++index;
    }
  events.push_back(finish_event(message));
  return events;
}

void message_event_builder::start(list& out, const value& first) {
  started_ = true;
  if (const value& id = first.get("id"); id.is_string() && !id.as_string().empty())
    message_id_ = id.as_string();
  out.push_back(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", message_id_}});
}

int message_event_builder::block_for_tool(std::int64_t tool_index) {
  auto it = tool_blocks_.find(tool_index);
  if (it != tool_blocks_.end()) return it->second;
  const int block = next_block_++;
  tool_blocks_.emplace(tool_index, block);
  return -1 - block;  // new: the caller starts it
}

list message_event_builder::chunk(const value& chunk) {
  if (finished_)
    throw error(error_code::invalid_argument,
                "message_event_builder: a chunk after the message finished: " + chunk.to_json());
  require_object(chunk, "message_event_builder: the chunk");
  list out;
  if (!started_) start(out, chunk);
  if (std::string delta = content_text(chunk.get("content")); !delta.empty()) {
    if (!text_block_) {
      text_block_ = next_block_++;
      out.push_back(block_event("content-block-start", *text_block_, text_block("")));
    }
    text_ += delta;
    out.push_back(block_event("content-block-delta", *text_block_, text_block(std::move(delta))));
  }
  if (const value& parts = chunk.get("tool_call_chunks"); parts.is_list())
    for (const value& part : parts.as_list()) {
      const value& index = part.get("index");
      const std::int64_t tool_index =
          index.is_int() ? index.as_int() : static_cast<std::int64_t>(tool_blocks_.size());
      int block = block_for_tool(tool_index);
      if (block < 0) {
        block = -1 - block;
        out.push_back(
            block_event("content-block-start", block,
                        tool_chunk_block(part.get("id"), part.get("name"), "", tool_index)));
      }
      const value& args = part.get("args");
      out.push_back(block_event(
          "content-block-delta", block,
          tool_chunk_block(part.get("id"), part.get("name"),
                           args.is_string() ? args.as_string() : std::string(), tool_index)));
    }
  return out;
}

list message_event_builder::finish(const value& message) {
  if (finished_)
    throw error(error_code::invalid_argument, "message_event_builder: finish called twice");
  require_object(message, "message_event_builder: the final message");
  list out;
  if (!started_) start(out, message);
  finished_ = true;
  // The blocks finish in the order they started.
  std::map<int, value> finished;
  std::string text = content_text(message.get("content"));
  if (text_block_) {
    finished.emplace(*text_block_, text_block(text.empty() ? text_ : text));
  } else if (!text.empty()) {
    const int block = next_block_++;
    out.push_back(block_event("content-block-start", block, text_block("")));
    out.push_back(block_event("content-block-delta", block, text_block(text)));
    finished.emplace(block, text_block(text));
  }
  const value& calls = message.get("tool_calls");
  std::size_t i = 0;
  auto streamed = tool_blocks_.begin();
  if (calls.is_list())
    for (const value& call : calls.as_list()) {
      int block;
      if (streamed != tool_blocks_.end()) {
        block = streamed->second;
        ++streamed;
      } else {
        block = next_block_++;
        out.push_back(block_event(
            "content-block-start", block,
            tool_chunk_block(call.get("id"), call.get("name"), "", static_cast<std::int64_t>(i))));
      }
      finished.emplace(block, tool_call_block(call));
      ++i;
    }
  for (auto& [block, whole] : finished)
    out.push_back(block_event("content-block-finish", block, std::move(whole)));
  out.push_back(finish_event(message));
  return out;
}

}  // namespace superstep
