// The `tools` stream beyond LangGraph's own tests (tests/conformance/
// prebuilt_tool_stream_handler_test.cpp): errors the tool node handles, bad arguments, a
// tool's own error answer, unknown tools, Commands, subgraphs not streamed, and the
// `tools_transformer` projection of stream_events.
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "superstep/agents/messages.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/agents/tool_node.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/stream/graph_run_stream.hpp"
#include "superstep/stream/stream_transformers.hpp"

using namespace superstep;
using namespace superstep::agents;

namespace {

using strings = std::vector<std::string>;

tool make(std::string name, tool_function f,
          value parameters = value(object{{"type", "object"}, {"properties", object{}}})) {
  tool t;
  t.name = std::move(name);
  t.parameters = std::move(parameters);
  t.function = std::move(f);
  return t;
}

const value text_schema = value::parse_json(
    R"({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})");

tool_call call_of(std::string name, value args, std::string id) {
  return tool_call{std::move(name), std::move(args), std::move(id)};
}

/// caller (one AI message with `calls`) -> tools -> END.
state_graph graph_of(std::vector<tool_call> calls, std::vector<tool> tools,
                     tool_node_options options = {}) {
  state_graph g;
  g.add_key("messages", "add_messages");
  g.add_node("caller", [calls](const value&, node_context&) -> value {
    return object{{"messages", list{ai_message("", calls)}}};
  });
  g.add_node("tools", tool_node(std::move(tools), std::move(options)).as_node());
  g.add_edge("__start__", "caller");
  g.add_edge("caller", "tools");
  g.add_edge("tools", "__end__");
  return g;
}

value no_messages() { return object{{"messages", list{}}}; }

/// The `tools` events of a run, and its output.
std::vector<stream_event> tool_events(const pregel& graph, value* output = nullptr,
                                      bool subgraphs = false) {
  std::vector<stream_event> out;
  stream_options o;
  o.modes = {stream_mode::tools};
  o.subgraphs = subgraphs;
  value result = graph.stream(no_messages(), value(), o, [&out](const stream_event& e) {
    BOOST_TEST((e.mode == stream_mode::tools));
    out.push_back(e);
  });
  if (output) *output = std::move(result);
  return out;
}

strings kinds(const std::vector<stream_event>& events) {
  strings out;
  for (const auto& e : events) out.push_back(e.data.get("event").as_string());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_error_the_node_handles_is_a_tool_error_and_the_run_goes_on) {
  tool boom = make(
      "boom", [](const value&, tool_runtime&) -> value { throw std::invalid_argument("nope"); });
  tool_node_options o;
  o.handle_tool_errors = handle_all_errors();
  value out;
  const auto events =
      tool_events(*graph_of({call_of("boom", object{}, "b1")}, {boom}, o).compile(), &out);
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-error"}),
             boost::test_tools::per_element());
  BOOST_TEST(events.at(1).data ==
             value(object{{"event", "tool-error"}, {"tool_call_id", "b1"}, {"message", "nope"}}));
  const value& answer = out.get("messages").as_list().back();
  BOOST_TEST(answer.get("status") == value("error"));
}

BOOST_AUTO_TEST_CASE(bad_arguments_start_the_call_then_fail_it) {
  tool echo = make(
      "echo", [](const value& args, tool_runtime&) { return args.get("text"); }, text_schema);
  const auto events =
      tool_events(*graph_of({call_of("echo", object{{"txt", "hi"}}, "e1")}, {echo}).compile());
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-error"}),
             boost::test_tools::per_element());
  BOOST_TEST(events.at(0).data.get("input") == value(object{{"txt", "hi"}}));
  BOOST_TEST(events.at(1).data.get("message").as_string().find("text: Field required") !=
                 std::string::npos,
             events.at(1).data.to_json());
}

BOOST_AUTO_TEST_CASE(a_tools_own_error_answer_finishes_the_call) {
  tool careful =
      make("careful", [](const value&, tool_runtime&) -> value { throw tool_exception("no"); });
  careful.handle_tool_error = "handled";
  const auto events =
      tool_events(*graph_of({call_of("careful", object{}, "c1")}, {careful}).compile());
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-finished"}),
             boost::test_tools::per_element());
  BOOST_TEST(events.at(1).data.get("output").get("content") == value("handled"));
}

BOOST_AUTO_TEST_CASE(an_unknown_tool_and_injected_values_are_not_reported) {
  tool reader = make("reader", [](const value& args, tool_runtime&) {
    return value(std::to_string(args.get("messages").as_list().size()));
  });
  reader.injected_state = {{"messages", "messages"}};
  const auto events =
      tool_events(*graph_of({call_of("nobody", object{}, "n1"),
                             call_of("reader", object{{"messages", "forged"}}, "r1")},
                            {reader})
                       .compile());
  // The unknown tool runs nothing; the reader's input is the model's arguments without the
  // injected one.
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-finished"}),
             boost::test_tools::per_element());
  BOOST_TEST(events.at(0).data.get("tool_call_id") == value("r1"));
  BOOST_TEST(events.at(0).data.get("input") == value(object{}));
  BOOST_TEST(events.at(1).data.get("output").get("content") == value("1"));
}

BOOST_AUTO_TEST_CASE(a_command_answer_is_the_finished_output) {
  tool jump = make("jump", [](const value&, tool_runtime& rt) -> value {
    command c;
    c.update = object{{"messages", list{tool_message("jumped", rt.tool_call_id())}}};
    return make_command(c);
  });
  const auto events = tool_events(*graph_of({call_of("jump", object{}, "j1")}, {jump}).compile());
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(as_command(events[1].data.get("output")).has_value(), events[1].data.to_json());
}

BOOST_AUTO_TEST_CASE(a_subgraphs_tools_stream_only_with_subgraphs) {
  tool echo = make(
      "echo",
      [](const value& args, tool_runtime& rt) {
        rt.emit_output_delta("d");
        return args.get("text");
      },
      text_schema);
  std::shared_ptr<const pregel> inner =
      graph_of({call_of("echo", object{{"text", "x"}}, "i1")}, {echo}).compile();
  state_graph outer;
  outer.add_key("messages", "add_messages");
  outer.add_node("sub", inner);
  outer.add_node("own_tools", tool_node({echo}).as_node());
  outer.add_edge("__start__", "sub");
  outer.add_edge("sub", "own_tools");
  outer.add_edge("own_tools", "__end__");
  auto graph = outer.compile();

  // Without subgraphs: only the outer tool node's call of the last AI message (the inner one's,
  // returned to the parent's state).
  auto events = tool_events(*graph);
  BOOST_TEST(kinds(events) == (strings{"tool-started", "tool-output-delta", "tool-finished"}),
             boost::test_tools::per_element());
  for (const auto& e : events) BOOST_TEST(e.ns.empty());

  events = tool_events(*graph, nullptr, true);
  BOOST_TEST_REQUIRE(events.size() == 6u);
  for (std::size_t i = 0; i < 3; ++i) {
    BOOST_TEST_REQUIRE(events[i].ns.size() == 1u);
    BOOST_TEST(events[i].ns[0].rfind("sub:", 0) == 0u);
  }
  for (std::size_t i = 3; i < 6; ++i) BOOST_TEST(events[i].ns.empty());
}

BOOST_AUTO_TEST_CASE(the_tools_transformer_projects_the_events) {
  tool echo = make(
      "echo",
      [](const value& args, tool_runtime& rt) {
        rt.emit_output_delta("half");
        return args.get("text");
      },
      text_schema);
  auto graph = graph_of({call_of("echo", object{{"text", "x"}}, "t1")}, {echo}).compile();
  auto run = graph->stream_events(no_messages(), value(), {}, {factory_of<tools_transformer>()});
  auto tools = run->extension<stream_channel<value>>("tools").cursor();
  run->output();
  strings seen;
  while (auto e = tools.next()) seen.push_back(e->get("event").as_string());
  BOOST_TEST(seen == (strings{"tool-started", "tool-output-delta", "tool-finished"}),
             boost::test_tools::per_element());
}
