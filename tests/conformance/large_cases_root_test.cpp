// libs/langgraph/tests/test_large_cases.py: graphs whose state is one value (a ROOT key).
#include <atomic>

#include "functional_support.hpp"
#include "stream_support.hpp"
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

value checkpoint_id_of(const std::optional<checkpoint_config>& c) {
  return c ? value(c->checkpoint_id) : value();
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_fork_always_re_runs_nodes
BOOST_AUTO_TEST_CASE(test_fork_always_re_runs_nodes) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key(std::string(ROOT), "add", value(0));  // Annotated[int, add]: int() before any write
  b.add_node("add_one", [calls](const value&, node_context&) -> value {
    ++*calls;
    return value(1);
  });
  b.add_edge("__start__", "add_one");
  b.add_conditional_edges("add_one", [](const value& cnt, node_context&) -> value {
    return value(cnt.as_int() < 6 ? "add_one" : "__end__");
  });
  auto graph = b.compile(opts_with_saver());
  const value thread1 = thread("1");

  // start execution, stop at inbox
  recorder r;
  r.with_mode = true;
  stream_options so;
  so.modes = {stream_mode::values, stream_mode::updates};
  graph->stream(value(1), with_durability(thread1, "async"), so, r.sink());
  BOOST_TEST(r.texts() == (strings{"values () 1", R"(updates () {"add_one":1})", "values () 2",
                                   R"(updates () {"add_one":1})", "values () 3",
                                   R"(updates () {"add_one":1})", "values () 4",
                                   R"(updates () {"add_one":1})", "values () 5",
                                   R"(updates () {"add_one":1})", "values () 6"}),
             boost::test_tools::per_element());

  // list history
  const auto history = graph->get_state_history(thread1);
  BOOST_TEST_REQUIRE(history.size() == 7u);
  for (std::size_t i = 0; i < history.size(); ++i) {
    BOOST_TEST_CONTEXT("history[" << i << "]") {
      const state_snapshot& s = history[i];
      const std::int64_t step = 5 - static_cast<std::int64_t>(i);
      BOOST_TEST(s.values == value(step + 1));
      BOOST_TEST(s.metadata.get("source").as_string() == (step == -1 ? "input" : "loop"));
      BOOST_TEST(s.metadata.get("step").as_int() == step);
      BOOST_TEST(s.metadata.get("parents").to_json() == "{}");
      BOOST_TEST(s.config.thread_id == "1");
      BOOST_TEST(s.config.checkpoint_ns == "");
      if (i + 1 < history.size())
        BOOST_TEST(checkpoint_id_of(s.parent_config) == value(history[i + 1].config.checkpoint_id));
      else
        BOOST_TEST(!s.parent_config.has_value());
      if (i == 0) {
        BOOST_TEST(s.tasks.empty());
        BOOST_TEST(s.next.empty());
      } else {
        const std::string node = step == -1 ? "__start__" : "add_one";
        BOOST_TEST_REQUIRE(s.tasks.size() == 1u);
        BOOST_TEST(s.tasks[0].name == node);
        BOOST_TEST(!s.tasks[0].error.has_value());
        BOOST_TEST(s.tasks[0].interrupts.empty());
        BOOST_TEST(s.tasks[0].result == value(1));
        BOOST_TEST(s.next == strings{node}, boost::test_tools::per_element());
      }
    }
  }

  // forking from any previous checkpoint should re-run nodes
  const int before = calls->load();
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[0]), {stream_mode::updates}).empty());
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[1]), {stream_mode::updates}) ==
                 (strings{R"(() {"add_one":1})"}),
             boost::test_tools::per_element());
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[2]), {stream_mode::updates}) ==
                 (strings{R"(() {"add_one":1})", R"(() {"add_one":1})"}),
             boost::test_tools::per_element());
  BOOST_TEST(calls->load() == before + 3);
}
