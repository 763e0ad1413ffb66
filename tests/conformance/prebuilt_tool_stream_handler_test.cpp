// libs/langgraph/tests/test_tool_stream_handler.py: the `tools` stream mode (LangGraph's
// StreamToolCallHandler and ToolRuntime.emit_output_delta), fed by the prebuilt tool node
// (agents::tool_node) of real graphs streamed with stream_mode=["tools"] and subgraphs.
// ValueError -> std::invalid_argument; the async tests' graphs are streamed from another thread.
#include <future>
#include <map>
#include <stdexcept>

#include "prebuilt_support.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

/// (ns, payload) of one `tools` event.
struct tool_event {
  std::vector<std::string> ns;
  value payload;
};

/// `_caller_sync`: a node answering with an AI message that calls `tool_name`.
node_function caller(std::string tool_name, value tool_args, std::string tc_id = "tc1") {
  return [tool_name, tool_args, tc_id](const value&, node_context&) -> value {
    return object{{"messages", list{ai_message("", {call(tool_name, tool_args, tc_id)})}}};
  };
}

/// `_State`: messages with add_messages.
state_graph messages_state() {
  state_graph sg;
  sg.add_key("messages", "add_messages");
  return sg;
}

/// `_build_graph`: caller -> tools (a ToolNode of `tools`) -> END.
std::shared_ptr<pregel> build_graph(node_function caller_node, std::vector<tool> tools,
                                    tool_node_options tool_options = {}) {
  state_graph sg = messages_state();
  sg.add_node("caller", std::move(caller_node));
  sg.add_node("tools", tool_node(std::move(tools), std::move(tool_options)).as_node());
  sg.add_edge("__start__", "caller");
  sg.add_edge("caller", "tools");
  sg.add_edge("tools", "__end__");
  return sg.compile(opts());
}

/// `_tool_events`: the run's `tools` events, streamed with `modes` and subgraphs.
std::vector<tool_event> tool_events(const pregel& graph, const value& input,
                                    std::vector<stream_mode> modes = {stream_mode::tools}) {
  std::vector<tool_event> out;
  stream_options o;
  o.modes = std::move(modes);
  o.subgraphs = true;
  graph.stream(input, value(), o, [&out](const stream_event& e) {
    if (e.mode == stream_mode::tools) out.push_back({e.ns, e.data});
  });
  return out;
}

strings kinds(const std::vector<tool_event>& events) {
  strings out;
  for (const auto& e : events) out.push_back(e.payload.get("event").as_string());
  return out;
}

value no_messages() { return object{{"messages", list{}}}; }

const value text_schema = args_schema({{"text", "string"}});

}  // namespace

// libs/langgraph/tests/test_tool_stream_handler.py::TestSyncGraphSyncTool::test_started_finished_cycle
BOOST_AUTO_TEST_CASE(TestSyncGraphSyncTool_test_started_finished_cycle) {
  tool echo = make_tool("echo", text_schema, [](const value& args, tool_runtime&) -> value {
    return "echoed:" + args.get("text").as_string();
  });
  auto graph = build_graph(caller("echo", object{{"text", "hi"}}), {echo});
  const auto events = tool_events(*graph, no_messages());

  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-finished"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].payload.get("tool_call_id") == value("tc1"));
  BOOST_TEST(events[0].payload.get("tool_name") == value("echo"));
  BOOST_TEST(events[0].payload.get("input") == value(object{{"text", "hi"}}));
  // ToolNode wraps the return in a ToolMessage.
  BOOST_TEST(events[1].payload.get("tool_call_id") == value("tc1"));
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestSyncGraphSyncTool::test_emit_output_delta_produces_delta_events
BOOST_AUTO_TEST_CASE(TestSyncGraphSyncTool_test_emit_output_delta_produces_delta_events) {
  tool streaming_echo =
      make_tool("streaming_echo", text_schema, [](const value& args, tool_runtime& runtime) {
        for (const char* chunk : {"a", "b", "c"}) runtime.emit_output_delta(chunk);
        return args.get("text");
      });
  auto graph = build_graph(caller("streaming_echo", object{{"text", "x"}}), {streaming_echo});
  const auto events = tool_events(*graph, no_messages());

  strings deltas;
  for (const auto& e : events)
    if (e.payload.get("event") == value("tool-output-delta"))
      deltas.push_back(e.payload.get("delta").as_string());
  BOOST_TEST(deltas == (strings{"a", "b", "c"}), boost::test_tools::per_element());
  // The deltas must be bracketed by started and finished.
  const strings ordered = kinds(events);
  BOOST_TEST_REQUIRE(!ordered.empty());
  BOOST_TEST(ordered.front() == "tool-started");
  BOOST_TEST(ordered.back() == "tool-finished");
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestSyncGraphSyncTool::test_tool_error_event
BOOST_AUTO_TEST_CASE(TestSyncGraphSyncTool_test_tool_error_event) {
  tool boom = make_tool("boom", args_schema({}), [](const value&, tool_runtime&) -> value {
    throw std::invalid_argument("nope");
  });
  auto graph = build_graph(caller("boom", object{}), {boom});
  std::vector<tool_event> events;
  stream_options o;
  o.modes = {stream_mode::tools};
  o.subgraphs = true;
  bool raised = false;
  try {
    graph->stream(no_messages(), value(), o, [&events](const stream_event& e) {
      if (e.mode == stream_mode::tools) events.push_back({e.ns, e.data});
    });
  } catch (const std::exception& e) {
    raised = std::string(e.what()).find("nope") != std::string::npos;
    BOOST_TEST(raised, e.what());
  }
  BOOST_TEST(raised);

  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-error"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[1].payload.get("message") == value("nope"));
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestSyncGraphSyncTool::test_writer_unset_outside_tool
// LangGraph checks that the ContextVar ToolRuntime.emit_output_delta reads is unset outside a
// tool body, so emitting from there is a no-op. Here: a runtime outside any graph, and within
// a graph streaming `tools` a call interceptor (outside the tool's function) emitting through
// the call's runtime, emit nothing and fail nothing.
BOOST_AUTO_TEST_CASE(TestSyncGraphSyncTool_test_writer_unset_outside_tool) {
  tool_runtime outside(value(object{}), "tc1", nullptr, nullptr, {});
  outside.emit_output_delta("ignored");  // no graph: a no-op

  tool echo = make_tool("echo", text_schema, [](const value& args, tool_runtime& runtime) {
    runtime.emit_output_delta("inside");
    return args.get("text");
  });
  // Directly, outside a graph: the tool runs, its delta goes nowhere.
  const value answer = tool_node({echo}).invoke(
      object{{"messages", list{ai_message("", {call("echo", object{{"text", "hi"}}, "tc1")})}}});
  BOOST_TEST(answer.get("messages").as_list().at(0).get("content") == value("hi"));

  tool_node_options o;
  o.wrap_tool_call = [](const tool_call_request& request, const tool_executor& execute) {
    request.runtime->emit_output_delta("before");
    value out = execute(request);
    request.runtime->emit_output_delta("after");
    return out;
  };
  auto graph = build_graph(caller("echo", object{{"text", "hi"}}), {echo}, std::move(o));
  const auto events = tool_events(*graph, no_messages());
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-output-delta", "tool-finished"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[1].payload.get("delta") == value("inside"));
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestSyncGraphSyncTool::test_no_events_without_tools_mode
BOOST_AUTO_TEST_CASE(TestSyncGraphSyncTool_test_no_events_without_tools_mode) {
  tool echo = make_tool("echo", text_schema, [](const value& args, tool_runtime& runtime) {
    runtime.emit_output_delta("chunk");
    return args.get("text");
  });
  auto graph = build_graph(caller("echo", object{{"text", "hi"}}), {echo});
  // No "tools" in the stream modes: zero `tools` events.
  std::vector<stream_event> chunks;
  stream_options o;
  o.modes = {stream_mode::values};
  o.subgraphs = true;
  graph->stream(no_messages(), value(), o,
                [&chunks](const stream_event& e) { chunks.push_back(e); });
  BOOST_TEST(!chunks.empty());
  for (const auto& c : chunks) BOOST_TEST((c.mode != stream_mode::tools), c.data.to_json());
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestAsyncGraphAsyncTool::test_async_tool_produces_events
BOOST_AUTO_TEST_CASE(TestAsyncGraphAsyncTool_test_async_tool_produces_events) {
  tool aecho = make_tool("aecho", text_schema, [](const value& args, tool_runtime& runtime) {
    runtime.emit_output_delta(args.get("text"));
    return value("got:" + args.get("text").as_string());
  });
  auto graph = build_graph(caller("aecho", object{{"text", "hi"}}), {aecho});
  const auto events =
      std::async(std::launch::async, [&] { return tool_events(*graph, no_messages()); }).get();

  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-output-delta", "tool-finished"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[1].payload.get("delta") == value("hi"));
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestConcurrentToolCalls::test_parallel_tool_calls_do_not_bleed
BOOST_AUTO_TEST_CASE(TestConcurrentToolCalls_test_parallel_tool_calls_do_not_bleed) {
  tool streamer = make_tool("streamer", args_schema({{"marker", "string"}}),
                            [](const value& args, tool_runtime& runtime) {
                              const std::string marker = args.get("marker").as_string();
                              runtime.emit_output_delta(marker + "-1");
                              runtime.emit_output_delta(marker + "-2");
                              return value(marker);
                            });
  node_function two_calls = [](const value&, node_context&) -> value {
    return object{
        {"messages", list{ai_message("", {call("streamer", object{{"marker", "A"}}, "a"),
                                          call("streamer", object{{"marker", "B"}}, "b")})}}};
  };
  auto graph = build_graph(two_calls, {streamer});
  const auto events = tool_events(*graph, no_messages());

  // Group deltas by tool_call_id.
  std::map<std::string, strings> by_id;
  for (const auto& e : events)
    if (e.payload.get("event") == value("tool-output-delta"))
      by_id[e.payload.get("tool_call_id").as_string()].push_back(
          e.payload.get("delta").as_string());
  BOOST_TEST(by_id["a"] == (strings{"A-1", "A-2"}), boost::test_tools::per_element());
  BOOST_TEST(by_id["b"] == (strings{"B-1", "B-2"}), boost::test_tools::per_element());
}

// libs/langgraph/tests/test_tool_stream_handler.py::TestSubgraphNamespacePropagation::test_tool_inside_subgraph_emits_with_subgraph_ns
BOOST_AUTO_TEST_CASE(
    TestSubgraphNamespacePropagation_test_tool_inside_subgraph_emits_with_subgraph_ns) {
  tool inner_tool = make_tool("inner_tool", text_schema,
                              [](const value& args, tool_runtime&) { return args.get("text"); });
  state_graph inner = messages_state();
  inner.add_node("sub_caller", caller("inner_tool", object{{"text", "x"}}));
  inner.add_node("sub_tools", tool_node({inner_tool}).as_node());
  inner.add_edge("__start__", "sub_caller");
  inner.add_edge("sub_caller", "sub_tools");
  inner.add_edge("sub_tools", "__end__");
  std::shared_ptr<const pregel> inner_graph = inner.compile(opts());

  state_graph outer = messages_state();
  outer.add_node("sub", inner_graph);
  outer.add_edge("__start__", "sub");
  outer.add_edge("sub", "__end__");
  auto graph = outer.compile(opts());

  const auto events = tool_events(*graph, no_messages());
  // All `tools` events should carry a non-empty namespace rooted at the `sub` node.
  BOOST_TEST(!events.empty(), "expected at least one tools event");
  for (const auto& e : events) {
    BOOST_TEST_REQUIRE(!e.ns.empty());
    BOOST_TEST(e.ns[0].rfind("sub:", 0) == 0u, e.ns[0]);
  }
}
