// libs/langgraph/tests/test_pregel.py: Sends from routers and Commands, on a state of one value
// (StateGraph(Annotated[list, operator.add])).
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

// LangGraph's test Node: returns [name] when given the state, [name|arg] when given a Send's
// argument (Python's str(arg) is our JSON of it).
node_function named(std::string name) {
  return [name](const value& state, node_context&) -> value {
    if (state.is_list()) return value::array({name});
    return value::array({name + "|" + (state.is_string() ? state.as_string() : state.to_json())});
  };
}

router_function route_to(std::string node) {
  return [node](const value&, node_context&) -> value { return value(node); };
}

value go_to(value target) {
  command c;
  c.go_to = {std::move(target)};
  return make_command(c);
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_cond_edge_after_send
BOOST_AUTO_TEST_CASE(test_cond_edge_after_send) {
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  builder.add_node("1", named("1")).add_node("2", named("2")).add_node("3", named("3"));
  builder.add_edge(std::string(START), "1");
  builder.add_conditional_edges("1", [](const value& state, node_context&) -> value {
    return value::array({make_send("2", state), make_send("2", state)});
  });
  builder.add_conditional_edges("2", route_to("3"));
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(J(R"(["0"])")) == J(R"(["0","1","2","2","3"])"));
}

// libs/langgraph/tests/test_pregel.py::test_concurrent_emit_sends
BOOST_AUTO_TEST_CASE(test_concurrent_emit_sends) {
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  for (const char* n : {"1", "1.1", "2", "3", "3.1"}) builder.add_node(n, named(n));
  builder.add_edge(std::string(START), "1");
  builder.add_edge(std::string(START), "1.1");
  builder.add_conditional_edges("1", [](const value&, node_context&) -> value {
    return value::array({make_send("2", 1), make_send("2", 2), "3.1"});
  });
  builder.add_conditional_edges("1.1", [](const value&, node_context&) -> value {
    return value::array({make_send("2", 3), make_send("2", 4)});
  });
  builder.add_conditional_edges("2", route_to("3"));
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(J(R"(["0"])")) ==
             J(R"(["0","1","1.1","3.1","2|1","2|2","2|3","2|4","3"])"));
}

// libs/langgraph/tests/test_pregel.py::test_send_sequences (a node given a Command returns it
// and its own update)
BOOST_AUTO_TEST_CASE(test_send_sequences) {
  auto node = [](std::string name) -> node_function {
    return [name](const value& state, node_context& ctx) -> value {
      value update = named(name)(state, ctx);
      if (!as_command(state)) return update;
      command own;
      own.update = update;
      return value::array({state, make_command(own)});
    };
  };
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  for (const char* n : {"1", "2", "3", "3.1"}) builder.add_node(n, node(n));
  builder.add_edge(std::string(START), "1");
  builder.add_conditional_edges("1", [](const value&, node_context&) -> value {
    return value::array({make_send("2", go_to(make_send("2", 3))),
                         make_send("2", go_to(make_send("2", 4))), "3.1"});
  });
  builder.add_conditional_edges("2", route_to("3"));
  auto graph = builder.compile(opts());
  const std::string cmd3 = go_to(make_send("2", 3)).to_json();
  const std::string cmd4 = go_to(make_send("2", 4)).to_json();
  BOOST_TEST(graph->invoke(J(R"(["0"])")) ==
             value::array({"0", "1", "3.1", "2|" + cmd3, "2|" + cmd4, "3", "2|3", "2|4", "3"}));
}

// Not a LangGraph test: a Send in the object form that JSON shows ({"__send__": node, "arg":
// arg}, as a Send saved before Sends had a kind of their own reads back) still starts its task,
// beside Sends made by make_send, in the order given; one with a timeout that is not one is
// refused naming the node.
BOOST_AUTO_TEST_CASE(sends_in_their_object_form_start_tasks_too) {
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  for (const char* n : {"1", "2"}) builder.add_node(n, named(n));
  builder.add_edge(std::string(START), "1");
  builder.add_conditional_edges("1", [](const value&, node_context&) -> value {
    return value::array({J(R"({"__send__":"2","arg":5})"), make_send("2", 6),
                         J(R"({"__send__":"2","arg":7,"timeout":{"run_timeout_ms":60000}})")});
  });
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(J(R"(["0"])")) == J(R"(["0","1","2|5","2|6","2|7"])"));

  state_graph bad;
  bad.add_key(std::string(ROOT), "add");
  for (const char* n : {"1", "2"}) bad.add_node(n, named(n));
  bad.add_edge(std::string(START), "1");
  bad.add_conditional_edges("1", [](const value&, node_context&) -> value {
    return value::array({J(R"({"__send__":"2","arg":5,"timeout":{"run_timeout_ms":"soon"}})")});
  });
  auto refused = bad.compile(opts());
  try {
    (void)refused->invoke(J(R"(["0"])"));
    BOOST_FAIL("a Send with a bad timeout ran");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("the timeout of a Send to '2'") != std::string::npos,
               e.what());
  }
}
