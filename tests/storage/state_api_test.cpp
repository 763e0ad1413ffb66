// The graph state API on the seed's persistence example (shared/seeds/000_*): node_a → node_b
// with `bar` folded by an append reducer.
#include <boost/test/unit_test.hpp>

#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/pregel.hpp"
#include "support/expect_error.hpp"
#include "test_saver.hpp"

using namespace superstep;
using superstep::test::expect_error;

namespace {

struct seed_graph {
  std::shared_ptr<checkpoint_saver> saver = test::make_saver();
  std::shared_ptr<pregel> graph;
  value config = object{{"configurable", object{{"thread_id", "1"}}}};

  seed_graph() {
    state_graph b;
    b.add_key("foo").add_key("bar", "append");
    b.add_node("node_a", [](const value&, node_context&) -> value {
      return object{{"foo", "a"}, {"bar", value::array({"a"})}};
    });
    b.add_node("node_b", [](const value&, node_context&) -> value {
      return object{{"foo", "b"}, {"bar", value::array({"b"})}};
    });
    b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_b", "__end__");
    compile_options o;
    o.checkpointer = saver;
    graph = b.compile(o);
  }
};

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& n : v) s += (s.empty() ? "" : ",") + n;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(history_lists_the_four_checkpoints_of_the_seed_newest_first) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);

  state_snapshot now = g.graph->get_state(g.config);
  BOOST_TEST(now.values.to_json() == R"({"foo":"b","bar":["a","b"]})");
  BOOST_TEST(now.next.empty());
  BOOST_TEST(now.metadata.get("source").as_string() == "loop");
  BOOST_TEST(now.metadata.get("step").as_int() == 2);
  // LangGraph's current metadata: source, step and parents (no `writes`).
  BOOST_TEST(now.metadata.to_json() == R"({"source":"loop","step":2,"parents":{}})");

  auto history = g.graph->get_state_history(g.config);
  BOOST_TEST_REQUIRE(history.size() == 4u);
  BOOST_TEST(history[0].config.checkpoint_id == now.config.checkpoint_id);
  const char* values[] = {R"({"foo":"b","bar":["a","b"]})", R"({"foo":"a","bar":["a"]})",
                          R"({"foo":"","bar":[]})", R"({"bar":[]})"};
  const char* next[] = {"", "node_b", "node_a", "__start__"};
  const char* sources[] = {"loop", "loop", "loop", "input"};
  const std::int64_t steps[] = {2, 1, 0, -1};
  for (std::size_t i = 0; i < 4; ++i) {
    BOOST_TEST_CONTEXT("checkpoint " << i) {
      BOOST_TEST(history[i].values.to_json() == values[i]);
      BOOST_TEST(names(history[i].next) == next[i]);
      BOOST_TEST(history[i].metadata.get("source").as_string() == sources[i]);
      BOOST_TEST(history[i].metadata.get("step").as_int() == steps[i]);
      BOOST_TEST(history[i].tasks.size() == history[i].next.size());
      if (i < 3) {
        BOOST_TEST_REQUIRE(history[i].parent_config.has_value());
        BOOST_TEST(history[i].parent_config->checkpoint_id == history[i + 1].config.checkpoint_id);
      } else {
        BOOST_TEST(!history[i].parent_config.has_value());
      }
    }
  }
  for (const auto& s : history) BOOST_TEST(!s.metadata.find("writes"));

  // A past checkpoint by id, and a limit.
  value at_1 = object{{"configurable", object{{"thread_id", "1"},
                                              {"checkpoint_id", history[1].config.checkpoint_id}}}};
  BOOST_TEST(names(g.graph->get_state(at_1).next) == "node_b");
  list_options two;
  two.limit = 2;
  BOOST_TEST(g.graph->get_state_history(g.config, two).size() == 2u);
}

BOOST_AUTO_TEST_CASE(update_state_overwrites_foo_and_appends_to_bar) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);
  value updated = g.graph->update_state(g.config, object{{"foo", 2}, {"bar", value::array({"b"})}});
  BOOST_TEST(updated.get("configurable").get("thread_id").as_string() == "1");
  state_snapshot s = g.graph->get_state(g.config);
  BOOST_TEST(s.values.to_json() == R"({"foo":2,"bar":["a","b","b"]})");
  BOOST_TEST(s.metadata.get("source").as_string() == "update");
  BOOST_TEST(s.metadata.get("step").as_int() == 3);
  BOOST_TEST(s.metadata.to_json() == R"({"source":"update","step":3,"parents":{}})");
  BOOST_TEST(s.next.empty());  // as node_b (the last to run): its only edge goes to END
  BOOST_TEST(g.graph->get_state_history(g.config).size() == 5u);
}

BOOST_AUTO_TEST_CASE(update_state_as_a_node_makes_its_successors_run_next) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);
  g.graph->update_state(g.config, object{{"foo", "x"}}, std::string("node_a"));
  BOOST_TEST(names(g.graph->get_state(g.config).next) == "node_b");
  // Resuming the thread runs node_b on the updated state.
  value out = g.graph->invoke(value(), g.config);
  BOOST_TEST(out.to_json() == R"({"foo":"b","bar":["a","b","b"]})");
  expect_error(
      [&] {
        g.graph->update_state(g.config, object{{"foo", 1}}, std::string("ghost"));
      },
      error_code::invalid_argument, "unknown node 'ghost'");
}

BOOST_AUTO_TEST_CASE(replaying_from_a_past_checkpoint_forks_the_thread) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);
  auto history = g.graph->get_state_history(g.config);
  const std::string middle = history[1].config.checkpoint_id;  // after node_a, next node_b
  value at_middle = object{{"configurable", object{{"thread_id", "1"}, {"checkpoint_id", middle}}}};
  value out = g.graph->invoke(value(), at_middle);
  BOOST_TEST(out.to_json() == R"({"foo":"b","bar":["a","b"]})");

  auto after = g.graph->get_state_history(g.config);
  BOOST_TEST_REQUIRE(after.size() == 6u);  // the 4 originals, a fork and node_b's rerun
  BOOST_TEST(after[1].metadata.get("source").as_string() == "fork");
  BOOST_TEST(after[1].parent_config->checkpoint_id == middle);  // a new branch from the middle
  BOOST_TEST(after[0].parent_config->checkpoint_id == after[1].config.checkpoint_id);
  BOOST_TEST(after[0].values.to_json() == R"({"foo":"b","bar":["a","b"]})");

  value missing = object{{"configurable", object{{"thread_id", "1"}, {"checkpoint_id", "nope"}}}};
  expect_error([&] { g.graph->invoke(value(), missing); }, error_code::not_found,
               "checkpoint nope not found in thread 1");
}

BOOST_AUTO_TEST_CASE(a_fork_never_changes_the_checkpoints_of_the_branch_it_leaves) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);
  auto before = g.graph->get_state_history(g.config);
  BOOST_TEST_REQUIRE(before.size() == 4u);
  const auto at = [](const std::string& id) -> value {
    return object{{"configurable", object{{"thread_id", "1"}, {"checkpoint_id", id}}}};
  };
  // Update the middle checkpoint (after node_a) as node_a, then run the new branch: node_b
  // writes the channels the original step 2 wrote, one step later in the fork.
  value fork = g.graph->update_state(at(before[1].config.checkpoint_id),
                                     object{{"foo", "x"}, {"bar", value::array({"y"})}},
                                     std::string("node_a"));
  BOOST_TEST(g.graph->get_state(fork).values.to_json() == R"({"foo":"x","bar":["a","y"]})");
  BOOST_TEST(g.graph->invoke(value(), fork).to_json() == R"({"foo":"b","bar":["a","y","b"]})");
  // And update the original last checkpoint too: a fork of a fork's sibling.
  g.graph->update_state(at(before[0].config.checkpoint_id), object{{"foo", "z"}});

  for (const auto& s : before)
    BOOST_TEST_CONTEXT("checkpoint at step " << s.metadata.get("step").as_int()) {
      BOOST_TEST(g.graph->get_state(at(s.config.checkpoint_id)).values.to_json() ==
                 s.values.to_json());
    }
}

BOOST_AUTO_TEST_CASE(delete_thread_removes_its_history_and_state_needs_a_checkpointer) {
  seed_graph g;
  g.graph->invoke(object{{"foo", ""}}, g.config);
  g.graph->delete_thread("1");
  BOOST_TEST(g.graph->get_state_history(g.config).empty());
  BOOST_TEST(g.graph->get_state(g.config).values.to_json() == "{}");

  state_graph b;
  b.add_key("x");
  b.add_node("n", [](const value&, node_context&) { return value(); });
  b.add_edge("__start__", "n");
  expect_error([&] { b.compile()->get_state(g.config); }, error_code::invalid_argument,
               "needs a graph compiled with a checkpointer");
}

BOOST_AUTO_TEST_CASE(async_durability_saves_the_same_history_as_sync) {
  // The background thread keeps its own copy of the checkpoint, sent whole once and then as
  // what changed: its history must be the sync one, value for value, through a loop of 24
  // steps, conditional branches (their channels cleared again) and an append list.
  struct loop_graph {
    std::shared_ptr<checkpoint_saver> saver = test::make_saver();
    std::shared_ptr<pregel> graph;
    loop_graph() {
      state_graph b;
      b.add_key("count", "add").add_key("log", "append").add_key("last");
      for (const char* name : {"a", "b", "c"})
        b.add_node(name, [name](const value&, node_context&) -> value {
          return object{{"count", 1}, {"log", value::array({name})}, {"last", name}};
        });
      b.add_edge("__start__", "a");
      const auto route = [](const value& state, node_context&) -> value {
        const auto n = state.get("count").as_int();
        return n >= 24 ? "__end__" : n % 3 == 0 ? "c" : "b";
      };
      for (const char* from : {"a", "b", "c"}) b.add_conditional_edges(from, route);
      compile_options o;
      o.checkpointer = saver;
      graph = b.compile(o);
    }
  };
  const auto history = [](const char* mode) {
    loop_graph g;
    value cfg = object{{"configurable", object{{"thread_id", "t"}}}, {"durability", mode}};
    g.graph->invoke(object{{"count", 0}}, cfg);
    list out;
    for (const auto& s : g.graph->get_state_history(cfg))
      out.push_back(object{{"values", s.values},
                           {"next", value(list(s.next.begin(), s.next.end()))},
                           {"metadata", s.metadata}});
    return value(std::move(out));
  };
  const value sync = history("sync");
  BOOST_TEST(sync.as_list().size() == 26u);
  BOOST_TEST(history("async").to_json() == sync.to_json());
}

BOOST_AUTO_TEST_CASE(durability_async_saves_every_step_and_exit_only_the_last) {
  auto with = [](const char* mode) {
    value cfg = object{{"configurable", object{{"thread_id", "1"}}}, {"durability", mode}};
    return cfg;
  };
  seed_graph a;
  BOOST_TEST(a.graph->invoke(object{{"foo", ""}}, with("async")).to_json() ==
             R"({"foo":"b","bar":["a","b"]})");
  BOOST_TEST(a.graph->get_state_history(a.config).size() == 4u);

  seed_graph e;
  e.graph->invoke(object{{"foo", ""}}, with("exit"));
  auto history = e.graph->get_state_history(e.config);
  BOOST_TEST_REQUIRE(history.size() == 1u);  // only the final checkpoint
  BOOST_TEST(history[0].values.to_json() == R"({"foo":"b","bar":["a","b"]})");
  BOOST_TEST(history[0].metadata.get("step").as_int() == 2);
  BOOST_TEST(history[0].next.empty());
  // The thread continues from it like any other.
  e.graph->update_state(e.config, object{{"foo", "z"}}, std::string("node_a"));
  BOOST_TEST(e.graph->invoke(value(), with("exit")).to_json() ==
             R"({"foo":"b","bar":["a","b","b"]})");

  seed_graph bad;
  expect_error(
      [&] {
        bad.graph->invoke(object{{"foo", ""}}, with("often"));
      },
      error_code::invalid_argument, "durability must be sync, async or exit");
}
