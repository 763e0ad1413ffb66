// Node caching beyond LangGraph's own tests (those are in tests/conformance/cache_test.cpp):
// the cache policy's key function and TTL, which tasks are cached, and clear_cache by node.

#include "superstep/pregel/node_cache.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "support/expect_error.hpp"
#include "test_execution.hpp"

using namespace superstep;

namespace {

// START -> a -> b, each counting its runs; a and b cached under `policy`.
struct counted_graph {
  std::atomic<int> a_runs = 0, b_runs = 0;
  std::shared_ptr<memory_cache> cache = std::make_shared<memory_cache>();
  std::shared_ptr<pregel> graph;

  explicit counted_graph(cache_policy policy, bool a_fails = false) {
    state_graph b;
    b.add_key("x");
    b.add_key("tag");
    b.add_key("out", "append");
    b.add_node("a",
               [this, a_fails](const value& s, node_context&) -> value {
                 ++a_runs;
                 if (a_fails) throw std::runtime_error("a failed");
                 return object{{"out", list{"a:" + s.get("x").to_json()}}};
               },
               {.cache = policy});
    b.add_node("b",
               [this](const value&, node_context&) -> value {
                 ++b_runs;
                 return object{{"out", list{"b"}}};
               },
               {.cache = policy});
    b.add_edge(std::string(START), "a");
    b.add_edge("a", "b");
    compile_options o = test::opts();
    o.cache = cache;
    graph = b.compile(o);
  }
};

value input(int x, const char* tag = "") { return object{{"x", x}, {"tag", tag}}; }

}  // namespace

BOOST_AUTO_TEST_CASE(a_cached_node_runs_once_per_input_and_its_writes_are_replayed) {
  counted_graph g{cache_policy{}};
  value first = g.graph->invoke(input(1));
  value again = g.graph->invoke(input(1));
  BOOST_TEST(first == again);
  BOOST_TEST(g.a_runs == 1);
  g.graph->invoke(input(2));
  BOOST_TEST(g.a_runs == 2);
}

BOOST_AUTO_TEST_CASE(the_key_function_decides_which_inputs_share_an_entry) {
  cache_policy by_x;
  by_x.key_func = [](const value& state) { return state.get("x").to_json(); };
  counted_graph g{by_x};
  g.graph->invoke(input(1, "first"));
  g.graph->invoke(input(1, "second"));  // another tag, same key
  BOOST_TEST(g.a_runs == 1);
}

BOOST_AUTO_TEST_CASE(an_entry_past_its_ttl_is_not_used) {
  cache_policy expired;
  expired.ttl = 0;  // expires as it is stored
  counted_graph g{expired};
  g.graph->invoke(input(1));
  g.graph->invoke(input(1));
  BOOST_TEST(g.a_runs == 2);
}

BOOST_AUTO_TEST_CASE(a_failed_task_is_not_cached) {
  counted_graph g{cache_policy{}, true};
  for (int i = 0; i < 2; ++i)
    test::expect_error([&] { g.graph->invoke(input(1)); }, error_code::node_error, "a failed");
  BOOST_TEST(g.a_runs == 2);
}

BOOST_AUTO_TEST_CASE(clear_cache_forgets_the_named_nodes_only) {
  counted_graph g{cache_policy{}};
  g.graph->invoke(input(1));
  g.graph->clear_cache({"b"});
  g.graph->invoke(input(1));
  BOOST_TEST(g.a_runs == 1);
  BOOST_TEST(g.b_runs == 2);
  g.graph->clear_cache();
  g.graph->invoke(input(1));
  BOOST_TEST(g.a_runs == 2);
  BOOST_TEST(g.b_runs == 3);
}

BOOST_AUTO_TEST_CASE(clear_cache_without_a_cache_is_an_error) {
  state_graph b;
  b.add_key("x");
  b.add_node("a", [](const value& s, node_context&) { return s; });
  b.add_edge(std::string(START), "a");
  auto graph = b.compile(test::opts());
  test::expect_error([&] { graph->clear_cache(); }, error_code::invalid_argument,
                     "No cache is set for this graph");
}

BOOST_AUTO_TEST_CASE(memory_cache_keeps_entries_by_namespace) {
  memory_cache c;
  c.set({"ns", "a"}, "k", {{"x", value(1)}}, std::nullopt);
  c.set({"ns", "b"}, "k", {{"x", value(2)}}, std::nullopt);
  BOOST_TEST(c.get({"ns", "a"}, "k").value().at(0).second == value(1));
  BOOST_TEST(!c.get({"ns", "a"}, "other").has_value());
  std::vector<node_cache::cache_namespace> only_a{{"ns", "a"}};
  c.clear(&only_a);
  BOOST_TEST(!c.get({"ns", "a"}, "k").has_value());
  BOOST_TEST(c.get({"ns", "b"}, "k").has_value());
  c.clear(nullptr);
  BOOST_TEST(!c.get({"ns", "b"}, "k").has_value());
}
