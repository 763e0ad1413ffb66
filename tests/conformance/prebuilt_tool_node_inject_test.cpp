// libs/prebuilt/tests/test_tool_node.py, part 2: injected state, store and runtime; tool nodes
// in graphs (messages key, stream writer); tools returning lists of Commands and messages.
// Python's KeyError in a tool is std::out_of_range here; LangGraph's ValueErrors about the
// input are superstep::error(invalid_argument), about a tool's answer error(invalid_update).
#include <set>
#include <stdexcept>

#include "prebuilt_support.hpp"
#include "superstep/checkpoint/store.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

// state[key], as Python's state["key"] (std::out_of_range for KeyError).
const value& at(const value& state, const std::string& key) {
  const value* v = state.find(key);
  if (!v) throw std::out_of_range(key);
  return *v;
}

tool returning_tool(value answer) {
  return make_tool("list_tool", args_schema({}),
                   [answer](const value&, tool_runtime&) { return answer; });
}

value invoke_returning(value answer, tool_error_handler handler = handle_all_errors(),
                       std::string outer_id = "call-1") {
  tool_node_options o;
  o.handle_tool_errors = std::move(handler);
  return tool_node({returning_tool(std::move(answer))}, o)
      .invoke(object{{"messages", list{ai_message("", {call("list_tool", object{}, outer_id)})}}});
}

value update_command(value update) {
  command c;
  c.update = std::move(update);
  return make_command(c);
}

std::vector<value> commands_in(const value& result) {
  std::vector<value> out;
  for (const value& r : result.as_list())
    if (as_command(r)) out.push_back(r);
  return out;
}

std::vector<value> others_in(const value& result) {
  std::vector<value> out;
  for (const value& r : result.as_list())
    if (!as_command(r)) out.push_back(r);
  return out;
}

}  // namespace

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_inject_state (the TypedDict schema: the
// others are pydantic models and dataclasses, which refuse the failing input before the node)
BOOST_AUTO_TEST_CASE(test_tool_node_inject_state) {
  const value params = args_schema({{"some_val", "integer"}});
  tool tool1 = make_tool("tool1", params, [](const value& args, tool_runtime&) {
    return at(args.get("state"), "foo");
  });
  tool1.injected_state = {{"state", ""}};
  tool tool2 = tool1;
  tool2.name = "tool2";
  tool tool3 =
      make_tool("tool3", params, [](const value& args, tool_runtime&) { return args.get("foo"); });
  tool3.injected_state = {{"foo", "foo"}, {"msgs", "messages"}};
  tool tool4 = make_tool("tool4", params, [](const value& args, tool_runtime&) {
    return args.get("msgs").as_list().at(0).get("content");
  });
  tool4.injected_state = {{"msgs", "messages"}};
  tool_node_options o;
  o.handle_tool_errors = handle_all_errors();
  const tool_node node({tool1, tool2, tool3, tool4}, o);

  for (const char* name : {"tool1", "tool2", "tool3"}) {
    BOOST_TEST_CONTEXT("tool " << name) {
      const value msg = ai_message("hi?", {call(name, object{{"some_val", 1}}, "some 0")});
      const value result = node.invoke(object{{"messages", list{msg}}, {"foo", "bar"}});
      BOOST_TEST(result.get("messages").as_list().back().get("content") == value("bar"));
      const value failure_input = object{{"messages", list{msg}}, {"notfoo", "bar"}};
      if (std::string(name) == "tool3") {
        // A state key injected by name that the state lacks fails the node (KeyError).
        test::expect_error([&] { node.invoke(failure_input); }, error_code::invalid_argument,
                           "reads state key 'foo'");
        // So does a list of messages when the tool reads other keys (ValueError).
        test::expect_error([&] { node.invoke(list{msg}); }, error_code::invalid_argument,
                           "requires graph state dict as input");
      } else {
        // The tool's own KeyError is a tool error.
        BOOST_TEST(node.invoke(failure_input)
                       .get("messages")
                       .as_list()
                       .back()
                       .get("content")
                       .as_string()
                       .find("out_of_range") != std::string::npos);
        BOOST_TEST(node.invoke(list{msg}).as_list().back().get("content").as_string().find(
                       "out_of_range") != std::string::npos);
      }
    }
  }
  const value msg = ai_message("hi?", {call("tool4", object{{"some_val", 1}}, "some 0")});
  BOOST_TEST(node.invoke(object{{"messages", list{msg}}, {"foo", ""}})
                 .get("messages")
                 .as_list()
                 .back()
                 .get("content") == value("hi?"));
  BOOST_TEST(node.invoke(list{msg}).as_list().back().get("content") == value("hi?"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_inject_store
BOOST_AUTO_TEST_CASE(test_tool_node_inject_store) {
  auto st = store();
  const storage::namespace_path ns{"test"};
  const auto store_val = [ns](tool_runtime& rt) {
    return rt.store()->get(ns, "test_key")->v.get("foo").as_string();
  };
  const value params = args_schema({{"some_val", "integer"}});
  tool tool1 =
      make_tool("tool1", params, [store_val](const value& args, tool_runtime& rt) -> value {
        return "Some val: " + std::to_string(args.get("some_val").as_int()) +
               ", store val: " + store_val(rt);
      });
  tool1.injected_store = true;
  tool tool2 = tool1;
  tool2.name = "tool2";
  tool tool3 =
      make_tool("tool3", params, [store_val](const value& args, tool_runtime& rt) -> value {
        return "Some val: " + std::to_string(args.get("some_val").as_int()) +
               ", store val: " + store_val(rt) + ", state val: " + args.get("bar").as_string();
      });
  tool3.injected_state = {{"bar", "bar"}};
  tool3.injected_store = true;
  tool_node_options o;
  o.handle_tool_errors = handle_all_errors();
  const tool_node node({tool1, tool2, tool3}, o);
  st->put(ns, "test_key", object{{"foo", "bar"}});

  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_key("bar");
  builder.add_node("tools", node.as_node());
  builder.add_edge(std::string(START), "tools");
  compile_options with_store = opts();
  with_store.store = st;
  auto graph = builder.compile(with_store);

  for (const char* name : {"tool1", "tool2"}) {
    const value msg = ai_message("hi?", {call(name, object{{"some_val", 1}}, "some 0")});
    const value node_result =
        node.invoke(object{{"messages", list{msg}}}, tool_node_call{nullptr, st.get()});
    const value graph_result = graph->invoke(object{{"messages", list{msg}}});
    for (const value& result : {node_result, graph_result})
      BOOST_TEST(result.get("messages").as_list().back().get("content") ==
                     value("Some val: 1, store val: bar"),
                 name);
  }
  const value msg = ai_message("hi?", {call("tool3", object{{"some_val", 1}}, "some 0")});
  const value node_result = node.invoke(object{{"messages", list{msg}}, {"bar", "baz"}},
                                        tool_node_call{nullptr, st.get()});
  const value graph_result = graph->invoke(object{{"messages", list{msg}}, {"bar", "baz"}});
  for (const value& result : {node_result, graph_result})
    BOOST_TEST(result.get("messages").as_list().back().get("content") ==
               value("Some val: 1, store val: bar, state val: baz"));

  // Without a store the graph fails.
  auto failing_graph = builder.compile(opts());
  try {
    failing_graph->invoke(object{{"messages", list{msg}}, {"bar", "baz"}});
    BOOST_FAIL("expected an error");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("compile the graph with a store") != std::string::npos,
               e.what());
  }
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_ensure_utf8
BOOST_AUTO_TEST_CASE(test_tool_node_ensure_utf8) {
  const tool get_day_list = make_tool(
      "get_day_list",
      value::parse_json(
          R"({"type":"object","properties":{"days":{"type":"array","items":{"type":"string"}}},"required":["days"]})"),
      [](const value& args, tool_runtime&) { return args.get("days"); });
  const value data = list{"星期一", "水曜日", "목요일", "Friday"};
  const value outputs =
      tool_node({get_day_list})
          .invoke(list{ai_message("", {call("get_day_list", object{{"days", data}}, "test_id")})});
  BOOST_TEST(outputs.as_list()[0].get("content") ==
             value(R"(["星期一", "水曜日", "목요일", "Friday"])"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_messages_key
BOOST_AUTO_TEST_CASE(test_tool_node_messages_key) {
  const tool add = make_tool("add", args_schema({{"a", "integer"}, {"b", "integer"}}),
                             [](const value& args, tool_runtime&) -> value {
                               return args.get("a").as_int() + args.get("b").as_int();
                             });
  auto model = std::make_shared<fake_tool_calling_model>(
      std::vector<std::vector<tool_call>>{{call("add", object{{"a", 1}, {"b", 2}}, "test_id")}});
  state_graph builder;
  builder.add_key("subgraph_messages", "add_messages");
  builder.add_node("agent", [model](const value& state, node_context&) -> value {
    const value response = model->invoke(state.get("subgraph_messages").as_list());
    model->set_tool_calls({});
    return object{{"subgraph_messages", response}};
  });
  tool_node_options o;
  o.messages_key = "subgraph_messages";
  builder.add_node("tools", tool_node({add}, o).as_node());
  builder.add_conditional_edges("agent", tools_condition_router("subgraph_messages"));
  builder.add_edge(std::string(START), "agent");
  builder.add_edge("tools", "agent");
  auto graph = builder.compile(opts());
  const value result = graph->invoke(object{{"subgraph_messages", list{human_message("hi")}}});
  const list& messages = result.get("subgraph_messages").as_list();
  BOOST_TEST_REQUIRE(messages.size() == 4u);
  BOOST_TEST(without_id(messages[0]) == human_message("hi"));
  BOOST_TEST(messages[1] ==
             ai_message("hi", {call("add", object{{"a", 1}, {"b", 2}}, "test_id")}, "0"));
  BOOST_TEST(without_id(messages[2]) == tool_message("3", "test_id", "add"));
  BOOST_TEST(messages[3] == ai_message("hi-hi-3", {}, "1"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_stream_writer
BOOST_AUTO_TEST_CASE(test_tool_node_stream_writer) {
  const tool streaming_tool = make_tool("streaming_tool", args_schema({{"x", "integer"}}),
                                        [](const value& args, tool_runtime& rt) {
                                          for (const char* v : {"foo", "bar", "baz"})
                                            rt.emit_custom(object{{"custom_tool_value", v}});
                                          return args.get("x");
                                        });
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node("tools", tool_node({streaming_tool}).as_node());
  builder.add_edge(std::string(START), "tools");
  auto graph = builder.compile(opts());
  const value inputs =
      object{{"messages", list{ai_message("", {call("streaming_tool", object{{"x", 1}}, "1")})}}};

  std::vector<stream_event> events;
  graph->stream(inputs, value(), stream_options{{stream_mode::custom}, false},
                [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST_REQUIRE(events.size() == 3u);
  const char* values[] = {"foo", "bar", "baz"};
  for (std::size_t i = 0; i < 3; ++i)
    BOOST_TEST(events[i].data == value(object{{"custom_tool_value", values[i]}}));

  events.clear();
  graph->stream(inputs, value(), stream_options{{stream_mode::custom, stream_mode::updates}, false},
                [&](const stream_event& e) { events.push_back(e); });
  BOOST_TEST_REQUIRE(events.size() == 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    BOOST_TEST((events[i].mode == stream_mode::custom));
    BOOST_TEST(events[i].data == value(object{{"custom_tool_value", values[i]}}));
  }
  BOOST_TEST((events[3].mode == stream_mode::updates));
  const value& update = events[3].data.get("tools").get("messages");
  BOOST_TEST_REQUIRE(update.is_list());
  BOOST_TEST_REQUIRE(update.as_list().size() == 1u);
  // LangGraph shows the message with an id; superstep's updates show what the node returned,
  // the id coming from add_messages.
  object message = update.as_list()[0].as_object();
  message.erase("id");
  BOOST_TEST(value(message) == tool_message("1", "1", "streaming_tool"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_inject_async_all_types_signature_only
BOOST_AUTO_TEST_CASE(test_tool_node_inject_async_all_types_signature_only) {
  auto st = store();
  st->put(storage::namespace_path{"test"}, "test_key", object{{"store_data", "from_store"}});
  tool comprehensive = make_tool(
      "comprehensive_async_tool", args_schema({{"x", "integer"}}),
      [](const value& args, tool_runtime& rt) -> value {
        return "x=" + std::to_string(args.get("x").as_int()) +
               ", bar_from_whole=" + std::to_string(at(args.get("whole_state"), "bar").as_int()) +
               ", foo_field=" + args.get("foo_field").as_string() +
               ", store=" + rt.store()->get({"test"}, "test_key")->v.get("store_data").as_string() +
               ", foo_from_runtime=" + at(rt.state(), "foo").as_string() +
               ", tool_call_id=" + rt.tool_call_id();
      });
  comprehensive.injected_state = {{"whole_state", ""}, {"foo_field", "foo"}};
  comprehensive.injected_store = true;
  tool_node_options o;
  o.handle_tool_errors = handle_all_errors();
  const value result =
      tool_node({comprehensive}, o)
          .invoke(object{{"messages",
                          list{ai_message("hi?", {call("comprehensive_async_tool",
                                                       object{{"x", 42}}, "test_call_123")})}},
                         {"foo", "foo_value"},
                         {"bar", 99}},
                  tool_node_call{nullptr, st.get()});
  BOOST_TEST(result.get("messages").as_list().back().get("content") ==
             value("x=42, bar_from_whole=99, foo_field=foo_value, store=from_store, "
                   "foo_from_runtime=foo_value, tool_call_id=test_call_123"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_inject_runtime_dynamic_tool_via_wrap_tool_call
BOOST_AUTO_TEST_CASE(test_tool_node_inject_runtime_dynamic_tool_via_wrap_tool_call) {
  const tool static_tool = make_tool("static_tool", args_schema({{"x", "integer"}}),
                                     [](const value& args, tool_runtime&) -> value {
                                       return "static: " + std::to_string(args.get("x").as_int());
                                     });
  auto dynamic = std::make_shared<tool>(
      make_tool("dynamic_tool_with_runtime", args_schema({{"x", "integer"}}),
                [](const value& args, tool_runtime& rt) -> value {
                  return "dynamic: x=" + std::to_string(args.get("x").as_int()) +
                         ", tool_call_id=" + rt.tool_call_id();
                }));
  tool_node_options o;
  o.wrap_tool_call = [dynamic](const tool_call_request& request, const tool_executor& execute) {
    if (request.tool_call.name != "dynamic_tool_with_runtime") return execute(request);
    tool_call_request swapped = request;
    swapped.tool = dynamic.get();
    return execute(swapped);
  };
  const tool_node node({static_tool}, o);
  BOOST_TEST(node.tools().size() == 1u);
  const value result = node.invoke(
      object{{"messages", list{ai_message("", {call("dynamic_tool_with_runtime", object{{"x", 42}},
                                                    "call_dynamic_1")})}}});
  const value& message = result.get("messages").as_list().back();
  BOOST_TEST(message.get("content") == value("dynamic: x=42, tool_call_id=call_dynamic_1"));
  BOOST_TEST(message.get("tool_call_id") == value("call_dynamic_1"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_runtime_forwards_execution_info_server_info_and_tools
// (the execution info and config are the node's; outside a graph the runtime has none)
BOOST_AUTO_TEST_CASE(test_tool_runtime_forwards_execution_info_server_info_and_tools) {
  std::vector<std::string> tools_seen;
  std::string task_id, thread_id;
  tool info_tool = make_tool(
      "info_tool", args_schema({{"x", "integer"}}), [&](const value&, tool_runtime& rt) -> value {
        tools_seen = rt.tools();
        task_id = std::string(rt.node()->task_id());
        thread_id = rt.config().get("configurable").get("thread_id").as_string();
        return "ok";
      });
  tool other_tool =
      make_tool("other_tool", args_schema({{"y", "integer"}}),
                [](const value& args, tool_runtime&) -> value { return args.get("y").to_json(); });
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node("tools", tool_node({info_tool, other_tool}).as_node());
  builder.add_edge(std::string(START), "tools");
  auto graph = builder.compile(opts_with_saver());
  const value result = graph->invoke(
      object{{"messages", list{ai_message("", {call("info_tool", object{{"x", 1}}, "call-1")})}}},
      thread("t-1"));
  BOOST_TEST(result.get("messages").as_list().back().get("content") == value("ok"));
  BOOST_TEST(thread_id == "t-1");
  BOOST_TEST(!task_id.empty());
  BOOST_TEST((tools_seen == std::vector<std::string>{"info_tool", "other_tool"}));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_strips_plain_injected_tool_arg
BOOST_AUTO_TEST_CASE(test_tool_node_strips_plain_injected_tool_arg) {
  tool read_secret = make_tool(
      "read_secret", args_schema({{"query", "string"}}),
      [](const value& args, tool_runtime&) -> value {
        return at(args, "auth").get("role") == value("admin") ? "ADMIN_SECRET" : "PUBLIC_DATA";
      });
  read_secret.injected_args = {"auth"};
  tool_node_options o;
  o.handle_tool_errors = handle_all_errors();
  const value result =
      tool_node({read_secret}, o)
          .invoke(object{
              {"messages", list{ai_message("", {call("read_secret",
                                                     object{{"query", "hello"},
                                                            {"auth", object{{"role", "admin"}}}},
                                                     "call-1")})}}});
  const std::string content = result.get("messages").as_list().back().get("content").as_string();
  BOOST_TEST(content.find("ADMIN_SECRET") == std::string::npos, content);
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_injected_state_overwrites_llm_value
BOOST_AUTO_TEST_CASE(test_tool_node_injected_state_overwrites_llm_value) {
  tool read_secret = make_tool(
      "read_secret", args_schema({{"query", "string"}}),
      [](const value& args, tool_runtime&) -> value {
        return args.get("auth").get("role") == value("admin") ? "ADMIN_SECRET" : "PUBLIC_DATA";
      });
  read_secret.injected_state = {{"auth", "auth"}};
  const value result =
      tool_node({read_secret})
          .invoke(object{
              {"messages", list{ai_message("", {call("read_secret",
                                                     object{{"query", "hello"},
                                                            {"auth", object{{"role", "admin"}}}},
                                                     "call-1")})}},
              {"auth", object{{"role", "viewer"}}}});
  BOOST_TEST(result.get("messages").as_list().back().get("content") == value("PUBLIC_DATA"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_command_and_tool_message
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_command_and_tool_message) {
  const value result = invoke_returning(
      list{update_command(object{{"foo", "bar"}}), tool_message("done", "call-1")});
  BOOST_TEST_REQUIRE(result.is_list());
  const auto commands = commands_in(result);
  BOOST_TEST_REQUIRE(commands.size() == 1u);
  BOOST_TEST(as_command(commands[0])->update == value(object{{"foo", "bar"}}));
  const auto others = others_in(result);
  BOOST_TEST_REQUIRE(others.size() == 1u);
  const list& msgs = others[0].get("messages").as_list();
  BOOST_TEST_REQUIRE(msgs.size() == 1u);
  BOOST_TEST(message_type(msgs[0]) == "tool");
  BOOST_TEST(msgs[0].get("content") == value("done"));
  BOOST_TEST(msgs[0].get("tool_call_id") == value("call-1"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_nested_terminator
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_nested_terminator) {
  const value result = invoke_returning(
      list{update_command(object{{"foo", "bar"}}),
           update_command(object{{"messages", list{tool_message("done", "call-1")}}})});
  const auto commands = commands_in(result);
  BOOST_TEST_REQUIRE(commands.size() == 2u);
  BOOST_TEST(as_command(commands[0])->update == value(object{{"foo", "bar"}}));
  const list& msgs = as_command(commands[1])->update.get("messages").as_list();
  BOOST_TEST_REQUIRE(msgs.size() == 1u);
  BOOST_TEST(msgs[0].get("tool_call_id") == value("call-1"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_parent_goto_with_terminator
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_parent_goto_with_terminator) {
  command parent;
  parent.graph = command::parent;
  parent.go_to = {make_send("child", object{})};
  const value result = invoke_returning(list{make_command(parent), tool_message("ok", "call-1")});
  std::size_t parents = 0;
  for (const value& c : commands_in(result)) {
    const auto cmd = as_command(c);
    if (cmd->graph != command::parent) continue;
    ++parents;
    BOOST_TEST_REQUIRE(cmd->go_to.size() == 1u);
    BOOST_TEST(as_send(cmd->go_to[0]).has_value());
  }
  BOOST_TEST(parents == 1u);
  BOOST_TEST(others_in(result).size() == 1u);
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_no_terminator_raises
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_no_terminator_raises) {
  test::expect_error(
      [] {
        invoke_returning(list{update_command(object{{"foo", "bar"}})}, handle_no_errors());
      },
      error_code::invalid_update, "0 messages bound to tool_call_id");
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_multiple_terminators_raises
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_multiple_terminators_raises) {
  test::expect_error(
      [] {
        invoke_returning(list{tool_message("a", "call-1"), tool_message("b", "call-1")},
                         handle_no_errors());
      },
      error_code::invalid_update, "2 messages bound to tool_call_id");
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_validation_error_handled
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_validation_error_handled) {
  const value result = invoke_returning(list{update_command(object{{"foo", "bar"}})});
  BOOST_TEST_REQUIRE(result.is_object());
  const value& msg = result.get("messages").as_list().at(0);
  BOOST_TEST(message_type(msg) == "tool");
  BOOST_TEST(msg.get("status") == value("error"));
  BOOST_TEST(msg.get("content").as_string().find("0 messages bound to tool_call_id") !=
             std::string::npos);
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_list_return_mixed_with_regular_tool
BOOST_AUTO_TEST_CASE(test_tool_node_list_return_mixed_with_regular_tool) {
  const tool list_tool = returning_tool(
      list{update_command(object{{"foo", "bar"}}), tool_message("list done", "call-list")});
  const tool regular_tool = make_tool("regular_tool", args_schema({{"x", "integer"}}),
                                      [](const value& args, tool_runtime&) -> value {
                                        return "regular: " + std::to_string(args.get("x").as_int());
                                      });
  const value result =
      tool_node({list_tool, regular_tool})
          .invoke(object{{"messages", list{ai_message("", {call("list_tool", object{}, "call-list"),
                                                           call("regular_tool", object{{"x", 7}},
                                                                "call-regular")})}}});
  BOOST_TEST_REQUIRE(result.is_list());
  const auto commands = commands_in(result);
  BOOST_TEST_REQUIRE(commands.size() == 1u);
  BOOST_TEST(as_command(commands[0])->update == value(object{{"foo", "bar"}}));
  std::set<std::string> ids;
  for (const value& r : others_in(result))
    for (const value& m : r.get("messages").as_list())
      ids.insert(m.get("tool_call_id").as_string());
  BOOST_TEST(ids.count("call-list") == 1u);
  BOOST_TEST(ids.count("call-regular") == 1u);
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_tool_runtime_generic
BOOST_AUTO_TEST_CASE(test_tool_node_tool_runtime_generic) {
  const tool get_info = make_tool(
      "get_info", args_schema({}),
      [](const value&, tool_runtime& rt) -> value { return rt.context().get("some_info"); });
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node("tools", tool_node({get_info}).as_node());
  builder.add_edge(std::string(START), "tools");
  auto graph = builder.compile(opts());
  const value result = graph->invoke(
      object{{"messages", list{ai_message("call tool", {call("get_info", object{}, "call_1")})}}},
      object{{"context", object{{"some_info", "test_info"}}}});
  const value& message = result.get("messages").as_list().back();
  BOOST_TEST(message_type(message) == "tool");
  BOOST_TEST(message.get("content") == value("test_info"));
  BOOST_TEST(message.get("tool_call_id") == value("call_1"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_runtime_defaults_tools_to_empty_list
BOOST_AUTO_TEST_CASE(test_tool_runtime_defaults_tools_to_empty_list) {
  const tool_runtime runtime(value(object{}), "", nullptr, nullptr, {});
  BOOST_TEST(runtime.tools().empty());
  BOOST_TEST(runtime.context().is_null());
  BOOST_TEST(runtime.store() == nullptr);
}
