// libs/langgraph/tests/test_time_travel.py, section 8 (end): which state stateful subgraphs
// load when their parent replays or forks (LangGraph's ReplayState): the state at the replay
// point, at every level, per subgraph, and in a loop.
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

// A stateful subgraph of one node `step` that records "<tag> <state>" and adds `item` to
// `key`; `then`, if given, is a further subgraph node run after it.
std::shared_ptr<pregel> recording_sub(const std::string& key, const std::string& step,
                                      const std::string& tag, const std::string& item,
                                      std::shared_ptr<called_log> log,
                                      std::shared_ptr<const pregel> then = nullptr,
                                      const std::string& then_name = "") {
  state_graph b;
  b.add_key(key, "add", value(list{}));
  b.add_node(step, [key, tag, item, log](const value& state, node_context&) -> value {
    log->add(tag + " " + state.to_json());
    return object{{key, value::array({item})}};
  });
  b.add_edge("__start__", step);
  if (then) {
    b.add_node(then_name, std::move(then));
    b.add_edge(step, then_name);
  }
  return b.compile(sub_opts(subgraph_checkpointer::stateful));
}

// <first> (adds "p" to results) -> each of `subs`, in parallel.
std::shared_ptr<pregel> parent_of(
    const std::string& first,
    std::vector<std::pair<std::string, std::shared_ptr<const pregel>>> subs) {
  state_graph b;
  b.add_key("results", "add", value(list{}));
  b.add_node(first, [](const value&, node_context&) -> value {
    return object{{"results", value::array({"p"})}};
  });
  b.add_edge("__start__", first);
  for (auto& [name, sub] : subs) {
    b.add_node(name, sub);
    b.add_edge(first, name);
  }
  return b.compile(opts_with_saver());
}

const value results_input = object{{"results", list{}}};

strings tagged(const strings& all, const std::string& tag) {
  strings out;
  for (const auto& s : all)
    if (s.starts_with(tag + " ")) out.push_back(s);
  return out;
}

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_stateful_subgraph_loads_latest_after_replay
BOOST_AUTO_TEST_CASE(test_stateful_subgraph_loads_latest_after_replay) {
  auto log = std::make_shared<called_log>();
  auto graph = parent_of("parent_node",
                         {{"sub_node", recording_sub("value", "sub_step", "sub_step", "s", log)}});
  const value config = thread("1");
  graph->invoke(results_input, config);
  BOOST_TEST(log->all().back() == R"(sub_step {"value":[]})");
  graph->invoke(results_input, config);
  BOOST_TEST(log->all().back() == R"(sub_step {"value":["s"]})");
  state_snapshot before_parent_2nd = newest_before(*graph, config, "parent_node");
  log->clear();
  graph->invoke(value(), config_of(before_parent_2nd));
  BOOST_TEST(log->all().at(0) == R"(sub_step {"value":["s"]})");
  log->clear();
  graph->invoke(results_input, config);
  BOOST_TEST(log->all().at(0) == R"(sub_step {"value":["s","s"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_replay
BOOST_AUTO_TEST_CASE(test_three_level_nested_subgraph_loads_state_on_replay) {
  auto log = std::make_shared<called_log>();
  auto inner = recording_sub("inner_trail", "inner_step", "inner_step", "inner", log);
  auto mid = recording_sub("mid_trail", "mid_step", "mid_step", "mid", log, inner, "inner_node");
  auto graph = parent_of("parent_step", {{"mid_node", mid}});
  const value config = thread("1");
  graph->invoke(results_input, config);
  BOOST_TEST(
      log->all() == (strings{R"(mid_step {"mid_trail":[]})", R"(inner_step {"inner_trail":[]})"}),
      boost::test_tools::per_element());
  log->clear();
  graph->invoke(results_input, config);
  const strings once{R"(mid_step {"mid_trail":["mid"]})",
                     R"(inner_step {"inner_trail":["inner"]})"};
  BOOST_TEST(log->all() == once, boost::test_tools::per_element());
  state_snapshot before_parent_2nd = newest_before(*graph, config, "parent_step");
  log->clear();
  graph->invoke(value(), config_of(before_parent_2nd));
  BOOST_TEST(log->all() == once, boost::test_tools::per_element());
  log->clear();
  graph->invoke(results_input, config);
  BOOST_TEST(log->all() == (strings{R"(mid_step {"mid_trail":["mid","mid"]})",
                                    R"(inner_step {"inner_trail":["inner","inner"]})"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_three_level_nested_subgraph_loads_state_on_fork
BOOST_AUTO_TEST_CASE(test_three_level_nested_subgraph_loads_state_on_fork) {
  auto log = std::make_shared<called_log>();
  auto inner = recording_sub("inner_trail", "inner_step", "inner_step", "inner", log);
  auto mid = recording_sub("mid_trail", "mid_step", "mid_step", "mid", log, inner, "inner_node");
  auto graph = parent_of("parent_step", {{"mid_node", mid}});
  const value config = thread("1");
  graph->invoke(results_input, config);
  graph->invoke(results_input, config);
  state_snapshot before_parent_2nd = newest_before(*graph, config, "parent_step");
  value fork_config =
      graph->update_state(config_of(before_parent_2nd), object{{"results", list{"forked"}}});
  log->clear();
  graph->invoke(value(), fork_config);
  BOOST_TEST(log->all() == (strings{R"(mid_step {"mid_trail":["mid"]})",
                                    R"(inner_step {"inner_trail":["inner"]})"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_replay_from_first_invocation_checkpoint
BOOST_AUTO_TEST_CASE(test_replay_from_first_invocation_checkpoint) {
  auto log = std::make_shared<called_log>();
  auto graph = parent_of("parent_node",
                         {{"sub_node", recording_sub("value", "sub_step", "sub_step", "s", log)}});
  const value config = thread("1");
  graph->invoke(results_input, config);
  graph->invoke(results_input, config);
  state_snapshot before_sub_1st = oldest_before(*graph, config, "sub_node");
  log->clear();
  graph->invoke(value(), config_of(before_sub_1st));
  BOOST_TEST(log->all().at(0) == R"(sub_step {"value":[]})");
}

// libs/langgraph/tests/test_time_travel.py::test_parallel_subgraph_nodes_load_correct_state_on_replay
BOOST_AUTO_TEST_CASE(test_parallel_subgraph_nodes_load_correct_state_on_replay) {
  auto log = std::make_shared<called_log>();
  auto graph = parent_of(
      "parent_step", {{"sub_a_node", recording_sub("a_trail", "sub_a_step", "sub_a", "a", log)},
                      {"sub_b_node", recording_sub("b_trail", "sub_b_step", "sub_b", "b", log)}});
  const value config = thread("1");
  const auto check = [&](const char* a, const char* b) {
    strings all = log->all();
    BOOST_TEST_REQUIRE(!tagged(all, "sub_a").empty());
    BOOST_TEST_REQUIRE(!tagged(all, "sub_b").empty());
    BOOST_TEST(tagged(all, "sub_a")[0] == std::string("sub_a ") + a);
    BOOST_TEST(tagged(all, "sub_b")[0] == std::string("sub_b ") + b);
    log->clear();
  };
  graph->invoke(results_input, config);
  check(R"({"a_trail":[]})", R"({"b_trail":[]})");
  graph->invoke(results_input, config);
  check(R"({"a_trail":["a"]})", R"({"b_trail":["b"]})");
  state_snapshot before_parent_2nd = newest_before(*graph, config, "parent_step");
  graph->invoke(value(), config_of(before_parent_2nd));
  check(R"({"a_trail":["a"]})", R"({"b_trail":["b"]})");
  graph->invoke(results_input, config);
  check(R"({"a_trail":["a","a"]})", R"({"b_trail":["b","b"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_called_in_loop_loads_state_on_replay
BOOST_AUTO_TEST_CASE(test_subgraph_called_in_loop_loads_state_on_replay) {
  auto log = std::make_shared<called_log>();
  state_graph b;
  b.add_key("counter").add_key("results", "add", value(list{}));
  b.add_node("inc", [](const value& state, node_context&) -> value {
    const std::int64_t n = state.get("counter").as_int();
    return object{{"counter", n + 1}, {"results", value::array({"inc:" + std::to_string(n)})}};
  });
  b.add_node("sub_node", recording_sub("sub_trail", "sub_step", "sub_step", "s", log));
  b.add_edge("__start__", "inc").add_edge("inc", "sub_node");
  b.add_conditional_edges("sub_node", [](const value& state, node_context&) -> value {
    return state.get("counter").as_int() < 2 ? value("inc") : value("__end__");
  });
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  const value input = object{{"counter", 0}, {"results", list{}}};
  graph->invoke(input, config);
  BOOST_TEST(
      log->all() == (strings{R"(sub_step {"sub_trail":[]})", R"(sub_step {"sub_trail":["s"]})"}),
      boost::test_tools::per_element());
  log->clear();
  graph->invoke(input, config);
  const strings second{R"(sub_step {"sub_trail":["s","s"]})",
                       R"(sub_step {"sub_trail":["s","s","s"]})"};
  BOOST_TEST(log->all() == second, boost::test_tools::per_element());

  std::vector<state_snapshot> history = graph->get_state_history(config);
  const auto newest_inc_at = [&](std::int64_t counter) {
    for (const auto& s : history)
      if (s.next == strings{"inc"} && s.values.get("counter") == value(counter)) return s;
    BOOST_FAIL("no checkpoint before inc with counter " << counter);
    return history.front();
  };
  log->clear();
  graph->invoke(value(), config_of(newest_inc_at(0)));
  BOOST_TEST(log->all() == second, boost::test_tools::per_element());
  log->clear();
  graph->invoke(value(), config_of(newest_inc_at(1)));
  BOOST_TEST(log->all() == (strings{R"(sub_step {"sub_trail":["s","s","s"]})"}),
             boost::test_tools::per_element());
}
