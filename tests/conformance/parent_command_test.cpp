// LangGraph's libs/langgraph/tests/test_parent_command.py: a Command(graph=PARENT) returned by
// a graph invoked from inside a node routes the node's own graph; see conformance.hpp.
#include <stdexcept>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_parent_command.py::test_parent_command_from_nested_subgraph
BOOST_AUTO_TEST_CASE(test_parent_command_from_nested_subgraph) {
  state_graph child;
  child.add_key("jump");
  child.add_node("node", [](const value& state, node_context&) -> value {
    if (state.get("jump").as_bool()) {
      command c;
      c.graph = command::parent;
      c.go_to = {value("parent_second")};
      return make_command(c);
    }
    return state;
  });
  child.add_edge("__start__", "node");
  auto child_0 = child.compile(opts());
  auto child_1 = child.compile(opts());

  state_graph parent;
  parent.add_key("jump_from_idx");
  parent.add_node("parent_first", [&](const value& state, node_context&) -> value {
    const std::int64_t idx = state.get("jump_from_idx").as_int();
    child_0->invoke(object{{"jump", idx == 1}});
    if (idx == 1) throw std::runtime_error("Shouldn't be here");
    child_1->invoke(object{{"jump", idx == 2}});
    if (idx == 2) throw std::runtime_error("Shouldn't be here");
    return state;
  });
  parent.add_node("parent_second",
                  [](const value& state, node_context&) -> value { return state; });
  parent.add_edge("__start__", "parent_first").add_edge("parent_second", "__end__");
  auto graph = parent.compile(opts());

  BOOST_TEST(graph->invoke(object{{"jump_from_idx", 1}}).to_json() == R"({"jump_from_idx":1})");
  BOOST_TEST(graph->invoke(object{{"jump_from_idx", 2}}).to_json() == R"({"jump_from_idx":2})");
}
