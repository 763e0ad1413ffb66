// libs/langgraph/tests/test_time_travel.py, sections 2, 3 and 6: forks at interrupts, several
// interrupts, __copy__ forks and update_state with null values.
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// node_a -> ask_human (interrupt) -> node_b.
std::shared_ptr<pregel> ask_graph(std::shared_ptr<called_log> log = nullptr) {
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a", log));
  b.add_node("ask_human", ask("ask_human", "What is your input?", "human", log));
  b.add_node("node_b", append("node_b", "b", log));
  b.add_edge("__start__", "node_a").add_edge("node_a", "ask_human").add_edge("ask_human", "node_b");
  return b.compile(opts_with_saver());
}

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_fork_from_interrupt_checkpoint_refires
BOOST_AUTO_TEST_CASE(test_fork_from_interrupt_checkpoint_refires) {
  auto graph = ask_graph();
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("hello"), config);
  std::optional<state_snapshot> at_interrupt;
  for (const auto& s : graph->get_state_history(config)) {
    if (s.next != std::vector<std::string>{"ask_human"}) continue;
    bool interrupted = false;
    for (const auto& t : s.tasks) interrupted = interrupted || !t.interrupts.empty();
    if (interrupted) {
      at_interrupt = s;
      break;
    }
  }
  BOOST_TEST_REQUIRE(at_interrupt.has_value());
  value fork_config =
      graph->update_state(config_of(*at_interrupt), object{{"value", list{"forked"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).get("__interrupt__").is_list());
  BOOST_TEST(holds(graph->invoke(resume("different"), fork_config), "human:different"));
}

// libs/langgraph/tests/test_time_travel.py::test_sequential_interrupts_fork_from_middle
BOOST_AUTO_TEST_CASE(test_sequential_interrupts_fork_from_middle) {
  auto log = std::make_shared<called_log>();
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a", log));
  b.add_node("interrupt_1", ask("interrupt_1", "First question?", "i1", log));
  b.add_node("interrupt_2", ask("interrupt_2", "Second question?", "i2", log));
  b.add_node("node_b", append("node_b", "b", log));
  b.add_edge("__start__", "node_a")
      .add_edge("node_a", "interrupt_1")
      .add_edge("interrupt_1", "interrupt_2")
      .add_edge("interrupt_2", "node_b");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");

  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("First question?"));
  BOOST_TEST(first_interrupt(graph->invoke(resume("ans1"), config)) == value("Second question?"));
  BOOST_TEST(graph->invoke(resume("ans2"), config).to_json() ==
             R"({"value":["a","i1:ans1","i2:ans2","b"]})");
  std::vector<state_snapshot> history = graph->get_state_history(config);

  state_snapshot between = with_next(history, {"interrupt_2"}).back();
  value fork_config = graph->update_state(config_of(between), object{{"value", list{"mid_fork"}}});
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST(first_interrupt(fork_result) == value("Second question?"));
  value final_result = graph->invoke(resume("new_b"), fork_config);
  BOOST_TEST(holds(final_result, "i2:new_b"));
  BOOST_TEST(holds(final_result, "i1:ans1"));

  state_snapshot before_i1 = with_next(history, {"interrupt_1"}).back();
  log->clear();
  value replay = graph->invoke(value(), config_of(before_i1));
  BOOST_TEST(first_interrupt(replay) == value("First question?"));
  BOOST_TEST(log->has("interrupt_1"));
  BOOST_TEST(!log->has("interrupt_2"));
}

// libs/langgraph/tests/test_time_travel.py::test_multiple_interrupts_in_one_node
BOOST_AUTO_TEST_CASE(test_multiple_interrupts_in_one_node) {
  state_graph b = value_graph();
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    value answer1 = ctx.interrupt("First question?");
    value answer2 = ctx.interrupt("Second question?");
    return object{
        {"value", value::array({"a1:" + answer1.as_string(), "a2:" + answer2.as_string()})}};
  });
  b.add_node("after", append("after", "done"));
  b.add_edge("__start__", "ask").add_edge("ask", "after");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("First question?"));
  value state_config = config_of(graph->get_state(config));
  BOOST_TEST(first_interrupt(graph->invoke(resume("ans1"), state_config)) ==
             value("Second question?"));
  state_config = config_of(graph->get_state(config));
  BOOST_TEST(graph->invoke(resume("ans2"), state_config).to_json() ==
             R"({"value":["a1:ans1","a2:ans2","done"]})");
  state_snapshot before_ask = oldest_before(*graph, config, "ask");
  BOOST_TEST(first_interrupt(graph->invoke(value(), config_of(before_ask))) ==
             value("First question?"));
}

// libs/langgraph/tests/test_time_travel.py::test_copy_fork_retriggers_interrupt
BOOST_AUTO_TEST_CASE(test_copy_fork_retriggers_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = ask_graph(log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("hello"), config);
  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  log->clear();
  value fork_config = graph->update_state(config_of(before_ask), value(), std::string("__copy__"));
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("What is your input?"));
  BOOST_TEST(graph->invoke(resume("new_answer"), fork_config).to_json() ==
             R"({"value":["a","human:new_answer","b"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_copy_fork_creates_sibling_checkpoint
BOOST_AUTO_TEST_CASE(test_copy_fork_creates_sibling_checkpoint) {
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a"));
  b.add_node("node_b", append("node_b", "b"));
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot before_b = newest_before(*graph, config, "node_b");
  value copy_config = graph->update_state(config_of(before_b), value(), std::string("__copy__"));
  BOOST_TEST(graph->get_state(copy_config).metadata.get("source") == value("fork"));
  value regular_config = graph->update_state(config_of(before_b), object{{"value", list{"x"}}});
  BOOST_TEST(graph->get_state(regular_config).metadata.get("source") == value("update"));
}

// libs/langgraph/tests/test_time_travel.py::test_update_state_with_none_values
BOOST_AUTO_TEST_CASE(test_update_state_with_none_values) {
  auto graph = ask_graph();
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("hello"), config);
  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  value fork_config = graph->update_state(config_of(before_ask), value());
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("What is your input?"));
  BOOST_TEST(graph->get_state(fork_config).metadata.get("source") == value("update"));
}
