// libs/langgraph/tests/test_delta_channel_supersteps_bound.py (a delta key nobody writes is
// still snapshotted once enough steps passed) and test_delta_channel_id_stability.py (a
// message written without an id gets one that every rebuild shows again); see
// conformance.hpp.
#include <set>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/delta_channel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// _simple_reducer: extends with a list write, appends any other.
channels::reducer simple_reducer() {
  channels::reducer r;
  r.name = "simple";
  r.fold = [](const value& state, std::span<const value> writes) {
    list out = state.as_list();
    for (const value& w : writes)
      if (w.is_list())
        out.insert(out.end(), w.as_list().begin(), w.as_list().end());
      else
        out.push_back(w);
    return value(std::move(out));
  };
  return r;
}

struct two_channel_graph {
  std::shared_ptr<checkpoint_saver> saver = conformance::saver();
  std::shared_ptr<pregel> graph;

  // Delta keys a and b; a chain of `n_loops` nodes, each writing only a.
  two_channel_graph(std::int64_t max_steps, int n_loops) {
    state_graph b;
    b.add_delta_key("a", simple_reducer(), {10'000, std::nullopt});
    b.add_delta_key("b", simple_reducer(), {10'000, std::nullopt});
    for (int i = 0; i < n_loops; ++i) {
      const std::string name = "step_" + std::to_string(i);
      b.add_node(name, [i](const value&, node_context&) -> value {
        return object{{"a", list{"a-val-" + std::to_string(i)}}};
      });
      b.add_edge(i == 0 ? std::string("__start__") : "step_" + std::to_string(i - 1), name);
      if (i == n_loops - 1) b.add_edge(name, "__end__");
    }
    compile_options o = opts();
    o.checkpointer = saver;
    o.delta_max_steps_since_snapshot = max_steps;
    graph = b.compile(o);
  }

  checkpoint_tuple head(const std::string& thread_id) {
    auto t = saver->get_tuple(checkpoint_config{thread_id, "", ""});
    BOOST_TEST_REQUIRE(t.has_value());
    return std::move(*t);
  }
};

bool snapshotted(const checkpoint_tuple& t, const char* key) {
  auto it = t.checkpoint.channel_values.find(key);
  return it != t.checkpoint.channel_values.end() && channels::as_delta_snapshot(it->second);
}

// The (updates, steps) counters of `key` in `t`'s metadata; (0, 0) when absent.
std::pair<std::int64_t, std::int64_t> counters(const checkpoint_tuple& t, const char* key) {
  const value* all = t.metadata.extra.find("counters_since_delta_snapshot");
  const value* c = all ? all->find(key) : nullptr;
  if (!c) return {0, 0};
  return {c->as_list()[0].as_int(), c->as_list()[1].as_int()};
}

bool contains(const value& items, const char* item) {
  for (const auto& v : items.as_list())
    if (v == value(item)) return true;
  return false;
}

}  // namespace

// libs/langgraph/tests/test_delta_channel_supersteps_bound.py::test_forced_snapshot_single_run
BOOST_AUTO_TEST_CASE(test_forced_snapshot_single_run) {
  two_channel_graph g(3, 4);
  const value config = thread("single-run-ss");
  g.graph->invoke(object{{"a", list{"seed-a"}}, {"b", list{"seed-b"}}}, config);
  BOOST_TEST(snapshotted(g.head("single-run-ss"), "b"),
             "b should have been snapshotted by the steps bound");
  const value values = g.graph->get_state(config).values;
  BOOST_TEST(values.get("b").to_json() == R"(["seed-b"])");
  BOOST_TEST(contains(values.get("a"), "seed-a"));
}

// libs/langgraph/tests/test_delta_channel_supersteps_bound.py::test_forced_snapshot_accumulates_across_runs
BOOST_AUTO_TEST_CASE(test_forced_snapshot_accumulates_across_runs) {
  two_channel_graph g(5, 1);
  const value config = thread("multi-run-ss");
  g.graph->invoke(object{{"a", list{"init-a"}}, {"b", list{"init-b"}}}, config);
  bool snapshot_seen = false;
  for (int i = 1; i < 6 && !snapshot_seen; ++i) {
    g.graph->invoke(object{{"a", list{"run-" + std::to_string(i)}}}, config);
    checkpoint_tuple head = g.head("multi-run-ss");
    if (counters(head, "b") == std::pair<std::int64_t, std::int64_t>{0, 0}) {
      BOOST_TEST(snapshotted(head, "b"), "run " << i << ": counters reset but no snapshot");
      snapshot_seen = true;
    }
  }
  BOOST_TEST(snapshot_seen, "b was never snapshotted");

  const value values = g.graph->get_state(config).values;
  BOOST_TEST(values.get("b").to_json() == R"(["init-b"])");
  BOOST_TEST(contains(values.get("a"), "init-a"));
}

// libs/langgraph/tests/test_delta_channel_supersteps_bound.py::test_counter_reset_after_supersteps_snapshot
BOOST_AUTO_TEST_CASE(test_counter_reset_after_supersteps_snapshot) {
  const std::int64_t max_steps = 15;
  two_channel_graph g(max_steps, 4);
  const value config = thread("counter-reset");
  g.graph->invoke(object{{"a", list{"seed-a"}}, {"b", list{"seed-b"}}}, config);
  auto b1 = counters(g.head("counter-reset"), "b");
  BOOST_TEST(b1.second > 0);
  BOOST_TEST(b1.first == 1, "b written once (by the input's step)");

  g.graph->invoke(object{{"a", list{"more-a"}}}, config);
  auto b2 = counters(g.head("counter-reset"), "b");
  BOOST_TEST(b2.second > b1.second, "steps accumulate across runs");
  BOOST_TEST(b2.first == 1, "b written once in all");

  g.graph->invoke(object{{"a", list{"even-more"}}}, config);
  checkpoint_tuple head3 = g.head("counter-reset");
  BOOST_TEST(snapshotted(head3, "b"), "b snapshotted once steps reached the bound");
  BOOST_TEST(counters(head3, "b").second < max_steps, "steps reset after the snapshot");
  BOOST_TEST(g.graph->get_state(config).values.get("b").to_json() == R"(["seed-b"])");
}

// A bound that is not positive is refused at compile time, naming the value.
BOOST_AUTO_TEST_CASE(delta_max_steps_since_snapshot_must_be_positive) {
  state_graph b;
  b.add_delta_key("a", simple_reducer());
  b.add_node("n", [](const value&, node_context&) -> value { return object{}; });
  b.add_edge("__start__", "n");
  compile_options o = opts();
  o.delta_max_steps_since_snapshot = 0;
  try {
    (void)b.compile(o);
    BOOST_FAIL("compiled with delta_max_steps_since_snapshot = 0");
  } catch (const error& e) {
    BOOST_TEST((e.code() == error_code::invalid_graph));
    BOOST_TEST(std::string(e.what()).find("delta_max_steps_since_snapshot must be a positive "
                                          "integer, got 0") != std::string::npos,
               e.what());
  }
}

namespace {

// test_delta_channel_id_stability.py's graph: messages (snapshot every 50 updates), START ->
// agent -> END, agent replying with an id. LangGraph gives id-less messages a uuid before
// saving the writes (ensure_message_ids) and its test's reducer appends; here the messages
// reducer gives them one (deterministic, so every rebuild gives the same).
std::shared_ptr<pregel> id_graph() {
  state_graph b;
  b.add_delta_key("messages", "messages_delta", {50, std::nullopt});
  b.add_node("agent", [](const value&, node_context&) -> value {
    return object{{"messages", list{object{{"type", "ai"}, {"content", "reply"}, {"id", "ai-1"}}}}};
  });
  b.add_edge("__start__", "agent").add_edge("agent", "__end__");
  return b.compile(opts_with_saver());
}

// The id of the human message in the thread's state, read `n` times.
std::set<std::string> human_ids(const pregel& graph, const value& config, int n) {
  std::set<std::string> ids;
  for (int i = 0; i < n; ++i) {
    const value values = graph.get_state(config).values;
    for (const auto& m : values.get("messages").as_list())
      if (m.get("type") == value("human")) {
        const value* id = m.find("id");
        ids.insert(id && id->is_string() ? id->as_string() : "<none>");
      }
  }
  return ids;
}

}  // namespace

// libs/langgraph/tests/test_delta_channel_id_stability.py::test_delta_channel_message_gets_id_and_stays_stable
BOOST_AUTO_TEST_CASE(test_delta_channel_message_gets_id_and_stays_stable) {
  auto graph = id_graph();
  const value config = thread("id-stability");
  graph->invoke(object{{"messages", list{object{{"type", "human"}, {"content", "hello"}}}}},
                config);
  auto ids = human_ids(*graph, config, 3);
  BOOST_TEST(ids.size() == 1u, "the id must be the same on every read");
  BOOST_TEST(!ids.count("<none>"), "the message must have got an id");
}

// libs/langgraph/tests/test_delta_channel_id_stability.py::test_delta_channel_dict_style_message_gets_stable_id
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_style_message_gets_stable_id) {
  auto graph = id_graph();
  const value config = thread("dict-id-stability");
  graph->invoke(object{{"messages", list{object{{"role", "user"}, {"content", "hello"}}}}}, config);
  auto ids = human_ids(*graph, config, 3);
  BOOST_TEST(ids.size() == 1u, "the id must be the same on every read");
  BOOST_TEST(!ids.count("<none>"), "the {role: user} message must have become a human one");
}
