// LangGraph's graph descriptions and Mermaid drawings (libs/langgraph/tests/test_pregel.py,
// get_graph / draw_mermaid snapshots): the node and edge order, the implicit edges to END,
// labels of branches (subgraphs drawn inside their parent: drawing_xray_test.cpp).
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value same(const value& v, node_context&) { return v; }

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
  g.add_conditional_edges(
      "Chart Generator", router,
      {{"continue", "Researcher"}, {"call_tool", "Call Tool"}, {"end", "__end__"}});
  g.add_conditional_edges("Call Tool",
                          [](const value& st, node_context&) -> value { return st.get("sender"); },
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
  b.add_node("worker_node",
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

// libs/langgraph/tests/test_pregel.py::test_get_graph_nonterminal_last_step_source (the
// snapshot's keys are sorted: compared as values)
BOOST_AUTO_TEST_CASE(test_get_graph_nonterminal_last_step_source) {
  state_graph g;
  g.add_key("messages");
  auto append = [](std::string name) {
    return [name](const value& st, node_context&) -> value {
      list messages = st.get("messages").as_list();
      messages.emplace_back(name);
      return object{{"messages", value(std::move(messages))}};
    };
  };
  g.add_node("chatbot", append("chatbot")).add_node("tools", append("tools"));
  g.add_node("human", append("human"));
  g.add_edge("__start__", "human").add_edge("tools", "chatbot");
  g.add_conditional_edges("chatbot",
                          [](const value&, node_context&) -> value { return value("tools"); },
                          {{"tools", "tools"}, {"human", "human"}});
  g.add_conditional_edges("human",
                          [](const value&, node_context&) -> value { return value("chatbot"); },
                          {{"chatbot", "chatbot"}, {"__end__", "__end__"}});
  auto app = g.compile(opts());
  const char* json =
      R"json({
  "edges": [
    {
      "source": "__start__",
      "target": "human"
    },
    {
      "conditional": true,
      "source": "chatbot",
      "target": "human"
    },
    {
      "conditional": true,
      "source": "chatbot",
      "target": "tools"
    },
    {
      "conditional": true,
      "source": "human",
      "target": "__end__"
    },
    {
      "conditional": true,
      "source": "human",
      "target": "chatbot"
    },
    {
      "source": "tools",
      "target": "chatbot"
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
        "name": "chatbot"
      },
      "id": "chatbot",
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
        "name": "tools"
      },
      "id": "tools",
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
        "name": "human"
      },
      "id": "human",
      "type": "runnable"
    },
    {
      "id": "__end__"
    }
  ]
})json";
  BOOST_TEST(app->get_graph().to_json() == value::parse_json(json));
}
