// libs/langgraph/tests/test_time_travel.py, sections 4 and 5: replay and fork around a
// subgraph, with and without an interrupt inside it.
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// step_a -> [ask_human (interrupt) ->] step_b, compiled as `kind`.
std::shared_ptr<pregel> subgraph(subgraph_checkpointer kind, std::shared_ptr<called_log> log,
                                 bool with_ask = true) {
  state_graph b = value_graph();
  b.add_node("step_a", append("step_a", "sub_a", log));
  b.add_node("step_b", append("step_b", "sub_b", log));
  b.add_edge("__start__", "step_a");
  if (with_ask) {
    b.add_node("ask_human", ask("ask_human", "Provide input:", "human", log));
    b.add_edge("step_a", "ask_human").add_edge("ask_human", "step_b");
  } else {
    b.add_edge("step_a", "step_b");
  }
  return b.compile(sub_opts(kind));
}

// <first> -> <sub_node> (the subgraph) -> post_process.
std::shared_ptr<pregel> parent(std::shared_ptr<const pregel> sub, std::shared_ptr<called_log> log,
                               const std::string& first = "router",
                               const std::string& first_item = "routed",
                               const std::string& sub_node = "subgraph_node") {
  state_graph b = value_graph();
  b.add_node(first, append(first, first_item, log));
  b.add_node(sub_node, std::move(sub));
  b.add_node("post_process", append("post_process", "post", log));
  b.add_edge("__start__", first).add_edge(first, sub_node).add_edge(sub_node, "post_process");
  return b.compile(opts_with_saver());
}

std::vector<std::string> nexts(const std::vector<state_snapshot>& history) {
  std::vector<std::string> out;
  for (const auto& s : history) {
    std::string next;
    for (const auto& n : s.next) next += (next.empty() ? "" : ",") + n;
    out.push_back(next);
  }
  return out;
}

std::vector<std::string> sources(const std::vector<state_snapshot>& history) {
  std::vector<std::string> out;
  for (const auto& s : history) out.push_back(s.metadata.get("source").as_string());
  return out;
}

bool any_interrupt(const state_snapshot& s) {
  for (const auto& t : s.tasks)
    if (!t.interrupts.empty()) return true;
  return false;
}

// The config of the first task's subgraph state, from get_state(subgraphs=true).
value sub_config(const pregel& graph, const value& config) {
  state_snapshot parent_state = graph.get_state(config, true);
  BOOST_TEST_REQUIRE(!parent_state.tasks.empty());
  BOOST_TEST_REQUIRE(parent_state.tasks[0].state != nullptr);
  return config_of(*parent_state.tasks[0].state);
}

using strings = std::vector<std::string>;

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_subgraph_replay_from_before
BOOST_AUTO_TEST_CASE(test_subgraph_replay_from_before) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::per_invocation, log, false), log,
                      "parent_node", "parent", "subgraph");
  const value config = thread("1");
  value result = graph->invoke(empty_input(), config);
  BOOST_TEST(holds(result, "sub_a"));
  BOOST_TEST(holds(result, "sub_b"));
  BOOST_TEST(holds(result, "post"));
  state_snapshot before_sub = newest_before(*graph, config, "subgraph");
  log->clear();
  value replay = graph->invoke(value(), config_of(before_sub));
  BOOST_TEST(holds(replay, "sub_a"));
  BOOST_TEST(holds(replay, "sub_b"));
  BOOST_TEST(holds(replay, "post"));
  BOOST_TEST(!log->has("parent_node"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_fork_from_before
BOOST_AUTO_TEST_CASE(test_subgraph_fork_from_before) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::per_invocation, log, false), log,
                      "parent_node", "parent", "subgraph");
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot before_sub = newest_before(*graph, config, "subgraph");
  log->clear();
  value fork_config = graph->update_state(config_of(before_sub), object{{"value", list{"forked"}}});
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST(log->has("step_a"));
  BOOST_TEST(log->has("step_b"));
  BOOST_TEST(log->has("post_process"));
  BOOST_TEST(holds(fork_result, "forked"));
  BOOST_TEST(holds(fork_result, "sub_a"));
  BOOST_TEST(holds(fork_result, "sub_b"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_replay_from_parent
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_replay_from_parent) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::stateful, log), log);
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).get("__interrupt__").is_list());
  value completed = graph->invoke(resume("answer"), config);
  BOOST_TEST(holds(completed, "human:answer"));
  BOOST_TEST(holds(completed, "sub_b"));
  BOOST_TEST(holds(completed, "post"));
  state_snapshot before_sub = oldest_before(*graph, config, "subgraph_node");
  log->clear();
  value replay = graph->invoke(value(), config_of(before_sub));
  BOOST_TEST(replay.get("__interrupt__").is_list());
  BOOST_TEST(log->has("step_a"));
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(!log->has("step_b"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_replay_from_interrupt_checkpoint
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_replay_from_interrupt_checkpoint) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::stateful, log), log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  state_snapshot parent_state = graph->get_state(config, true);
  BOOST_TEST_REQUIRE(!parent_state.tasks.empty());
  BOOST_TEST(parent_state.tasks[0].state != nullptr);
  graph->invoke(resume("answer"), config);
  std::optional<state_snapshot> at_interrupt;
  for (const auto& s : graph->get_state_history(config))
    if (s.next == strings{"subgraph_node"} && any_interrupt(s)) {
      at_interrupt = s;
      break;
    }
  BOOST_TEST_REQUIRE(at_interrupt.has_value());
  log->clear();
  value replay = graph->invoke(value(), config_of(*at_interrupt));
  BOOST_TEST(replay.get("__interrupt__").is_list());
  BOOST_TEST(log->has("step_a"));
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(!log->has("step_b"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_replay_from_parent_then_resume
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_replay_from_parent_then_resume) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::stateful, log), log);
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  graph->invoke(resume("old_answer"), config);
  std::vector<state_snapshot> original = graph->get_state_history(config);
  BOOST_TEST(
      nexts(original) == (strings{"", "post_process", "subgraph_node", "router", "__start__"}),
      boost::test_tools::per_element());
  state_snapshot at_interrupt = with_next(original, {"subgraph_node"}).front();

  log->clear();
  value replay = graph->invoke(value(), config_of(at_interrupt));
  BOOST_TEST(first_interrupt(replay) == value("Provide input:"));
  BOOST_TEST(log->has("step_a"));
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(!log->has("step_b"));
  std::vector<state_snapshot> post_replay = graph->get_state_history(config);
  BOOST_TEST(nexts(post_replay) == (strings{"subgraph_node", "", "post_process", "subgraph_node",
                                            "router", "__start__"}),
             boost::test_tools::per_element());
  BOOST_TEST(sources(post_replay) == (strings{"fork", "loop", "loop", "loop", "loop", "input"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(post_replay[0].parent_config.has_value());
  BOOST_TEST(post_replay[0].parent_config->checkpoint_id == at_interrupt.config.checkpoint_id);

  log->clear();
  value final_result = graph->invoke(resume("new_answer"), config);
  BOOST_TEST(!final_result.find("__interrupt__"));
  BOOST_TEST(holds(final_result, "human:new_answer"));
  BOOST_TEST(holds(final_result, "sub_b"));
  BOOST_TEST(holds(final_result, "post"));
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(log->has("step_b"));
  BOOST_TEST(log->has("post_process"));
  std::vector<state_snapshot> final_history = graph->get_state_history(config);
  BOOST_TEST(
      nexts(final_history) == (strings{"", "post_process", "subgraph_node", "", "post_process",
                                       "subgraph_node", "router", "__start__"}),
      boost::test_tools::per_element());
  BOOST_TEST(sources(final_history) ==
                 (strings{"loop", "loop", "fork", "loop", "loop", "loop", "loop", "input"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_resume_with_explicit_head_checkpoint_id
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_resume_with_explicit_head_checkpoint_id) {
  auto log = std::make_shared<called_log>();
  state_graph b = value_graph();
  b.add_node("subgraph_node", subgraph(subgraph_checkpointer::stateful, log));
  b.add_edge("__start__", "subgraph_node");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  graph->invoke(empty_input(), config);
  BOOST_TEST((log->all() == strings{"step_a", "ask_human"}));
  const std::string head = graph->get_state(config).config.checkpoint_id;
  log->clear();
  value resume_config = object{
      {"configurable", object{{"thread_id", "1"}, {"checkpoint_id", head}, {"checkpoint_ns", ""}}}};
  value result = graph->invoke(resume("answer"), resume_config);
  BOOST_TEST((log->all() == strings{"ask_human", "step_b"}));
  BOOST_TEST(!result.find("__interrupt__"));
  BOOST_TEST(result.get("value").to_json() == R"(["sub_a","human:answer","sub_b"])");
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_replay_loads_accumulated_state_then_resume
BOOST_AUTO_TEST_CASE(test_subgraph_replay_loads_accumulated_state_then_resume) {
  auto started = std::make_shared<called_log>();  // the state step_a starts with, as JSON
  state_graph sb = value_graph();
  sb.add_node("step_a", [started](const value& state, node_context& ctx) -> value {
    started->add(state.to_json());
    value answer = ctx.interrupt("question_a");
    return object{{"value", value::array({"a:" + answer.as_string()})}};
  });
  sb.add_edge("__start__", "step_a");
  auto sub = sb.compile(sub_opts(subgraph_checkpointer::stateful));
  state_graph b;
  b.add_key("results", "add", value(list{}));
  b.add_node("parent_node", [](const value&, node_context&) -> value {
    return object{{"results", value::array({"p"})}};
  });
  b.add_node("sub_node", sub);
  b.add_edge("__start__", "parent_node").add_edge("parent_node", "sub_node");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  const value input = object{{"results", list{}}};

  graph->invoke(input, config);
  graph->invoke(resume("a1"), config);
  BOOST_TEST(started->all().at(0) == R"({"value":[]})");
  started->clear();
  graph->invoke(input, config);
  graph->invoke(resume("a2"), config);
  BOOST_TEST(started->all().at(0) == R"({"value":["a:a1"]})");
  std::vector<state_snapshot> original = graph->get_state_history(config);
  const strings original_next{"", "sub_node", "parent_node", "__start__",
                              "", "sub_node", "parent_node", "__start__"};
  BOOST_TEST(nexts(original) == original_next, boost::test_tools::per_element());

  state_snapshot before_sub_2nd = with_next(original, {"sub_node"}).front();
  started->clear();
  value replay = graph->invoke(value(), config_of(before_sub_2nd));
  BOOST_TEST(replay.get("__interrupt__").is_list());
  BOOST_TEST_REQUIRE(!started->all().empty());
  BOOST_TEST(started->all().at(0) == R"({"value":["a:a1"]})");
  std::vector<state_snapshot> post_replay = graph->get_state_history(config);
  strings expected_next{"sub_node"};
  expected_next.insert(expected_next.end(), original_next.begin(), original_next.end());
  BOOST_TEST(nexts(post_replay) == expected_next, boost::test_tools::per_element());
  BOOST_TEST(sources(post_replay) == (strings{"fork", "loop", "loop", "loop", "input", "loop",
                                              "loop", "loop", "input"}),
             boost::test_tools::per_element());

  started->clear();
  value final_result = graph->invoke(resume("a3"), config);
  BOOST_TEST(!final_result.find("__interrupt__"));
  BOOST_TEST(final_result.get("results").to_json() == R"(["p","p"])");
  expected_next.insert(expected_next.begin(), "");
  BOOST_TEST(nexts(graph->get_state_history(config)) == expected_next,
             boost::test_tools::per_element());
  BOOST_TEST(sources(graph->get_state_history(config)) ==
                 (strings{"loop", "fork", "loop", "loop", "loop", "input", "loop", "loop", "loop",
                          "input"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_full_flow
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_full_flow) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::stateful, log), log);
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).get("__interrupt__").is_list());
  BOOST_TEST(log->has("router"));
  BOOST_TEST(log->has("step_a"));
  BOOST_TEST(log->has("ask_human"));
  value sub = sub_config(*graph, config);
  log->clear();
  value fork_config = graph->update_state(sub, object{{"value", list{"sub_forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Provide input:"));
  log->clear();
  value final_result = graph->invoke(resume("new_answer"), fork_config);
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(holds(final_result, "human:new_answer"));
  BOOST_TEST(log->has("step_b"));
  BOOST_TEST(holds(final_result, "sub_b"));
  BOOST_TEST(log->has("post_process"));
  BOOST_TEST(holds(final_result, "post"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_interrupt_full_flow_no_sub_checkpointer
BOOST_AUTO_TEST_CASE(test_subgraph_interrupt_full_flow_no_sub_checkpointer) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::per_invocation, log), log);
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).get("__interrupt__").is_list());
  value original = graph->invoke(resume("original"), config);
  BOOST_TEST(holds(original, "human:original"));
  BOOST_TEST(holds(original, "post"));
  state_snapshot before_sub = oldest_before(*graph, config, "subgraph_node");
  log->clear();
  value fork_config = graph->update_state(config_of(before_sub), object{{"value", list{"forked"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Provide input:"));
  log->clear();
  value final_result = graph->invoke(resume("new_answer"), fork_config);
  BOOST_TEST(holds(final_result, "human:new_answer"));
  BOOST_TEST(log->has("step_b"));
  BOOST_TEST(holds(final_result, "sub_b"));
  BOOST_TEST(log->has("post_process"));
  BOOST_TEST(holds(final_result, "post"));
}

// libs/langgraph/tests/test_time_travel.py::test_subgraph_replay_from_subgraph_checkpoint
BOOST_AUTO_TEST_CASE(test_subgraph_replay_from_subgraph_checkpoint) {
  auto log = std::make_shared<called_log>();
  auto graph = parent(subgraph(subgraph_checkpointer::stateful, log), log);
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).get("__interrupt__").is_list());
  value sub = sub_config(*graph, config);
  log->clear();
  BOOST_TEST(first_interrupt(graph->invoke(value(), sub)) == value("Provide input:"));
  log->clear();
  value final_result = graph->invoke(resume("replayed_answer"), sub);
  BOOST_TEST(log->has("ask_human"));
  BOOST_TEST(holds(final_result, "human:replayed_answer"));
  BOOST_TEST(log->has("step_b"));
  BOOST_TEST(holds(final_result, "sub_b"));
  BOOST_TEST(log->has("post_process"));
  BOOST_TEST(holds(final_result, "post"));
}
