// libs/langgraph/tests/test_time_travel.py, sections 1-3: replay and fork without subgraphs,
// with interrupts, several interrupts.
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

// node_a -> node_b.
std::shared_ptr<pregel> a_b_graph(std::shared_ptr<called_log> log = nullptr) {
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a", log));
  b.add_node("node_b", append("node_b", "b", log));
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  return b.compile(opts_with_saver());
}

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_replay_reruns_nodes_after_checkpoint
BOOST_AUTO_TEST_CASE(test_replay_reruns_nodes_after_checkpoint) {
  auto log = std::make_shared<called_log>();
  auto graph = a_b_graph(log);
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).to_json() == R"({"value":["a","b"]})");
  BOOST_TEST((log->all() == std::vector<std::string>{"node_a", "node_b"}));
  state_snapshot before_b = newest_before(*graph, config, "node_b");
  log->clear();
  BOOST_TEST(graph->invoke(value(), config_of(before_b)).to_json() == R"({"value":["a","b"]})");
  BOOST_TEST(log->has("node_b"));
  BOOST_TEST(!log->has("node_a"));
}

// libs/langgraph/tests/test_time_travel.py::test_replay_from_final_checkpoint_is_noop
BOOST_AUTO_TEST_CASE(test_replay_from_final_checkpoint_is_noop) {
  auto log = std::make_shared<called_log>();
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a", log));
  b.add_edge("__start__", "node_a");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).to_json() == R"({"value":["a"]})");
  state_snapshot state = graph->get_state(config);
  BOOST_TEST(state.next.empty());
  log->clear();
  BOOST_TEST(graph->invoke(value(), config_of(state)).to_json() == R"({"value":["a"]})");
  BOOST_TEST(log->all().empty());
}

// libs/langgraph/tests/test_time_travel.py::test_fork_reruns_with_modified_state
BOOST_AUTO_TEST_CASE(test_fork_reruns_with_modified_state) {
  auto log = std::make_shared<called_log>();
  auto graph = a_b_graph(log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot before_b = newest_before(*graph, config, "node_b");
  log->clear();
  value fork_config = graph->update_state(config_of(before_b), object{{"value", list{"x"}}});
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST(log->has("node_b"));
  BOOST_TEST(fork_result.to_json() == R"({"value":["a","x","b"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_multiple_forks_from_same_checkpoint
BOOST_AUTO_TEST_CASE(test_multiple_forks_from_same_checkpoint) {
  auto graph = a_b_graph();
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot before_b = newest_before(*graph, config, "node_b");
  value fork1 = graph->update_state(config_of(before_b), object{{"value", list{"fork1"}}});
  value result1 = graph->invoke(value(), fork1);
  value fork2 = graph->update_state(config_of(before_b), object{{"value", list{"fork2"}}});
  value result2 = graph->invoke(value(), fork2);
  BOOST_TEST(holds(result1, "fork1"));
  BOOST_TEST(!holds(result1, "fork2"));
  BOOST_TEST(holds(result2, "fork2"));
  BOOST_TEST(!holds(result2, "fork1"));
}

// libs/langgraph/tests/test_time_travel.py::test_replay_from_before_interrupt_refires
BOOST_AUTO_TEST_CASE(test_replay_from_before_interrupt_refires) {
  auto log = std::make_shared<called_log>();
  auto graph = ask_graph(log);
  const value config = thread("1");
  value result = graph->invoke(empty_input(), config);
  BOOST_TEST(result.get("__interrupt__").is_list());
  BOOST_TEST(log->count("ask_human") == 1u);
  result = graph->invoke(resume("hello"), config);
  BOOST_TEST(result.to_json() == R"({"value":["a","human:hello","b"]})");
  BOOST_TEST(log->count("ask_human") == 2u);

  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  value replay = graph->invoke(value(), config_of(before_ask));
  BOOST_TEST(first_interrupt(replay) == value("What is your input?"));
  BOOST_TEST(replay.get("value").to_json() == R"(["a"])");
  BOOST_TEST(log->count("ask_human") == 3u);
  BOOST_TEST(log->count("node_a") == 1u);
  BOOST_TEST(log->count("node_b") == 1u);
}

// libs/langgraph/tests/test_time_travel.py::test_replay_from_before_interrupt_then_resume
BOOST_AUTO_TEST_CASE(test_replay_from_before_interrupt_then_resume) {
  auto log = std::make_shared<called_log>();
  auto graph = ask_graph(log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("old_answer"), config);
  const std::vector<std::string> original{
      R"(loop () {"value":["a","human:old_answer","b"]})",
      R"(loop (node_b) {"value":["a","human:old_answer"]})", R"(loop (ask_human) {"value":["a"]})",
      R"(loop (node_a) {"value":[]})", R"(input (__start__) {"value":[]})"};
  BOOST_TEST(summary(graph->get_state_history(config)) == original,
             boost::test_tools::per_element());

  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  log->clear();
  value replay = graph->invoke(value(), config_of(before_ask));
  BOOST_TEST(first_interrupt(replay) == value("What is your input?"));
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(!log->has("node_a"));
  std::vector<state_snapshot> post_replay = graph->get_state_history(config);
  BOOST_TEST_REQUIRE(post_replay.size() == 6u);
  BOOST_TEST(post_replay[0].metadata.get("source") == value("fork"));
  BOOST_TEST((post_replay[0].next == std::vector<std::string>{"ask_human"}));
  BOOST_TEST_REQUIRE(post_replay[0].parent_config.has_value());
  BOOST_TEST(post_replay[0].parent_config->checkpoint_id == before_ask.config.checkpoint_id);

  log->clear();
  value final_result = graph->invoke(resume("new_answer"), config);
  BOOST_TEST(final_result.get("value").to_json() == R"(["a","human:new_answer","b"])");
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(log->has("node_b"));
  std::vector<std::string> expected{R"(loop () {"value":["a","human:new_answer","b"]})",
                                    R"(loop (node_b) {"value":["a","human:new_answer"]})",
                                    R"(fork (ask_human) {"value":["a"]})"};
  expected.insert(expected.end(), original.begin(), original.end());
  BOOST_TEST(summary(graph->get_state_history(config)) == expected,
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_replay_interrupt_stable_across_replays
BOOST_AUTO_TEST_CASE(test_replay_interrupt_stable_across_replays) {
  auto graph = ask_graph();
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("cached_answer"), config);
  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  std::vector<value> results;
  for (int i = 0; i < 3; ++i) results.push_back(graph->invoke(value(), config_of(before_ask)));
  for (const auto& r : results) {
    BOOST_TEST(r.get("__interrupt__").is_list());
    BOOST_TEST(first_interrupt(r) == first_interrupt(results[0]));
    BOOST_TEST(r.get("value") == results[0].get("value"));
  }
}

// libs/langgraph/tests/test_time_travel.py::test_fork_from_before_interrupt_refires
BOOST_AUTO_TEST_CASE(test_fork_from_before_interrupt_refires) {
  auto log = std::make_shared<called_log>();
  auto graph = ask_graph(log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("hello"), config);
  state_snapshot before_ask = oldest_before(*graph, config, "ask_human");
  log->clear();
  value fork_config = graph->update_state(config_of(before_ask), object{{"value", list{"forked"}}});
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST(first_interrupt(fork_result) == value("What is your input?"));
  BOOST_TEST(log->has("ask_human"));
  // Resumed from the fork's config, whose checkpoint holds no pending interrupt.
  BOOST_TEST(graph->invoke(resume("world"), fork_config).to_json() ==
             R"({"value":["a","forked","human:world","b"]})");
}
