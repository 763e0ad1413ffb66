#include "stream_messages.hpp"

#include <memory>
#include <random>
#include <unordered_set>

#include "superstep/pregel/run_context.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::detail {

namespace {

constexpr std::string_view seen_key = "__messages_seen__";

// The type of a message as LangGraph's BaseMessage: an object with a string "type" (or
// "role") and a "content" (the objects add_messages keeps); null when `v` is no message.
const std::string* message_type(const value& v) {
  if (!v.is_object() || !v.find("content")) return nullptr;
  const value* type = v.find("type");
  if (!type) type = v.find("role");
  return type && type->is_string() ? &type->as_string() : nullptr;
}

bool is_message(const value& v) { return message_type(v) != nullptr; }

// `v` with `f` applied to the messages LangGraph's _find_and_emit_messages finds in it: `v`
// itself, the items of a list, or the values of an object (and the items of lists among them).
template <class F>
value map_messages(const value& v, F&& f) {
  if (is_message(v)) return f(v);
  const auto map_list = [&](const list& l) {
    list out;
    out.reserve(l.size());
    for (const auto& item : l) out.push_back(is_message(item) ? f(item) : item);
    return value(std::move(out));
  };
  if (v.is_list()) return map_list(v.as_list());
  if (!v.is_object()) return v;
  object out;
  for (const auto& [key, field] : v.as_object())
    out.set(key, is_message(field) ? f(field)
                 : field.is_list() ? map_list(field.as_list())
                                   : field);
  return value(std::move(out));
}

bool is_tool_message(const value& m) {
  const std::string* type = message_type(m);
  return type && *type == "tool";
}

template <class F>
void for_each_message(const value& v, F&& f) {
  map_messages(v, [&](const value& m) {
    f(m);
    return m;
  });
}

// The same over a node's output: a Command's update, or each item of a list with Commands.
template <class F>
value map_output_messages(const value& output, F&& f) {
  const auto map_one = [&](const value& v) {
    if (auto cmd = as_command(v)) {
      cmd->update = map_messages(cmd->update, f);
      return make_command(*cmd);
    }
    return map_messages(v, f);
  };
  if (output.is_list()) {
    bool commands = false;
    for (const auto& item : output.as_list()) commands = commands || as_command(item).has_value();
    if (commands) {
      list out;
      for (const auto& item : output.as_list()) out.push_back(map_one(item));
      return value(std::move(out));
    }
  }
  return map_one(output);
}

const std::string* id_of(const value& message) {
  const value* id = message.is_object() ? message.find("id") : nullptr;
  return id && id->is_string() ? &id->as_string() : nullptr;
}

}  // namespace

std::string fresh_uuid4() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uint64_t hi = rng(), lo = rng();
  hi = (hi & ~0xF000ULL) | 0x4000ULL;
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    const std::uint64_t word = i < 16 ? hi : lo;
    out += hex[(word >> (4 * (15 - i % 16))) & 15];
  }
  return out;
}

void note_input_messages(task_context& ctx, const value& input) {
  if (!ctx.run().wants(stream_mode::messages)) return;
  list ids;
  // Only a state's values (and lists among them), as LangGraph's on_chain_start.
  if (input.is_object() && !is_message(input))
    for_each_message(input, [&](const value& m) {
      if (const std::string* id = id_of(m)) ids.emplace_back(*id);
    });
  note_messages_seen(ctx, std::move(ids));
}

void note_messages_seen(task_context& ctx, list ids) {
  if (ids.empty() || !ctx.run().wants(stream_mode::messages)) return;
  ctx.run().emit(stream_mode::messages,
                 value(object{{std::string(seen_key), value(std::move(ids))}}));
}

value with_message_ids(const task_context& ctx, const value& output) {
  if (!ctx.run().wants(stream_mode::messages)) return output;
  bool missing = false;
  map_output_messages(output, [&](const value& m) {
    missing = missing || !id_of(m);
    return m;
  });
  if (!missing) return output;
  return map_output_messages(output, [](const value& m) {
    if (id_of(m)) return m;
    object with_id = m.as_object();
    with_id.set("id", fresh_uuid4());
    return value(std::move(with_id));
  });
}

void emit_output_messages(task_context& ctx, const value& output) {
  if (!ctx.run().wants(stream_mode::messages)) return;
  // With the v2 message protocol, tool results are not replayed as chat messages (LangGraph's
  // StreamMessagesHandlerV2._find_and_emit_messages).
  const bool skip_tools = ctx.run().message_events;
  map_output_messages(output, [&](const value& m) {
    if (skip_tools && is_tool_message(m)) return m;
    ctx.run().emit(stream_mode::messages, value::array({m, ctx.message_metadata(), true}));
    return m;
  });
}

stream_sink dedupe_messages(const stream_sink& sink) {
  auto seen = std::make_shared<std::unordered_set<std::string>>();
  // Events reach a sink one at a time (stream_sink's contract), so `seen` needs no lock.
  return [&sink, seen](const stream_event& e) {
    if (e.mode != stream_mode::messages) return sink(e);
    if (const value* ids = e.data.is_object() ? e.data.find(seen_key) : nullptr) {
      for (const auto& id : ids->as_list()) seen->insert(id.as_string());
      return;
    }
    const list& parts = e.data.as_list();
    if (parts.size() == 3) {
      const value& message = parts[0];
      if (const std::string* id = id_of(message); id && !seen->insert(*id).second) return;
      return sink(stream_event{e.ns, e.mode, value::array({message, parts[1]})});
    }
    if (const std::string* id = id_of(parts.at(0))) seen->insert(*id);
    // A chat model call's message-start (v2 protocol): the message it streams is seen.
    if (const value& event = parts.at(0);
        event.is_object() && event.get("event") == value("message-start"))
      if (const value& mid = event.get("message_id"); mid.is_string())
        seen->insert(mid.as_string());
    sink(e);
  };
}

}  // namespace superstep::detail
