// libs/langgraph/tests/test_pregel.py: graph validation, conditional entry points and
// conditional edges of StateGraphs.
#include <atomic>

#include "agent_schemas.hpp"
#include "conformance.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

value goto_with_update(const char* to, value update) {
  command c;
  c.go_to = {value(to)};
  c.update = std::move(update);
  return make_command(c);
}

std::vector<value> updates(const pregel& g, const value& input, const value& config = value()) {
  std::vector<value> out;
  g.stream(input, config, stream_options{{stream_mode::updates}, false},
           [&](const stream_event& e) { out.push_back(e.data); });
  return out;
}

// The rewriter -> analyzer graph of the two "no path map" tests.
value rewrite_then_analyze(router_function choose) {
  state_graph workflow;
  workflow.add_key("query");
  workflow.add_node("rewriter", [](const value& s, node_context&) -> value {
    return object{{"query", "query: " + s.get("query").as_string()}};
  });
  workflow.add_node("analyzer", [](const value& s, node_context&) -> value {
    return object{{"query", "analyzed: " + s.get("query").as_string()}};
  });
  workflow.add_conditional_edges("rewriter", std::move(choose));
  workflow.set_entry_point("rewriter");
  return workflow.compile(opts())->invoke(J(R"({"query":"what is weather in sf"})"));
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_graph_validation (not ported: the reducer of one
// argument, a Python signature check)
BOOST_AUTO_TEST_CASE(test_graph_validation) {
  auto identity = [](const value& s, node_context&) -> value { return s; };
  state_graph graph;
  graph.add_key("hello");
  graph.add_node("start", identity);
  graph.add_edge(std::string(START), "start");
  graph.add_edge("unknown", "start");
  graph.add_edge("start", std::string(END));
  test::expect_error([&] { graph.compile(opts()); }, error_code::invalid_graph,
                     "Found edge starting at unknown node ");

  auto node_b = [](const value&, node_context&) -> value { return J(R"({"hello":"world"})"); };
  state_graph builder;
  builder.add_key("hello");
  builder.add_node("a", node_b).add_node("b", node_b).add_node("c", node_b);
  builder.set_entry_point("a");
  builder.add_edge("a", "b");
  builder.add_edge("a", "c");
  auto app = builder.compile(opts());
  test::expect_error([&] { app->invoke(J(R"({"hello":"there"})")); }, error_code::invalid_update,
                     "At key 'hello'");
}

// libs/langgraph/tests/test_pregel.py::test_graph_validation_with_command
BOOST_AUTO_TEST_CASE(test_graph_validation_with_command) {
  state_graph builder;
  builder.add_key("foo").add_key("bar");
  builder.add_node("a", [](const value&, node_context&) -> value {
    return goto_with_update("b", object{{"foo", "bar"}});
  });
  builder.add_node("b", [](const value&, node_context&) -> value {
    return goto_with_update("__end__", object{{"bar", "baz"}});
  });
  builder.add_edge("__start__", "a");
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(object{{"foo", ""}}) == J(R"({"foo":"bar","bar":"baz"})"));
}

// libs/langgraph/tests/test_pregel.py::test_conditional_entrypoint_to_multiple_state_graph
BOOST_AUTO_TEST_CASE(test_conditional_entrypoint_to_multiple_state_graph) {
  state_graph workflow;
  workflow.add_key("locations").add_key("results", "add", value(list{}));
  // OverallState, a TypedDict: both keys lists of strings, required.
  const value strings = J(R"({"items": {"type": "string"}, "type": "array"})");
  workflow.set_schema_title("OverallState");
  workflow.set_key_schema("locations", {strings, true}).set_key_schema("results", {strings, true});
  workflow.add_node("get_weather", [](const value& state, node_context&) -> value {
    const std::string& location = state.get("location").as_string();
    std::string weather = location.size() > 2 ? "sunny" : "cloudy";
    return object{{"results", value::array({"It's " + weather + " in " + location})}};
  });
  workflow.add_edge("get_weather", std::string(END));
  workflow.add_conditional_edges(
      std::string(START),
      [](const value& state, node_context&) -> value {
        list sends;
        for (const auto& location : state.get("locations").as_list())
          sends.push_back(make_send("get_weather", object{{"location", location}}));
        return value(std::move(sends));
      },
      {{"get_weather", "get_weather"}});
  auto app = workflow.compile(opts());
  const char* overall_state = R"({"properties": {"locations": {"items": {"type": "string"},
    "title": "Locations", "type": "array"}, "results": {"items": {"type": "string"}, "title":
    "Results", "type": "array"}}, "required": ["locations", "results"], "title": "OverallState",
    "type": "object"})";
  const std::string schema = J(overall_state).to_json();
  BOOST_TEST(app->input_json_schema().to_json() == schema);
  BOOST_TEST(app->output_json_schema().to_json() == schema);
  BOOST_TEST(app->get_graph().to_json().to_json() == value::parse_json(
                                                         R"json({
  "nodes": [
    {
      "id": "__start__",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "__start__"
      }
    },
    {
      "id": "get_weather",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "get_weather"
      }
    },
    {
      "id": "__end__"
    }
  ],
  "edges": [
    {
      "source": "__start__",
      "target": "get_weather",
      "conditional": true
    },
    {
      "source": "get_weather",
      "target": "__end__"
    }
  ]
})json")
                                                         .to_json());
  {
    mermaid_options bare;
    bare.with_styles = false;
    BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
               "graph TD;\n"
               "\t__start__ -.-> get_weather;\n"
               "\tget_weather --> __end__;\n");
  }
  const value expected =
      J(R"({"locations":["sf","nyc"],"results":["It's cloudy in sf","It's sunny in nyc"]})");
  BOOST_TEST(app->invoke(J(R"({"locations":["sf","nyc"]})")) == expected);
  std::vector<value> values;
  app->stream(J(R"({"locations":["sf","nyc"]})"), value(),
              stream_options{{stream_mode::values}, false},
              [&](const stream_event& e) { values.push_back(e.data); });
  BOOST_TEST_REQUIRE(!values.empty());
  BOOST_TEST(values.back() == expected);
}

// libs/langgraph/tests/test_pregel.py::test_conditional_state_graph_with_list_edge_inputs
BOOST_AUTO_TEST_CASE(test_conditional_state_graph_with_list_edge_inputs) {
  state_graph builder;
  builder.add_key("foo", "add", value(list{}));
  builder.add_node("A", [](const value&, node_context&) -> value { return J(R"({"foo":["A"]})"); });
  builder.add_node("B", [](const value&, node_context&) -> value { return J(R"({"foo":["B"]})"); });
  builder.add_edge(std::string(START), "A");
  builder.add_edge(std::string(START), "B");
  builder.add_edge(std::vector<std::string>{"A", "B"}, std::string(END));
  auto app = builder.compile(opts());
  {
    mermaid_options bare;
    bare.with_styles = false;
    BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
               "graph TD;\n"
               "\t__start__ --> A;\n"
               "\t__start__ --> B;\n"
               "\tA --> __end__;\n"
               "\tB --> __end__;\n");
  }
  BOOST_TEST(app->invoke(J(R"({"foo":[]})")) == J(R"({"foo":["A","B"]})"));
}

// libs/langgraph/tests/test_pregel.py::test_state_graph_w_config_inherited_state_keys (the
// prompt | fake LLM | parser chain is one node answering the LLM's responses in turn;
// AgentAction and AgentFinish are objects, described as pydantic describes LangChain's)
BOOST_AUTO_TEST_CASE(test_state_graph_w_config_inherited_state_keys) {
  const std::vector<std::string> responses = {"tool:search_api:query", "tool:search_api:another",
                                              "finish:answer"};
  auto calls = std::make_shared<std::atomic<std::size_t>>(0);
  auto agent = [responses, calls](const value&, node_context&) -> value {
    const std::string& input = responses[calls->fetch_add(1) % responses.size()];
    std::vector<std::string> parts;
    for (std::size_t start = 0, end; start <= input.size(); start = end + 1) {
      end = input.find(':', start);
      if (end == std::string::npos) end = input.size();
      parts.push_back(input.substr(start, end - start));
    }
    if (parts[0] == "finish")
      return object{{"agent_outcome", object{{"type", "AgentFinish"},
                                             {"return_values", object{{"answer", parts[1]}}},
                                             {"log", input}}}};
    return object{{"agent_outcome", object{{"type", "AgentAction"},
                                           {"tool", parts[1]},
                                           {"tool_input", parts[2]},
                                           {"log", input}}}};
  };
  auto search_api = [](const std::string& query) { return "result for " + query; };
  auto execute_tools = [search_api](const value& data, node_context&) -> value {
    const value& action = data.get("agent_outcome");
    if (action.get("tool") != value("search_api"))
      throw std::runtime_error("unknown tool " + action.get("tool").to_json());
    std::string observation = search_api(action.get("tool_input").as_string());
    return object{{"intermediate_steps", value::array({value::array({action, observation})})}};
  };
  state_graph builder;
  builder.add_key("input").add_key("agent_outcome").add_key("intermediate_steps", "add");
  // AgentState: BaseState's input and agent_outcome required, its own intermediate_steps not
  // (total=False); Context (total=False): tools, a list of strings.
  builder.set_schema_title("AgentState");
  builder.set_key_schema("input", {J(R"({"type": "string"})"), true});
  builder.set_key_schema("agent_outcome", {agent_outcome_schema(), true});
  builder.set_key_schema("intermediate_steps", {intermediate_steps_schema()});
  compile_options options = opts();
  options.context_schema = object_schema{
      "Context", {{"tools", {J(R"({"items": {"type": "string"}, "type": "array"})")}}}};
  builder.add_node("agent", agent);
  builder.add_node("tools", execute_tools);
  builder.set_entry_point("agent");
  builder.add_conditional_edges(
      "agent",
      [](const value& data, node_context&) -> value {
        return value(data.get("agent_outcome").get("type") == value("AgentFinish") ? "exit"
                                                                                   : "continue");
      },
      {{"continue", "tools"}, {"exit", std::string(END)}});
  builder.add_edge("tools", "agent");
  auto app = builder.compile(options);
  BOOST_TEST(app->context_json_schema().to_json() ==
             J(R"({"properties": {"tools": {"items": {"type": "string"}, "title": "Tools",
                   "type": "array"}}, "title": "Context", "type": "object"})")
                 .to_json());
  object expected = J(agent_state_schema).as_object();
  expected.set("required", value::array({"input", "agent_outcome"}));
  const std::string schema = sort_json_schema(value(std::move(expected))).to_json();
  BOOST_TEST(app->input_json_schema().to_json() == schema);
  BOOST_TEST(app->output_json_schema().to_json() == schema);
  BOOST_TEST(app->graph().state_channels ==
                 (std::vector<std::string>{"input", "agent_outcome", "intermediate_steps"}),
             boost::test_tools::per_element());
  value out = app->invoke(J(R"({"input":"what is weather in sf"})"));
  BOOST_TEST(out == J(R"({
    "agent_outcome": {"type":"AgentFinish","return_values":{"answer":"answer"},
                      "log":"finish:answer"},
    "input": "what is weather in sf",
    "intermediate_steps": [
      [{"type":"AgentAction","tool":"search_api","tool_input":"query",
        "log":"tool:search_api:query"}, "result for query"],
      [{"type":"AgentAction","tool":"search_api","tool_input":"another",
        "log":"tool:search_api:another"}, "result for another"]]})"),
             out.to_json());
}

// libs/langgraph/tests/test_pregel.py::test_conditional_entrypoint_graph_state (a list key
// starts as [])
BOOST_AUTO_TEST_CASE(test_conditional_entrypoint_graph_state) {
  state_graph workflow;
  workflow.add_key("input").add_key("output").add_key("steps", "add", value(list{}));
  // AgentState, a TypedDict with total=False.
  workflow.set_schema_title("AgentState");
  workflow.set_key_schema("input", {J(R"({"type": "string"})")});
  workflow.set_key_schema("output", {J(R"({"type": "string"})")});
  workflow.set_key_schema("steps", {J(R"({"items": {"type": "string"}, "type": "array"})")});
  workflow.add_node("left", [](const value& data, node_context&) -> value {
    return object{{"output", data.get("input").as_string() + "->left"}};
  });
  workflow.add_node("right", [](const value& data, node_context&) -> value {
    return object{{"output", data.get("input").as_string() + "->right"}};
  });
  workflow.add_conditional_edges(
      std::string(START),
      [](const value& data, node_context&) -> value {
        if (data.get("steps") != value(list{}))
          throw std::runtime_error("Expected input to be read from the state");
        return value(data.get("input").as_string().size() > 10 ? "go-right" : "go-left");
      },
      {{"go-left", "left"}, {"go-right", "right"}});
  workflow.add_conditional_edges(
      "left", [](const value&, node_context&) -> value { return value(std::string(END)); },
      {{std::string(END), std::string(END)}});
  workflow.add_edge("right", std::string(END));
  auto app = workflow.compile(opts());
  const char* agent_state = R"({"properties": {"input": {"title": "Input", "type": "string"},
    "output": {"title": "Output", "type": "string"}, "steps": {"items": {"type": "string"},
    "title": "Steps", "type": "array"}}, "title": "AgentState", "type": "object"})";
  const std::string schema = J(agent_state).to_json();
  BOOST_TEST(app->input_json_schema().to_json() == schema);
  BOOST_TEST(app->output_json_schema().to_json() == schema);
  // The snapshot's nodes, each a RunnableCallable but END, and its edges.
  const char* graph_json = R"({"nodes": [
    {"id": "__start__", "type": "runnable", "data": {"id": ["langgraph", "_internal",
      "_runnable", "RunnableCallable"], "name": "__start__"}},
    {"id": "left", "type": "runnable", "data": {"id": ["langgraph", "_internal", "_runnable",
      "RunnableCallable"], "name": "left"}},
    {"id": "right", "type": "runnable", "data": {"id": ["langgraph", "_internal", "_runnable",
      "RunnableCallable"], "name": "right"}},
    {"id": "__end__"}], "edges": [
    {"source": "__start__", "target": "left", "data": "go-left", "conditional": true},
    {"source": "__start__", "target": "right", "data": "go-right", "conditional": true},
    {"source": "left", "target": "__end__", "conditional": true},
    {"source": "right", "target": "__end__"}]})";
  BOOST_TEST(app->get_graph().to_json().to_json() == J(graph_json).to_json());
  {
    mermaid_options bare;
    bare.with_styles = false;
    BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
               "graph TD;\n"
               "\t__start__ -. &nbsp;go-left&nbsp; .-> left;\n"
               "\t__start__ -. &nbsp;go-right&nbsp; .-> right;\n"
               "\tleft -.-> __end__;\n"
               "\tright --> __end__;\n");
  }
  BOOST_TEST(app->invoke(J(R"({"input":"what is weather in sf"})")) ==
             J(R"({"input":"what is weather in sf","output":"what is weather in sf->right",
                   "steps":[]})"));
  auto chunks = updates(*app, J(R"({"input":"what is weather in sf"})"));
  BOOST_TEST(value(list(chunks.begin(), chunks.end())) ==
             J(R"([{"right":{"output":"what is weather in sf->right"}}])"));
}

// libs/langgraph/tests/test_pregel.py::test_callable_in_conditional_edges_with_no_path_map
BOOST_AUTO_TEST_CASE(test_callable_in_conditional_edges_with_no_path_map) {
  struct choose_analyzer {
    value operator()(const value&, node_context&) const { return value("analyzer"); }
  };
  BOOST_TEST(rewrite_then_analyze(choose_analyzer{}) ==
             J(R"({"query":"analyzed: query: what is weather in sf"})"));
}

// libs/langgraph/tests/test_pregel.py::test_function_in_conditional_edges_with_no_path_map
BOOST_AUTO_TEST_CASE(test_function_in_conditional_edges_with_no_path_map) {
  BOOST_TEST(rewrite_then_analyze([](const value&, node_context&) -> value {
               return value("analyzer");
             }) == J(R"({"query":"analyzed: query: what is weather in sf"})"));
}
