// libs/langgraph/tests/test_large_cases.py: agent-like graphs whose LangChain chat models are
// deterministic node functions giving the same messages and tool calls (the graph semantics
// are what is ported): a router sending weather queries to a subgraph, edited while paused.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "agent_schemas.hpp"
#include "stream_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value with_durability(const char* thread_id, const char* durability) {
  return object{{"configurable", object{{"thread_id", thread_id}}}, {"durability", durability}};
}

// An AI message asking for one tool call (what LangChain's fake chat model returns).
value ai_tool_call(const char* name, value args) {
  value call = object{
      {"name", name}, {"args", std::move(args)}, {"id", "tool_call123"}, {"type", "tool_call"}};
  object message{{"type", "ai"}, {"content", ""}};
  message.set("tool_calls", value::array({std::move(call)}));
  return value(std::move(message));
}

// The messages of a list without the ids the reducer gave them (LangGraph's _AnyId*).
std::string without_ids(const value& messages) {
  list out;
  for (const auto& m : messages.as_list()) {
    object o = m.as_object();
    o.erase("id");
    out.push_back(value(std::move(o)));
  }
  return value(std::move(out)).to_json();
}

// Events as text with the messages of updates stripped of their ids.
std::vector<std::string> texts_without_ids(const std::vector<stream_event>& events) {
  std::vector<std::string> out;
  for (stream_event e : events) {
    if (e.data.is_object()) {
      object data;
      for (const auto& [node, update] : e.data.as_object()) {
        value u = update;
        if (const value* m = u.is_object() ? u.find("messages") : nullptr) {
          object o = u.as_object();
          o.set("messages", value::parse_json(without_ids(*m)));
          u = value(std::move(o));
        }
        data.set(node, std::move(u));
      }
      e.data = value(std::move(data));
    }
    out.push_back(event_text(e));
  }
  return out;
}

std::vector<stream_event> run(const pregel& graph, const value& input, const value& config,
                              stream_mode mode, bool subgraphs) {
  recorder r;
  stream_options so;
  so.modes = {mode};
  so.subgraphs = subgraphs;
  graph.stream(input, config, so, r.sink());
  return r.events;
}

}  // namespace

// The snapshot test_weather_subgraph[memory]: get_graph(xray=1).draw_mermaid().
constexpr const char* weather_mermaid =
    "---\n"
    "config:\n"
    "  flowchart:\n"
    "    curve: linear\n"
    "---\n"
    "graph TD;\n"
    "\t__start__([<p>__start__</p>]):::first\n"
    "\trouter_node(router_node)\n"
    "\tnormal_llm_node(normal_llm_node)\n"
    "\t__end__([<p>__end__</p>]):::last\n"
    "\t__start__ --> router_node;\n"
    "\trouter_node -.-> normal_llm_node;\n"
    "\trouter_node -.-> weather_graph\\3amodel_node;\n"
    "\tnormal_llm_node --> __end__;\n"
    "\tweather_graph\\3aweather_node --> __end__;\n"
    "\tsubgraph weather_graph\n"
    "\tweather_graph\\3amodel_node(model_node)\n"
    "\tweather_graph\\3aweather_node(weather_node<hr/><small><em>__interrupt = "
    "before</em></small>)\n"
    "\tweather_graph\\3amodel_node --> weather_graph\\3aweather_node;\n"
    "\tend\n"
    "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
    "\tclassDef first fill-opacity:0\n"
    "\tclassDef last fill:#bfb6fc\n";

// libs/langgraph/tests/test_large_cases.py::test_weather_subgraph
BOOST_AUTO_TEST_CASE(test_weather_subgraph) {
  state_graph sub;
  sub.add_key("messages", "add_messages").add_key("city");
  sub.add_node("model_node", [](const value&, node_context& ctx) -> value {
    ctx.emit_custom(" very");
    const value reply = ai_tool_call("get_weather", object{{"city", "San Francisco"}});
    object with_id = reply.as_object();  // a chat model's reply has its run's id
    with_id.set("id", "run-model");
    ctx.push_message(value(std::move(with_id)), "");
    return object{{"city", reply.get("tool_calls").as_list().at(0).get("args").get("city")}};
  });
  sub.add_node("weather_node", [](const value& s, node_context& ctx) -> value {
    ctx.emit_custom(" good");
    const std::string result = "I'ts sunny in " + s.get("city").as_string() + "!";
    value message = object{{"role", "assistant"}, {"content", result}};
    return object{{"messages", value::array({std::move(message)})}};
  });
  sub.add_edge("__start__", "model_node").add_edge("model_node", "weather_node");
  sub.add_edge("weather_node", "__end__");
  compile_options sub_opts = opts();
  sub_opts.interrupt_before = {"weather_node"};
  std::shared_ptr<const pregel> subgraph = sub.compile(sub_opts);

  state_graph g;
  g.add_key("messages", "add_messages").add_key("route");
  g.add_node("router_node", [](const value&, node_context& ctx) -> value {
    ctx.emit_custom("I'm");
    const value route = ai_tool_call("router", object{{"dest", "weather"}});
    object with_id = route.as_object();
    with_id.set("id", "run-router");
    ctx.push_message(value(std::move(with_id)), "");
    return object{{"route", route.get("tool_calls").as_list().at(0).get("args").get("dest")}};
  });
  g.add_node("normal_llm_node", [](const value&, node_context&) -> value {
    value hello = object{{"type", "ai"}, {"content", "Hello!"}};
    return object{{"messages", value::array({std::move(hello)})}};
  });
  // LangGraph finds the subgraph in the node function's closure; ours is told it.
  node_options weather_options;
  weather_options.subgraph = subgraph;
  g.add_node(
      "weather_graph",
      [subgraph](const value& s, node_context&) -> value {
        value out = subgraph->invoke(s);
        // The subgraph's output has `city`, which the parent's state has not: LangGraph drops it.
        return object{{"messages", out.get("messages")}};
      },
      weather_options);
  g.add_edge("__start__", "router_node");
  g.add_conditional_edges(
      "router_node",
      [](const value& s, node_context&) -> value {
        return s.get("route") == value("weather") ? "weather_graph" : "normal_llm_node";
      },
      {{"weather_graph", "weather_graph"}, {"normal_llm_node", "normal_llm_node"}});
  g.add_edge("normal_llm_node", "__end__").add_edge("weather_graph", "__end__");
  std::shared_ptr<pregel> graph = g.compile(opts_with_saver());
  BOOST_TEST(graph->get_graph(1).draw_mermaid() == weather_mermaid);

  const value inputs =
      object{{"messages", list{object{{"role", "user"}, {"content", "what's the weather in sf"}}}}};
  const std::string human = R"([{"type":"human","content":"what's the weather in sf"}])";

  // Custom output, with the subgraph's.
  const value thread2 = thread("2");
  BOOST_TEST(texts_without_ids(run(*graph, inputs, thread2, stream_mode::custom, true)) ==
                 (std::vector<std::string>{R"(() "I'm")", R"((weather_graph:) " very")"}),
             boost::test_tools::per_element());
  BOOST_TEST(texts_without_ids(run(*graph, value(), thread2, stream_mode::custom, true)) ==
                 (std::vector<std::string>{R"((weather_graph:) " good")"}),
             boost::test_tools::per_element());

  // Until the interrupt inside the subgraph.
  value config = with_durability("1", "exit");
  const std::vector<std::string> until_interrupt{
      R"(() {"router_node":{"route":"weather"}})",
      R"((weather_graph:) {"model_node":{"city":"San Francisco"}})", R"(() {"__interrupt__":[]})"};
  BOOST_TEST(
      texts_without_ids(run(*graph, inputs, config, stream_mode::updates, true)) == until_interrupt,
      boost::test_tools::per_element());
  state_snapshot state = graph->get_state(config);
  BOOST_TEST(without_ids(state.values.get("messages")) == human);
  BOOST_TEST(state.values.get("route") == value("weather"));
  BOOST_TEST(state.next == std::vector<std::string>{"weather_graph"});
  BOOST_TEST(state.metadata.get("source") == value("loop"));
  BOOST_TEST(state.metadata.get("step") == value(1));
  BOOST_TEST(!state.parent_config.has_value());
  BOOST_TEST_REQUIRE(state.tasks.size() == 1u);
  BOOST_TEST(state.tasks[0].name == "weather_graph");

  // Update the subgraph's state, through its task's state config, and run on.
  BOOST_TEST_REQUIRE(state.tasks[0].state_config.has_value());
  const checkpoint_config& weather = *state.tasks[0].state_config;
  BOOST_TEST(weather.thread_id == "1");
  BOOST_TEST(weather.checkpoint_ns == "weather_graph:" + state.tasks[0].id);
  graph->update_state(object{{"configurable", object{{"thread_id", weather.thread_id},
                                                     {"checkpoint_ns", weather.checkpoint_ns}}}},
                      object{{"city", "la"}});
  BOOST_TEST(
      texts_without_ids(run(*graph, value(), config, stream_mode::updates, true)) ==
          (std::vector<std::string>{
              R"((weather_graph:) {"weather_node":{"messages":[{"role":"assistant","content":"I'ts sunny in la!"}]}})",
              R"(() {"weather_graph":{"messages":[{"type":"human","content":"what's the weather in sf"},{"type":"ai","content":"I'ts sunny in la!"}]}})"}),
      boost::test_tools::per_element());

  // Update acting as the weather node.
  config = with_durability("14", "exit");
  BOOST_TEST(
      texts_without_ids(run(*graph, inputs, config, stream_mode::updates, true)) == until_interrupt,
      boost::test_tools::per_element());
  state = graph->get_state(config, true);
  BOOST_TEST(without_ids(state.values.get("messages")) == human);
  BOOST_TEST(state.next == std::vector<std::string>{"weather_graph"});
  BOOST_TEST_REQUIRE(state.tasks.size() == 1u);
  BOOST_TEST_REQUIRE(state.tasks[0].state != nullptr);
  {
    const state_snapshot& child = *state.tasks[0].state;
    BOOST_TEST(without_ids(child.values.get("messages")) == human);
    BOOST_TEST(child.values.get("city") == value("San Francisco"));
    BOOST_TEST(child.next == std::vector<std::string>{"weather_node"});
    BOOST_TEST(child.config.checkpoint_ns == "weather_graph:" + state.tasks[0].id);
    BOOST_TEST(child.metadata.get("source") == value("loop"));
    BOOST_TEST(child.metadata.get("step") == value(1));
    BOOST_TEST(child.metadata.get("parents").to_json() ==
               value(object{{"", state.config.checkpoint_id}}).to_json());
    BOOST_TEST(!child.parent_config.has_value());
    BOOST_TEST_REQUIRE(child.tasks.size() == 1u);
    BOOST_TEST(child.tasks[0].name == "weather_node");
  }
  const checkpoint_config child_cfg = state.tasks[0].state->config;
  graph->update_state(
      object{{"configurable", object{{"thread_id", "14"},
                                     {"checkpoint_ns", child_cfg.checkpoint_ns},
                                     {"checkpoint_id", child_cfg.checkpoint_id}}}},
      object{{"messages", list{object{{"role", "assistant"}, {"content", "rainy"}}}}},
      std::string("weather_node"));
  const std::string rainy =
      R"([{"type":"human","content":"what's the weather in sf"},{"type":"ai","content":"rainy"}])";
  state = graph->get_state(config, true);
  BOOST_TEST(without_ids(state.values.get("messages")) == human);
  BOOST_TEST(state.next == std::vector<std::string>{"weather_graph"});
  BOOST_TEST(state.metadata.get("step") == value(1));
  BOOST_TEST_REQUIRE(state.tasks.size() == 1u);
  BOOST_TEST_REQUIRE(state.tasks[0].state != nullptr);
  {
    const state_snapshot& child = *state.tasks[0].state;
    BOOST_TEST(without_ids(child.values.get("messages")) == rainy);
    BOOST_TEST(child.values.get("city") == value("San Francisco"));
    BOOST_TEST(child.next.empty());
    BOOST_TEST(child.tasks.empty());
    BOOST_TEST(child.config.checkpoint_ns == child_cfg.checkpoint_ns);
    BOOST_TEST(child.metadata.get("source") == value("update"));
    BOOST_TEST(child.metadata.get("step") == value(2));
    BOOST_TEST(child.metadata.get("parents").to_json() ==
               value(object{{"", state.config.checkpoint_id}}).to_json());
    BOOST_TEST_REQUIRE(child.parent_config.has_value());
    BOOST_TEST(child.parent_config->checkpoint_id == child_cfg.checkpoint_id);
    BOOST_TEST(child.parent_config->checkpoint_ns == child_cfg.checkpoint_ns);
  }
  BOOST_TEST(texts_without_ids(run(*graph, value(), config, stream_mode::updates, true)) ==
                 (std::vector<std::string>{R"(() {"weather_graph":{"messages":)" + rainy + "}}"}),
             boost::test_tools::per_element());

  // Custom output without subgraph streaming leaves the subgraph's out.
  BOOST_TEST(texts_without_ids(run(*graph, inputs, thread("3"), stream_mode::custom, false)) ==
                 (std::vector<std::string>{R"(() "I'm")"}),
             boost::test_tools::per_element());

  // Messages output: the "model" replies, the subgraph's only with subgraph streaming.
  for (const bool subgraphs : {true, false}) {
    std::vector<stream_event> events =
        run(*graph, inputs, thread(subgraphs ? "4" : "5"), stream_mode::messages, subgraphs);
    BOOST_TEST_REQUIRE(events.size() == (subgraphs ? 2u : 1u));
    for (const auto& e : events) BOOST_TEST_MESSAGE(event_text(e));
    const value& router_reply = events[0].data.as_list().at(0);
    BOOST_TEST(events[0].ns.empty());
    BOOST_TEST(router_reply.get("tool_calls").to_json() ==
               ai_tool_call("router", object{{"dest", "weather"}}).get("tool_calls").to_json());
    const value& meta = events[0].data.as_list().at(1);
    BOOST_TEST(meta.get("langgraph_node") == value("router_node"));
    BOOST_TEST(meta.get("langgraph_step") == value(1));
    if (subgraphs) {
      BOOST_TEST(events[1].ns.size() == 1u);
      BOOST_TEST(events[1].ns.at(0).rfind("weather_graph:", 0) == 0u);
      const value& model_reply = events[1].data.as_list().at(0);
      BOOST_TEST(model_reply.get("tool_calls").to_json() ==
                 ai_tool_call("get_weather", object{{"city", "San Francisco"}})
                     .get("tool_calls")
                     .to_json());
      BOOST_TEST(events[1].data.as_list().at(1).get("langgraph_node") == value("model_node"));
      BOOST_TEST(events[1].data.as_list().at(1).get("langgraph_step") == value(1));
    }
  }
}

namespace {

value agent_action(const char* tool, const char* tool_input, const std::string& log) {
  return object{{"type", "AgentAction"}, {"tool", tool}, {"tool_input", tool_input}, {"log", log}};
}

value agent_finish(const std::string& answer, const std::string& log) {
  return object{
      {"type", "AgentFinish"}, {"return_values", object{{"answer", answer}}}, {"log", log}};
}

// One step of the tools' results: [[action, observation]].
value step_of(value action, const std::string& observation) {
  return value::array({value::array({std::move(action), value(observation)})});
}

// The snapshot's values, next, source and step, and its parent (the checkpoint before it).
void check_state(const pregel& app, const value& config, const value& values,
                 const std::vector<std::string>& next, const char* source, int step,
                 bool has_parent) {
  state_snapshot s = app.get_state(config);
  BOOST_TEST(s.values.to_json() == values.to_json());
  BOOST_TEST(s.next == next, boost::test_tools::per_element());
  std::vector<std::string> names;
  for (const auto& t : s.tasks) names.push_back(t.name);
  BOOST_TEST(names == next, boost::test_tools::per_element());
  BOOST_TEST(s.metadata.get("source") == value(source));
  BOOST_TEST(s.metadata.get("step") == value(step));
  BOOST_TEST(s.metadata.get("parents").to_json() == "{}");
  BOOST_TEST(s.parent_config.has_value() == has_parent);
  if (has_parent) {
    std::vector<state_snapshot> history = app.get_state_history(config);
    BOOST_TEST_REQUIRE(history.size() >= 2u);
    BOOST_TEST(s.parent_config->checkpoint_id == history[1].config.checkpoint_id);
  }
}

// The snapshot test_conditional_state_graph[memory].2, but for the agent node: LangGraph's is a
// LangChain RunnableSequence (prompt | llm | parser), ours a node function.
constexpr const char* conditional_graph_json = R"({"nodes": [
  {"id": "__start__", "type": "runnable", "data": {"id": ["langgraph", "_internal",
    "_runnable", "RunnableCallable"], "name": "__start__"}},
  {"id": "agent", "type": "runnable", "data": {"id": ["langgraph", "_internal", "_runnable",
    "RunnableCallable"], "name": "agent"}},
  {"id": "tools", "type": "runnable", "data": {"id": ["langgraph", "_internal", "_runnable",
    "RunnableCallable"], "name": "tools"}},
  {"id": "__end__"}],
 "edges": [
  {"source": "__start__", "target": "agent"},
  {"source": "agent", "target": "__end__", "data": "exit", "conditional": true},
  {"source": "agent", "target": "tools", "data": "continue", "conditional": true},
  {"source": "tools", "target": "agent"}]})";

// The snapshot test_conditional_state_graph[memory].3.
constexpr const char* conditional_graph_mermaid =
    "graph TD;\n"
    "\t__start__ --> agent;\n"
    "\tagent -. &nbsp;exit&nbsp; .-> __end__;\n"
    "\tagent -. &nbsp;continue&nbsp; .-> tools;\n"
    "\ttools --> agent;\n";

std::vector<std::string> updates(const pregel& app, const value& input, const value& config) {
  return stream_texts(app, input, config, {stream_mode::updates});
}

std::string update_text(const char* node, const char* key, const value& v) {
  return "() " + value(object{{node, object{{key, v}}}}).to_json();
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_conditional_state_graph
BOOST_AUTO_TEST_CASE(test_conditional_state_graph) {
  // The LLM answers its responses in turn (LangChain's FakeStreamingListLLM), parsed into an
  // AgentAction or an AgentFinish.
  auto llm_i = std::make_shared<std::size_t>(0);
  const std::vector<std::string> responses{"tool:search_api:query", "tool:search_api:another",
                                           "finish:answer"};
  state_graph workflow;
  workflow.add_untracked_key("input");
  workflow.add_key("agent_outcome");
  workflow.add_key("intermediate_steps", "add", value(list{}));
  workflow.add_node("agent", [llm_i, responses](const value&, node_context&) -> value {
    const std::string out = responses[(*llm_i)++ % responses.size()];
    const std::size_t colon = out.find(':');
    if (out.substr(0, colon) == "finish")
      return object{{"agent_outcome", agent_finish(out.substr(colon + 1), out)}};
    const std::size_t second = out.find(':', colon + 1);
    const std::string tool = out.substr(colon + 1, second - colon - 1);
    const std::string input = out.substr(second + 1);
    return object{{"agent_outcome", agent_action(tool.c_str(), input.c_str(), out)}};
  });
  node_options tool_options;
  tool_options.input_keys = std::vector<std::string>{"agent_outcome"};
  workflow.add_node(
      "tools",
      [](const value& data, node_context&) -> value {
        if (data.find("input") || data.find("intermediate_steps"))
          throw std::runtime_error("tools got keys outside its input schema: " + data.to_json());
        const value& action = data.get("agent_outcome");
        if (action.get("tool") != value("search_api"))
          throw std::runtime_error("unknown tool " + action.get("tool").to_json());
        return object{{"intermediate_steps",
                       step_of(action, "result for " + action.get("tool_input").as_string())}};
      },
      tool_options);
  workflow.set_entry_point("agent");
  workflow.add_conditional_edges(
      "agent",
      [](const value& data, node_context&) -> value {
        return data.get("agent_outcome").get("type") == value("AgentFinish") ? "exit" : "continue";
      },
      {{"continue", "tools"}, {"exit", "__end__"}});
  workflow.add_edge("tools", "agent");
  // The state's keys as LangGraph's AgentState (a TypedDict with total=False) types them.
  workflow.set_schema_title("AgentState");
  workflow.set_key_schema("input", {object{{"type", "string"}}});
  workflow.set_key_schema("agent_outcome", {agent_outcome_schema()});
  workflow.set_key_schema("intermediate_steps", {intermediate_steps_schema()});

  const value input = object{{"input", "what is weather in sf"}};
  const value query = agent_action("search_api", "query", "tool:search_api:query");
  const value another = agent_action("search_api", "another", "tool:search_api:another");
  {
    std::shared_ptr<pregel> app = workflow.compile(opts());
    const std::string schema = value::parse_json(agent_state_schema).to_json();
    BOOST_TEST(app->input_json_schema().to_json() == schema);
    BOOST_TEST(app->output_json_schema().to_json() == schema);
    BOOST_TEST(app->get_graph().to_json().to_json() ==
               value::parse_json(conditional_graph_json).to_json());
    mermaid_options no_styles;
    no_styles.with_styles = false;
    BOOST_TEST(app->get_graph().draw_mermaid(no_styles) == conditional_graph_mermaid);

    const value out = app->invoke(input);
    BOOST_TEST(out.as_object().size() == 3u);
    BOOST_TEST(out.get("input") == value("what is weather in sf"));
    const value steps = value::array({step_of(query, "result for query").as_list().at(0),
                                      step_of(another, "result for another").as_list().at(0)});
    BOOST_TEST(out.get("intermediate_steps").to_json() == steps.to_json());
    BOOST_TEST(out.get("agent_outcome").to_json() ==
               agent_finish("answer", "finish:answer").to_json());
    BOOST_TEST(
        updates(*app, input, value()) ==
            (std::vector<std::string>{
                update_text("agent", "agent_outcome", query),
                update_text("tools", "intermediate_steps", step_of(query, "result for query")),
                update_text("agent", "agent_outcome", another),
                update_text("tools", "intermediate_steps", step_of(another, "result for another")),
                update_text("agent", "agent_outcome", agent_finish("answer", "finish:answer"))}),
        boost::test_tools::per_element());
  }

  const std::string paused = R"(() {"__interrupt__":[]})";
  const value different = agent_action("search_api", "query", "tool:search_api:a different query");
  const value nice = agent_finish("a really nice answer", "finish:a really nice answer");

  // Paused after the agent, then before the tools: the same checkpoints and updates.
  for (const bool after : {true, false}) {
    compile_options o = opts_with_saver();
    if (after)
      o.interrupt_after = {"agent"};
    else
      o.interrupt_before = {"tools"};
    std::shared_ptr<pregel> app = workflow.compile(o);
    *llm_i = 0;
    const value config = with_durability(after ? "1" : "2", "exit");
    BOOST_TEST(updates(*app, input, config) ==
                   (std::vector<std::string>{update_text("agent", "agent_outcome", query), paused}),
               boost::test_tools::per_element());
    check_state(*app, config, object{{"agent_outcome", query}, {"intermediate_steps", list{}}},
                {"tools"}, "loop", 1, false);
    app->update_state(config, object{{"agent_outcome", different}});
    check_state(*app, config, object{{"agent_outcome", different}, {"intermediate_steps", list{}}},
                {"tools"}, "update", 2, true);
    BOOST_TEST(
        updates(*app, value(), config) ==
            (std::vector<std::string>{
                update_text("tools", "intermediate_steps", step_of(different, "result for query")),
                update_text("agent", "agent_outcome", another), paused}),
        boost::test_tools::per_element());
    app->update_state(config, object{{"agent_outcome", nice}});
    check_state(*app, config,
                object{{"agent_outcome", nice},
                       {"intermediate_steps", step_of(different, "result for query")}},
                {}, "update", 5, true);
  }

  // Paused before every node.
  {
    compile_options o = opts_with_saver();
    o.interrupt_before = {"*"};
    std::shared_ptr<pregel> app = workflow.compile(o);
    *llm_i = 0;
    const value config = with_durability("3", "exit");
    BOOST_TEST(updates(*app, input, config) == std::vector<std::string>{paused},
               boost::test_tools::per_element());
    check_state(*app, config, object{{"intermediate_steps", list{}}}, {"agent"}, "loop", 0, false);
    BOOST_TEST(updates(*app, value(), config) ==
                   (std::vector<std::string>{update_text("agent", "agent_outcome", query), paused}),
               boost::test_tools::per_element());
    check_state(*app, config, object{{"agent_outcome", query}, {"intermediate_steps", list{}}},
                {"tools"}, "loop", 1, true);
    BOOST_TEST(updates(*app, value(), config) ==
                   (std::vector<std::string>{update_text("tools", "intermediate_steps",
                                                         step_of(query, "result for query")),
                                             paused}),
               boost::test_tools::per_element());
    check_state(*app, config,
                object{{"agent_outcome", query},
                       {"intermediate_steps", step_of(query, "result for query")}},
                {"agent"}, "loop", 2, true);
    BOOST_TEST(
        updates(*app, value(), config) ==
            (std::vector<std::string>{update_text("agent", "agent_outcome", another), paused}),
        boost::test_tools::per_element());
  }

  // Paused after every node.
  {
    compile_options o = opts_with_saver();
    o.interrupt_after = {"*"};
    std::shared_ptr<pregel> app = workflow.compile(o);
    *llm_i = 0;
    const value config = with_durability("4", "exit");
    BOOST_TEST(updates(*app, input, config) ==
                   (std::vector<std::string>{update_text("agent", "agent_outcome", query), paused}),
               boost::test_tools::per_element());
    check_state(*app, config, object{{"agent_outcome", query}, {"intermediate_steps", list{}}},
                {"tools"}, "loop", 1, false);
    BOOST_TEST(updates(*app, value(), config) ==
                   (std::vector<std::string>{update_text("tools", "intermediate_steps",
                                                         step_of(query, "result for query")),
                                             paused}),
               boost::test_tools::per_element());
    check_state(*app, config,
                object{{"agent_outcome", query},
                       {"intermediate_steps", step_of(query, "result for query")}},
                {"agent"}, "loop", 2, true);
    BOOST_TEST(
        updates(*app, value(), config) ==
            (std::vector<std::string>{update_text("agent", "agent_outcome", another), paused}),
        boost::test_tools::per_element());
  }
}
