// LangGraph's stream-format tests (libs/langgraph/tests/test_stream_events_v3.py) whose behaviour
// our stream() expresses: the rest of that file checks Python's StreamPart TypedDicts
// (NOT_PORTED.md) or stream_events(version="v3") (stream_v3_custom_test.cpp).
#include <memory>
#include <string>

#include "conformance.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;

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
