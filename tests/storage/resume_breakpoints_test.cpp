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
#include "superstep/coordinator/send.hpp"
#include "superstep/coordinator/state_graph.hpp"
#include "superstep/core/error.hpp"
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

// LangGraph test_pregel.py, test_command_with_static_breakpoints.
BOOST_AUTO_TEST_CASE(test_command_with_static_breakpoints) {
  state_graph b;
  b.add_key("foo");
  b.add_node("node1", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "|node-1"}};
  });
  b.add_node("node2", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  auto graph = b.compile(with_saver({"node1"}));
  const value cfg = thread("1");
  graph->invoke(object{{"foo", "abc"}}, cfg);
  BOOST_TEST(graph->invoke(resume("node1"), cfg).to_json() == R"({"foo":"abc|node-1|node-2"})");
}

// LangGraph test_pregel.py, test_command_goto_with_static_breakpoints.
BOOST_AUTO_TEST_CASE(test_command_goto_with_static_breakpoints) {
  auto graph = node1_node2().compile(with_saver({"node1"}));
  const value cfg = thread("1");
  graph->invoke(object{{"foo", "abc"}}, cfg);
  BOOST_TEST(graph->invoke(go_to({value("node2")}), cfg).to_json() ==
             R"({"foo":"abc|node-1|node-2|node-2"})");
}

// LangGraph test_large_cases.py, test_dynamic_interrupt (with a checkpointer: "clear the
// interrupt and next tasks" with update_state(None, as_node=END)).
BOOST_AUTO_TEST_CASE(test_dynamic_interrupt) {
  state_graph b;
  b.add_key("my_key", "add").add_key("market");
  b.add_node("tool_two", [](const value& s, node_context& ctx) -> value {
    value answer =
        s.get("market") == value("DE") ? ctx.interrupt("Just because...") : value(" all good");
    return object{{"my_key", answer}};
  });
  b.add_edge("__start__", "tool_two");
  auto graph = b.compile(with_saver());

  const value thread2 = thread("2");
  graph->invoke(object{{"my_key", "value"}, {"market", "DE"}}, thread2);
  BOOST_TEST(graph->invoke(resume(" my answer"), thread2).get("my_key") ==
             value("value my answer"));

  const value thread1 = thread("1");
  value r = graph->invoke(object{{"my_key", "value"}, {"market", "DE"}}, thread1);
  BOOST_TEST_REQUIRE(r.get("__interrupt__").is_list());
  state_snapshot interrupted = graph->get_state(thread1);
  BOOST_TEST((interrupted.next == std::vector<std::string>{"tool_two"}));
  BOOST_TEST_REQUIRE(interrupted.tasks.size() == 1u);
  BOOST_TEST(interrupted.tasks[0].interrupts.size() == 1u);

  // Clear the interrupt and the next tasks.
  graph->update_state(thread1, value(), std::string("__end__"));
  state_snapshot cleared = graph->get_state(thread1);
  BOOST_TEST(cleared.values.to_json() == R"({"my_key":"value","market":"DE"})");
  BOOST_TEST(cleared.next.empty());
  BOOST_TEST(cleared.tasks.empty());
  BOOST_TEST(cleared.metadata.get("source") == value("update"));
  BOOST_TEST(cleared.metadata.get("step") == value(interrupted.metadata.get("step").as_int() + 1));
  BOOST_TEST_REQUIRE(cleared.parent_config.has_value());
  BOOST_TEST(cleared.parent_config->checkpoint_id == interrupted.config.checkpoint_id);
}

// LangGraph test_interruption.py, test_interruption_without_state_updates (sync and exit
// durability).
BOOST_AUTO_TEST_CASE(test_interruption_without_state_updates) {
  for (const char* durability : {"sync", "exit"}) {
    state_graph b;
    b.add_key("input");
    for (const char* n : {"step_1", "step_2", "step_3"})
      b.add_node(n, [](const value&, node_context&) -> value { return value(); });
    b.add_edge("__start__", "step_1")
        .add_edge("step_1", "step_2")
        .add_edge("step_2", "step_3")
        .add_edge("step_3", "__end__");
    auto graph = b.compile(with_saver({}, {"*"}));
    value cfg = object{{"configurable", object{{"thread_id", "1"}}}, {"durability", durability}};
    const bool exit = std::string(durability) == "exit";

    graph->invoke(object{{"input", "hello world"}}, cfg);
    BOOST_TEST((graph->get_state(cfg).next == std::vector<std::string>{"step_2"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 1u : 3u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST((graph->get_state(cfg).next == std::vector<std::string>{"step_3"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 2u : 4u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST(graph->get_state(cfg).next.empty(), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 3u : 5u), durability);
  }
}

// LangGraph test_large_cases.py, test_invoke_two_processes_in_out_interrupt (as a state graph:
// `one` writes input + 1 to inbox, `two` writes inbox + 1 to output, interrupt after `one`).
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_in_out_interrupt) {
  state_graph b;
  b.add_key("input").add_key("inbox").add_key("output");
  b.add_node("one", [](const value& s, node_context&) -> value {
    return object{{"inbox", s.get("input").as_int() + 1}};
  });
  b.add_node("two", [](const value& s, node_context&) -> value {
    return object{{"output", s.get("inbox").as_int() + 1}};
  });
  b.add_edge("__start__", "one").add_edge("one", "two");
  auto graph = b.compile(with_saver({}, {"one"}));
  const value thread1 = thread("1");
  const value thread2 = thread("2");

  // Start, stop at inbox; resume, finish.
  BOOST_TEST(!graph->invoke(object{{"input", 2}}, thread1).find("output"));
  BOOST_TEST(graph->get_state(thread1).values.get("inbox") == value(3));
  BOOST_TEST(graph->invoke(value(), thread1).get("output") == value(4));

  // Start again, stop at inbox.
  graph->invoke(object{{"input", 20}}, thread1);
  BOOST_TEST(graph->get_state(thread1).values.get("inbox") == value(21));
  BOOST_TEST((graph->get_state(thread1).next == std::vector<std::string>{"two"}));

  // New input discards the pending `two` (of inbox 21): only `one` is next.
  graph->invoke(object{{"input", 3}}, thread1);
  state_snapshot after_new_input = graph->get_state(thread1);
  BOOST_TEST(after_new_input.values.get("inbox") == value(4));
  BOOST_TEST((after_new_input.next == std::vector<std::string>{"two"}));
  BOOST_TEST(graph->invoke(value(), thread1).get("output") == value(5));
  std::vector<state_snapshot> history = graph->get_state_history(thread1);
  BOOST_TEST_REQUIRE(history.size() >= 4u);
  // The third run's input checkpoint (a state graph starts with `__start__`): the old `two`,
  // of inbox 21, discarded; and the step after it runs `one` only.
  BOOST_TEST(history[3].metadata.get("source") == value("input"));
  BOOST_TEST((history[3].next == std::vector<std::string>{"__start__"}));
  BOOST_TEST(history[3].values.get("inbox") == value(21));
  BOOST_TEST((history[2].next == std::vector<std::string>{"one"}));

  // On another thread: stop at inbox, update as `one`, resume.
  graph->invoke(object{{"input", 20}}, thread2);
  state_snapshot snapshot = graph->get_state(thread2);
  BOOST_TEST(snapshot.values.get("inbox") == value(21));
  BOOST_TEST((snapshot.next == std::vector<std::string>{"two"}));
  graph->update_state(thread2, object{{"inbox", 25}}, std::string("one"));
  BOOST_TEST(graph->invoke(value(), thread2).get("output") == value(26));
  BOOST_TEST(graph->get_state(thread2).next.empty());
}

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
