#include "superstep/agents/messages.hpp"

#include <utility>

#include "superstep/channels/reducer.hpp"
#include "superstep/core/error.hpp"

namespace superstep::agents {

namespace {

[[noreturn]] void invalid(const std::string& why) {
  throw error(error_code::invalid_argument, why);
}

value make(std::string_view type, value content, std::optional<std::string> id) {
  object m{{"type", std::string(type)}, {"content", std::move(content)}};
  if (id) m.set("id", std::move(*id));
  return value(std::move(m));
}

const std::string& string_field(const value& v, std::string_view key, const std::string& where) {
  const value* f = v.find(key);
  if (!f || !f->is_string())
    invalid(where + " has no string \"" + std::string(key) + "\": " + v.to_json());
  return f->as_string();
}

}  // namespace

value tool_call::to_value() const {
  return object{{"name", name}, {"args", args}, {"id", id}, {"type", "tool_call"}};
}

tool_call tool_call::from_value(const value& v) {
  if (!v.is_object()) invalid("a tool call must be an object, got " + v.to_json());
  tool_call c;
  c.name = string_field(v, "name", "tool call");
  const value& args = v.get("args");
  if (!args.is_null() && !args.is_object())
    invalid("tool call '" + c.name + "' has \"args\" that are not an object: " + args.to_json());
  c.args = args.is_null() ? value(object{}) : args;
  const value& id = v.get("id");
  if (!id.is_null() && !id.is_string())
    invalid("tool call '" + c.name + "' has an \"id\" that is not a string");
  if (id.is_string()) c.id = id.as_string();
  return c;
}

value usage_metadata::to_value() const {
  return object{{"input_tokens", input_tokens},
                {"output_tokens", output_tokens},
                {"total_tokens", total_tokens}};
}

value system_message(value content, std::optional<std::string> id) {
  return make("system", std::move(content), std::move(id));
}

value human_message(value content, std::optional<std::string> id) {
  return make("human", std::move(content), std::move(id));
}

value ai_message(value content, const std::vector<tool_call>& tool_calls,
                 std::optional<std::string> id, std::optional<usage_metadata> usage) {
  object m = make("ai", std::move(content), std::move(id)).as_object();
  list calls;
  for (const tool_call& c : tool_calls) calls.push_back(c.to_value());
  m.set("tool_calls", value(std::move(calls)));
  if (usage) m.set("usage_metadata", usage->to_value());
  return value(std::move(m));
}

value tool_message(value content, std::string tool_call_id, std::string name, std::string status,
                   std::optional<std::string> id) {
  object m = make("tool", std::move(content), std::move(id)).as_object();
  m.set("tool_call_id", std::move(tool_call_id));
  if (!name.empty()) m.set("name", std::move(name));
  m.set("status", std::move(status));
  return value(std::move(m));
}

value remove_message(std::string id) { return object{{"type", "remove"}, {"id", std::move(id)}}; }

std::string_view message_type(const value& m) noexcept {
  if (!m.is_object()) return {};
  const value* t = m.find("type");
  return t && t->is_string() ? std::string_view(t->as_string()) : std::string_view();
}

bool is_ai_message(const value& m) noexcept {
  const std::string_view t = message_type(m);
  return t == "ai" || t == "AIMessageChunk";
}

std::vector<tool_call> tool_calls_of(const value& m) {
  std::vector<tool_call> out;
  if (!is_ai_message(m)) return out;
  const value& calls = m.get("tool_calls");
  if (calls.is_null()) return out;
  if (!calls.is_list()) invalid("an AI message's \"tool_calls\" must be a list: " + m.to_json());
  for (const value& c : calls.as_list()) out.push_back(tool_call::from_value(c));
  return out;
}

std::string message_text(const value& m) {
  const value& content = m.get("content");
  if (content.is_string()) return content.as_string();
  std::string out;
  if (content.is_list())
    for (const value& block : content.as_list()) {
      if (block.is_string())
        out += block.as_string();
      else if (block.get("type") == value("text") && block.get("text").is_string())
        out += block.get("text").as_string();
    }
  return out;
}

list to_messages(const value& input) {
  const auto one = [](const value& raw) {
    try {
      return channels::as_message(raw);
    } catch (const error& e) {
      invalid(std::string("not a message: ") + e.what());
    }
  };
  list out;
  // A [role, content] pair alone is one message, as LangChain's tuple.
  if (input.is_list() && !(input.as_list().size() == 2 && input.as_list()[0].is_string() &&
                           input.as_list()[1].is_string())) {
    for (const value& raw : input.as_list()) out.push_back(one(raw));
  } else if (!input.is_null()) {
    out.push_back(one(input));
  }
  return out;
}

value to_openai_message(const value& message) {
  const std::string_view type = message_type(message);
  const char* role = type == "human"                            ? "user"
                     : type == "ai" || type == "AIMessageChunk" ? "assistant"
                     : type == "system"                         ? "system"
                     : type == "tool"                           ? "tool"
                                                                : nullptr;
  if (!role)
    invalid("message of type '" + std::string(type) +
            "' has no OpenAI role (system, human, ai, tool): " + message.to_json());
  object out{{"role", role}};
  value content = message.get("content");
  if (content.is_null()) content = value("");
  const std::vector<tool_call> calls = tool_calls_of(message);
  if (!calls.empty() && content == value("")) content = value();
  out.set("content", std::move(content));
  if (const value* name = message.find("name"); name && name->is_string() && type != "tool")
    out.set("name", *name);
  if (!calls.empty()) {
    list openai_calls;
    for (const tool_call& c : calls)
      openai_calls.push_back(
          object{{"id", c.id},
                 {"type", "function"},
                 {"function", object{{"name", c.name}, {"arguments", c.args.to_json()}}}});
    out.set("tool_calls", value(std::move(openai_calls)));
  }
  if (type == "tool")
    out.set("tool_call_id", string_field(message, "tool_call_id", "tool message"));
  return value(std::move(out));
}

value to_openai_messages(const list& messages) {
  list out;
  out.reserve(messages.size());
  for (const value& m : messages) out.push_back(to_openai_message(m));
  return value(std::move(out));
}

value from_openai_message(const value& openai) {
  if (!openai.is_object()) invalid("an OpenAI message must be an object, got " + openai.to_json());
  const std::string& role = string_field(openai, "role", "OpenAI message");
  value content = openai.get("content");
  if (content.is_null()) content = value("");
  std::optional<std::string> id;
  if (const value* i = openai.find("id"); i && i->is_string()) id = i->as_string();
  if (role == "user") return human_message(std::move(content), std::move(id));
  if (role == "system" || role == "developer")
    return system_message(std::move(content), std::move(id));
  if (role == "tool") {
    return tool_message(std::move(content),
                        string_field(openai, "tool_call_id", "OpenAI tool message"), "", "success",
                        std::move(id));
  }
  if (role != "assistant")
    invalid("OpenAI message role '" + role + "' is not one of user, system, developer, " +
            "assistant, tool");
  std::vector<tool_call> calls;
  list invalid_calls;
  if (const value* raw = openai.find("tool_calls"); raw && !raw->is_null()) {
    if (!raw->is_list()) invalid("an OpenAI message's \"tool_calls\" must be a list");
    for (const value& c : raw->as_list()) {
      const value& fn = c.get("function");
      const std::string& name = string_field(fn, "name", "OpenAI tool call function");
      const value& id_v = c.get("id");
      const std::string call_id = id_v.is_string() ? id_v.as_string() : "";
      const value& arguments = fn.get("arguments");
      std::string error_text;
      value args;
      if (arguments.is_string()) {
        try {
          args = arguments.as_string().empty() ? value(object{})
                                               : value::parse_json(arguments.as_string());
          if (!args.is_object()) error_text = "the arguments are not a JSON object";
        } catch (const error& e) {
          error_text = std::string("the arguments are not JSON: ") + e.what();
        }
      } else if (arguments.is_object()) {
        args = arguments;
      } else {
        error_text = "the arguments are neither JSON text nor an object";
      }
      if (error_text.empty()) {
        calls.push_back(tool_call{name, args, call_id});
      } else {
        invalid_calls.push_back(object{{"name", name},
                                       {"args", arguments},
                                       {"id", call_id},
                                       {"error", error_text},
                                       {"type", "invalid_tool_call"}});
      }
    }
  }
  object m = ai_message(std::move(content), calls, std::move(id)).as_object();
  if (!invalid_calls.empty()) m.set("invalid_tool_calls", value(std::move(invalid_calls)));
  return value(std::move(m));
}

}  // namespace superstep::agents
