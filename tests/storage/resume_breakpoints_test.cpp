// Resuming past breakpoints and forks as LangGraph does: Command(resume) with no pending
// interrupt, Command(goto) on resume, update_state as END and __copy__, interrupt_after "*",
// and new input discarding the tasks a thread had left. Runs against both savers and both
// execution modes (tests/CMakeLists.txt).
#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

using test::resume;

value go_to(std::vector<value> nodes) {
  command c;
  c.go_to = std::move(nodes);
  return make_command(c);
}

compile_options with_saver(std::vector<std::string> before = {},
                           std::vector<std::string> after = {}) {
  compile_options o = test::opts();
  o.checkpointer = test::make_saver();
  o.interrupt_before = std::move(before);
  o.interrupt_after = std::move(after);
  return o;
}

// Nodes that append their name to `foo` (an `add` key), as LangGraph's static-breakpoint
// tests do.
state_graph node1_node2() {
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node1", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-1"}};
  });
  b.add_node("node2", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  return b;
}

}  // namespace

// Not a LangGraph test: Command(goto) together with a resume value, at a static breakpoint and
// at a dynamic interrupt. The goto target runs alongside the resumed node, then again after it.
BOOST_AUTO_TEST_CASE(
    a_command_with_resume_and_goto_runs_the_goto_target_alongside_the_resumed_node) {
  command c;
  c.resume = value("x");
  c.go_to = {value("node2")};
  {
    auto graph = node1_node2().compile(with_saver({"node1"}));
    graph->invoke(object{{"foo", "abc"}}, thread("1"));
    BOOST_TEST(graph->invoke(make_command(c), thread("1")).to_json() ==
               R"({"foo":"abc|node-1|node-2|node-2"})");
  }
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node1", [](const value&, node_context& ctx) -> value {
    return object{{"foo", "|node-1:" + ctx.interrupt("q").as_string()}};
  });
  b.add_node("node2", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  auto graph = b.compile(with_saver());
  graph->invoke(object{{"foo", "abc"}}, thread("1"));
  BOOST_TEST(graph->invoke(make_command(c), thread("1")).to_json() ==
             R"({"foo":"abc|node-1:x|node-2|node-2"})");
}

BOOST_AUTO_TEST_CASE(a_command_goto_to_an_unknown_node_is_rejected_naming_it) {
  auto graph = node1_node2().compile(with_saver({"node1"}));
  graph->invoke(object{{"foo", "abc"}}, thread("1"));
  try {
    graph->invoke(go_to({value("nodeX")}), thread("1"));
    BOOST_FAIL("goto to an unknown node ran");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
    BOOST_TEST(std::string(e.what()).find("unknown node 'nodeX'") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_resume_on_a_thread_with_no_checkpoint_is_rejected_naming_the_thread) {
  auto graph = node1_node2().compile(with_saver());
  try {
    graph->invoke(resume("x"), thread("empty"));
    BOOST_FAIL("a resume of a thread with no checkpoint ran");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
    BOOST_TEST(std::string(e.what()).find("thread empty has no checkpoint") != std::string::npos,
               e.what());
  }
}
