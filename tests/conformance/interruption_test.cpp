// LangGraph's libs/langgraph/tests/test_interruption.py: interrupt_after="*" on nodes that
// write nothing, under each durability; see conformance.hpp.
#include <string>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

// libs/langgraph/tests/test_interruption.py::test_interruption_without_state_updates
BOOST_AUTO_TEST_CASE(test_interruption_without_state_updates) {
  for (const char* durability : {"sync", "async", "exit"}) {
    state_graph b;
    b.add_key("input");
    for (const char* n : {"step_1", "step_2", "step_3"})
      b.add_node(n, [](const value&, node_context&) -> value { return value(); });
    b.add_edge("__start__", "step_1")
        .add_edge("step_1", "step_2")
        .add_edge("step_2", "step_3")
        .add_edge("step_3", "__end__");
    compile_options o = opts_with_saver();
    o.interrupt_after = {"*"};
    auto graph = b.compile(o);
    const value cfg =
        object{{"configurable", object{{"thread_id", "1"}}}, {"durability", durability}};
    const bool exit = std::string(durability) == "exit";

    graph->invoke(object{{"input", "hello world"}}, cfg);
    BOOST_TEST((graph->get_state(cfg).next == strings{"step_2"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 1u : 3u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST((graph->get_state(cfg).next == strings{"step_3"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 2u : 4u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST(graph->get_state(cfg).next.empty(), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 3u : 5u), durability);
  }
}
