// What compile() accepts, as LangGraph's StateGraph.validate does: a node reached only
// through a Command's goto, a join edge into END. Runs under both execution modes.
#include <boost/test/unit_test.hpp>

#include "superstep/coordinator/send.hpp"
#include "superstep/coordinator/state_graph.hpp"
#include "test_execution.hpp"

using namespace superstep;

namespace {

value goto_with_update(const char* to, value update) {
  command c;
  c.go_to = {value(to)};
  c.update = std::move(update);
  return make_command(c);
}

}  // namespace

// LangGraph libs/langgraph/tests/test_pregel.py: test_graph_validation_with_command
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
  auto graph = builder.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"foo", ""}}).to_json() == R"({"foo":"bar","bar":"baz"})");
}

// LangGraph libs/langgraph/tests/test_pregel.py: test_conditional_state_graph_with_list_edge_inputs
// (not asserted: the drawn graph's JSON and Mermaid snapshots)
BOOST_AUTO_TEST_CASE(test_conditional_state_graph_with_list_edge_inputs) {
  state_graph builder;
  builder.add_key("foo", "append");
  builder.add_node("A", [](const value&, node_context&) -> value {
    return object{{"foo", value::array({"A"})}};
  });
  builder.add_node("B", [](const value&, node_context&) -> value {
    return object{{"foo", value::array({"B"})}};
  });
  builder.add_edge("__start__", "A");
  builder.add_edge("__start__", "B");
  builder.add_edge(std::vector<std::string>{"A", "B"}, "__end__");
  auto app = builder.compile(test::opts());
  BOOST_TEST(app->invoke(object{{"foo", list{}}}).to_json() == R"({"foo":["A","B"]})");
}
