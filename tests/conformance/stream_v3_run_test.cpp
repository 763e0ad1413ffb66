// LangGraph's v3 event streaming on real runs: the run stream of pregel::stream_events
// (libs/langgraph/tests/test_pregel_stream_events_v3.py, TestStreamV2Sync,
// TestStreamV2SyncErrors, TestStreamV2SyncInterrupt, and TestStreamV2Async's abort cases,
// which have a C++ meaning: abort stops the run, subgraphs included).
#include <atomic>
#include <mutex>
#include <type_traits>

#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

std::vector<protocol_event> all_events(graph_run_stream& run) { return drain(run.events()); }

}  // namespace

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_values_projection
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_values_projection) {
  auto run = simple_graph()->stream_events(simple_input());
  const auto snapshots = drain(run->values());
  BOOST_REQUIRE(snapshots.size() >= 1u);
  const std::string last = snapshots.back().get("value").as_string();
  BOOST_TEST(last.find('A') != std::string::npos);
  BOOST_TEST(last.find('B') != std::string::npos);
  // Every step's state, in order: the input, then after node_a, then after node_b.
  BOOST_TEST(snapshots.size() == 3u);
  BOOST_TEST(snapshots.front() == simple_input());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_output
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_output) {
  auto run = simple_graph()->stream_events(simple_input());
  BOOST_TEST(run->output() == value(object{{"value", "xAB"}, {"items", value::array({"a", "b"})}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_raw_event_iteration
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_raw_event_iteration) {
  auto run = simple_graph()->stream_events(simple_input());
  const std::int64_t before = protocol_timestamp_now();
  const auto events = all_events(*run);
  BOOST_TEST(!events.empty());
  std::int64_t seq = 0;
  for (const auto& e : events) {
    BOOST_TEST(!e.method.empty());
    BOOST_REQUIRE(e.seq.has_value());
    BOOST_TEST(*e.seq == ++seq);  // numbered 1, 2, ... in log order
    BOOST_TEST(e.params.timestamp >= before);
    BOOST_TEST(e.method != "tasks");  // folded into lifecycle/subgraphs, dropped from the log
  }
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_extensions_has_native_keys
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_extensions_has_native_keys) {
  auto run = simple_graph()->stream_events(simple_input());
  (void)run->output();
  BOOST_TEST(run->extensions().count("values") == 1u);
  BOOST_TEST(run->extensions().count("messages") == 1u);
  BOOST_TEST(&run->values() == run->extensions().at("values").get());
  BOOST_TEST(&run->messages() == run->extensions().at("messages").get());
  BOOST_TEST(run->native_keys() ==
             (std::set<std::string>{"values", "messages", "lifecycle", "subgraphs"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_extensions_is_read_only
// Python raises TypeError on assignment; in C++ the extensions are a const reference, so
// changing them does not compile.
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_extensions_is_read_only) {
  auto run = simple_graph()->stream_events(simple_input());
  static_assert(std::is_const_v<std::remove_reference_t<decltype(run->extensions())>>);
  BOOST_TEST(run->extensions().size() == 4u);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_custom_stream_events
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_custom_stream_events) {
  auto run = custom_stream_graph()->stream_events(simple_input(), value(), {},
                                                  {factory_of<custom_passthrough>()});
  std::vector<value> custom;
  for (const auto& e : all_events(*run))
    if (e.method == "custom") custom.push_back(e.params.data);
  BOOST_REQUIRE(custom.size() == 2u);
  BOOST_TEST(custom[0] == value(object{{"step", "start"}}));
  BOOST_TEST(custom[1] == value(object{{"step", "end"}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_custom_events_suppressed_without_transformer
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_custom_events_suppressed_without_transformer) {
  // No transformer requires "custom", so the graph is not asked for it.
  auto run = custom_stream_graph()->stream_events(simple_input());
  std::size_t custom = 0;
  for (const auto& e : all_events(*run)) custom += e.method == "custom";
  BOOST_TEST(custom == 0u);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_interleave_values_and_messages
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_interleave_values_and_messages) {
  auto run = simple_graph()->stream_events(simple_input());
  strs names;
  {
    auto tagged = run->interleave({"values", "messages"});
    BOOST_TEST(run->values().subscribed());
    for (auto& [name, item] : tagged) names.push_back(name);
  }
  std::size_t values = 0;
  for (const auto& n : names) {
    BOOST_TEST((n == "values" || n == "messages"));
    values += n == "values";
  }
  BOOST_TEST(values == 3u);
  // interleave gives the subscriptions back when done.
  BOOST_TEST(!run->values().subscribed());
  BOOST_TEST(!run->messages().subscribed());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_abort_marks_exhausted_and_closes_mux
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_abort_marks_exhausted_and_closes_mux) {
  auto run = simple_graph()->stream_events(simple_input());
  auto values = run->values().cursor();
  BOOST_TEST(values.next().has_value());
  run->abort();
  (void)drain(values);  // ends (no error): the mux was closed
  BOOST_TEST(run->exhausted());
  BOOST_TEST(run->mux().events().closed());
  BOOST_TEST(!run->mux().events().error());
  run->abort();  // idempotent
  BOOST_TEST(run->exhausted());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_context_manager_calls_abort_on_exit
// The context manager is RAII: destroying the run stream aborts the run (its thread is joined,
// nothing is left running).
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_context_manager_calls_abort_on_exit) {
  std::atomic<int> b_runs{0};
  state_graph g = simple_state();
  g.add_node("node_a", append_node("A", "a"));
  g.add_node("node_b", [&](const value& st, node_context&) -> value {
    ++b_runs;
    return object{{"value", st.get("value").as_string() + "B"}, {"items", value::array({"b"})}};
  });
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  auto graph = g.compile(opts());
  {
    auto run = graph->stream_events(simple_input());
    BOOST_TEST(run->values().cursor().next().has_value());  // the input's values event
  }
  BOOST_TEST(b_runs.load() == 0);  // aborted before node_b's step: it never ran
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Sync::test_interleave_unknown_projection
BOOST_AUTO_TEST_CASE(TestStreamV2Sync_test_interleave_unknown_projection) {
  auto run = simple_graph()->stream_events(simple_input());
  BOOST_TEST(code_of([&] {
               (void)run->interleave({"values", "does_not_exist"});
             }) == error_code::not_found);
  BOOST_TEST(!run->values().subscribed());  // nothing taken by the failed call
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncErrors::test_error_propagation_output
BOOST_AUTO_TEST_CASE(TestStreamV2SyncErrors_test_error_propagation_output) {
  auto run = error_graph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)run->output(); }, "boom"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncErrors::test_error_propagation_values
BOOST_AUTO_TEST_CASE(TestStreamV2SyncErrors_test_error_propagation_values) {
  auto run = error_graph()->stream_events(simple_input());
  std::size_t seen = 0;
  BOOST_TEST(throws_with(
      [&] {
        for (const auto& v : run->values()) {
          (void)v;
          ++seen;
        }
      },
      "boom"));
  BOOST_TEST(seen == 2u);  // the input's and node_a's states came before the error
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncErrors::test_error_propagation_raw_events
BOOST_AUTO_TEST_CASE(TestStreamV2SyncErrors_test_error_propagation_raw_events) {
  auto run = error_graph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)all_events(*run); }, "boom"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncErrors::test_error_propagation_interrupted
BOOST_AUTO_TEST_CASE(TestStreamV2SyncErrors_test_error_propagation_interrupted) {
  auto run = error_graph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)run->interrupted(); }, "boom"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncErrors::test_error_propagation_interrupts
BOOST_AUTO_TEST_CASE(TestStreamV2SyncErrors_test_error_propagation_interrupts) {
  auto run = error_graph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)run->interrupts(); }, "boom"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2SyncInterrupt::test_interrupted
BOOST_AUTO_TEST_CASE(TestStreamV2SyncInterrupt_test_interrupted) {
  auto run = interrupt_graph()->stream_events(simple_input(), thread("t1"));
  // The output is the state at the interrupt, without "__interrupt__".
  BOOST_TEST(run->output() == value(object{{"value", "xA"}, {"items", value::array({"a"})}}));
  BOOST_TEST(run->interrupted());
  BOOST_REQUIRE(run->interrupts().size() == 1u);
  BOOST_TEST(run->interrupts()[0].get("value") == value("need approval"));
}

namespace {

/// The graphs of TestStreamV2Async's abort cases: a loop of `sub_node` (count + 1 until 10)
/// invoked from a node, wrapped `depth` times; `runs` counts sub_node's runs.
std::shared_ptr<pregel> counting_graph(int depth, std::shared_ptr<std::atomic<int>> runs) {
  state_graph sub;
  sub.add_key("count");
  sub.add_node("sub_node", [runs](const value& st, node_context&) -> value {
    ++*runs;
    return object{{"count", st.get("count").as_int() + 1}};
  });
  sub.set_entry_point("sub_node");
  sub.add_conditional_edges("sub_node", [](const value& st, node_context&) -> value {
    return st.get("count").as_int() >= 10 ? "__end__" : "sub_node";
  });
  std::shared_ptr<pregel> graph = sub.compile(opts());
  for (int i = 0; i < depth; ++i) {
    state_graph outer;
    outer.add_key("count");
    outer.add_node("caller", [child = graph](const value&, node_context&) -> value {
      return child->invoke(object{{"count", 0}});
    });
    outer.set_entry_point("caller");
    graph = outer.compile(opts());
  }
  return graph;
}

/// Reads the raw events until a subgraph's values show count >= 2, then aborts; checks that
/// the subgraph's loop stopped there.
void abort_at_count_two(const std::shared_ptr<pregel>& graph,
                        const std::shared_ptr<std::atomic<int>>& runs) {
  auto run = graph->stream_events(object{{"count", 0}});
  bool reached = false;
  for (const auto& e : run->events()) {
    if (e.method == "values" && !e.params.ns.empty() && e.params.data.get("count").as_int() >= 2) {
      reached = true;
      break;
    }
  }
  BOOST_TEST(reached);
  run->abort();  // returns once the run ended
  const int at_abort = runs->load();
  BOOST_TEST(at_abort < 10);
  run.reset();
  BOOST_TEST(runs->load() == at_abort);  // nothing ran after the abort
}

}  // namespace

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Async::test_abort_cancels_running_subgraph
BOOST_AUTO_TEST_CASE(TestStreamV2Async_test_abort_cancels_running_subgraph) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  abort_at_count_two(counting_graph(1, runs), runs);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamV2Async::test_abort_cancels_deeply_nested_subgraph
BOOST_AUTO_TEST_CASE(TestStreamV2Async_test_abort_cancels_deeply_nested_subgraph) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  abort_at_count_two(counting_graph(3, runs), runs);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMemoryBounds::test_sync_subscribed_buffer_stays_at_most_one_between_yields
BOOST_AUTO_TEST_CASE(
    TestMemoryBounds_test_sync_subscribed_buffer_stays_at_most_one_between_yields) {
  auto run = simple_graph()->stream_events(simple_input());
  std::size_t max_buffered = 0, count = 0;
  for (const auto& e : run->events()) {
    (void)e;
    max_buffered = std::max(max_buffered, run->mux().events().size());
    ++count;
  }
  BOOST_TEST(count > 0u);
  BOOST_TEST(max_buffered == 0u);  // drain on consume: each event left the log as it was read
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMemoryBounds::test_unsubscribed_projections_never_accumulate
BOOST_AUTO_TEST_CASE(TestMemoryBounds_test_unsubscribed_projections_never_accumulate) {
  auto run = simple_graph()->stream_events(simple_input());
  (void)all_events(*run);
  BOOST_TEST(run->values().size() == 0u);
  BOOST_TEST(!run->values().subscribed());
  BOOST_TEST(run->messages().size() == 0u);
  BOOST_TEST(!run->messages().subscribed());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMemoryBounds::test_output_path_does_not_retain_values
BOOST_AUTO_TEST_CASE(TestMemoryBounds_test_output_path_does_not_retain_values) {
  auto run = simple_graph()->stream_events(simple_input());
  (void)run->output();
  BOOST_TEST(run->values().size() == 0u);
  BOOST_TEST(!run->values().subscribed());
  BOOST_TEST(run->mux().events().size() == 0u);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMemoryBounds::test_drained_subscriber_buffer_returns_to_empty
BOOST_AUTO_TEST_CASE(TestMemoryBounds_test_drained_subscriber_buffer_returns_to_empty) {
  auto run = simple_graph()->stream_events(simple_input());
  BOOST_TEST(drain(run->values()).size() == 3u);
  BOOST_TEST(run->values().size() == 0u);
}
