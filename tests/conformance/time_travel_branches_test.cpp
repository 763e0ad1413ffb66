// libs/langgraph/tests/test_time_travel.py, sections 7 and 8: observability (get_state with
// subgraphs, checkpoint_ns inside a subgraph), stateful subgraphs on parent replay and fork,
// and append-only history (replay and fork make branches).
#include <atomic>
#include <set>

#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

std::set<std::string> ids_of(const std::vector<state_snapshot>& history) {
  std::set<std::string> out;
  for (const auto& s : history) out.insert(s.config.checkpoint_id);
  return out;
}

// The oldest snapshot of `history` not in `old` (Python's sorted(..., key=created_at)[0]).
state_snapshot oldest_new(const std::vector<state_snapshot>& history,
                          const std::set<std::string>& old) {
  std::optional<state_snapshot> out;
  for (const auto& s : history)
    if (!old.count(s.config.checkpoint_id) && (!out || s.created_at <= out->created_at)) out = s;
  BOOST_TEST_REQUIRE(out.has_value());
  return *out;
}

// parent_node -> sub_node, the subgraph asking twice (step_a, step_b) on `value`; the parent
// keeps `results`. Each step records the state it starts with (`started`) and the state it
// answers with (`observed`).
struct two_questions {
  std::shared_ptr<called_log> started = std::make_shared<called_log>();
  std::shared_ptr<called_log> observed = std::make_shared<called_log>();
  std::shared_ptr<pregel> graph;

  explicit two_questions(subgraph_checkpointer kind = subgraph_checkpointer::stateful) {
    state_graph sb = value_graph();
    for (const char* step : {"step_a", "step_b"}) {
      const std::string name = step;
      const std::string prefix = name == "step_a" ? "a" : "b";
      sb.add_node(name,
                  [name, prefix, s = started, o = observed](const value& state,
                                                            node_context& ctx) -> value {
                    s->add(name + " " + state.to_json());
                    value answer = ctx.interrupt("question_" + prefix);
                    o->add(name + " " + state.to_json());
                    return object{{"value", value::array({prefix + ":" + answer.as_string()})}};
                  });
    }
    sb.add_edge("__start__", "step_a").add_edge("step_a", "step_b");
    state_graph b;
    b.add_key("results", "add", value(list{}));
    b.add_node("parent_node", [](const value&, node_context&) -> value {
      return object{{"results", value::array({"p"})}};
    });
    b.add_node("sub_node", sb.compile(sub_opts(kind)));
    b.add_edge("__start__", "parent_node").add_edge("parent_node", "sub_node");
    graph = b.compile(opts_with_saver());
  }

  // One parent invocation answering both questions.
  void invocation(const value& config, const char* a, const char* b) {
    graph->invoke(object{{"results", list{}}}, config);
    graph->invoke(resume(a), config);
    graph->invoke(resume(b), config);
  }
};

// parent_start -> sub_graph (a per-invocation subgraph adding "sub<n>" to sub_value) ->
// parent_end.
std::shared_ptr<pregel> sub_value_graph(std::shared_ptr<std::atomic<int>> calls) {
  state_graph sb;
  sb.add_key("sub_value", "add", value(list{}));
  sb.add_node("sub_step", [calls](const value&, node_context&) -> value {
    return object{{"sub_value", value::array({"sub" + std::to_string(++*calls)})}};
  });
  sb.add_edge("__start__", "sub_step");
  state_graph b = value_graph();
  b.add_key("sub_value", "add", value(list{}));
  b.add_node("parent_start", append("parent_start", "p_start"));
  b.add_node("sub_graph", sb.compile(opts()));
  b.add_node("parent_end", append("parent_end", "p_end"));
  b.add_edge("__start__", "parent_start")
      .add_edge("parent_start", "sub_graph")
      .add_edge("sub_graph", "parent_end");
  return b.compile(opts_with_saver());
}

// node_a -> node_b ("b<n>") -> node_c.
std::shared_ptr<pregel> abc_graph(std::shared_ptr<std::atomic<int>> calls) {
  state_graph b = value_graph();
  b.add_node("node_a", append("node_a", "a"));
  b.add_node("node_b", [calls](const value&, node_context&) -> value {
    return object{{"value", value::array({"b" + std::to_string(++*calls)})}};
  });
  b.add_node("node_c", append("node_c", "c"));
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_b", "node_c");
  return b.compile(opts_with_saver());
}

const strings abc_original{R"(loop () {"value":["a","b1","c"]})",
                           R"(loop (node_c) {"value":["a","b1"]})",
                           R"(loop (node_b) {"value":["a"]})", R"(loop (node_a) {"value":[]})",
                           R"(input (__start__) {"value":[]})"};

}  // namespace

// libs/langgraph/tests/test_time_travel.py::test_get_state_with_subgraphs_returns_subgraph_state
BOOST_AUTO_TEST_CASE(test_get_state_with_subgraphs_returns_subgraph_state) {
  state_graph sb;
  sb.add_key("data");
  sb.add_node("process", [](const value&, node_context& ctx) -> value {
    ctx.interrupt("Continue?");
    return object{{"data", "processed"}};
  });
  sb.add_edge("__start__", "process");
  state_graph b;
  b.add_key("data");
  b.add_node("sub", sb.compile(opts()));
  b.add_edge("__start__", "sub");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  graph->invoke(object{{"data", "input"}}, config);
  state_snapshot state = graph->get_state(config, true);
  BOOST_TEST_REQUIRE(!state.tasks.empty());
  BOOST_TEST_REQUIRE(state.tasks[0].state != nullptr);
  value sub_config = config_of(*state.tasks[0].state);
  BOOST_TEST(sub_config.get("configurable").is_object());
  BOOST_TEST(sub_config.get("configurable").get("thread_id") == value("1"));
  // Without subgraphs, tasks carry no state.
  BOOST_TEST(graph->get_state(config).tasks.at(0).state == nullptr);
}

// libs/langgraph/tests/test_time_travel.py::test_checkpoint_ns_accessible_in_subgraph
BOOST_AUTO_TEST_CASE(test_checkpoint_ns_accessible_in_subgraph) {
  auto captured = std::make_shared<called_log>();  // checkpoint_ns, then thread_id
  state_graph sb;
  sb.add_key("data");
  sb.add_node("inner", [captured](const value&, node_context& ctx) -> value {
    captured->add(ctx.configurable("checkpoint_ns").to_json());
    captured->add(ctx.configurable("thread_id").to_json());
    captured->add(value(std::string(ctx.checkpoint_ns())).to_json());
    return object{{"data", "done"}};
  });
  sb.add_edge("__start__", "inner");
  state_graph b;
  b.add_key("data");
  b.add_node("outer", sb.compile(opts()));
  b.add_edge("__start__", "outer");
  auto graph = b.compile(opts_with_saver());
  graph->invoke(object{{"data", "test"}}, thread("1"));
  strings seen = captured->all();
  BOOST_TEST_REQUIRE(seen.size() == 3u);
  BOOST_TEST(seen[2] == seen[0]);  // the config's and the context's namespace agree
  BOOST_TEST(seen[0] != "null");
  BOOST_TEST(seen[0] != R"("")");
  BOOST_TEST(seen[0].starts_with(R"("outer:)"));
  BOOST_TEST(seen[1] == R"("1")");
}

// libs/langgraph/tests/test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_replay
BOOST_AUTO_TEST_CASE(test_stateful_subgraph_retains_state_on_parent_replay) {
  two_questions t;
  const value config = thread("1");
  t.invocation(config, "a1", "b1");
  BOOST_TEST(t.observed->all().at(0) == R"(step_a {"value":[]})");
  BOOST_TEST(t.observed->all().at(1) == R"(step_b {"value":["a:a1"]})");
  t.observed->clear();
  t.invocation(config, "a2", "b2");
  BOOST_TEST(t.observed->all().at(0) == R"(step_a {"value":["a:a1","b:b1"]})");
  BOOST_TEST(t.observed->all().at(1) == R"(step_b {"value":["a:a1","b:b1","a:a2"]})");
  state_snapshot before_sub_2nd = newest_before(*t.graph, config, "sub_node");
  t.started->clear();
  BOOST_TEST(t.graph->invoke(value(), config_of(before_sub_2nd)).get("__interrupt__").is_list());
  BOOST_TEST_REQUIRE(!t.started->all().empty());
  BOOST_TEST(t.started->all().at(0) == R"(step_a {"value":["a:a1","b:b1"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_stateful_subgraph_retains_state_on_parent_fork
BOOST_AUTO_TEST_CASE(test_stateful_subgraph_retains_state_on_parent_fork) {
  two_questions t;
  const value config = thread("1");
  t.invocation(config, "a1", "b1");
  t.invocation(config, "a2", "b2");
  state_snapshot before_sub_2nd = newest_before(*t.graph, config, "sub_node");
  value fork_config =
      t.graph->update_state(config_of(before_sub_2nd), object{{"results", list{"forked"}}});
  t.observed->clear();
  t.started->clear();
  BOOST_TEST(t.graph->invoke(value(), fork_config).get("__interrupt__").is_list());
  // This LangGraph test records the state before the interrupt() call (our `started`).
  BOOST_TEST_REQUIRE(!t.started->all().empty());
  BOOST_TEST(t.started->all().at(0) == R"(step_a {"value":["a:a1","b:b1"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_stateful_subgraph_loads_state_across_ticks
BOOST_AUTO_TEST_CASE(test_stateful_subgraph_loads_state_across_ticks) {
  auto observed = std::make_shared<called_log>();
  state_graph sb = value_graph();
  sb.add_node("sub_step", [observed](const value& state, node_context&) -> value {
    observed->add(state.to_json());
    return object{{"value", value::array({"s"})}};
  });
  sb.add_edge("__start__", "sub_step");
  state_graph b;
  b.add_key("results", "add", value(list{}));
  for (const char* n : {"node_a", "node_b"}) {
    const std::string item = n == std::string("node_a") ? "a" : "b";
    b.add_node(n, [item](const value&, node_context&) -> value {
      return object{{"results", value::array({item})}};
    });
  }
  b.add_node("sub_node", sb.compile(sub_opts(subgraph_checkpointer::stateful)));
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_b", "sub_node");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");
  graph->invoke(object{{"results", list{}}}, config);
  BOOST_TEST(observed->all().at(0) == R"({"value":[]})");
  observed->clear();
  graph->invoke(object{{"results", list{}}}, config);
  BOOST_TEST(observed->all().at(0) == R"({"value":["s"]})");
  state_snapshot before_a_2nd = newest_before(*graph, config, "node_a");
  observed->clear();
  graph->invoke(value(), config_of(before_a_2nd));
  BOOST_TEST_REQUIRE(!observed->all().empty());
  BOOST_TEST(observed->all().at(0) == R"({"value":["s"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_replay_creates_branch_preserving_old_checkpoints
BOOST_AUTO_TEST_CASE(test_replay_creates_branch_preserving_old_checkpoints) {
  auto graph = abc_graph(std::make_shared<std::atomic<int>>(0));
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).to_json() == R"({"value":["a","b1","c"]})");
  std::vector<state_snapshot> original_history = graph->get_state_history(config);
  BOOST_TEST(summary(original_history) == abc_original, boost::test_tools::per_element());
  const std::set<std::string> original_ids = ids_of(original_history);
  state_snapshot before_b = with_next(original_history, {"node_b"}).front();
  BOOST_TEST(graph->invoke(value(), config_of(before_b)).to_json() ==
             R"({"value":["a","b2","c"]})");
  std::vector<state_snapshot> post = graph->get_state_history(config);
  strings expected{R"(loop () {"value":["a","b2","c"]})", R"(loop (node_c) {"value":["a","b2"]})",
                   R"(fork (node_b) {"value":["a"]})"};
  expected.insert(expected.end(), abc_original.begin(), abc_original.end());
  BOOST_TEST(summary(post) == expected, boost::test_tools::per_element());
  std::set<std::string> post_ids = ids_of(post);
  for (const auto& id : original_ids) BOOST_TEST(post_ids.count(id) == 1u);
  state_snapshot first_new = oldest_new(post, original_ids);
  BOOST_TEST_REQUIRE(first_new.parent_config.has_value());
  BOOST_TEST(first_new.parent_config->checkpoint_id == before_b.config.checkpoint_id);
  state_snapshot latest = graph->get_state(config);
  BOOST_TEST(latest.values.to_json() == R"({"value":["a","b2","c"]})");
  BOOST_TEST(!original_ids.count(latest.config.checkpoint_id));
}

// libs/langgraph/tests/test_time_travel.py::test_replay_creates_branch_in_subgraph
BOOST_AUTO_TEST_CASE(test_replay_creates_branch_in_subgraph) {
  auto graph = sub_value_graph(std::make_shared<std::atomic<int>>(0));
  const value config = thread("1");
  BOOST_TEST(graph->invoke(object{{"value", list{}}, {"sub_value", list{}}}, config).to_json() ==
             R"({"value":["p_start","p_end"],"sub_value":["sub1"]})");
  std::vector<state_snapshot> original_history = graph->get_state_history(config);
  const std::set<std::string> original_ids = ids_of(original_history);
  state_snapshot before_sub = with_next(original_history, {"sub_graph"}).front();
  BOOST_TEST(graph->invoke(value(), config_of(before_sub)).to_json() ==
             R"({"value":["p_start","p_end"],"sub_value":["sub2"]})");
  std::vector<state_snapshot> post = graph->get_state_history(config);
  std::set<std::string> post_ids = ids_of(post);
  for (const auto& id : original_ids) BOOST_TEST(post_ids.count(id) == 1u);
  BOOST_TEST(post_ids.size() - original_ids.size() >= 2u);
  state_snapshot first_new = oldest_new(post, original_ids);
  BOOST_TEST_REQUIRE(first_new.parent_config.has_value());
  BOOST_TEST(first_new.parent_config->checkpoint_id == before_sub.config.checkpoint_id);
  state_snapshot latest = graph->get_state(config);
  BOOST_TEST(!original_ids.count(latest.config.checkpoint_id));
  BOOST_TEST(latest.values.to_json() == R"({"value":["p_start","p_end"],"sub_value":["sub2"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_fork_creates_branch_preserving_old_checkpoints
BOOST_AUTO_TEST_CASE(test_fork_creates_branch_preserving_old_checkpoints) {
  auto graph = abc_graph(std::make_shared<std::atomic<int>>(0));
  const value config = thread("1");
  BOOST_TEST(graph->invoke(empty_input(), config).to_json() == R"({"value":["a","b1","c"]})");
  std::vector<state_snapshot> original_history = graph->get_state_history(config);
  BOOST_TEST(summary(original_history) == abc_original, boost::test_tools::per_element());
  const std::set<std::string> original_ids = ids_of(original_history);
  state_snapshot before_b = with_next(original_history, {"node_b"}).front();
  value fork_config = graph->update_state(config_of(before_b), object{{"value", list{"x"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).to_json() == R"({"value":["a","x","b2","c"]})");
  std::vector<state_snapshot> post = graph->get_state_history(config);
  strings expected{R"(loop () {"value":["a","x","b2","c"]})",
                   R"(loop (node_c) {"value":["a","x","b2"]})",
                   R"(update (node_b) {"value":["a","x"]})"};
  expected.insert(expected.end(), abc_original.begin(), abc_original.end());
  BOOST_TEST(summary(post) == expected, boost::test_tools::per_element());
  std::set<std::string> post_ids = ids_of(post);
  for (const auto& id : original_ids) BOOST_TEST(post_ids.count(id) == 1u);
  state_snapshot first_new = oldest_new(post, original_ids);
  BOOST_TEST_REQUIRE(first_new.parent_config.has_value());
  BOOST_TEST(first_new.parent_config->checkpoint_id == before_b.config.checkpoint_id);
  state_snapshot latest = graph->get_state(config);
  BOOST_TEST(latest.values.to_json() == R"({"value":["a","x","b2","c"]})");
  BOOST_TEST(!original_ids.count(latest.config.checkpoint_id));
}

// libs/langgraph/tests/test_time_travel.py::test_fork_creates_branch_in_subgraph
BOOST_AUTO_TEST_CASE(test_fork_creates_branch_in_subgraph) {
  auto graph = sub_value_graph(std::make_shared<std::atomic<int>>(0));
  const value config = thread("1");
  BOOST_TEST(graph->invoke(object{{"value", list{}}, {"sub_value", list{}}}, config).to_json() ==
             R"({"value":["p_start","p_end"],"sub_value":["sub1"]})");
  std::vector<state_snapshot> original_history = graph->get_state_history(config);
  const std::set<std::string> original_ids = ids_of(original_history);
  state_snapshot before_sub = with_next(original_history, {"sub_graph"}).front();
  value fork_config = graph->update_state(config_of(before_sub), object{{"value", list{"extra"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).to_json() ==
             R"({"value":["p_start","extra","p_end"],"sub_value":["sub2"]})");
  std::vector<state_snapshot> post = graph->get_state_history(config);
  std::set<std::string> post_ids = ids_of(post);
  for (const auto& id : original_ids) BOOST_TEST(post_ids.count(id) == 1u);
  BOOST_TEST(post_ids.size() - original_ids.size() >= 3u);
  state_snapshot first_new = oldest_new(post, original_ids);
  BOOST_TEST_REQUIRE(first_new.parent_config.has_value());
  BOOST_TEST(first_new.parent_config->checkpoint_id == before_sub.config.checkpoint_id);
  state_snapshot latest = graph->get_state(config);
  BOOST_TEST(!original_ids.count(latest.config.checkpoint_id));
  BOOST_TEST(latest.values.to_json() ==
             R"({"value":["p_start","extra","p_end"],"sub_value":["sub2"]})");
}

// libs/langgraph/tests/test_time_travel.py::test_stateless_subgraph_starts_fresh_on_parent_replay
BOOST_AUTO_TEST_CASE(test_stateless_subgraph_starts_fresh_on_parent_replay) {
  two_questions t(subgraph_checkpointer::per_invocation);
  const value config = thread("1");
  t.invocation(config, "a1", "b1");
  BOOST_TEST(t.observed->all().at(0) == R"(step_a {"value":[]})");
  BOOST_TEST(t.observed->all().at(1) == R"(step_b {"value":["a:a1"]})");
  t.observed->clear();
  t.invocation(config, "a2", "b2");
  BOOST_TEST(t.observed->all().at(0) == R"(step_a {"value":[]})");
  BOOST_TEST(t.observed->all().at(1) == R"(step_b {"value":["a:a2"]})");
  state_snapshot before_sub_2nd = newest_before(*t.graph, config, "sub_node");
  t.started->clear();
  BOOST_TEST(t.graph->invoke(value(), config_of(before_sub_2nd)).get("__interrupt__").is_list());
  BOOST_TEST_REQUIRE(!t.started->all().empty());
  BOOST_TEST(t.started->all().at(0) == R"(step_a {"value":[]})");
}
