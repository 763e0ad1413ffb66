// LangGraph's subgraph behaviour (issue 13, Subgraphs): Command.PARENT from a graph a node function
// invokes and at the top level. Runs in both execution modes against both savers (see
// tests/CMakeLists.txt).
#include <boost/test/unit_test.hpp>
#include <memory>
#include <mutex>
#include <string>

#include "coordinator/test_execution.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_timeout_with_parent_command (with_timeout=False;
// we have no step timeout).
BOOST_AUTO_TEST_CASE(test_timeout_with_parent_command) {
  state_graph b;
  b.add_key("value");
  b.add_node("parent_cmd", [](const value&, node_context&) -> value {
    return make_command(
        command{object{{"key", "value"}}, {value("test_cmd")}, {}, command::parent});
  });
  b.add_edge("__start__", "parent_cmd");
  compile_options o = test::opts();
  o.checkpointer = test::make_saver();
  auto graph = b.compile(o);
  try {
    graph->invoke(object{{"value", "start"}}, thread("1"));
    BOOST_FAIL("no ParentCommand error");
  } catch (const error& e) {
    BOOST_TEST_REQUIRE((e.code() == error_code::parent_command), e.what());
    auto cmd = as_command(value::parse_json(e.what()));
    BOOST_TEST_REQUIRE(cmd.has_value(), e.what());
    BOOST_TEST_REQUIRE(cmd->go_to.size() == 1u);
    BOOST_TEST(cmd->go_to[0].to_json() == R"("test_cmd")");
    BOOST_TEST(cmd->update.to_json() == R"({"key":"value"})");
  }
}

// LangGraph: a graph invoked inside a node function inherits the node's config, so its
// Command.PARENT is a ParentCommand the runner applies to the node's graph
// (langgraph/pregel/_runner.py, ParentCommand handling); no dedicated LangGraph test.
BOOST_AUTO_TEST_CASE(a_command_for_the_parent_from_a_graph_invoked_in_a_node_applies_to_its_graph) {
  state_graph ib;
  ib.add_key("foo");
  ib.add_node("inner", [](const value&, node_context&) -> value {
    return make_command(
        command{object{{"foo", "from inner"}}, {value("after")}, {}, command::parent});
  });
  ib.add_edge("__start__", "inner");
  std::shared_ptr<pregel> inner = ib.compile(test::opts());

  state_graph b;
  b.add_key("foo").add_key("trail", "append");
  b.add_node(
      "call", [inner](const value& st, node_context&) -> value { return inner->invoke(st); },
      node_options{.destinations = {"after"}});
  b.add_node("after", [](const value& st, node_context&) -> value {
    return object{{"trail", value::array({st.get("foo")})}};
  });
  b.add_edge("__start__", "call");
  compile_options o = test::opts();
  o.checkpointer = test::make_saver();
  auto graph = b.compile(o);
  BOOST_TEST(graph->invoke(object{{"foo", ""}, {"trail", list{}}}, thread("t")).to_json() ==
             R"({"foo":"from inner","trail":["from inner"]})");
}
