// LangGraph's invoke(version="v2") (libs/langgraph/tests/test_stream_events_v3.py, TestV2Invoke
// and TestV2InvokeAsync): `pregel::invoke_v2` returns a graph_output (the value and the
// interrupts apart, with LangGraph's dict-compatible access), `pregel::invoke_parts` the run's
// v2 stream parts. The async tests call ainvoke; here the same runs are made from another
// thread (std::async), as a caller awaiting them would.
#include <future>
#include <set>

#include "stream_v3_support.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

/// `_make_simple_graph` of this file: node_a appends "_a", node_b "_b".
std::shared_ptr<pregel> simple() { return simple_graph("_a", "_b"); }

/// The graph of the interrupt tests: my_node asks "what is your name?"; with a checkpointer.
std::shared_ptr<pregel> asking_graph() {
  state_graph g = simple_state();
  g.add_node("my_node", [](const value&, node_context& ctx) -> value {
    const value answer = ctx.interrupt("what is your name?");
    return object{{"value", answer}, {"items", value::array({"done"})}};
  });
  g.add_edge("__start__", "my_node");
  g.add_edge("my_node", "__end__");
  return g.compile(opts_with_saver());
}

/// `_assert_stream_part_shape`: type a string, ns a list of strings, data there, and a values
/// part's interrupts a list.
void assert_stream_part_shape(const stream_part& part) {
  const value v = part.to_value();
  BOOST_TEST(v.get("type").is_string(), v.to_json());
  BOOST_TEST_REQUIRE(v.get("ns").is_list(), v.to_json());
  for (const value& elem : v.get("ns").as_list()) BOOST_TEST(elem.is_string(), v.to_json());
  BOOST_TEST(v.find("data") != nullptr, v.to_json());
  if (v.get("type") == value("values")) {
    BOOST_TEST(v.find("interrupts") != nullptr, "values stream part missing 'interrupts' field");
    BOOST_TEST(v.get("interrupts").is_list(), v.to_json());
  }
}

stream_options modes(std::vector<stream_mode> ms) {
  stream_options o;
  o.modes = std::move(ms);
  return o;
}

/// An Interrupt: {"value", "id"}.
bool is_interrupt(const value& i) {
  return i.is_object() && i.find("value") != nullptr && i.get("id").is_string();
}

}  // namespace

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_values_default
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_values_default) {
  const graph_output result = simple()->invoke_v2(simple_input());
  BOOST_TEST(result.value == value(object{{"value", "x_a_b"}, {"items", value::array({"a", "b"})}}),
             result.value.to_json());
  BOOST_TEST(result.interrupts.empty());
  // backward compat dict access
  BOOST_TEST(result.at("value") == value("x_a_b"));
  BOOST_TEST(result.at("items") == value::array({"a", "b"}));
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_invoke_v2_graph_output_with_interrupts
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_invoke_v2_graph_output_with_interrupts) {
  const graph_output result =
      asking_graph()->invoke_v2(simple_input(), thread("test-invoke-v2-interrupts"));
  BOOST_TEST(result.interrupts.size() > 0u);
  for (const value& intr : result.interrupts) BOOST_TEST(is_interrupt(intr), intr.to_json());
  // value should still be the state (not None or empty)
  BOOST_TEST(result.value.is_object(), result.value.to_json());
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_invoke_v2_graph_output_interrupt_compat
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_invoke_v2_graph_output_interrupt_compat) {
  const graph_output result =
      asking_graph()->invoke_v2(simple_input(), thread("test-invoke-v2-compat"));
  BOOST_TEST(result.contains(INTERRUPT));
  BOOST_TEST(result.at(INTERRUPT) == value(result.interrupts));
  BOOST_TEST(result.at(INTERRUPT).as_list().size() > 0u);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_invoke_v2_graph_output_no_interrupts
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_invoke_v2_graph_output_no_interrupts) {
  const graph_output result = simple()->invoke_v2(simple_input());
  BOOST_TEST(result.interrupts.empty());
  BOOST_TEST(!result.contains(INTERRUPT));
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_updates_mode
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_updates_mode) {
  const auto result =
      simple()->invoke_parts(simple_input(), value(), modes({stream_mode::updates}));
  BOOST_TEST_REQUIRE(result.size() == 2u);
  for (const auto& chunk : result) {
    assert_stream_part_shape(chunk);
    BOOST_TEST(chunk.to_value().get("type") == value("updates"));
    BOOST_TEST(chunk.ns.empty());
  }
  BOOST_TEST(result[0].data.find("node_a") != nullptr);
  BOOST_TEST(result[1].data.find("node_b") != nullptr);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Invoke::test_multiple_modes
BOOST_AUTO_TEST_CASE(TestV2Invoke_test_multiple_modes) {
  const auto result = simple()->invoke_parts(simple_input(), value(),
                                             modes({stream_mode::values, stream_mode::updates}));
  std::set<std::string> types_seen;
  for (const auto& c : result) types_seen.insert(c.to_value().get("type").as_string());
  BOOST_TEST(types_seen.count("values") == 1u);
  BOOST_TEST(types_seen.count("updates") == 1u);
  for (const auto& c : result) assert_stream_part_shape(c);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2InvokeAsync::test_values_default
BOOST_AUTO_TEST_CASE(TestV2InvokeAsync_test_values_default) {
  auto graph = simple();
  const graph_output result =
      std::async(std::launch::async, [&] { return graph->invoke_v2(simple_input()); }).get();
  BOOST_TEST(result.value == value(object{{"value", "x_a_b"}, {"items", value::array({"a", "b"})}}),
             result.value.to_json());
  BOOST_TEST(result.interrupts.empty());
  // backward compat dict access
  BOOST_TEST(result.at("value") == value("x_a_b"));
  BOOST_TEST(result.at("items") == value::array({"a", "b"}));
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2InvokeAsync::test_ainvoke_v2_graph_output_with_interrupts
BOOST_AUTO_TEST_CASE(TestV2InvokeAsync_test_ainvoke_v2_graph_output_with_interrupts) {
  auto graph = asking_graph();
  const graph_output result =
      std::async(std::launch::async, [&] {
        return graph->invoke_v2(simple_input(), thread("test-ainvoke-v2-interrupts"));
      }).get();
  BOOST_TEST(result.interrupts.size() > 0u);
  for (const value& intr : result.interrupts) BOOST_TEST(is_interrupt(intr), intr.to_json());
  BOOST_TEST(result.value.is_object(), result.value.to_json());
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2InvokeAsync::test_ainvoke_v2_graph_output_no_interrupts
BOOST_AUTO_TEST_CASE(TestV2InvokeAsync_test_ainvoke_v2_graph_output_no_interrupts) {
  auto graph = simple();
  const graph_output result =
      std::async(std::launch::async, [&] { return graph->invoke_v2(simple_input()); }).get();
  BOOST_TEST(result.interrupts.empty());
  BOOST_TEST(!result.contains(INTERRUPT));
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2InvokeAsync::test_updates_mode
BOOST_AUTO_TEST_CASE(TestV2InvokeAsync_test_updates_mode) {
  auto graph = simple();
  const auto result =
      std::async(std::launch::async, [&] {
        return graph->invoke_parts(simple_input(), value(), modes({stream_mode::updates}));
      }).get();
  BOOST_TEST_REQUIRE(result.size() == 2u);
  for (const auto& chunk : result) {
    assert_stream_part_shape(chunk);
    BOOST_TEST(chunk.to_value().get("type") == value("updates"));
    BOOST_TEST(chunk.ns.empty());
  }
  BOOST_TEST(result[0].data.find("node_a") != nullptr);
  BOOST_TEST(result[1].data.find("node_b") != nullptr);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2InvokeAsync::test_multiple_modes
BOOST_AUTO_TEST_CASE(TestV2InvokeAsync_test_multiple_modes) {
  auto graph = simple();
  const auto result =
      std::async(std::launch::async, [&] {
        return graph->invoke_parts(simple_input(), value(),
                                   modes({stream_mode::values, stream_mode::updates}));
      }).get();
  std::set<std::string> types_seen;
  for (const auto& c : result) types_seen.insert(c.to_value().get("type").as_string());
  BOOST_TEST(types_seen.count("values") == 1u);
  BOOST_TEST(types_seen.count("updates") == 1u);
  for (const auto& c : result) assert_stream_part_shape(c);
}

// Not a LangGraph test: what the API adds. Modes given to the wrong function are refused,
// naming them; a missing key of the value is an error naming it (LangGraph's KeyError); an
// interrupt of a graph whose output is one value leaves an empty object as the value (the
// values event of the interrupt is {"__interrupt__": [...]} alone, as LangGraph's).
BOOST_AUTO_TEST_CASE(invoke_v2_errors_and_a_one_value_output_interrupted) {
  test::expect_error(
      [] { simple()->invoke_v2(simple_input(), value(), modes({stream_mode::updates})); },
      error_code::invalid_argument, "stream mode 'updates'");
  test::expect_error([] { simple()->invoke_parts(simple_input(), value(), stream_options{}); },
                     error_code::invalid_argument, "options.modes is empty");
  const graph_output done =
      simple()->invoke_v2(simple_input(), value(), modes({stream_mode::values}));
  test::expect_error([&] { done.at("missing"); }, error_code::not_found, "'missing'");
  BOOST_TEST(!done.contains("missing"));

  state_graph g;
  g.add_key(std::string(ROOT), "add");
  g.add_node("ask", [](const value&, node_context& ctx) -> value {
    return value::array({ctx.interrupt("more?")});
  });
  g.add_edge("__start__", "ask");
  const graph_output asked =
      g.compile(opts_with_saver())->invoke_v2(value::array({"a"}), thread("one-value"));
  BOOST_TEST(asked.value == value(object{}), asked.value.to_json());
  BOOST_TEST_REQUIRE(asked.interrupts.size() == 1u);
  BOOST_TEST(asked.interrupts[0].get("value") == value("more?"));
  BOOST_TEST(asked.at(INTERRUPT) == value(asked.interrupts));
  test::expect_error([&] { asked.at("x"); }, error_code::not_found, "'x'");
}
