// LangGraph's drain tests (libs/langgraph/tests/test_runtime.py), ported: a run given a
// run_control (stream_options::control, LangGraph's `control=RunControl()`) stops at the next
// step boundary once asked to drain, with error(drained) naming the reason (GraphDrained),
// its thread resumable; a drain asked in the last step ends the run normally.

#include <condition_variable>
#include <mutex>
#include <thread>

#include "conformance.hpp"
#include "superstep/pregel/run_control.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string start{START};
const std::string end{END};

// invoke(input, config, control=control)
value invoke_with(const pregel& g, const value& input, const value& config,
                  std::shared_ptr<run_control> control) {
  stream_options so;
  so.control = std::move(control);
  return g.stream(input, config, so, nullptr);
}

// A node writing `value` to key `key`, calling `before` first.
node_function writes(std::string key, std::string v, std::function<void()> before = nullptr) {
  return [key = std::move(key), v = std::move(v), before = std::move(before)](
             const value&, node_context&) -> value {
    if (before) before();
    return object{{key, v}};
  };
}

}  // namespace

// libs/langgraph/tests/test_runtime.py::test_run_control_request_drain_stops_future_steps
BOOST_AUTO_TEST_CASE(test_run_control_request_drain_stops_future_steps) {
  auto control = std::make_shared<run_control>();
  bool second_ran = false;
  state_graph b;
  b.add_key("first").add_key("second");
  b.add_node("first", writes("first", "done", [&] { control->request_drain(); }));
  b.add_node("second", writes("second", "should-not-run", [&] { second_ran = true; }));
  b.add_edge(start, "first").add_edge("first", "second").add_edge("second", end);
  auto g = b.compile(opts());
  test::expect_error([&] { invoke_with(*g, object{}, value(), control); }, error_code::drained,
                     "Graph drained: shutdown");
  BOOST_TEST(!second_ran);
}

// libs/langgraph/tests/test_runtime.py::test_drain_requested_in_terminal_step_finishes_normally
BOOST_AUTO_TEST_CASE(test_drain_requested_in_terminal_step_finishes_normally) {
  auto control = std::make_shared<run_control>();
  state_graph b;
  b.add_key("value");
  b.add_node("node", writes("value", "done", [&] { control->request_drain(); }));
  b.add_edge(start, "node").add_edge("node", end);
  BOOST_TEST(invoke_with(*b.compile(opts()), object{}, value(), control).to_json() ==
             R"({"value":"done"})");
  BOOST_TEST(control->drain_requested());
}

// libs/langgraph/tests/test_runtime.py::test_drain_with_exit_durability_persists_resume_checkpoint
BOOST_AUTO_TEST_CASE(test_drain_with_exit_durability_persists_resume_checkpoint) {
  auto control = std::make_shared<run_control>();
  state_graph b;
  b.add_key("first").add_key("second");
  b.add_node("first", writes("first", "done", [&] { control->request_drain("sigterm"); }));
  b.add_node("second", writes("second", "done"));
  b.add_edge(start, "first").add_edge("first", "second").add_edge("second", end);
  auto g = b.compile(opts_with_saver());
  object config = thread("drain-exit").as_object();
  config.set("durability", "exit");
  test::expect_error([&] { invoke_with(*g, object{}, value(config), control); },
                     error_code::drained, "Graph drained: sigterm");
  BOOST_TEST(g->invoke(value(), value(config)).to_json() == R"({"first":"done","second":"done"})");
}

// libs/langgraph/tests/test_runtime.py::test_drain_from_subgraph_can_resume_parent
BOOST_AUTO_TEST_CASE(test_drain_from_subgraph_can_resume_parent) {
  auto control = std::make_shared<run_control>();
  state_graph cb;
  cb.add_key("child_first").add_key("child_second").add_key("parent_second");
  cb.add_node("child_first",
              writes("child_first", "done", [&] { control->request_drain("sigterm"); }));
  int child_second_runs = 0;
  cb.add_node("child_second", writes("child_second", "done", [&] { ++child_second_runs; }));
  cb.add_edge(start, "child_first").add_edge("child_first", "child_second");
  cb.add_edge("child_second", end);
  compile_options co = opts();
  co.as_subgraph = subgraph_checkpointer::stateful;  // LangGraph's checkpointer=True
  state_graph pb;
  pb.add_key("child_first").add_key("child_second").add_key("parent_second");
  pb.add_node("child", cb.compile(co));
  pb.add_node("parent_second", writes("parent_second", "done"));
  pb.add_edge(start, "child").add_edge("child", "parent_second").add_edge("parent_second", end);
  auto g = pb.compile(opts_with_saver());
  const value config = thread("drain-subgraph");
  test::expect_error([&] { invoke_with(*g, object{}, config, control); }, error_code::drained,
                     "Graph drained: sigterm");
  BOOST_TEST(child_second_runs == 0);  // the subgraph drained, not only its parent
  BOOST_TEST(g->invoke(value(), config).to_json() ==
             R"({"child_first":"done","child_second":"done","parent_second":"done"})");
  BOOST_TEST(child_second_runs == 1);
}

// libs/langgraph/tests/test_runtime.py::test_external_drain_concurrent_sync (the first node
// waits for the drain request instead of sleeping 50 ms)
BOOST_AUTO_TEST_CASE(test_external_drain_concurrent_sync) {
  auto control = std::make_shared<run_control>();
  std::mutex m;
  std::condition_variable cv;
  bool started = false, drained = false;
  state_graph b;
  b.add_key("first").add_key("second");
  b.add_node("first", writes("first", "done", [&] {
               std::unique_lock lock(m);
               started = true;
               cv.notify_all();
               cv.wait(lock, [&] { return drained; });
             }));
  b.add_node("second", writes("second", "should-not-run"));
  b.add_edge(start, "first").add_edge("first", "second").add_edge("second", end);
  auto g = b.compile(opts());
  std::optional<error> failure;
  std::thread run([&] {
    try {
      invoke_with(*g, object{}, value(), control);
    } catch (const error& e) {
      failure = e;
    }
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return started; });
  }
  control->request_drain("sigterm");
  {
    std::lock_guard lock(m);
    drained = true;
  }
  cv.notify_all();
  run.join();
  BOOST_REQUIRE(failure.has_value());
  BOOST_TEST(failure->code() == error_code::drained);
  BOOST_TEST(control->drain_reason().value_or("") == "sigterm");
  BOOST_TEST(std::string(failure->what()).find("Graph drained: sigterm") == 0u);
}

// libs/langgraph/tests/test_runtime.py::test_drain_with_control_parameter_sync
BOOST_AUTO_TEST_CASE(test_drain_with_control_parameter_sync) {
  bool ran = false;
  state_graph b;
  b.add_key("value");
  b.add_node("node", writes("value", "done", [&] { ran = true; }));
  b.add_edge(start, "node").add_edge("node", end);
  // A control drained before the run stops it before its first task runs.
  auto control = std::make_shared<run_control>();
  control->request_drain("pre-drained");
  test::expect_error([&] { invoke_with(*b.compile(opts()), object{}, value(), control); },
                     error_code::drained, "Graph drained: pre-drained");
  BOOST_TEST(!ran);
}
