// create_react_agent (langgraph/prebuilt/chat_agent_executor.py): the agent node, the routers
// after it and after the tools, the structured answer, and the graph joining them.
#include "superstep/agents/react_agent.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "superstep/agents/messages.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::agents {

namespace {

[[noreturn]] void invalid_agent(const std::string& why) {
  throw error(error_code::invalid_argument, "create_react_agent: " + why);
}

// LangGraph's _should_bind_tools: bind unless the model has tools bound, which must then be
// the agent's.
bool should_bind_tools(const chat_model& model, const std::vector<tool>& tools) {
  const std::vector<tool_spec>* bound = model.bound_tools();
  if (!bound) return true;
  if (bound->size() != tools.size())
    invalid_agent(
        "Number of tools in the model.bind_tools() and tools passed to create_react_agent "
        "must match. Got " +
        std::to_string(tools.size()) + " tools, expected " + std::to_string(bound->size()));
  std::set<std::string> bound_names;
  for (const tool_spec& t : *bound) bound_names.insert(t.name);
  std::string missing;
  for (const tool& t : tools)
    if (!bound_names.count(t.name)) missing += (missing.empty() ? "" : ", ") + t.name;
  if (!missing.empty()) invalid_agent("Missing tools '" + missing + "' in the model.bind_tools()");
  return false;
}

struct agent_setup {
  std::shared_ptr<const chat_model> model;  // tools bound; null with a selector
  react_agent_options options;
  std::set<std::string> return_direct;
  bool tool_calling = false;

  std::shared_ptr<const chat_model> resolve(const value& state, node_context& ctx) const {
    if (!options.model_selector) return model;
    std::shared_ptr<const chat_model> chosen = options.model_selector(state, ctx);
    if (!chosen) invalid_agent("the model selector returned no model");
    return chosen;
  }

  list prompt(const value& state, node_context& ctx) const {
    if (options.prompt_function) return to_messages(value(options.prompt_function(state, ctx)));
    list messages = to_messages(state.get("messages"));
    if (options.prompt.is_string()) {
      messages.insert(messages.begin(), system_message(options.prompt));
    } else if (!options.prompt.is_null()) {
      messages.insert(messages.begin(), channels::as_message(options.prompt));
    }
    return messages;
  }

  chat_options call_options(node_context& ctx) const {
    chat_options o;
    if (options.stream_tokens) o.stream_to = &ctx;
    return o;
  }

  bool more_steps_needed(const value& response, node_context& ctx) const {
    const std::vector<tool_call> calls = tool_calls_of(response);
    const bool all_return_direct = std::all_of(calls.begin(), calls.end(), [&](const tool_call& c) {
      return return_direct.count(c.name) > 0;
    });
    const std::int64_t remaining = ctx.remaining_steps();
    return (remaining < 1 && all_return_direct) || (remaining < 2 && !calls.empty());
  }

  value call_model(const value& state, node_context& ctx) const {
    // With a pre-model hook, the messages it chose for the model, if any (LangGraph's
    // _get_model_input_state).
    value history = state.get("messages");
    if (options.pre_model_hook) {
      const value& chosen = state.get("llm_input_messages");
      if (chosen.is_list() && !chosen.as_list().empty()) history = chosen;
    }
    if (!history.is_list())
      invalid_agent("expected the agent's input to have a 'messages' list, got " +
                    state.to_json().substr(0, 300));
    const list input_messages = to_messages(history);
    validate_chat_history(input_messages);
    object model_input = state.as_object();
    model_input.set("messages", value(input_messages));
    const value input(std::move(model_input));
    value response = resolve(state, ctx)->invoke(prompt(input, ctx), call_options(ctx));
    if (!options.name.empty()) {
      object named = response.as_object();
      named.set("name", options.name);
      response = value(std::move(named));
    }
    if (more_steps_needed(response, ctx)) {
      std::optional<std::string> id;
      if (response.get("id").is_string()) id = response.get("id").as_string();
      response = ai_message("Sorry, need more steps to process this request.", {}, id);
    }
    return object{{"messages", list{response}}};
  }

  value structured_response(const value& state, node_context& ctx) const {
    list messages = to_messages(state.get("messages"));
    if (!options.response_format_prompt.empty())
      messages.insert(messages.begin(), system_message(options.response_format_prompt));
    const auto structured =
        resolve(state, ctx)->without_bindings()->with_structured_output(*options.response_format);
    return object{{"structured_response", structured->invoke(messages, call_options(ctx))}};
  }

  // After the agent: the tools while it asks for them, else the structured answer or END.
  value should_continue(const value& state) const {
    const list& messages = state.get("messages").as_list();
    const std::vector<tool_call> calls = messages.empty() || !is_ai_message(messages.back())
                                             ? std::vector<tool_call>{}
                                             : tool_calls_of(messages.back());
    if (calls.empty()) {
      if (options.post_model_hook) return value("post_model_hook");
      return value(options.response_format ? std::string("generate_structured_response")
                                           : std::string(END));
    }
    if (options.version == "v1") return value("tools");
    if (options.post_model_hook) return value("post_model_hook");
    return sends_to_tools(calls, state);
  }

  static value sends_to_tools(const std::vector<tool_call>& calls, const value& state) {
    list sends;
    for (const tool_call& c : calls)
      sends.push_back(make_send("tools", object{{"__type", "tool_call_with_context"},
                                                {"tool_call", c.to_value()},
                                                {"state", state}}));
    return value(std::move(sends));
  }

  // After the post-model hook: the calls still unanswered, else back to the model after tool
  // answers, else the structured answer or END.
  value post_model_hook_router(const value& state) const {
    const list& messages = state.get("messages").as_list();
    std::set<std::string> answered;
    for (const value& m : messages)
      if (message_type(m) == "tool" && m.get("tool_call_id").is_string())
        answered.insert(m.get("tool_call_id").as_string());
    auto last_ai = std::find_if(messages.rbegin(), messages.rend(),
                                [](const value& m) { return is_ai_message(m); });
    std::vector<tool_call> pending;
    if (last_ai != messages.rend())
      for (const tool_call& c : tool_calls_of(*last_ai))
        if (!answered.count(c.id)) pending.push_back(c);
    if (!pending.empty()) return sends_to_tools(pending, state);
    if (!messages.empty() && message_type(messages.back()) == "tool") return value(entrypoint());
    return value(options.response_format ? std::string("generate_structured_response")
                                         : std::string(END));
  }

  std::string entrypoint() const { return options.pre_model_hook ? "pre_model_hook" : "agent"; }

  // After the tools: END when a return_direct tool answered, else back to the agent.
  value route_tool_responses(const value& state) const {
    const list& messages = state.get("messages").as_list();
    const value* last = nullptr;
    for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
      last = &*it;
      if (message_type(*it) != "tool") break;
      if (it->get("name").is_string() && return_direct.count(it->get("name").as_string()))
        return value(std::string(END));
    }
    // Parallel calls (v2): the return_direct tool may have answered in another Send.
    if (last && is_ai_message(*last))
      for (const tool_call& c : tool_calls_of(*last))
        if (return_direct.count(c.name)) return value(std::string(END));
    return value(entrypoint());
  }
};

}  // namespace

void validate_chat_history(const list& messages) {
  std::set<std::string> answered;
  for (const value& m : messages)
    if (message_type(m) == "tool" && m.get("tool_call_id").is_string())
      answered.insert(m.get("tool_call_id").as_string());
  list unanswered;
  for (const value& m : messages)
    for (const tool_call& c : tool_calls_of(m))
      if (!answered.count(c.id)) unanswered.push_back(c.to_value());
  if (unanswered.empty()) return;
  if (unanswered.size() > 3) unanswered.resize(3);
  throw error(error_code::invalid_argument,
              "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. "
              "Here are the first few of those tool calls: " +
                  value(std::move(unanswered)).to_json() +
                  ".\n\nEvery tool call (LLM requesting to call a tool) in the message history "
                  "MUST have a corresponding ToolMessage (result of a tool invocation to return "
                  "to the LLM) - this is required by most LLM providers.");
}

std::shared_ptr<pregel> create_react_agent(std::shared_ptr<const chat_model> model,
                                           std::vector<tool> tools, react_agent_options options) {
  if (!model && !options.model_selector) invalid_agent("no model and no model_selector");
  if (options.version != "v1" && options.version != "v2")
    invalid_agent("version must be v1 or v2, not '" + options.version + "'");
  if (options.tools.messages_key != "messages")
    invalid_agent("the tool node's messages_key must be 'messages'");
  auto setup = std::make_shared<agent_setup>();
  setup->tool_calling = !tools.empty();
  for (const tool& t : tools)
    if (t.return_direct) setup->return_direct.insert(t.name);
  if (model && !options.model_selector && should_bind_tools(*model, tools) && !tools.empty()) {
    std::vector<tool_spec> specs;
    for (const tool& t : tools) specs.push_back(t.spec());
    model = model->bind_tools(std::move(specs));
  }
  setup->model = std::move(model);
  compile_options compile = options.compile;
  if (!options.name.empty()) compile.name = options.name;
  const std::string version = options.version;
  setup->options = std::move(options);
  const react_agent_options& o = setup->options;

  state_graph g;
  std::vector<std::string> keys{"messages"};
  g.add_key("messages", "add_messages");
  if (o.response_format) {
    g.add_key("structured_response");
    keys.push_back("structured_response");
  }
  for (const agent_state_key& k : o.state_schema) {
    if (k.reducer.empty()) {
      g.add_key(k.name);
    } else {
      g.add_key(k.name, std::string_view(k.reducer));
    }
    keys.push_back(k.name);
  }
  node_options agent_node;
  if (o.pre_model_hook) {
    // What the hook gives the model only: a key of the graph, not of its input or output.
    g.add_key("llm_input_messages");
    g.set_input_keys(keys);
    g.set_output_keys(keys);
    agent_node.input_keys = keys;
    agent_node.input_keys->push_back("llm_input_messages");
  }
  const std::string entry = setup->entrypoint();
  g.add_node(
      "agent",
      [setup](const value& state, node_context& ctx) { return setup->call_model(state, ctx); },
      agent_node);
  if (o.pre_model_hook) {
    g.add_node("pre_model_hook", o.pre_model_hook);
    g.add_edge("pre_model_hook", "agent");
  }
  g.add_edge(std::string(START), entry);
  if (o.post_model_hook) {
    g.add_node("post_model_hook", o.post_model_hook);
    g.add_edge("agent", "post_model_hook");
  }
  if (o.response_format)
    g.add_node("generate_structured_response", [setup](const value& state, node_context& ctx) {
      return setup->structured_response(state, ctx);
    });
  const std::string after_model = o.post_model_hook ? "post_model_hook" : "agent";
  if (!setup->tool_calling) {
    if (o.response_format)
      g.add_edge(after_model, "generate_structured_response");
    else if (!o.post_model_hook)
      g.add_edge("agent", std::string(END));
  } else {
    g.add_node("tools", tool_node(std::move(tools), o.tools).as_node());
    g.add_conditional_edges("agent", [setup](const value& state, node_context&) {
      return setup->should_continue(state);
    });
    if (o.post_model_hook)
      g.add_conditional_edges("post_model_hook", [setup](const value& state, node_context&) {
        return setup->post_model_hook_router(state);
      });
    if (setup->return_direct.empty()) {
      g.add_edge("tools", entry);
    } else {
      g.add_conditional_edges("tools", [setup](const value& state, node_context&) {
        return setup->route_tool_responses(state);
      });
    }
  }
  if (o.response_format) g.add_edge("generate_structured_response", std::string(END));
  return g.compile(std::move(compile));
}

}  // namespace superstep::agents
