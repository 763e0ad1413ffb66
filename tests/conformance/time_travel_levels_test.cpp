// libs/langgraph/tests/test_time_travel.py, section 5 (time travel to a subgraph's own
// checkpoint: at its first or second interrupt, after completion, three levels deep).
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

// step_a -> ask_1 (interrupt) [-> ask_2 (interrupt)], stateful.
std::shared_ptr<pregel> executor(std::shared_ptr<called_log> log, bool two = true) {
  state_graph b = value_graph();
  b.add_node("step_a", append("step_a", "step_a_done", log));
  b.add_node("ask_1", ask("ask_1", "Question 1?", "ask_1", log));
  b.add_edge("__start__", "step_a").add_edge("step_a", "ask_1");
  if (two) {
    b.add_node("ask_2", ask("ask_2", "Question 2?", "ask_2", log));
    b.add_edge("ask_1", "ask_2").add_edge("ask_2", "__end__");
  } else {
    b.add_edge("ask_1", "__end__");
  }
  return b.compile(sub_opts(subgraph_checkpointer::stateful));
}

// START -> <node> (the subgraph) -> END, as a graph with a saver (`top`) or a stateful one.
std::shared_ptr<pregel> around(const std::string& node, std::shared_ptr<const pregel> sub,
                               bool top = true) {
  state_graph b = value_graph();
  b.add_node(node, std::move(sub));
  b.add_edge("__start__", node);
  return b.compile(top ? opts_with_saver() : sub_opts(subgraph_checkpointer::stateful));
}

// The state of the first task's subgraph, `depth` levels down, from get_state(subgraphs=true).
state_snapshot sub_state(const pregel& graph, const value& config, int depth = 1) {
  state_snapshot s = graph.get_state(config, true);
  for (int i = 0; i < depth; ++i) {
    BOOST_TEST_REQUIRE(!s.tasks.empty());
    BOOST_TEST_REQUIRE(s.tasks[0].state != nullptr);
    state_snapshot down = *s.tasks[0].state;
    s = std::move(down);
  }
  return s;
}

strings source_next(const std::vector<state_snapshot>& history) {
  strings out;
  for (const auto& line : summary(history)) out.push_back(line.substr(0, line.find(") ") + 1));
  return out;
}

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_to_first_interrupt
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_to_first_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("executor", executor(log));
  const value config = thread("1");
  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("Question 1?"));
  value at_first = config_of(sub_state(*graph, config));
  BOOST_TEST(first_interrupt(graph->invoke(resume("answer_1"), config)) == value("Question 2?"));
  BOOST_TEST(!graph->invoke(resume("answer_2"), config).find("__interrupt__"));

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_first)) == value("Question 1?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(log->has("ask_1"));

  log->clear();
  value fork_config = graph->update_state(at_first, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Question 1?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(log->has("ask_1"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_to_second_interrupt
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_to_second_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("executor", executor(log));
  const value config = thread("1");
  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("Question 1?"));
  BOOST_TEST(first_interrupt(graph->invoke(resume("answer_1"), config)) == value("Question 2?"));
  value at_second = config_of(sub_state(*graph, config));
  BOOST_TEST(!graph->invoke(resume("answer_2"), config).find("__interrupt__"));

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_second)) == value("Question 2?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));

  log->clear();
  value fork_config = graph->update_state(at_second, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Question 2?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_resume_from_first_interrupt
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_resume_from_first_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("executor", executor(log));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  value at_first = config_of(sub_state(*graph, config));
  graph->invoke(resume("answer_1"), config);
  graph->invoke(resume("answer_2"), config);
  const strings original{R"(loop () {"value":["step_a_done","ask_1:answer_1","ask_2:answer_2"]})",
                         R"(loop (executor) {"value":[]})", R"(input (__start__) {"value":[]})"};
  BOOST_TEST(summary(graph->get_state_history(config)) == original,
             boost::test_tools::per_element());

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_first)) == value("Question 1?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(source_next(graph->get_state_history(config)) ==
                 (strings{"fork (executor)", "loop ()", "loop (executor)", "input (__start__)"}),
             boost::test_tools::per_element());

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(resume("new_answer_1"), config)) ==
             value("Question 2?"));
  BOOST_TEST(log->has("ask_1"));
  log->clear();
  BOOST_TEST(graph->invoke(resume("new_answer_2"), config).get("value").to_json() ==
             R"(["step_a_done","ask_1:new_answer_1","ask_2:new_answer_2"])");
  strings expected{R"(loop () {"value":["step_a_done","ask_1:new_answer_1","ask_2:new_answer_2"]})",
                   R"(fork (executor) {"value":[]})"};
  expected.insert(expected.end(), original.begin(), original.end());
  BOOST_TEST(summary(graph->get_state_history(config)) == expected,
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_resume_from_second_interrupt
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_resume_from_second_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("executor", executor(log));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("answer_1"), config);
  value at_second = config_of(sub_state(*graph, config));
  graph->invoke(resume("answer_2"), config);
  const strings original{R"(loop () {"value":["step_a_done","ask_1:answer_1","ask_2:answer_2"]})",
                         R"(loop (executor) {"value":[]})", R"(input (__start__) {"value":[]})"};
  BOOST_TEST(summary(graph->get_state_history(config)) == original,
             boost::test_tools::per_element());

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_second)) == value("Question 2?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));
  BOOST_TEST(source_next(graph->get_state_history(config)) ==
                 (strings{"fork (executor)", "loop ()", "loop (executor)", "input (__start__)"}),
             boost::test_tools::per_element());

  log->clear();
  BOOST_TEST(graph->invoke(resume("new_answer_2"), config).get("value").to_json() ==
             R"(["step_a_done","ask_1:answer_1","ask_2:new_answer_2"])");
  strings expected{R"(loop () {"value":["step_a_done","ask_1:answer_1","ask_2:new_answer_2"]})",
                   R"(fork (executor) {"value":[]})"};
  expected.insert(expected.end(), original.begin(), original.end());
  BOOST_TEST(summary(graph->get_state_history(config)) == expected,
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_checkpoint_pattern
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_checkpoint_pattern) {
  state_graph eb = value_graph();
  eb.add_node("ask", ask("ask", "Q?", "a"));
  eb.add_edge("__start__", "ask");
  auto graph = around("executor", eb.compile(sub_opts(subgraph_checkpointer::stateful)));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot sub = sub_state(*graph, config);
  graph->invoke(resume("first"), config);
  const strings original{R"(loop () {"value":["a:first"]})", R"(loop (executor) {"value":[]})",
                         R"(input (__start__) {"value":[]})"};
  BOOST_TEST(summary(graph->get_state_history(config)) == original,
             boost::test_tools::per_element());

  graph->invoke(value(), config_of(sub));
  std::vector<state_snapshot> post_tt = graph->get_state_history(config);
  BOOST_TEST(source_next(post_tt) ==
                 (strings{"fork (executor)", "loop ()", "loop (executor)", "input (__start__)"}),
             boost::test_tools::per_element());
  // LangGraph reads the replay point from the subgraph config's checkpoint_map[""]: the
  // subgraph checkpoint's parents, which our snapshot carries in its metadata.
  const std::string replay_point = sub.metadata.get("parents").get("").as_string();
  BOOST_TEST_REQUIRE(post_tt[0].parent_config.has_value());
  BOOST_TEST(post_tt[0].parent_config->checkpoint_id == replay_point);

  BOOST_TEST(graph->invoke(resume("second"), config).get("value").to_json() == R"(["a:second"])");
  strings expected{R"(loop () {"value":["a:second"]})", R"(fork (executor) {"value":[]})"};
  expected.insert(expected.end(), original.begin(), original.end());
  BOOST_TEST(summary(graph->get_state_history(config)) == expected,
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_time_travel_after_completion
BOOST_AUTO_TEST_CASE(test_subgraph_time_travel_after_completion) {
  auto log = std::make_shared<called_log>();
  auto graph = around("executor", executor(log));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("answer_1"), config);
  graph->invoke(resume("answer_2"), config);
  state_snapshot final_state = graph->get_state(config);
  BOOST_TEST(final_state.tasks.empty());
  log->clear();
  value replay = graph->invoke(value(), config_of(final_state));
  BOOST_TEST(!replay.find("__interrupt__"));
  BOOST_TEST(log->all().empty());
  BOOST_TEST(holds(replay, "step_a_done"));
  BOOST_TEST(holds(replay, "ask_1:answer_1"));
  BOOST_TEST(holds(replay, "ask_2:answer_2"));
}

// libs/langgraph/tests/test_time_travel.py::test_3_levels_deep_time_travel_to_first_interrupt
BOOST_AUTO_TEST_CASE(test_3_levels_deep_time_travel_to_first_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("outer", around("inner", executor(log), false));
  const value config = thread("1");
  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("Question 1?"));
  value inner_config = config_of(sub_state(*graph, config, 2));
  graph->invoke(resume("answer_1"), config);
  graph->invoke(resume("answer_2"), config);

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), inner_config)) == value("Question 1?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(log->has("ask_1"));
  log->clear();
  value fork_config = graph->update_state(inner_config, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Question 1?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(log->has("ask_1"));
}

// libs/langgraph/tests/test_time_travel.py::test_3_levels_deep_time_travel_to_second_interrupt
BOOST_AUTO_TEST_CASE(test_3_levels_deep_time_travel_to_second_interrupt) {
  auto log = std::make_shared<called_log>();
  auto graph = around("outer", around("inner", executor(log), false));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  BOOST_TEST(first_interrupt(graph->invoke(resume("answer_1"), config)) == value("Question 2?"));
  value inner_config = config_of(sub_state(*graph, config, 2));
  graph->invoke(resume("answer_2"), config);

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), inner_config)) == value("Question 2?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));
  log->clear();
  value fork_config = graph->update_state(inner_config, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Question 2?"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));
}

// libs/langgraph/tests/test_time_travel.py::test_3_levels_deep_time_travel_to_middle_subgraph
BOOST_AUTO_TEST_CASE(test_3_levels_deep_time_travel_to_middle_subgraph) {
  auto log = std::make_shared<called_log>();
  auto graph = around("outer", around("inner", executor(log), false));
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("answer_1"), config);
  value mid_config = config_of(sub_state(*graph, config));
  graph->invoke(resume("answer_2"), config);

  log->clear();
  BOOST_TEST(graph->invoke(value(), mid_config).get("__interrupt__").is_list());
  log->clear();
  value fork_config = graph->update_state(mid_config, object{{"value", list{"forked"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).get("__interrupt__").is_list());
}

// libs/langgraph/tests/test_time_travel.py::test_3_levels_deep_middle_has_interrupts
BOOST_AUTO_TEST_CASE(test_3_levels_deep_middle_has_interrupts) {
  auto log = std::make_shared<called_log>();
  state_graph mb = value_graph();
  mb.add_node("pre", ask("pre", "Pre-question?", "pre", log));
  mb.add_node("inner", executor(log, false));
  mb.add_edge("__start__", "pre").add_edge("pre", "inner").add_edge("inner", "__end__");
  auto graph = around("outer", mb.compile(sub_opts(subgraph_checkpointer::stateful)));
  const value config = thread("1");
  BOOST_TEST(first_interrupt(graph->invoke(empty_input(), config)) == value("Pre-question?"));
  value at_pre = config_of(sub_state(*graph, config));
  BOOST_TEST(first_interrupt(graph->invoke(resume("pre_answer"), config)) == value("Question 1?"));
  value at_ask1 = config_of(sub_state(*graph, config));
  BOOST_TEST(!graph->invoke(resume("answer_1"), config).find("__interrupt__"));

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_pre)) == value("Pre-question?"));
  BOOST_TEST(log->has("pre"));
  BOOST_TEST(!log->has("step_a"));
  BOOST_TEST(!log->has("ask_1"));
  log->clear();
  value fork_config = graph->update_state(at_pre, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Pre-question?"));
  BOOST_TEST(log->has("pre"));
  BOOST_TEST(!log->has("step_a"));

  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), at_ask1)) == value("Question 1?"));
  BOOST_TEST(!log->has("pre"));
  BOOST_TEST(log->has("ask_1"));
  log->clear();
  fork_config = graph->update_state(at_ask1, object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Question 1?"));
  BOOST_TEST(!log->has("pre"));
  BOOST_TEST(log->has("ask_1"));
}
