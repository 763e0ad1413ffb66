// LangGraph's drawings of subgraphs inside their parent (libs/langgraph/tests/test_pregel.py,
// get_graph(xray=...) snapshots): "<node>:<subgraph node>" ids, subgraph START and END kept
// or trimmed as LangGraph's, `subgraph` blocks in Mermaid.
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value same(const value& v, node_context&) { return v; }
value nothing(const value&, node_context&) { return value(); }

// A router whose choice the drawing never sees.
value route_zero(const value&, node_context&) { return value("0"); }

// messages: Annotated[list, add_messages]
void add_messages_key(state_graph& g) { g.add_key("messages", "add_messages"); }

// The child graph of test_xray_issue and test_xray_bool: c_one loops through c_two or ends.
std::shared_ptr<pregel> xray_child() {
  state_graph child;
  add_messages_key(child);
  child.add_node("c_one", nothing).add_node("c_two", nothing);
  child.add_edge("__start__", "c_one").add_edge("c_two", "c_one");
  child.add_conditional_edges("c_one", route_zero, {{"0", "c_two"}, {"1", "__end__"}});
  return child.compile(opts());
}

// The parent graph: p_one loops through the child (as node p_two) or ends.
std::shared_ptr<pregel> xray_parent() {
  state_graph parent;
  add_messages_key(parent);
  parent.add_node("p_one", nothing).add_node("p_two", xray_child());
  parent.add_edge("__start__", "p_one").add_edge("p_two", "p_one");
  parent.add_conditional_edges("p_one", route_zero, {{"0", "p_two"}, {"1", "__end__"}});
  return parent.compile(opts());
}

// The interview graph of test_xray_lance: questions and answers until the router ends it.
std::shared_ptr<pregel> interview_graph() {
  state_graph ib;
  ib.add_key("messages", "add_messages").add_key("analyst").add_key("section");
  ib.add_node("ask_question", nothing).add_node("answer_question", nothing);
  ib.add_edge("__start__", "ask_question").add_edge("ask_question", "answer_question");
  ib.add_conditional_edges(
      "answer_question", [](const value&, node_context&) -> value { return value("ask_question"); },
      {{"ask_question", "ask_question"}, {"__end__", "__end__"}});
  return ib.compile(opts());
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_xray_lance (syrupy's dict snapshots, compared as
// values; the pydantic models of the state are incidental)
BOOST_AUTO_TEST_CASE(test_xray_lance) {
  BOOST_TEST(interview_graph()->get_graph().to_json() == value::parse_json(
                                                             R"json({"nodes": [
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "__start__"}, "id": "__start__", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "ask_question"}, "id": "ask_question", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "answer_question"}, "id": "answer_question", "type": "runnable"},
  {"id": "__end__"}
], "edges": [
  {"source": "__start__", "target": "ask_question"},
  {"conditional": true, "source": "answer_question", "target": "__end__"},
  {"conditional": true, "source": "answer_question", "target": "ask_question"},
  {"source": "ask_question", "target": "answer_question"}
]})json"));
  state_graph b;
  b.add_key("analysts").add_key("topic").add_key("max_analysts").add_key("sections");
  b.add_key("interviews", "add");
  b.add_node("generate_analysts", nothing).add_node("conduct_interview", interview_graph());
  b.add_node("generate_sections", nothing);
  b.add_edge("__start__", "generate_analysts");
  b.add_conditional_edges(
      "generate_analysts",
      [](const value& st, node_context&) -> value {
        list sends;
        for (std::size_t i = 0; i < st.get("analysts").as_list().size(); ++i)
          sends.push_back(make_send("conduct_interview", object{{"analyst", object{}}}));
        return value(std::move(sends));
      },
      {{"conduct_interview", "conduct_interview"}});
  b.add_edge("conduct_interview", "generate_sections").add_edge("generate_sections", "__end__");
  auto graph = b.compile(opts());
  BOOST_TEST(graph->get_graph().to_json() == value::parse_json(
                                                 R"json({"nodes": [
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "__start__"}, "id": "__start__", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "generate_analysts"}, "id": "generate_analysts", "type": "runnable"},
  {"data": {"id": ["langgraph", "graph", "state", "CompiledStateGraph"], "name": "conduct_interview"}, "id": "conduct_interview", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "generate_sections"}, "id": "generate_sections", "type": "runnable"},
  {"id": "__end__"}
], "edges": [
  {"source": "__start__", "target": "generate_analysts"},
  {"source": "conduct_interview", "target": "generate_sections"},
  {"conditional": true, "source": "generate_analysts", "target": "conduct_interview"},
  {"source": "generate_sections", "target": "__end__"}
]})json"));
  BOOST_TEST(graph->get_graph(1).to_json() == value::parse_json(
                                                  R"json({"nodes": [
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "__start__"}, "id": "__start__", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "generate_analysts"}, "id": "generate_analysts", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "generate_sections"}, "id": "generate_sections", "type": "runnable"},
  {"id": "__end__"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "conduct_interview:__start__"}, "id": "conduct_interview:__start__", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "conduct_interview:ask_question"}, "id": "conduct_interview:ask_question", "type": "runnable"},
  {"data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"], "name": "conduct_interview:answer_question"}, "id": "conduct_interview:answer_question", "type": "runnable"},
  {"id": "conduct_interview:__end__"}
], "edges": [
  {"source": "__start__", "target": "generate_analysts"},
  {"source": "conduct_interview:__end__", "target": "generate_sections"},
  {"conditional": true, "source": "generate_analysts", "target": "conduct_interview:__start__"},
  {"source": "generate_sections", "target": "__end__"},
  {"source": "conduct_interview:__start__", "target": "conduct_interview:ask_question"},
  {"conditional": true, "source": "conduct_interview:answer_question", "target": "conduct_interview:__end__"},
  {"conditional": true, "source": "conduct_interview:answer_question", "target": "conduct_interview:ask_question"},
  {"source": "conduct_interview:ask_question", "target": "conduct_interview:answer_question"}
]})json"));
}

// libs/langgraph/tests/test_pregel.py::test_xray_issue
BOOST_AUTO_TEST_CASE(test_xray_issue) {
  const std::string expected =
      "---\n"
      "config:\n"
      "  flowchart:\n"
      "    curve: linear\n"
      "---\n"
      "graph TD;\n"
      "\t__start__([<p>__start__</p>]):::first\n"
      "\tp_one(p_one)\n"
      "\t__end__([<p>__end__</p>]):::last\n"
      "\t__start__ --> p_one;\n"
      "\tp_one -. &nbsp;1&nbsp; .-> __end__;\n"
      "\tp_one -. &nbsp;0&nbsp; .-> p_two\\3a__start__;\n"
      "\tp_two\\3a__end__ --> p_one;\n"
      "\tsubgraph p_two\n"
      "\tp_two\\3a__start__(<p>__start__</p>)\n"
      "\tp_two\\3ac_one(c_one)\n"
      "\tp_two\\3ac_two(c_two)\n"
      "\tp_two\\3a__end__(<p>__end__</p>)\n"
      "\tp_two\\3a__start__ --> p_two\\3ac_one;\n"
      "\tp_two\\3ac_one -. &nbsp;1&nbsp; .-> p_two\\3a__end__;\n"
      "\tp_two\\3ac_one -. &nbsp;0&nbsp; .-> p_two\\3ac_two;\n"
      "\tp_two\\3ac_two --> p_two\\3ac_one;\n"
      "\tend\n"
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  BOOST_TEST(xray_parent()->get_graph(-1).draw_mermaid() == expected);
}

// libs/langgraph/tests/test_pregel.py::test_xray_bool
BOOST_AUTO_TEST_CASE(test_xray_bool) {
  state_graph gp;
  add_messages_key(gp);
  gp.add_node("gp_one", nothing).add_node("gp_two", xray_parent());
  gp.add_edge("__start__", "gp_one").add_edge("gp_two", "gp_one");
  gp.add_conditional_edges("gp_one", route_zero, {{"0", "gp_two"}, {"1", "__end__"}});
  auto app = gp.compile(opts());
  const std::string expected =
      "---\n"
      "config:\n"
      "  flowchart:\n"
      "    curve: linear\n"
      "---\n"
      "graph TD;\n"
      "\t__start__([<p>__start__</p>]):::first\n"
      "\tgp_one(gp_one)\n"
      "\t__end__([<p>__end__</p>]):::last\n"
      "\t__start__ --> gp_one;\n"
      "\tgp_one -. &nbsp;1&nbsp; .-> __end__;\n"
      "\tgp_one -. &nbsp;0&nbsp; .-> gp_two\\3a__start__;\n"
      "\tgp_two\\3a__end__ --> gp_one;\n"
      "\tsubgraph gp_two\n"
      "\tgp_two\\3a__start__(<p>__start__</p>)\n"
      "\tgp_two\\3ap_one(p_one)\n"
      "\tgp_two\\3a__end__(<p>__end__</p>)\n"
      "\tgp_two\\3a__start__ --> gp_two\\3ap_one;\n"
      "\tgp_two\\3ap_one -. &nbsp;1&nbsp; .-> gp_two\\3a__end__;\n"
      "\tgp_two\\3ap_one -. &nbsp;0&nbsp; .-> gp_two\\3ap_two\\3a__start__;\n"
      "\tgp_two\\3ap_two\\3a__end__ --> gp_two\\3ap_one;\n"
      "\tsubgraph p_two\n"
      "\tgp_two\\3ap_two\\3a__start__(<p>__start__</p>)\n"
      "\tgp_two\\3ap_two\\3ac_one(c_one)\n"
      "\tgp_two\\3ap_two\\3ac_two(c_two)\n"
      "\tgp_two\\3ap_two\\3a__end__(<p>__end__</p>)\n"
      "\tgp_two\\3ap_two\\3a__start__ --> gp_two\\3ap_two\\3ac_one;\n"
      "\tgp_two\\3ap_two\\3ac_one -. &nbsp;1&nbsp; .-> gp_two\\3ap_two\\3a__end__;\n"
      "\tgp_two\\3ap_two\\3ac_one -. &nbsp;0&nbsp; .-> gp_two\\3ap_two\\3ac_two;\n"
      "\tgp_two\\3ap_two\\3ac_two --> gp_two\\3ap_two\\3ac_one;\n"
      "\tend\n"
      "\tend\n"
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  BOOST_TEST(app->get_graph(-1).draw_mermaid() == expected);
}

// libs/langgraph/tests/test_pregel.py::test_multiple_sinks_subgraphs
BOOST_AUTO_TEST_CASE(test_multiple_sinks_subgraphs) {
  state_graph sb;
  add_messages_key(sb);
  sb.add_node("one", same).add_node("two", same).add_node("three", same);
  sb.add_edge("__start__", "one");
  sb.add_conditional_edges("one", [](const value&, node_context&) -> value { return value("two"); },
                           {{"two", "two"}, {"three", "three"}});
  state_graph b;
  add_messages_key(b);
  b.add_node("uno", same).add_node("dos", same).add_node("subgraph", sb.compile(opts()));
  b.add_edge("__start__", "uno");
  b.add_conditional_edges("uno", [](const value&, node_context&) -> value { return value("dos"); },
                          {{"dos", "dos"}, {"subgraph", "subgraph"}});
  auto app = b.compile(opts());
  const std::string expected =
      "---\n"
      "config:\n"
      "  flowchart:\n"
      "    curve: linear\n"
      "---\n"
      "graph TD;\n"
      "\t__start__([<p>__start__</p>]):::first\n"
      "\tuno(uno)\n"
      "\tdos(dos)\n"
      "\t__end__([<p>__end__</p>]):::last\n"
      "\t__start__ --> uno;\n"
      "\tuno -.-> dos;\n"
      "\tuno -.-> subgraph\\3aone;\n"
      "\tdos --> __end__;\n"
      "\tsubgraph\\3a__end__ --> __end__;\n"
      "\tsubgraph subgraph\n"
      "\tsubgraph\\3aone(one)\n"
      "\tsubgraph\\3atwo(two)\n"
      "\tsubgraph\\3athree(three)\n"
      "\tsubgraph\\3a__end__(<p>__end__</p>)\n"
      "\tsubgraph\\3aone -.-> subgraph\\3athree;\n"
      "\tsubgraph\\3aone -.-> subgraph\\3atwo;\n"
      "\tsubgraph\\3athree --> subgraph\\3a__end__;\n"
      "\tsubgraph\\3atwo --> subgraph\\3a__end__;\n"
      "\tend\n"
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  BOOST_TEST(app->get_graph(-1).draw_mermaid() == expected);
}

// libs/langgraph/tests/test_pregel.py::test_nested_graph_xray (the JSON snapshot is syrupy's
// dict form, with sorted keys: compared as values)
BOOST_AUTO_TEST_CASE(test_nested_graph_xray) {
  auto logic = [](const value&, node_context&) -> value { return value(); };
  auto build = [](state_graph& g) { g.add_key("my_key", "add").add_key("market"); };
  state_graph tb;
  build(tb);
  tb.add_node("tool_two_slow", logic).add_node("tool_two_fast", logic);
  tb.add_conditional_edges(
      "__start__",
      [](const value& s, node_context&) -> value {
        return value(s.get("market") == value("DE") ? "tool_two_slow" : "tool_two_fast");
      },
      {{"tool_two_slow", "tool_two_slow"}, {"tool_two_fast", "tool_two_fast"}});
  state_graph g;
  build(g);
  g.add_node("tool_one", logic).add_node("tool_two", tb.compile(opts()));
  g.add_node("tool_three", logic);
  g.add_conditional_edges(
      "__start__", [](const value&, node_context&) -> value { return value("tool_one"); },
      {{"tool_one", "tool_one"}, {"tool_two", "tool_two"}, {"tool_three", "tool_three"}});
  auto app = g.compile(opts());
  const char* json = R"json({
  "edges": [
    {
      "conditional": true,
      "source": "__start__",
      "target": "tool_one"
    },
    {
      "conditional": true,
      "source": "__start__",
      "target": "tool_three"
    },
    {
      "conditional": true,
      "source": "__start__",
      "target": "tool_two:__start__"
    },
    {
      "source": "tool_one",
      "target": "__end__"
    },
    {
      "source": "tool_three",
      "target": "__end__"
    },
    {
      "source": "tool_two:__end__",
      "target": "__end__"
    },
    {
      "conditional": true,
      "source": "tool_two:__start__",
      "target": "tool_two:tool_two_fast"
    },
    {
      "conditional": true,
      "source": "tool_two:__start__",
      "target": "tool_two:tool_two_slow"
    },
    {
      "source": "tool_two:tool_two_fast",
      "target": "tool_two:__end__"
    },
    {
      "source": "tool_two:tool_two_slow",
      "target": "tool_two:__end__"
    }
  ],
  "nodes": [
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "__start__"
      },
      "id": "__start__",
      "type": "runnable"
    },
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "tool_one"
      },
      "id": "tool_one",
      "type": "runnable"
    },
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "tool_three"
      },
      "id": "tool_three",
      "type": "runnable"
    },
    {
      "id": "__end__"
    },
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "tool_two:__start__"
      },
      "id": "tool_two:__start__",
      "type": "runnable"
    },
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "tool_two:tool_two_slow"
      },
      "id": "tool_two:tool_two_slow",
      "type": "runnable"
    },
    {
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "tool_two:tool_two_fast"
      },
      "id": "tool_two:tool_two_fast",
      "type": "runnable"
    },
    {
      "id": "tool_two:__end__"
    }
  ]
})json";
  BOOST_TEST(app->get_graph(-1).to_json() == value::parse_json(json));
  const std::string mermaid =
      "---\n"
      "config:\n"
      "  flowchart:\n"
      "    curve: linear\n"
      "---\n"
      "graph TD;\n"
      "\t__start__([<p>__start__</p>]):::first\n"
      "\ttool_one(tool_one)\n"
      "\ttool_three(tool_three)\n"
      "\t__end__([<p>__end__</p>]):::last\n"
      "\t__start__ -.-> tool_one;\n"
      "\t__start__ -.-> tool_three;\n"
      "\t__start__ -.-> tool_two\\3a__start__;\n"
      "\ttool_one --> __end__;\n"
      "\ttool_three --> __end__;\n"
      "\ttool_two\\3a__end__ --> __end__;\n"
      "\tsubgraph tool_two\n"
      "\ttool_two\\3a__start__(<p>__start__</p>)\n"
      "\ttool_two\\3atool_two_slow(tool_two_slow)\n"
      "\ttool_two\\3atool_two_fast(tool_two_fast)\n"
      "\ttool_two\\3a__end__(<p>__end__</p>)\n"
      "\ttool_two\\3a__start__ -.-> tool_two\\3atool_two_fast;\n"
      "\ttool_two\\3a__start__ -.-> tool_two\\3atool_two_slow;\n"
      "\ttool_two\\3atool_two_fast --> tool_two\\3a__end__;\n"
      "\ttool_two\\3atool_two_slow --> tool_two\\3a__end__;\n"
      "\tend\n"
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  BOOST_TEST(app->get_graph(-1).draw_mermaid() == mermaid);
}
