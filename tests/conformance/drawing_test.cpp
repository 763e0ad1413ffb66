// LangGraph's graph descriptions and Mermaid drawings (libs/langgraph/tests/test_pregel.py,
// get_graph / draw_mermaid snapshots): the node and edge order, the implicit edges to END,
// labels of branches, and subgraphs drawn inside their parent (xray).
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value same(const value& v, node_context&) { return v; }
value nothing(const value&, node_context&) { return value(); }

// A router whose choice the drawing never sees.
value route_zero(const value&, node_context&) { return value("0"); }

// The JSON form of a description, as LangGraph's json.dumps(get_graph().to_json()) in the
// order LangGraph gives (compared as compact JSON, which keeps that order).
std::string json_of(const graph_description& g) { return g.to_json().to_json(); }
std::string snapshot_json(const char* text) { return value::parse_json(text).to_json(); }

// draw_mermaid(with_styles=False)
mermaid_options bare() {
  mermaid_options o;
  o.with_styles = false;
  return o;
}

// messages: Annotated[list, add_messages]
void add_messages_key(state_graph& g) { g.add_key("messages", "add_messages"); }

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_repeat_condition
BOOST_AUTO_TEST_CASE(test_repeat_condition) {
  state_graph g;
  g.add_key("hello");
  g.add_node("Researcher", same).add_node("Chart Generator", same).add_node("Call Tool", same);
  auto router = [](const value&, node_context&) -> value { return value("hmm"); };
  g.add_conditional_edges("Researcher", router,
                          {{"redo", "Researcher"},
                           {"continue", "Chart Generator"},
                           {"call_tool", "Call Tool"},
                           {"end", "__end__"}});
  g.add_conditional_edges("Chart Generator", router,
                          {{"continue", "Researcher"}, {"call_tool", "Call Tool"}, {"end", "__end__"}});
  g.add_conditional_edges(
      "Call Tool", [](const value& st, node_context&) -> value { return st.get("sender"); },
      {{"Researcher", "Researcher"}, {"Chart Generator", "Chart Generator"}});
  g.set_entry_point("Researcher");
  auto app = g.compile(opts());
  const std::string expected =
      "graph TD;\n"
      "\tCall\\20Tool -.-> Chart\\20Generator;\n"
      "\tCall\\20Tool -.-> Researcher;\n"
      "\tChart\\20Generator -. &nbsp;call_tool&nbsp; .-> Call\\20Tool;\n"
      "\tChart\\20Generator -. &nbsp;continue&nbsp; .-> Researcher;\n"
      "\tChart\\20Generator -. &nbsp;end&nbsp; .-> __end__;\n"
      "\tResearcher -. &nbsp;call_tool&nbsp; .-> Call\\20Tool;\n"
      "\tResearcher -. &nbsp;continue&nbsp; .-> Chart\\20Generator;\n"
      "\tResearcher -. &nbsp;end&nbsp; .-> __end__;\n"
      "\t__start__ --> Researcher;\n"
      "\tResearcher -. &nbsp;redo&nbsp; .-> Researcher;\n";
  BOOST_TEST(app->get_graph().draw_mermaid(bare()) == expected);
}

// libs/langgraph/tests/test_pregel.py::test_get_graph_self_loop
BOOST_AUTO_TEST_CASE(test_get_graph_self_loop) {
  state_graph sb;
  add_messages_key(sb);
  sb.add_node("agent", same).add_edge("__start__", "agent");
  auto subgraph = sb.compile(opts());
  state_graph b;
  add_messages_key(b);
  // worker_node runs the subgraph and goes to itself or to END with a Command.
  b.add_node(
      "worker_node",
      [subgraph](const value& st, node_context&) -> value {
        command c;
        c.update = subgraph->invoke(st);
        c.go_to = {value("__end__")};
        return make_command(c);
      },
      {.destinations = {"worker_node", "__end__"}});
  b.add_edge("__start__", "worker_node");
  auto app = b.compile(opts());
  const char* json =
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
      "id": "worker_node",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "worker_node"
      }
    },
    {
      "id": "__end__"
    }
  ],
  "edges": [
    {
      "source": "__start__",
      "target": "worker_node"
    },
    {
      "source": "worker_node",
      "target": "__end__",
      "conditional": true
    },
    {
      "source": "worker_node",
      "target": "worker_node",
      "conditional": true
    }
  ]
})json";
  BOOST_TEST(json_of(app->get_graph()) == snapshot_json(json));
  const std::string mermaid =
      "graph TD;\n"
      "\t__start__ --> worker_node;\n"
      "\tworker_node -.-> __end__;\n"
      "\tworker_node -.-> worker_node;\n";
  BOOST_TEST(app->get_graph().draw_mermaid(bare()) == mermaid);
}

// libs/langgraph/tests/test_pregel.py::test_get_graph_loop
BOOST_AUTO_TEST_CASE(test_get_graph_loop) {
  state_graph g;
  g.add_key("foo");
  g.add_node("human", [](const value&, node_context& ctx) -> value {
    return object{{"foo", ctx.interrupt(value())}};
  });
  g.add_node("agent", [](const value& st, node_context&) -> value {
    return object{{"foo", "Hi " + st.get("foo").as_string()}};
  });
  g.add_edge("__start__", "human").add_edge("human", "agent").add_edge("agent", "human");
  auto app = g.compile(opts());
  const char* json =
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
      "id": "human",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "human"
      }
    },
    {
      "id": "agent",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "_internal",
          "_runnable",
          "RunnableCallable"
        ],
        "name": "agent"
      }
    },
    {
      "id": "__end__"
    }
  ],
  "edges": [
    {
      "source": "__start__",
      "target": "human"
    },
    {
      "source": "agent",
      "target": "human"
    },
    {
      "source": "human",
      "target": "agent"
    },
    {
      "source": "agent",
      "target": "__end__",
      "conditional": true
    }
  ]
})json";
  BOOST_TEST(json_of(app->get_graph()) == snapshot_json(json));
  const std::string mermaid =
      "graph TD;\n"
      "\t__start__ --> human;\n"
      "\tagent --> human;\n"
      "\thuman --> agent;\n"
      "\tagent -.-> __end__;\n";
  BOOST_TEST(app->get_graph().draw_mermaid(bare()) == mermaid);
}

// libs/langgraph/tests/test_pregel.py::test_get_graph_root_channel
BOOST_AUTO_TEST_CASE(test_get_graph_root_channel) {
  state_graph cb;
  cb.add_key(std::string(ROOT));
  cb.add_node("child_node", same).add_edge("__start__", "child_node");
  auto child = cb.compile(opts());
  state_graph g;
  g.add_key(std::string(ROOT));
  g.add_node("child", child).add_edge("__start__", "child");
  auto app = g.compile(opts());
  const char* json =
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
      "id": "child",
      "type": "runnable",
      "data": {
        "id": [
          "langgraph",
          "graph",
          "state",
          "CompiledStateGraph"
        ],
        "name": "child"
      }
    },
    {
      "id": "__end__"
    }
  ],
  "edges": [
    {
      "source": "__start__",
      "target": "child"
    },
    {
      "source": "child",
      "target": "__end__"
    }
  ]
})json";
  BOOST_TEST(json_of(app->get_graph()) == snapshot_json(json));
  const std::string mermaid =
      "graph TD;\n"
      "\t__start__ --> child;\n"
      "\tchild --> __end__;\n";
  BOOST_TEST(app->get_graph().draw_mermaid(bare()) == mermaid);
}

namespace {

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

}  // namespace

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
  sb.add_conditional_edges(
      "one", [](const value&, node_context&) -> value { return value("two"); },
      {{"two", "two"}, {"three", "three"}});
  state_graph b;
  add_messages_key(b);
  b.add_node("uno", same).add_node("dos", same).add_node("subgraph", sb.compile(opts()));
  b.add_edge("__start__", "uno");
  b.add_conditional_edges(
      "uno", [](const value&, node_context&) -> value { return value("dos"); },
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
