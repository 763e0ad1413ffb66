// LangGraph's libs/langgraph/tests/test_managed_values.py: a RemainingSteps key is a managed
// value, computed for each task rather than stored in a channel; see conformance.hpp.
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_managed_values.py::test_managed_values_recognized
// LangGraph checks `"remaining_steps" in graph.managed` for a plain, a NotRequired and a
// Required annotation; superstep has one way to declare the key (add_managed_key), and a key
// that is managed is no channel, is read by nodes and is absent from the state.
BOOST_AUTO_TEST_CASE(test_managed_values_recognized) {
  state_graph b;
  b.add_key("seen").add_managed_key("remaining_steps", managed_value::remaining_steps);
  b.add_node("node", [](const value& state, node_context&) -> value {
    return object{{"seen", state.get("remaining_steps")}};
  });
  b.add_edge("__start__", "node");
  auto graph = b.compile(opts_with_saver());
  BOOST_TEST(graph->graph().channels.count("remaining_steps") == 0u);
  BOOST_TEST(graph->graph().channels.count("seen") == 1u);
  const value cfg = object{{"configurable", object{{"thread_id", "1"}}}, {"recursion_limit", 5}};
  BOOST_TEST(graph->invoke(object{{"seen", 0}}, cfg).to_json() == R"({"seen":4})");
  BOOST_TEST(graph->get_state(cfg).values.to_json() == R"({"seen":4})");
}
