// LangGraph's tests of writes that bypass a reducer (Overwrite), of forks that leave the
// original run's pending writes behind, and of a run on an all-default state
// (libs/langgraph/tests/test_pregel.py); see conformance.hpp.
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"
#include "superstep/channels/channel.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// Node `name` appending `item` to `messages`, or overwriting it with [item] when `overwrite`
// (as the Overwrite object, or as its JSON form {"__overwrite__": ...}, per `as_json`).
node_function writes(const char* item, bool overwrite = false, bool as_json = false) {
  return [item, overwrite, as_json](const value&, node_context&) -> value {
    if (!overwrite) return object{{"messages", list{item}}};
    value replaced =
        as_json ? value(object{{"__overwrite__", list{item}}}) : channels::overwrite(list{item});
    return object{{"messages", replaced}};
  };
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_overwrite_sequential
BOOST_AUTO_TEST_CASE(test_overwrite_sequential) {
  for (const bool as_json : {false, true}) {
    state_graph b;
    b.add_key("messages", "add");
    b.add_node("node_a", writes("a"));
    b.add_node("node_b", writes("b", true, as_json));
    b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
    auto graph = b.compile(opts_with_saver());
    BOOST_TEST(graph->invoke(object{{"messages", list{"START"}}}, thread("1")).to_json() ==
               R"({"messages":["b"]})");
  }
}

// libs/langgraph/tests/test_pregel.py::test_overwrite_parallel
BOOST_AUTO_TEST_CASE(test_overwrite_parallel) {
  for (const bool as_json : {false, true}) {
    state_graph b;
    b.add_key("messages", "add");
    b.add_node("node_a", writes("a"));
    b.add_node("node_b", writes("b", true, as_json));
    b.add_node("node_c", writes("c"));
    b.add_node("node_d", writes("d"));
    b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_a", "node_c");
    b.add_edge("node_b", "node_d").add_edge("node_c", "node_d");
    auto graph = b.compile(opts_with_saver());
    BOOST_TEST(graph->invoke(object{{"messages", list{"START"}}}, thread("1")).to_json() ==
               R"({"messages":["b","d"]})");
  }
}

// libs/langgraph/tests/test_pregel.py::test_overwrite_parallel_error
BOOST_AUTO_TEST_CASE(test_overwrite_parallel_error) {
  for (const bool as_json : {false, true}) {
    state_graph b;
    b.add_key("messages", "add");
    b.add_node("node_a", writes("a"));
    b.add_node("node_b", writes("b", true, as_json));
    b.add_node("node_c", writes("c", true, as_json));
    b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_a", "node_c");
    b.add_edge("node_b", "__end__").add_edge("node_c", "__end__");
    auto graph = b.compile(opts_with_saver());
    try {
      graph->invoke(object{{"messages", list{"START"}}}, thread("1"));
      BOOST_FAIL("two Overwrites of one channel in one step must fail the run");
    } catch (const error& e) {
      BOOST_TEST(e.code() == error_code::invalid_update);
      BOOST_TEST(std::string(e.what()).find(
                     "Can receive only one Overwrite value per super-step.") != std::string::npos,
                 e.what());
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_fork_does_not_apply_pending_writes
BOOST_AUTO_TEST_CASE(test_fork_does_not_apply_pending_writes) {
  state_graph b;
  b.add_key("value", "add");
  b.add_node("node_a", [](const value&, node_context&) -> value { return object{{"value", 10}}; });
  b.add_node("node_b", [](const value&, node_context&) -> value { return object{{"value", 100}}; });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  graph->invoke(object{{"value", 1}}, cfg);

  std::optional<state_snapshot> before_a;
  for (auto& s : graph->get_state_history(cfg))
    if (s.next == std::vector<std::string>{"node_a"}) {
      before_a = std::move(s);
      break;
    }
  BOOST_TEST_REQUIRE(before_a.has_value());
  value at = object{{"configurable", object{{"thread_id", before_a->config.thread_id},
                                            {"checkpoint_ns", before_a->config.checkpoint_ns},
                                            {"checkpoint_id", before_a->config.checkpoint_id}}}};
  value fork_config = graph->update_state(at, object{{"value", 20}}, "node_a");
  // 1 (input) + 20 (the fork's node_a) + 100 (node_b)
  BOOST_TEST(graph->invoke(value(), fork_config).to_json() == R"({"value":121})");
}

// libs/langgraph/tests/test_pregel.py::test_empty_invoke
// (the input is a pydantic state of defaults: here those defaults as the input object)
BOOST_AUTO_TEST_CASE(test_empty_invoke) {
  state_graph b;
  b.add_key("x1", "add", list{});
  b.add_key("x2", "merge", object{});
  b.add_node("x1_1_node", [](const value&, node_context&) -> value {
    return object{{"x1", list{"111"}}};
  });
  b.add_node("x1_2_node", [](const value&, node_context&) -> value {
    return object{{"x1", list{"222"}}};
  });
  b.add_node("x2_1_node", [](const value&, node_context&) -> value {
    return object{{"x2", object{{"111", 111}}}};
  });
  b.add_node("x2_2_node", [](const value&, node_context&) -> value {
    return object{{"x2", object{{"222", 222}}}};
  });
  b.add_edge("x1_1_node", "x1_2_node").add_edge("x1_2_node", "x2_1_node");
  b.add_edge("x2_1_node", "x2_2_node").add_edge("__start__", "x1_1_node");
  b.add_edge("x2_2_node", "__end__");
  auto graph = b.compile(opts());
  BOOST_TEST(graph->invoke(object{{"x1", list{}}, {"x2", object{}}}).get("x2").to_json() ==
             R"({"111":111,"222":222})");
}
