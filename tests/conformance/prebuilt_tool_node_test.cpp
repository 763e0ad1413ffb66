// libs/prebuilt/tests/test_tool_node.py, part 1: running tool calls, error handling, Commands.
// Python's exception types map to C++ ones: ValueError -> std::invalid_argument, ToolException
// -> agents::tool_exception, ToolInvocationError -> agents::tool_invocation_error,
// GraphBubbleUp -> superstep::error(interrupted); LangGraph's ValueErrors about Commands are
// superstep::error(invalid_update).
#include <stdexcept>

#include "prebuilt_support.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

const value some_schema = args_schema({{"some_val", "integer"}, {"some_other_val", "string"}});

std::string pair_text(const value& args) {
  return std::to_string(args.get("some_val").as_int()) + " - " +
         args.get("some_other_val").as_string();
}

tool tool1() {
  return make_tool("tool1", some_schema, [](const value& args, tool_runtime&) -> value {
    if (args.get("some_val") == value(0)) throw std::invalid_argument("Test error");
    return pair_text(args);
  });
}

tool tool2() {
  return make_tool("tool2", some_schema, [](const value& args, tool_runtime&) -> value {
    if (args.get("some_val") == value(0)) throw tool_exception("Test error");
    return "tool2: " + pair_text(args);
  });
}

tool tool3() {
  return make_tool("tool3", some_schema, [](const value& args, tool_runtime&) -> value {
    return list{object{{"key_1", args.get("some_val")}, {"key_2", "foo"}},
                object{{"key_1", args.get("some_other_val")}, {"key_2", "baz"}}};
  });
}

tool tool4() {
  return make_tool("tool4", some_schema, [](const value&, tool_runtime&) -> value {
    return list{object{{"type", "image_url"}, {"image_url", object{{"url", "abdc"}}}}};
  });
}

tool tool5() {
  tool t =
      make_tool("tool5", args_schema({{"some_val", "integer"}}),
                [](const value&, tool_runtime&) -> value { throw tool_exception("Test error"); });
  t.handle_tool_error = "foo";
  return t;
}

value state_of(std::vector<tool_call> calls, std::string content = "hi?") {
  return object{{"messages", list{ai_message(std::move(content), calls)}}};
}

const value& last_message(const value& result) { return result.get("messages").as_list().back(); }

// A tool whose answer is Command(update={"messages": [ToolMessage(text, tool_call_id)]},
// goto="bob", graph=PARENT), or with the update a list of messages when `as_list`.
tool transfer_to_bob(std::string name, bool as_list) {
  return make_tool(std::move(name), args_schema({}), [as_list](const value&, tool_runtime& rt) {
    command c;
    const value message = tool_message("Transferred to Bob", rt.tool_call_id());
    c.update = as_list ? value(list{message}) : value(object{{"messages", list{message}}});
    c.go_to = {value("bob")};
    c.graph = command::parent;
    return make_command(c);
  });
}

value bob_command(std::string call_id, std::string tool_name, bool as_list) {
  command c;
  const value message =
      tool_message("Transferred to Bob", std::move(call_id), std::move(tool_name));
  c.update = as_list ? value(list{message}) : value(object{{"messages", list{message}}});
  c.go_to = {value("bob")};
  c.graph = command::parent;
  return make_command(c);
}

tool add_tool() {
  return make_tool("add", args_schema({{"a", "integer"}, {"b", "integer"}}),
                   [](const value& args, tool_runtime&) -> value {
                     return args.get("a").as_int() + args.get("b").as_int();
                   });
}

tool command_tool(std::string name, command c) {
  return make_tool(std::move(name), args_schema({}),
                   [c](const value&, tool_runtime&) { return make_command(c); });
}

template <class E, class F>
void expect_throws(F f, std::string_view what = {}) {
  try {
    f();
    BOOST_FAIL("expected an exception");
  } catch (const E& e) {
    if (!what.empty()) BOOST_TEST(std::string(e.what()) == what);
  }
}

}  // namespace

// libs/prebuilt/tests/test_tool_node.py::test_tool_node
BOOST_AUTO_TEST_CASE(test_tool_node) {
  value result = tool_node({tool1()}).invoke(
      state_of({call("tool1", object{{"some_val", 1}, {"some_other_val", "foo"}}, "some 0")}));
  BOOST_TEST(last_message(result).get("type") == value("tool"));
  BOOST_TEST(last_message(result).get("content") == value("1 - foo"));
  BOOST_TEST(last_message(result).get("tool_call_id") == value("some 0"));

  result = tool_node({tool2()}).invoke(
      state_of({call("tool2", object{{"some_val", 2}, {"some_other_val", "bar"}}, "some 1")}));
  BOOST_TEST(last_message(result).get("type") == value("tool"));
  BOOST_TEST(last_message(result).get("content") == value("tool2: 2 - bar"));

  // A list of objects is written as JSON, Python's way.
  result = tool_node({tool3()}).invoke(
      state_of({call("tool3", object{{"some_val", 2}, {"some_other_val", "bar"}}, "some 2")}));
  BOOST_TEST(last_message(result).get("content") ==
             value(R"([{"key_1": 2, "key_2": "foo"}, {"key_1": "bar", "key_2": "baz"}])"));
  BOOST_TEST(last_message(result).get("tool_call_id") == value("some 2"));

  // Content blocks are the content as they are.
  result = tool_node({tool4()}).invoke(
      state_of({call("tool4", object{{"some_val", 2}, {"some_other_val", "bar"}}, "some 3")}));
  BOOST_TEST(last_message(result).get("content") ==
             value(list{object{{"type", "image_url"}, {"image_url", object{{"url", "abdc"}}}}}));
  BOOST_TEST(last_message(result).get("tool_call_id") == value("some 3"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_tool_call_input
BOOST_AUTO_TEST_CASE(test_tool_node_tool_call_input) {
  const value call_1 =
      call("tool1", object{{"some_val", 1}, {"some_other_val", "foo"}}, "some 0").to_value();
  const value call_2 =
      call("tool1", object{{"some_val", 2}, {"some_other_val", "bar"}}, "some 1").to_value();
  BOOST_TEST(tool_node({tool1()}).invoke(list{call_1}).get("messages") ==
             value(list{tool_message("1 - foo", "some 0", "tool1")}));
  BOOST_TEST(tool_node({tool1()}).invoke(list{call_1, call_2}).get("messages") ==
             value(list{tool_message("1 - foo", "some 0", "tool1"),
                        tool_message("2 - bar", "some 1", "tool1")}));
  object call_3 = call_1.as_object();
  call_3.set("name", "tool2");
  BOOST_TEST(tool_node({tool1()}).invoke(list{call_1, value(call_3)}).get("messages") ==
             value(list{tool_message("1 - foo", "some 0", "tool1"),
                        tool_message("Error: tool2 is not a valid tool, try one of [tool1].",
                                     "some 0", "tool2", "error")}));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_error_handling_default_invocation
BOOST_AUTO_TEST_CASE(test_tool_node_error_handling_default_invocation) {
  const value result = tool_node({tool1()}).invoke(
      state_of({call("tool1", object{{"invalid", 0}, {"args", "foo"}}, "some id")}));
  for (const value& m : result.get("messages").as_list()) {
    BOOST_TEST(m.get("type") == value("tool"));
    BOOST_TEST(m.get("status") == value("error"));
  }
  const std::string content = result.get("messages").as_list()[0].get("content").as_string();
  BOOST_TEST(
      content.find(
          "Error invoking tool 'tool1' with kwargs {'invalid': 0, 'args': 'foo'} with error:\n") !=
          std::string::npos,
      content);
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_error_handling_default_exception
BOOST_AUTO_TEST_CASE(test_tool_node_error_handling_default_exception) {
  expect_throws<std::invalid_argument>([] {
    tool_node({tool1()}).invoke(
        state_of({call("tool1", object{{"some_val", 0}, {"some_other_val", "foo"}}, "some id")}));
  });
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_error_handling
BOOST_AUTO_TEST_CASE(test_tool_node_error_handling) {
  // All errors handled: handle_tool_errors=True, a tuple of every type, a callable.
  const tool_error_handler handle_all = [](const std::exception_ptr& e,
                                           const tool_call&) -> std::optional<std::string> {
    return tool_call_error_content(e);
  };
  for (const tool_error_handler& handler :
       {handle_all_errors(),
        handle_errors_of<std::invalid_argument, tool_exception, tool_invocation_error>(),
        handle_all}) {
    tool_node_options o;
    o.handle_tool_errors = handler;
    const value result =
        tool_node({tool1(), tool2(), tool3()}, o)
            .invoke(state_of(
                {call("tool1", object{{"some_val", 0}, {"some_other_val", "foo"}}, "some id"),
                 call("tool2", object{{"some_val", 0}, {"some_other_val", "bar"}}, "some other id"),
                 call("tool3", object{{"some_val", 0}}, "another id")}));
    const list& messages = result.get("messages").as_list();
    BOOST_TEST_REQUIRE(messages.size() == 3u);
    for (const value& m : messages) {
      BOOST_TEST(m.get("type") == value("tool"));
      BOOST_TEST(m.get("status") == value("error"));
    }
    BOOST_TEST(messages[0].get("content") ==
               value("Error: std::invalid_argument('Test error')\n Please fix your mistakes."));
    BOOST_TEST(
        messages[1].get("content") ==
        value(
            "Error: superstep::agents::tool_exception('Test error')\n Please fix your mistakes."));
    BOOST_TEST(messages[2].get("content").as_string().find("some_other_val") != std::string::npos);
    BOOST_TEST(messages[0].get("tool_call_id") == value("some id"));
    BOOST_TEST(messages[1].get("tool_call_id") == value("some other id"));
    BOOST_TEST(messages[2].get("tool_call_id") == value("another id"));
  }
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_error_handling_callable
BOOST_AUTO_TEST_CASE(test_tool_node_error_handling_callable) {
  const auto value_error = handle_errors_with<std::invalid_argument>(
      [](const std::invalid_argument&) { return std::string("Value error"); });
  const auto tool_error = handle_errors_with<tool_exception>(
      [](const tool_exception&) { return std::string("Tool exception"); });
  for (const tool_error_handler& handler :
       {handle_errors_with(std::string("Value error")), value_error}) {
    tool_node_options o;
    o.handle_tool_errors = handler;
    const value result =
        tool_node({tool1()}, o)
            .invoke(state_of(
                {call("tool1", object{{"some_val", 0}, {"some_other_val", "foo"}}, "some id")}));
    BOOST_TEST(last_message(result).get("type") == value("tool"));
    BOOST_TEST(last_message(result).get("status") == value("error"));
    BOOST_TEST(last_message(result).get("content") == value("Value error"));
  }
  const value both = state_of(
      {call("tool1", object{{"some_val", 0}, {"some_other_val", "foo"}}, "some id"),
       call("tool2", object{{"some_val", 0}, {"some_other_val", "bar"}}, "some other id")});
  // Unhandled errors fail the node.
  for (const tool_error_handler& handler :
       {handle_errors_of<std::invalid_argument>(), value_error}) {
    tool_node_options o;
    o.handle_tool_errors = handler;
    expect_throws<tool_exception>(
        [&] {
          tool_node({tool1(), tool2()}, o).invoke(both);
        },
        "Test error");
  }
  for (const tool_error_handler& handler : {handle_errors_of<tool_exception>(), tool_error}) {
    tool_node_options o;
    o.handle_tool_errors = handler;
    expect_throws<std::invalid_argument>(
        [&] {
          tool_node({tool1(), tool2()}, o).invoke(both);
        },
        "Test error");
  }
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_handle_tool_errors_false
BOOST_AUTO_TEST_CASE(test_tool_node_handle_tool_errors_false) {
  tool_node_options o;
  o.handle_tool_errors = handle_no_errors();
  expect_throws<std::invalid_argument>(
      [&] {
        tool_node({tool1()}, o)
            .invoke(state_of(
                {call("tool1", object{{"some_val", 0}, {"some_other_val", "foo"}}, "some id")}));
      },
      "Test error");
  expect_throws<tool_exception>(
      [&] {
        tool_node({tool2()}, o)
            .invoke(state_of(
                {call("tool2", object{{"some_val", 0}, {"some_other_val", "bar"}}, "some id")}));
      },
      "Test error");
  // Invalid arguments are raised too.
  expect_throws<tool_invocation_error>([&] {
    tool_node({tool1()}, o).invoke(state_of({call("tool1", object{{"some_val", 0}}, "some id")}));
  });
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_individual_tool_error_handling
BOOST_AUTO_TEST_CASE(test_tool_node_individual_tool_error_handling) {
  tool_node_options o;
  o.handle_tool_errors = handle_errors_with(std::string("bar"));
  const value result =
      tool_node({tool5()}, o).invoke(state_of({call("tool5", object{{"some_val", 0}}, "some 0")}));
  BOOST_TEST(last_message(result).get("type") == value("tool"));
  BOOST_TEST(last_message(result).get("status") == value("error"));
  BOOST_TEST(last_message(result).get("content") == value("foo"));
  BOOST_TEST(last_message(result).get("tool_call_id") == value("some 0"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_incorrect_tool_name
BOOST_AUTO_TEST_CASE(test_tool_node_incorrect_tool_name) {
  const value result =
      tool_node({tool1(), tool2()})
          .invoke(state_of(
              {call("tool3", object{{"some_val", 1}, {"some_other_val", "foo"}}, "some 0")}));
  BOOST_TEST(last_message(result).get("type") == value("tool"));
  BOOST_TEST(last_message(result).get("status") == value("error"));
  BOOST_TEST(last_message(result).get("content") ==
             value("Error: tool3 is not a valid tool, try one of [tool1, tool2]."));
  BOOST_TEST(last_message(result).get("tool_call_id") == value("some 0"));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_node_interrupt
BOOST_AUTO_TEST_CASE(test_tool_node_node_interrupt) {
  const tool interrupting = make_tool(
      "tool_interrupt", args_schema({{"some_val", "integer"}}),
      [](const value&, tool_runtime&) -> value { throw error(error_code::interrupted, "foo"); });
  for (const tool_error_handler& handler :
       {handle_all_errors(), handle_errors_of<error>(), handle_errors_with(std::string("handled")),
        handle_errors_with<error>([](const error&) { return std::string("handled"); }),
        handle_no_errors()}) {
    tool_node_options o;
    o.handle_tool_errors = handler;
    test::expect_error(
        [&] {
          tool_node({interrupting}, o)
              .invoke(state_of({call("tool_interrupt", object{{"some_val", 0}}, "some 0")}));
        },
        error_code::interrupted, "foo");
  }
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_command
BOOST_AUTO_TEST_CASE(test_tool_node_command) {
  for (const char* input_type : {"dict", "tool_calls"}) {
    BOOST_TEST_CONTEXT("input " << input_type) {
      // Regular tools and tools returning Commands together.
      const list calls{call("add", object{{"a", 1}, {"b", 2}}, "1").to_value(),
                       call("transfer_to_bob", object{}, "2").to_value()};
      const value input =
          std::string(input_type) == "dict"
              ? value(object{{"messages",
                              list{ai_message("", tool_calls_of(object{{"type", "ai"},
                                                                       {"tool_calls", calls}}))}}})
              : value(calls);
      BOOST_TEST(tool_node({add_tool(), transfer_to_bob("transfer_to_bob", false)}).invoke(input) ==
                 value(list{object{{"messages", list{tool_message("3", "1", "add")}}},
                            bob_command("2", "transfer_to_bob", false)}));
    }
  }
  // Tools returning Commands (LangGraph runs them sync and async: one path here).
  for (const char* name : {"transfer_to_bob", "custom_transfer_to_bob", "async_transfer_to_bob",
                           "async_custom_transfer_to_bob"}) {
    BOOST_TEST(tool_node({transfer_to_bob(name, false)})
                   .invoke(state_of({call(name, object{}, "1")}, "")) ==
               value(list{bob_command("1", name, false)}));
  }
  // Several Commands.
  BOOST_TEST(tool_node({transfer_to_bob("transfer_to_bob", false),
                        transfer_to_bob("custom_transfer_to_bob", false)})
                 .invoke(state_of({call("transfer_to_bob", object{}, "1"),
                                   call("custom_transfer_to_bob", object{}, "2")},
                                  "")) ==
             value(list{bob_command("1", "transfer_to_bob", false),
                        bob_command("2", "custom_transfer_to_bob", false)}));

  // A list update when the input is a state.
  command list_update;
  list_update.update = list{tool_message("foo", "1")};
  test::expect_error(
      [&] {
        tool_node({command_tool("list_update_tool", list_update)})
            .invoke(state_of({call("list_update_tool", object{}, "1")}, ""));
      },
      error_code::invalid_update,
      "Tools can provide a list of messages in Command.update only when using list");
  // No tool message answering the call in an update of this graph.
  command no_update;
  no_update.update = object{{"messages", list{}}};
  test::expect_error(
      [&] {
        tool_node({command_tool("no_update_tool", no_update)})
            .invoke(state_of({call("no_update_tool", object{}, "1")}, ""));
      },
      error_code::invalid_update,
      "Expected to have a matching ToolMessage in Command.update for tool 'no_update_tool'");
  // A tool message answering another call.
  command mismatching;
  mismatching.update = object{{"messages", list{tool_message("foo", "2")}}};
  test::expect_error(
      [&] {
        tool_node({command_tool("mismatching_tool_call_id_tool", mismatching)})
            .invoke(state_of({call("mismatching_tool_call_id_tool", object{}, "1")}, ""));
      },
      error_code::invalid_update, "Expected to have a matching ToolMessage");
  // An update of the parent graph needs none.
  command parent_update;
  parent_update.update = object{{"messages", list{}}};
  parent_update.graph = command::parent;
  BOOST_TEST(tool_node({command_tool("node_update_parent_tool", parent_update)})
                 .invoke(state_of({call("node_update_parent_tool", object{}, "1")}, "")) ==
             value(list{make_command(parent_update)}));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_command_list_input
BOOST_AUTO_TEST_CASE(test_tool_node_command_list_input) {
  const auto messages_of = [](std::vector<tool_call> calls) {
    return value(list{ai_message("", calls)});
  };
  BOOST_TEST(
      tool_node({add_tool(), transfer_to_bob("transfer_to_bob", true)})
          .invoke(messages_of({call("add", object{{"a", 1}, {"b", 2}}, "1"),
                               call("transfer_to_bob", object{}, "2")})) ==
      value(list{list{tool_message("3", "1", "add")}, bob_command("2", "transfer_to_bob", true)}));
  for (const char* name : {"transfer_to_bob", "custom_transfer_to_bob", "async_transfer_to_bob",
                           "async_custom_transfer_to_bob"}) {
    BOOST_TEST(
        tool_node({transfer_to_bob(name, true)}).invoke(messages_of({call(name, object{}, "1")})) ==
        value(list{bob_command("1", name, true)}));
  }
  BOOST_TEST(tool_node({transfer_to_bob("transfer_to_bob", true),
                        transfer_to_bob("custom_transfer_to_bob", true)})
                 .invoke(messages_of({call("transfer_to_bob", object{}, "1"),
                                      call("custom_transfer_to_bob", object{}, "2")})) ==
             value(list{bob_command("1", "transfer_to_bob", true),
                        bob_command("2", "custom_transfer_to_bob", true)}));

  // A dict update when the input is a list of messages.
  command dict_update;
  dict_update.update = object{{"messages", list{tool_message("foo", "1")}}};
  test::expect_error(
      [&] {
        tool_node({command_tool("list_update_tool", dict_update)})
            .invoke(messages_of({call("list_update_tool", object{}, "1")}));
      },
      error_code::invalid_update,
      "Tools can provide a dict in Command.update only when using dict");
  command no_update;
  no_update.update = list{};
  test::expect_error(
      [&] {
        tool_node({command_tool("no_update_tool", no_update)})
            .invoke(messages_of({call("no_update_tool", object{}, "1")}));
      },
      error_code::invalid_update, "Expected to have a matching ToolMessage");
  command mismatching;
  mismatching.update = list{tool_message("foo", "2")};
  test::expect_error(
      [&] {
        tool_node({command_tool("mismatching_tool_call_id_tool", mismatching)})
            .invoke(messages_of({call("mismatching_tool_call_id_tool", object{}, "1")}));
      },
      error_code::invalid_update, "Expected to have a matching ToolMessage");
  command parent_update;
  parent_update.update = list{};
  parent_update.graph = command::parent;
  BOOST_TEST(tool_node({command_tool("node_update_parent_tool", parent_update)})
                 .invoke(messages_of({call("node_update_parent_tool", object{}, "1")})) ==
             value(list{make_command(parent_update)}));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_parent_command_with_send
BOOST_AUTO_TEST_CASE(test_tool_node_parent_command_with_send) {
  const auto transfer = [](std::string name, std::string to, std::string text) {
    return make_tool(name, args_schema({}), [name, to, text](const value&, tool_runtime& rt) {
      command c;
      c.go_to = {
          make_send(to, object{{"messages", list{tool_message(text, rt.tool_call_id(), name)}}})};
      c.graph = command::parent;
      return make_command(c);
    });
  };
  const value result = tool_node({transfer("transfer_to_alice", "alice", "Transferred to Alice"),
                                  transfer("transfer_to_bob", "bob", "Transferred to Bob")})
                           .invoke(list{ai_message("", {call("transfer_to_alice", object{}, "1"),
                                                        call("transfer_to_bob", object{}, "2")})});
  command expected;
  expected.go_to = {
      make_send("alice", object{{"messages", list{tool_message("Transferred to Alice", "1",
                                                               "transfer_to_alice")}}}),
      make_send("bob", object{{"messages",
                               list{tool_message("Transferred to Bob", "2", "transfer_to_bob")}}})};
  expected.graph = command::parent;
  BOOST_TEST(result == value(list{make_command(expected)}));
}

// libs/prebuilt/tests/test_tool_node.py::test_tool_node_command_remove_all_messages
BOOST_AUTO_TEST_CASE(test_tool_node_command_remove_all_messages) {
  command remove_all;
  remove_all.update =
      object{{"messages", list{remove_message(std::string(remove_all_messages_id))}}};
  const value result =
      tool_node({command_tool("remove_all_messages_tool", remove_all)})
          .invoke(state_of({call("remove_all_messages_tool", object{}, "tool_call_123")}, ""));
  BOOST_TEST_REQUIRE(result.is_list());
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  const auto cmd = as_command(result.as_list()[0]);
  BOOST_TEST_REQUIRE(cmd.has_value());
  BOOST_TEST(
      cmd->update ==
      value(object{{"messages", list{remove_message(std::string(remove_all_messages_id))}}}));
}
