// LangGraph's stream-format tests (libs/langgraph/tests/test_stream_events_v3.py) whose behaviour
// our stream() expresses without stream_events(version="v3"): the rest of that file checks
// Python's StreamPart TypedDicts or the v3 projections (NOT_PORTED.md).
#include <memory>
#include <string>

#include "conformance.hpp"
#include "superstep/coordinator/run_control.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_stream_events_v3_accepts_control_for_drain
// (a run streamed with a control, drained by its first node with reason "sigterm", fails with
// GraphDrained naming it while its values are consumed; "second" never runs)
BOOST_AUTO_TEST_CASE(test_stream_events_v3_accepts_control_for_drain) {
  auto control = std::make_shared<run_control>();
  state_graph builder;
  builder.add_key("value").add_key("skipped");
  builder.add_node("first", [control](const value&, node_context&) -> value {
    control->request_drain("sigterm");
    return object{{"value", "done"}};
  });
  builder.add_node("second", [](const value&, node_context&) -> value {
    return object{{"skipped", "nope"}};
  });
  builder.add_edge(std::string(START), "first")
      .add_edge("first", "second")
      .add_edge("second", std::string(END));
  auto graph = builder.compile(opts());
  stream_options so{{stream_mode::values}, false};
  so.control = control;
  list values;
  test::expect_error(
      [&] {
        graph->stream(object{}, value(), so,
                      [&](const stream_event& e) { values.push_back(e.data); });
      },
      error_code::drained, "sigterm");
  for (const auto& v : values) BOOST_TEST(!v.get("skipped").is_string(), v.to_json());
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2TypeSafeStreaming::test_values_interrupt_v1_compat
// (a values stream of a run interrupted in its node has a chunk with "__interrupt__")
BOOST_AUTO_TEST_CASE(test_values_interrupt_v1_compat) {
  state_graph builder;
  builder.add_key("value").add_key("items", "add");
  builder.add_node("my_node", [](const value&, node_context& ctx) -> value {
    value answer = ctx.interrupt("what is your name?");
    return object{{"value", answer}, {"items", list{value("done")}}};
  });
  builder.add_edge(std::string(START), "my_node").add_edge("my_node", std::string(END));
  auto graph = builder.compile(opts_with_saver());
  list chunks;
  graph->stream(object{{"value", "x"}, {"items", list{}}}, thread("test-v2-interrupt"),
                stream_options{{stream_mode::values}, false},
                [&](const stream_event& e) { chunks.push_back(e.data); });
  std::size_t interrupt_chunks = 0;
  for (const auto& c : chunks)
    if (c.is_object() && c.as_object().contains(std::string(INTERRUPT))) ++interrupt_chunks;
  BOOST_TEST(interrupt_chunks >= 1u, value(chunks).to_json());
}
