// LangGraph's stream(version="v2") parts {type, ns, data} (libs/langgraph/tests/
// test_stream_events_v3.py, TestV2Stream and TestV2TypeSafeStreaming): our stream_event is
// that part (mode, ns, data); stream_events' protocol events are LangGraph's v2 parts with
// the interrupts of a values part in their own field.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

std::vector<stream_event> collect(const std::shared_ptr<pregel>& g, const value& input,
                                  const value& config, std::vector<stream_mode> modes,
                                  bool subgraphs = false) {
  std::vector<stream_event> out;
  stream_options o;
  o.modes = std::move(modes);
  o.subgraphs = subgraphs;
  g->stream(input, config, o, [&](const stream_event& e) { out.push_back(e); });
  return out;
}

/// `_make_simple_graph` of this file: node_a appends "_a", node_b "_b".
std::shared_ptr<pregel> simple(bool with_saver = false) {
  state_graph g = simple_state();
  g.add_node("node_a", append_node("_a", "a"));
  g.add_node("node_b", append_node("_b", "b"));
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  return g.compile(with_saver ? opts_with_saver() : opts());
}

/// `_make_subgraph`: the simple graph as node "inner" of an outer graph.
std::shared_ptr<pregel> outer_of_simple() {
  state_graph outer = simple_state();
  outer.add_node("inner", simple());
  outer.add_edge("__start__", "inner");
  outer.add_edge("inner", "__end__");
  return outer.compile(opts());
}

}  // namespace

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_values
BOOST_AUTO_TEST_CASE(TestV2Stream_test_values) {
  const auto parts = collect(simple(), simple_input(), value(), {stream_mode::values});
  BOOST_TEST(parts.size() == 3u);
  for (const auto& p : parts) {
    BOOST_TEST(stream_mode_name(p.mode) == "values");
    BOOST_TEST(p.ns.empty());
    BOOST_TEST(p.data.is_object());
  }
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_updates
BOOST_AUTO_TEST_CASE(TestV2Stream_test_updates) {
  const auto parts = collect(simple(), simple_input(), value(), {stream_mode::updates});
  BOOST_REQUIRE(parts.size() == 2u);
  for (const auto& p : parts) {
    BOOST_TEST(stream_mode_name(p.mode) == "updates");
    BOOST_TEST(p.ns.empty());
  }
  BOOST_TEST(parts[0].data.find("node_a") != nullptr);
  BOOST_TEST(parts[1].data.find("node_b") != nullptr);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_messages
// The LangGraph test's chat model only supplies an AI message; here the node returns it.
BOOST_AUTO_TEST_CASE(TestV2Stream_test_messages) {
  state_graph g;
  g.add_key("messages", "add_messages");
  g.add_node("call_model", [](const value&, node_context&) -> value {
    return object{{"messages", object{{"type", "ai"}, {"content", "hello world"}}}};
  });
  g.add_edge("__start__", "call_model");
  g.add_edge("call_model", "__end__");
  const auto parts =
      collect(g.compile(opts()),
              object{{"messages", value::array({object{{"type", "human"}, {"content", "hi"}}})}},
              value(), {stream_mode::messages});
  BOOST_REQUIRE(!parts.empty());
  for (const auto& p : parts) {
    BOOST_TEST(p.ns.empty());
    BOOST_REQUIRE(p.data.is_list());
    BOOST_REQUIRE(p.data.as_list().size() == 2u);
    BOOST_TEST(p.data.as_list()[0].get("type") == value("ai"));
    BOOST_TEST(p.data.as_list()[1].get("langgraph_node") == value("call_model"));
  }
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_custom
// (an entrypoint writing "hello" and 42 in LangGraph; a node here)
BOOST_AUTO_TEST_CASE(TestV2Stream_test_custom) {
  state_graph g;
  g.add_key("key");
  g.add_node("graph", [](const value& st, node_context& ctx) -> value {
    ctx.emit_custom("hello");
    ctx.emit_custom(42);
    return st;
  });
  g.add_edge("__start__", "graph");
  g.add_edge("graph", "__end__");
  const auto parts =
      collect(g.compile(opts()), object{{"key", "val"}}, value(), {stream_mode::custom});
  BOOST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[0].data == value("hello"));
  BOOST_TEST(parts[1].data == value(42));
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_multiple_modes
BOOST_AUTO_TEST_CASE(TestV2Stream_test_multiple_modes) {
  const auto parts =
      collect(simple(), simple_input(), value(), {stream_mode::values, stream_mode::updates});
  std::set<stream_mode> seen;
  for (const auto& p : parts) seen.insert(p.mode);
  BOOST_TEST(seen.count(stream_mode::values) == 1u);
  BOOST_TEST(seen.count(stream_mode::updates) == 1u);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_subgraphs_ns
BOOST_AUTO_TEST_CASE(TestV2Stream_test_subgraphs_ns) {
  const auto parts =
      collect(outer_of_simple(), simple_input(), value(), {stream_mode::updates}, true);
  std::size_t root = 0, sub = 0;
  for (const auto& p : parts) (p.ns.empty() ? root : sub)++;
  BOOST_TEST(root >= 1u);
  BOOST_TEST(sub >= 1u);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_checkpoints
BOOST_AUTO_TEST_CASE(TestV2Stream_test_checkpoints) {
  const auto parts =
      collect(simple(true), simple_input(), thread("test-v2-ckpt"), {stream_mode::checkpoints});
  BOOST_REQUIRE(!parts.empty());
  for (const auto& p : parts) {
    BOOST_TEST(p.ns.empty());
    for (const char* key : {"config", "metadata", "values", "next", "tasks"})
      BOOST_TEST(p.data.find(key) != nullptr, key);
  }
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_tasks
BOOST_AUTO_TEST_CASE(TestV2Stream_test_tasks) {
  const auto parts =
      collect(simple(true), simple_input(), thread("test-v2-tasks"), {stream_mode::tasks});
  std::size_t starts = 0, results = 0;
  for (const auto& p : parts) {
    BOOST_TEST(p.ns.empty());
    BOOST_TEST(p.data.find("id") != nullptr);
    BOOST_TEST(p.data.find("name") != nullptr);
    starts += p.data.find("triggers") != nullptr;
    results += p.data.find("result") != nullptr;
  }
  BOOST_TEST(starts == 2u);
  BOOST_TEST(results == 2u);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_debug
BOOST_AUTO_TEST_CASE(TestV2Stream_test_debug) {
  const auto parts =
      collect(simple(true), simple_input(), thread("test-v2-debug"), {stream_mode::debug});
  BOOST_REQUIRE(!parts.empty());
  for (const auto& p : parts) {
    BOOST_TEST(p.ns.empty());
    for (const char* key : {"step", "timestamp", "type", "payload"})
      BOOST_TEST(p.data.find(key) != nullptr, key);
    const value& t = p.data.get("type");
    BOOST_TEST((t == value("checkpoint") || t == value("task") || t == value("task_result")));
  }
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_subgraphs_param_does_not_change_format
BOOST_AUTO_TEST_CASE(TestV2Stream_test_subgraphs_param_does_not_change_format) {
  for (bool subgraphs : {false, true}) {
    const auto parts =
        collect(simple(), simple_input(), value(), {stream_mode::updates}, subgraphs);
    BOOST_TEST(parts.size() == 2u);
    for (const auto& p : parts) {
      BOOST_TEST(stream_mode_name(p.mode) == "updates");
      BOOST_TEST(p.ns.empty());
      BOOST_TEST(p.data.is_object());
    }
  }
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2TypeSafeStreaming::test_values_typeddict_state
BOOST_AUTO_TEST_CASE(TestV2TypeSafeStreaming_test_values_typeddict_state) {
  const auto parts = collect(simple(), simple_input(), value(), {stream_mode::values});
  BOOST_REQUIRE(!parts.empty());
  for (const auto& p : parts) BOOST_TEST(p.data.is_object());  // a plain object state
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2TypeSafeStreaming::test_values_interrupt_v2
// The v2 part of a values event with interrupts: the interrupts in their own field, the data
// without "__interrupt__" (stream_events' protocol events, to_protocol_event).
BOOST_AUTO_TEST_CASE(TestV2TypeSafeStreaming_test_values_interrupt_v2) {
  state_graph g = simple_state();
  g.add_node("my_node", [](const value&, node_context& ctx) -> value {
    const value answer = ctx.interrupt("what is your name?");
    return object{{"value", answer}, {"items", value::array({"done"})}};
  });
  g.add_edge("__start__", "my_node");
  g.add_edge("my_node", "__end__");
  auto run =
      g.compile(opts_with_saver())->stream_events(simple_input(), thread("test-v2-interrupt"));
  std::size_t with_interrupts = 0;
  for (auto& e : run->events()) {
    if (e.method != "values" || !e.params.interrupts || e.params.interrupts->empty()) continue;
    ++with_interrupts;
    BOOST_TEST(e.params.interrupts->at(0).get("value") == value("what is your name?"));
    BOOST_TEST(e.params.interrupts->at(0).find("id") != nullptr);
    BOOST_TEST(e.params.data.is_object());
    BOOST_TEST(e.params.data.find("__interrupt__") == nullptr);
  }
  BOOST_TEST(with_interrupts >= 1u);
}
