// The agent part of the `std` library: llm.chat (a chat-model call), tools.run (the tool calls
// of the last AI message), the routers tools.route and std.route_by, and three tools
// (calculator, save_memory, search_memory).
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "nodes/std_support.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/openai_chat_model.hpp"
#include "superstep/agents/tool_node.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/core/ids.hpp"

namespace superstep::cluster::detail {

namespace {

// A text with {key} placeholders filled from the state ({{ and }} are braces), as std.template.
struct prompt_template {
  std::vector<std::string> texts{""};
  std::vector<std::string> keys;

  std::string render(std::string_view fn, const value& state) const {
    std::string out = texts.front();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const value& v = input_field(fn, state, keys[i]);
      out += v.is_string() ? v.as_string() : v.to_json();
      out += texts[i + 1];
    }
    return out;
  }
};

prompt_template parse_prompt(const function_params& p, std::string_view name) {
  const std::string& text = p.string(name);
  prompt_template t;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      t.texts.back() += c;
      ++i;
    } else if (c == '{') {
      std::size_t close = text.find_first_of("{}", i + 1);
      if (close == std::string::npos || text[close] != '}')
        p.fail(name, "unclosed '{' at offset " + std::to_string(i));
      if (close == i + 1) p.fail(name, "empty placeholder '{}' at offset " + std::to_string(i));
      t.keys.push_back(text.substr(i + 1, close - i - 1));
      t.texts.emplace_back();
      i = close;
    } else if (c == '}') {
      p.fail(name, "single '}' at offset " + std::to_string(i) + " (write '}}')");
    } else {
      t.texts.back() += c;
    }
  }
  return t;
}

// The model of an llm.chat node: its "model" param (a name, or an object) under the command
// line's settings (registry.model_settings()), which win.
std::shared_ptr<const agents::chat_model> make_model(const function_params& p,
                                                     const function_registry& registry) {
  object settings;
  if (const value* m = p.find("model")) {
    if (m->is_string()) {
      settings.set("name", *m);
    } else if (m->is_object()) {
      settings = m->as_object();
    } else if (!m->is_null()) {
      p.fail("model", "expected a model name or an object {name, url, key_env, ...}, got " +
                          std::string(kind_name(m->kind())));
    }
  }
  if (registry.model_settings().is_object())
    for (const auto& [k, v] : registry.model_settings().as_object()) settings.set(k, v);
  const value all(settings);
  function_params m(all, {"name", "url", "key_env", "timeout_ms", "max_retries", "extra"});
  if (!m.has("name")) {
    if (registry.missing_allowed()) return nullptr;  // a head's stand-in, see make_llm_chat
    p.fail("model",
           "no model name: give the node's params a \"model\" or the command --model NAME");
  }
  agents::openai_chat_options o;
  o.model = m.string("name");
  if (m.has("url")) o.base_url = m.string("url");
  o.keys = registry.keys();
  if (m.has("key_env")) {
    o.key_env = m.string("key_env");
  } else {
    const auto own = o.keys ? o.keys("SUPERSTEP_MODEL_KEY") : std::nullopt;
    o.key_env = own && !own->empty() ? "SUPERSTEP_MODEL_KEY" : "OPENAI_API_KEY";
  }
  if (m.has("timeout_ms")) o.timeout = std::chrono::milliseconds(m.integer("timeout_ms"));
  if (m.has("max_retries")) o.max_retries = static_cast<int>(m.integer("max_retries"));
  if (m.has("extra")) o.extra = m.any("extra");
  try {
    return agents::make_openai_chat_model(std::move(o));
  } catch (const error& e) {
    p.fail("model", e.what());
  }
}

std::vector<agents::tool> tools_named(const function_params& p, const function_registry& registry) {
  if (!p.has("tools")) {
    std::vector<agents::tool> all;
    for (const auto& name : registry.tools().names()) all.push_back(registry.tools().get(name));
    return all;
  }
  std::vector<std::string> names = p.strings("tools");
  for (const auto& n : names) {
    if (!registry.tools().has(n)) {
      std::string known;
      for (const auto& k : registry.tools().names()) known += (known.empty() ? "" : ", ") + k;
      p.fail("tools", "unknown tool '" + n + "' (known: " + (known.empty() ? "none" : known) + ")");
    }
  }
  return registry.tools().get_all(names);
}

node_function make_llm_chat(const value& params, const function_registry& registry) {
  function_params p(params, {"model", "system", "prompt", "messages_key", "tools", "tool_choice",
                             "output_schema", "output_key", "stream", "extra"});
  auto model = make_model(p, registry);
  std::optional<prompt_template> system, prompt;
  if (p.has("system")) system = parse_prompt(p, "system");
  if (p.has("prompt")) prompt = parse_prompt(p, "prompt");
  std::string messages_key = p.string_or("messages_key", "messages");
  agents::chat_options options;
  if (p.has("tools"))
    for (const auto& t : tools_named(p, registry)) options.tools.push_back(t.spec());
  options.tool_choice = p.any_or_null("tool_choice");
  options.extra = p.any_or_null("extra");
  if (!options.extra.is_null() && !options.extra.is_object())
    p.fail("extra", "expected an object of request fields");
  std::optional<std::string> output_key;
  if (p.has("output_schema")) {
    const value& schema = p.any("output_schema");
    if (!schema.is_object() || schema.get("type") != value("object"))
      p.fail("output_schema", "expected a JSON schema of an object ({\"type\": \"object\", ...})");
    options.response_format = agents::response_format{"output", schema, true};
    if (p.has("output_key")) output_key = p.string("output_key");
  } else if (p.has("output_key")) {
    p.fail("output_key", "goes with output_schema");
  }
  bool stream = false;
  if (const value* s = p.find("stream")) {
    if (!s->is_bool()) p.fail("stream", "expected true or false");
    stream = s->as_bool();
  }
  if (!model) {
    return [](const value&, node_context&) -> value {
      throw error(error_code::unavailable, "llm.chat: no model in this process (--model NAME)");
    };
  }
  return [model, system, prompt, messages_key, options, output_key, stream](
             const value& state, node_context& ctx) -> value {
    list messages;
    if (system) messages.push_back(agents::system_message(system->render("llm.chat", state)));
    if (state.is_object()) {
      if (const value* history = state.find(messages_key); history && !history->is_null()) {
        for (auto& m : agents::to_messages(*history)) messages.push_back(std::move(m));
      }
    }
    if (prompt) messages.push_back(agents::human_message(prompt->render("llm.chat", state)));
    if (messages.empty())
      fail_run(
          "llm.chat",
          "nothing to send: the state has no '" + messages_key + "' and the node has no prompt",
          error_code::invalid_argument);
    agents::chat_options call = options;
    if (stream) call.stream_to = &ctx;
    value answer = model->invoke(messages, call);
    if (!options.response_format) return object{{messages_key, value::array({answer})}};
    value parsed;
    try {
      parsed = value::parse_json(agents::message_text(answer));
    } catch (const error&) {
    }
    if (!parsed.is_object())
      fail_run("llm.chat",
               "the model's structured answer is not a JSON object: " +
                   agents::message_text(answer).substr(0, 200),
               error_code::protocol_error);
    if (output_key) return object{{*output_key, parsed}};
    return parsed;
  };
}

node_function make_tools_run(const value& params, const function_registry& registry) {
  function_params p(params, {"tools", "messages_key", "handle_errors"});
  agents::tool_node_options o;
  o.messages_key = p.string_or("messages_key", "messages");
  const std::string handle = p.string_or("handle_errors", "invalid_args");
  if (handle == "all") {
    o.handle_tool_errors = agents::handle_all_errors();
  } else if (handle == "none") {
    o.handle_tool_errors = agents::handle_no_errors();
  } else if (handle != "invalid_args") {
    p.fail("handle_errors", "expected \"all\", \"invalid_args\" or \"none\", not '" + handle + "'");
  }
  auto tools = tools_named(p, registry);
  if (tools.empty()) p.fail("tools", "no tools: name some, or register them (a --plugin)");
  auto node = std::make_shared<const agents::tool_node>(std::move(tools), std::move(o));
  return [node](const value& state, node_context& ctx) {
    return node->invoke(state, agents::tool_node_call{&ctx, nullptr});
  };
}

router_function make_tools_route(const value& params) {
  function_params p(params, {"messages_key", "tools", "end"});
  std::string key = p.string_or("messages_key", "messages");
  std::string tools = p.string_or("tools", "tools"), end = p.string_or("end", "__end__");
  return [key, tools, end](const value& state, node_context&) -> value {
    return agents::tools_condition(state, key) == "tools" ? tools : end;
  };
}

router_function make_route_by(const value& params) {
  function_params p(params, {"key", "field"});
  std::string key = p.string("key");
  std::optional<std::string> field;
  if (p.has("field")) field = p.string("field");
  return [key, field](const value& state, node_context&) -> value {
    value v = input_field("std.route_by", state, key);
    if (field) {
      if (!v.is_object())
        fail_run("std.route_by",
                 "'" + key + "' is " + std::string(kind_name(v.kind())) + ", not an object with '" +
                     *field + "'",
                 error_code::type_error);
      v = v.get(*field);
    }
    if (!v.is_string())
      fail_run("std.route_by", "the destination is " + v.to_json() + ", not a node name (a string)",
               error_code::type_error);
    return v;
  };
}

// The tools of the std library.

double number_arg(const value& args, const char* name) {
  const value& v = args.get(name);
  if (!v.is_number()) throw agents::tool_exception(std::string(name) + " must be a number");
  return v.as_double();
}

agents::tool calculator_tool() {
  agents::tool t;
  t.name = "calculator";
  t.description = "Computes a op b for op one of +, -, *, /, ^ (power).";
  t.parameters = value::parse_json(
      R"({"type": "object", "properties": {"a": {"type": "number"}, "op": {"type": "string",)"
      R"( "enum": ["+", "-", "*", "/", "^"]}, "b": {"type": "number"}},)"
      R"( "required": ["a", "op", "b"]})");
  t.function = [](const value& args, agents::tool_runtime&) -> value {
    double a = number_arg(args, "a"), b = number_arg(args, "b");
    const std::string op = args.get("op").is_string() ? args.get("op").as_string() : "";
    double r;
    if (op == "+")
      r = a + b;
    else if (op == "-")
      r = a - b;
    else if (op == "*")
      r = a * b;
    else if (op == "^")
      r = std::pow(a, b);
    else if (op == "/") {
      if (b == 0) throw agents::tool_exception("division by zero");
      r = a / b;
    } else {
      throw agents::tool_exception("unknown op '" + op + "' (expected +, -, *, / or ^)");
    }
    if (std::isfinite(r) && r == std::floor(r) && std::fabs(r) < 9e15)
      return value(static_cast<std::int64_t>(r));
    return value(r);
  };
  t.handle_tool_error = std::nullopt;
  return t;
}

// Memories live in the store under ("memories", user), user from the run's
// configurable.user_id ("default" without one).
storage::namespace_path memory_namespace(const agents::tool_runtime& rt) {
  const value& user = rt.config().get("configurable").get("user_id");
  return {"memories", user.is_string() ? user.as_string() : std::string("default")};
}

agents::tool save_memory_tool() {
  agents::tool t;
  t.name = "save_memory";
  t.description = "Saves a fact about the user to long-term memory, for later conversations.";
  t.parameters = value::parse_json(
      R"({"type": "object", "properties": {"fact": {"type": "string"}}, "required": ["fact"]})");
  t.injected_store = true;
  t.function = [](const value& args, agents::tool_runtime& rt) -> value {
    const std::string fact = args.get("fact").is_string() ? args.get("fact").as_string() : "";
    if (fact.empty()) throw agents::tool_exception("fact is empty");
    auto ns = memory_namespace(rt);
    // Ids that sort in the order they were made: parallel calls never share one.
    static std::mutex mutex;
    static checkpoint_id_generator ids;
    std::string key;
    {
      std::lock_guard lock(mutex);
      key = "memory-" + ids.next();
    }
    rt.store()->put(ns, key, object{{"fact", fact}});
    return value("Saved.");
  };
  return t;
}

agents::tool search_memory_tool() {
  agents::tool t;
  t.name = "search_memory";
  t.description = "Lists the facts saved about the user, nearest the query first.";
  t.parameters = value::parse_json(
      R"({"type": "object", "properties": {"query": {"type": "string"}}, "required": []})");
  t.injected_store = true;
  t.function = [](const value& args, agents::tool_runtime& rt) -> value {
    storage::search_options o;
    o.ns_prefix = memory_namespace(rt);
    if (args.get("query").is_string()) o.query = args.get("query").as_string();
    o.limit = 20;
    list facts;
    for (const auto& item : rt.store()->search(o)) facts.push_back(item.v.get("fact"));
    if (facts.empty()) return "No memories saved.";
    return value(std::move(facts));
  };
  return t;
}

}  // namespace

void register_std_agents(function_registry& registry) {
  registry.add_registry_node("llm.chat", make_llm_chat);
  registry.add_registry_node("tools.run", make_tools_run);
  registry.add_router("tools.route", make_tools_route);
  registry.add_router("std.route_by", make_route_by);
  registry.add_tool(calculator_tool());
  registry.add_tool(save_memory_tool());
  registry.add_tool(search_memory_tool());
}

}  // namespace superstep::cluster::detail
