// A run fails with the error of whatever failed under it (a saver, a stream sink, a node, a
// subgraph) and leaves the thread's state as LangGraph leaves it: the process survives, no
// thread is left using the run's freed state, and `get_state` shows the successful tasks'
// writes applied with only the failed nodes next. Runs against both savers and both
// execution modes (tests/CMakeLists.txt).
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "support/expect_error.hpp"
#include "support/throwing_saver.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;
using test::throwing_saver;

compile_options with_saver(std::shared_ptr<checkpoint_saver> saver) {
  compile_options o = test::opts();
  o.checkpointer = std::move(saver);
  return o;
}

// __start__ fans out to six parallel nodes, each adding 1 to `value`.
state_graph six_parallel_nodes() {
  state_graph b;
  b.add_key("value", "add");
  for (int i = 0; i < 6; ++i) {
    std::string name = "n" + std::to_string(i);
    b.add_node(name, [](const value&, node_context&) -> value { return object{{"value", 1}}; });
    b.add_edge("__start__", name);
  }
  return b;
}

constexpr int rounds = 20;  // repeated to shake out a thread left using the run's freed state

}  // namespace

BOOST_AUTO_TEST_CASE(a_saver_whose_put_writes_throws_fails_the_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  auto graph = six_parallel_nodes().compile(with_saver(saver));
  saver->fail_put_writes = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error(
        [&] {
          graph->invoke(object{{"value", 0}}, thread("t"));
        },
        error_code::storage_error, "put_writes: the disk is on fire");
  saver->fail_put_writes = false;  // the graph still runs once the saver recovers
  BOOST_TEST(graph->invoke(object{{"value", 0}}, thread("ok")).to_json() == R"({"value":6})");
}

BOOST_AUTO_TEST_CASE(a_saver_whose_put_throws_fails_the_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  auto graph = six_parallel_nodes().compile(with_saver(saver));
  saver->fail_put = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error(
        [&] {
          graph->invoke(object{{"value", 0}}, thread("t"));
        },
        error_code::storage_error, "put: the disk is on fire");
}

BOOST_AUTO_TEST_CASE(a_stream_sink_that_throws_fails_the_run_with_its_error) {
  auto graph = six_parallel_nodes().compile(with_saver(test::make_saver()));
  stream_options so;
  so.modes = {stream_mode::updates};
  for (int i = 0; i < rounds; ++i)
    test::expect_error(
        [&] {
          graph->stream(object{{"value", 0}}, thread("t"), so, [](const stream_event&) {
            throw error(error_code::unavailable, "the sink's client went away");
          });
        },
        error_code::unavailable, "the sink's client went away");
}

BOOST_AUTO_TEST_CASE(a_subgraph_whose_saver_throws_fails_the_parent_run_with_its_error) {
  auto saver = std::make_shared<throwing_saver>(test::make_saver());
  saver->only_in_subgraphs = true;
  // Each of six parallel parent nodes runs a subgraph of six parallel nodes: the subgraphs'
  // batches run on pool threads (threads mode), their saves failing there.
  auto child = six_parallel_nodes().compile(test::opts());
  state_graph parent;
  parent.add_key("value", "add");
  for (int i = 0; i < 6; ++i) {
    std::string name = "sub" + std::to_string(i);
    parent.add_node(name, child);
    parent.add_edge("__start__", name);
  }
  auto graph = parent.compile(with_saver(saver));
  saver->fail_put_writes = true;
  for (int i = 0; i < rounds; ++i)
    test::expect_error(
        [&] {
          graph->invoke(object{{"value", 0}}, thread("t"));
        },
        error_code::storage_error, "put_writes: the disk is on fire");
}

BOOST_AUTO_TEST_CASE(a_step_whose_writes_the_channels_refuse_still_shows_its_checkpoint_state) {
  // "bad" writes a number to a list key: the step fails applying it, after its writes were
  // saved as the pending writes of a finished task. get_state still answers, with the state
  // the checkpoint holds and both nodes next.
  state_graph b;
  b.add_key("items", "append").add_key("value", "add");
  b.add_node("bad", [](const value&, node_context&) -> value { return object{{"items", 5}}; });
  b.add_node("good", [](const value&, node_context&) -> value { return object{{"value", 2}}; });
  b.add_edge("__start__", "bad").add_edge("__start__", "good");
  auto graph = b.compile(with_saver(test::make_saver()));
  BOOST_CHECK_THROW(graph->invoke(object{{"items", list{}}, {"value", 1}}, thread("t")), error);
  state_snapshot state = graph->get_state(thread("t"));
  BOOST_TEST(state.values.to_json() == R"({"items":[],"value":1})");
  BOOST_TEST((state.next == std::vector<std::string>{"bad", "good"}));
}
