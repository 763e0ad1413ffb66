// libs/prebuilt/tests/test_react_agent.py, part 1: create_react_agent against LangGraph's
// scripted model (FakeToolCallingModel): prompts, tool binding, history checks, structured
// answers, interrupts in tools, return_direct, injected state and store. Versions "v1" and
// "v2" are parameters of one case, as in LangGraph.
#include "prebuilt_support.hpp"
#include "superstep/agents/react_agent.hpp"
#include "superstep/checkpoint/store.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

const char* const versions[] = {"v1", "v2"};

using tool_calls_script = std::vector<std::vector<tool_call>>;

std::shared_ptr<fake_tool_calling_model> fake(tool_calls_script calls = {}) {
  return std::make_shared<fake_tool_calling_model>(std::move(calls));
}

react_agent_options with_version(const char* version) {
  react_agent_options o;
  o.version = version;
  o.compile = opts();
  return o;
}

value messages_input(list messages) { return object{{"messages", value(std::move(messages))}}; }

tool text_tool(std::string name, std::string prefix) {
  return make_tool(std::move(name), args_schema({{"input", "string"}}),
                   [prefix](const value& args, tool_runtime&) -> value {
                     return prefix + args.get("input").as_string();
                   });
}

}  // namespace

// libs/prebuilt/tests/test_react_agent.py::test_no_prompt
BOOST_AUTO_TEST_CASE(test_no_prompt) {
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      react_agent_options o = with_version(version);
      o.compile = opts_with_saver();
      auto saver = o.compile.checkpointer;
      auto agent = create_react_agent(fake(), {}, o);
      const list inputs{human_message("hi?", "h1")};
      const value response = agent->invoke(messages_input(inputs), thread("123"));
      BOOST_TEST(response == messages_input(list{inputs[0], ai_message("hi?", {}, "0")}));
      const auto saved = saver->get_tuple(checkpoint_config{"123", "", ""});
      BOOST_TEST_REQUIRE(saved.has_value());
      BOOST_TEST(saved->checkpoint.channel_values.at("messages") ==
                 value(list{inputs[0], ai_message("hi?", {}, "0")}));
      BOOST_TEST(saved->checkpoint.channel_values.size() == 1u);
      BOOST_TEST(metadata_to_value(saved->metadata) ==
                 value(object{{"parents", object{}}, {"source", "loop"}, {"step", 1}}));
      BOOST_TEST(saved->pending_writes.empty());
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_system_message_prompt
BOOST_AUTO_TEST_CASE(test_system_message_prompt) {
  react_agent_options o = with_version("v2");
  o.prompt = system_message("Foo");
  const list inputs{human_message("hi?", "h1")};
  BOOST_TEST(create_react_agent(fake(), {}, o)->invoke(messages_input(inputs)) ==
             messages_input(list{inputs[0], ai_message("Foo-hi?", {}, "0")}));
}

// libs/prebuilt/tests/test_react_agent.py::test_string_prompt
BOOST_AUTO_TEST_CASE(test_string_prompt) {
  react_agent_options o = with_version("v2");
  o.prompt = "Foo";
  const list inputs{human_message("hi?", "h1")};
  BOOST_TEST(create_react_agent(fake(), {}, o)->invoke(messages_input(inputs)) ==
             messages_input(list{inputs[0], ai_message("Foo-hi?", {}, "0")}));
}

// libs/prebuilt/tests/test_react_agent.py::test_callable_prompt
BOOST_AUTO_TEST_CASE(test_callable_prompt) {
  react_agent_options o = with_version("v2");
  o.prompt_function = [](const value& state, node_context&) {
    return list{human_message("Bar " + message_text(state.get("messages").as_list().back()))};
  };
  const list inputs{human_message("hi?", "h1")};
  BOOST_TEST(create_react_agent(fake(), {}, o)->invoke(messages_input(inputs)) ==
             messages_input(list{inputs[0], ai_message("Bar hi?", {}, "0")}));
}

// libs/prebuilt/tests/test_react_agent.py::test_runnable_prompt (a RunnableLambda: a function
// of the state here too)
BOOST_AUTO_TEST_CASE(test_runnable_prompt) {
  react_agent_options o = with_version("v2");
  o.prompt_function = [](const value& state, node_context&) {
    return list{human_message("Baz " + message_text(state.get("messages").as_list().back()))};
  };
  const list inputs{human_message("hi?", "h1")};
  BOOST_TEST(create_react_agent(fake(), {}, o)->invoke(messages_input(inputs)) ==
             messages_input(list{inputs[0], ai_message("Baz hi?", {}, "0")}));
}

// libs/prebuilt/tests/test_react_agent.py::test_prompt_with_store
BOOST_AUTO_TEST_CASE(test_prompt_with_store) {
  const tool add = make_tool("add", args_schema({{"a", "integer"}, {"b", "integer"}}),
                             [](const value& args, tool_runtime&) -> value {
                               return args.get("a").as_int() + args.get("b").as_int();
                             });
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      auto st = store();
      st->put({"memories", "1"}, "user_name", object{{"data", "User name is Alice"}});
      st->put({"memories", "2"}, "user_name", object{{"data", "User name is Bob"}});
      auto model = fake();
      react_agent_options o = with_version(version);
      o.compile.store = st;
      o.prompt_function = [](const value& state, node_context& ctx) {
        const std::string user_id = ctx.configurable("user_id").as_string();
        list messages{
            system_message(ctx.store()->get({"memories", user_id}, "user_name")->v.get("data"))};
        for (const value& m : state.get("messages").as_list()) messages.push_back(m);
        return messages;
      };
      value response = create_react_agent(model, {add}, o)
                           ->invoke(messages_input(list{list{"user", "hi"}}),
                                    object{{"configurable", object{{"user_id", "1"}}}});
      BOOST_TEST(response.get("messages").as_list().back().get("content") ==
                 value("User name is Alice-hi"));

      o.prompt_function = [](const value& state, node_context&) {
        list messages{system_message("foo")};
        for (const value& m : state.get("messages").as_list()) messages.push_back(m);
        return messages;
      };
      response = create_react_agent(model, {add}, o)
                     ->invoke(messages_input(list{list{"user", "hi"}}),
                              object{{"configurable", object{{"user_id", "2"}}}});
      BOOST_TEST(response.get("messages").as_list().back().get("content") == value("foo-hi"));
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_model_with_tools (the "openai" and "anthropic"
// tool styles are one here; the built-in MCP tool dict has no C++ counterpart: a tool_spec is
// a function. The agent's tools node is run through the agent, as a model asking for both.)
BOOST_AUTO_TEST_CASE(test_model_with_tools) {
  const tool tool1 = make_tool("tool1", args_schema({{"some_val", "integer"}}),
                               [](const value& args, tool_runtime&) -> value {
                                 return "Tool 1: " + std::to_string(args.get("some_val").as_int());
                               });
  const tool tool2 = make_tool("tool2", args_schema({{"some_val", "integer"}}),
                               [](const value& args, tool_runtime&) -> value {
                                 return "Tool 2: " + std::to_string(args.get("some_val").as_int());
                               });
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      auto model = fake({{call("tool1", object{{"some_val", 2}}, "some 1"),
                          call("tool2", object{{"some_val", 2}}, "some 2")},
                         {}});
      auto agent = create_react_agent(model->bind_tools({tool1.spec(), tool2.spec()}),
                                      {tool1, tool2}, with_version(version));
      const value result = agent->invoke(messages_input(list{human_message("hi?")}));
      const list& messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 5u);
      for (std::size_t i = 2; i < 4; ++i) {
        BOOST_TEST(message_type(messages[i]) == "tool");
        const value& content = messages[i].get("content");
        BOOST_TEST((content == value("Tool 1: 2") || content == value("Tool 2: 2")));
        const value& id = messages[i].get("tool_call_id");
        BOOST_TEST((id == value("some 1") || id == value("some 2")));
      }
      // The model's bound tools must be the agent's.
      test::expect_error(
          [&] {
            create_react_agent(fake()->bind_tools({tool1.spec()}), {tool1, tool2});
          },
          error_code::invalid_argument,
          "Number of tools in the model.bind_tools() and tools passed to create_react_agent must "
          "match");
      test::expect_error([&] { create_react_agent(fake()->bind_tools({tool1.spec()}), {tool2}); },
                         error_code::invalid_argument,
                         "Missing tools 'tool2' in the model.bind_tools()");
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test__validate_messages
BOOST_AUTO_TEST_CASE(test__validate_messages) {
  validate_chat_history({});
  validate_chat_history({human_message("What's the weather?")});
  validate_chat_history(
      {human_message("What's the weather?"), ai_message("The weather is sunny and 75°F.")});
  validate_chat_history(
      {human_message("What's the weather?"),
       ai_message("Let me check that for you.", {call("get_weather", object{}, "call1")}),
       tool_message("Sunny, 75°F", "call1"), ai_message("The weather is sunny and 75°F.")});
  test::expect_error(
      [] {
        validate_chat_history(
            {ai_message("I'll check that for you.", {call("get_weather", object{}, "call1"),
                                                     call("get_time", object{}, "call2")})});
      },
      error_code::invalid_argument,
      "Found AIMessages with tool_calls that do not have a corresponding ToolMessage");
  test::expect_error(
      [] {
        validate_chat_history(
            {human_message("What's the weather and time?"),
             ai_message("I'll check that for you.", {call("get_weather", object{}, "call1"),
                                                     call("get_time", object{}, "call2")}),
             tool_message("Sunny, 75°F", "call1"),
             ai_message("The weather is sunny and 75°F. Let me check the time.")});
      },
      error_code::invalid_argument, "\"id\":\"call2\"");
}

// libs/prebuilt/tests/test_react_agent.py::test_react_agent_with_structured_response
BOOST_AUTO_TEST_CASE(test_react_agent_with_structured_response) {
  const tool get_weather = make_tool(
      "get_weather", args_schema({}),
      [](const value&, tool_runtime&) -> value { return "The weather is sunny and 75°F."; });
  const value expected = object{{"temperature", 75}};
  response_format weather;
  weather.name = "WeatherResponse";
  weather.schema = value::parse_json(
      R"({"type":"object","properties":{"temperature":{"type":"number",)"
      R"("description":"The temperature in fahrenheit"}},"required":["temperature"]})");
  for (const char* version : versions) {
    for (const std::string prompt : {"", "Meow"}) {
      BOOST_TEST_CONTEXT("version " << version << ", prompt '" << prompt << "'") {
        auto model = fake({{call("get_weather", object{}, "1")}, {}});
        model->set_structured_response(expected);
        react_agent_options o = with_version(version);
        o.response_format = weather;
        o.response_format_prompt = prompt;
        const value response =
            create_react_agent(model, {get_weather}, o)
                ->invoke(messages_input(list{human_message("What's the weather?")}));
        BOOST_TEST(response.get("structured_response") == expected);
        BOOST_TEST_REQUIRE(response.get("messages").as_list().size() == 4u);
        BOOST_TEST(response.get("messages").as_list()[2].get("content") ==
                   value("The weather is sunny and 75°F."));
      }
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_react_agent_update_state (the TypedDict state;
// the pydantic one is Python's)
BOOST_AUTO_TEST_CASE(test_react_agent_update_state) {
  const tool get_user_name =
      make_tool("get_user_name", args_schema({}), [](const value&, tool_runtime& rt) {
        const value user_name = rt.interrupt("Please provider user name:");
        command c;
        c.update =
            object{{"user_name", user_name},
                   {"messages",
                    list{tool_message("Successfully retrieved user name", rt.tool_call_id())}}};
        return make_command(c);
      });
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      react_agent_options o = with_version(version);
      o.compile = opts_with_saver();
      o.state_schema = {{"user_name", ""}};
      o.prompt_function = [](const value& state, node_context&) {
        list messages;
        if (const value& name = state.get("user_name"); name.is_string())
          messages.push_back(
              object{{"role", "system"}, {"content", "User name is " + name.as_string()}});
        for (const value& m : state.get("messages").as_list()) messages.push_back(m);
        return messages;
      };
      auto agent =
          create_react_agent(fake({{call("get_user_name", object{}, "1")}}), {get_user_name}, o);
      agent->invoke(messages_input(list{list{"user", "what's my name"}}), thread("1"));
      const value response = agent->invoke(resume("Archibald"), thread("1"));
      BOOST_TEST(response.get("user_name") == value("Archibald"));
      const list& messages = response.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 4u);
      BOOST_TEST(messages[2].get("content") == value("Successfully retrieved user name"));
      BOOST_TEST(messages[2].get("tool_call_id") == value("1"));
      BOOST_TEST(messages[2].get("name") == value("get_user_name"));
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_react_agent_parallel_tool_calls
BOOST_AUTO_TEST_CASE(test_react_agent_parallel_tool_calls) {
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      auto human_assistance_runs = std::make_shared<std::atomic<int>>(0);
      auto get_weather_runs = std::make_shared<std::atomic<int>>(0);
      const tool human_assistance =
          make_tool("human_assistance", args_schema({{"query", "string"}}),
                    [human_assistance_runs](const value& args, tool_runtime& rt) {
                      const value answer = rt.interrupt(object{{"query", args.get("query")}});
                      ++*human_assistance_runs;
                      return answer.get("data");
                    });
      const tool get_weather = make_tool("get_weather", args_schema({{"location", "string"}}),
                                         [get_weather_runs](const value&, tool_runtime&) -> value {
                                           ++*get_weather_runs;
                                           return "It's sunny!";
                                         });
      react_agent_options o = with_version(version);
      o.compile = opts_with_saver();
      auto agent = create_react_agent(
          fake({{call("get_weather", object{{"location", "sf"}}, "1"),
                 call("human_assistance", object{{"query", "request help"}}, "2")},
                {}}),
          {human_assistance, get_weather}, o);
      const auto types_of = [](const value& state) {
        std::vector<std::string> types;
        for (const value& m : state.get("messages").as_list()) types.emplace_back(message_type(m));
        return types;
      };
      std::vector<std::vector<std::string>> message_types;
      agent->stream(
          messages_input(list{list{"user", "Get user assistance and also check the weather"}}),
          thread("1"), stream_options{{stream_mode::values}, false}, [&](const stream_event& e) {
            if (e.data.find("__interrupt__")) return;
            if (const value& m = e.data.get("messages"); m.is_list() && !m.as_list().empty())
              message_types.push_back(types_of(e.data));
          });
      using types = std::vector<std::vector<std::string>>;
      if (std::string(version) == "v1") {
        BOOST_TEST((message_types == types{{"human"}, {"human", "ai"}}));
      } else {
        BOOST_TEST((message_types == types{{"human"}, {"human", "ai"}, {"human", "ai", "tool"}}));
      }
      message_types.clear();
      agent->stream(resume(object{{"data", "Hello"}}), thread("1"),
                    stream_options{{stream_mode::values}, false}, [&](const stream_event& e) {
                      if (const value& m = e.data.get("messages");
                          m.is_list() && !m.as_list().empty())
                        message_types.push_back(types_of(e.data));
                    });
      BOOST_TEST((message_types == types{{"human", "ai"},
                                         {"human", "ai", "tool", "tool"},
                                         {"human", "ai", "tool", "tool", "ai"}}));
      BOOST_TEST(*human_assistance_runs == 1);
      BOOST_TEST(*get_weather_runs == (std::string(version) == "v1" ? 2 : 1));
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_create_react_agent_inject_vars (the TypedDict
// state; the pydantic one is Python's)
BOOST_AUTO_TEST_CASE(test_create_react_agent_inject_vars) {
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      auto st = store();
      st->put({"test"}, "test_key", object{{"bar", 3}});
      tool tool1 = make_tool("tool1", args_schema({{"some_val", "integer"}}),
                             [](const value& args, tool_runtime& rt) -> value {
                               const std::int64_t store_val =
                                   rt.store()->get({"test"}, "test_key")->v.get("bar").as_int();
                               return args.get("some_val").as_int() +
                                      args.get("state").get("foo").as_int() + store_val;
                             });
      tool1.injected_state = {{"state", ""}};
      tool1.injected_store = true;
      const tool_call the_call = call("tool1", object{{"some_val", 1}}, "some 0");
      react_agent_options o = with_version(version);
      o.tools.handle_tool_errors = handle_no_errors();
      o.state_schema = {{"foo", ""}};
      o.compile.store = st;
      const value result =
          create_react_agent(fake({{the_call}, {}}), {tool1}, o)
              ->invoke(object{{"messages", list{object{{"role", "user"}, {"content", "hi"}}}},
                              {"foo", 2}});
      const list& messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 4u);
      BOOST_TEST(without_id(messages[0]) == human_message("hi"));
      BOOST_TEST(messages[1] == ai_message("hi", {the_call}, "0"));
      BOOST_TEST(without_id(messages[2]) == tool_message("6", "some 0", "tool1"));
      BOOST_TEST(messages[3] == ai_message("hi-hi-6", {}, "1"));
      BOOST_TEST(result.get("foo") == value(2));
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_return_direct
BOOST_AUTO_TEST_CASE(test_return_direct) {
  tool direct = text_tool("tool_return_direct", "Direct result: ");
  direct.return_direct = true;
  const tool normal = text_tool("tool_normal", "Normal result: ");
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      const std::vector<tool_call> first{
          call("tool_return_direct", object{{"input", "Test direct"}}, "1")};
      value result = create_react_agent(fake({first, {}}), {direct, normal}, with_version(version))
                         ->invoke(messages_input(list{human_message("Test direct", "hum0")}));
      list messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 3u);
      BOOST_TEST(messages[0] == human_message("Test direct", "hum0"));
      BOOST_TEST(messages[1] == ai_message("Test direct", first, "0"));
      BOOST_TEST(without_id(messages[2]) ==
                 tool_message("Direct result: Test direct", "1", "tool_return_direct"));

      const std::vector<tool_call> second{
          call("tool_normal", object{{"input", "Test normal"}}, "2")};
      result = create_react_agent(fake({second, {}}), {direct, normal}, with_version(version))
                   ->invoke(messages_input(list{human_message("Test normal", "hum1")}));
      messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 4u);
      BOOST_TEST(messages[1] == ai_message("Test normal", second, "0"));
      BOOST_TEST(without_id(messages[2]) ==
                 tool_message("Normal result: Test normal", "2", "tool_normal"));
      BOOST_TEST(messages[3] ==
                 ai_message("Test normal-Test normal-Normal result: Test normal", {}, "1"));

      const std::vector<tool_call> both{
          call("tool_return_direct", object{{"input", "Test both direct"}}, "3"),
          call("tool_normal", object{{"input", "Test both normal"}}, "4")};
      result = create_react_agent(fake({both, {}}), {direct, normal}, with_version(version))
                   ->invoke(messages_input(list{human_message("Test both", "hum2")}));
      messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 4u);
      BOOST_TEST(messages[1] == ai_message("Test both", both, "0"));
      BOOST_TEST(without_id(messages[2]) ==
                 tool_message("Direct result: Test both direct", "3", "tool_return_direct"));
      BOOST_TEST(without_id(messages[3]) ==
                 tool_message("Normal result: Test both normal", "4", "tool_normal"));
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_react_with_subgraph_tools
BOOST_AUTO_TEST_CASE(test_react_with_subgraph_tools) {
  const auto arithmetic = [](std::string node, bool add) {
    state_graph g;
    g.add_key("a").add_key("b").add_key("result");
    g.set_output_keys({"result"});
    g.add_node(node, [add](const value& state, node_context&) -> value {
      const std::int64_t a = state.get("a").as_int(), b = state.get("b").as_int();
      return object{{"result", add ? a + b : a * b}};
    });
    g.add_edge(std::string(START), node);
    return std::shared_ptr<const pregel>(g.compile(opts()));
  };
  auto add_subgraph = arithmetic("add", true);
  auto multiply_subgraph = arithmetic("multiply", false);
  BOOST_TEST(multiply_subgraph->invoke(object{{"a", 2}, {"b", 3}}) == value(object{{"result", 6}}));
  const auto subgraph_tool = [](std::string name, std::shared_ptr<const pregel> sub) {
    return make_tool(
        std::move(name), args_schema({{"a", "integer"}, {"b", "integer"}}),
        [sub](const value& args, tool_runtime&) { return sub->invoke(args).get("result"); });
  };
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      const std::vector<tool_call> calls{call("addition", object{{"a", 2}, {"b", 3}}, "1"),
                                         call("multiplication", object{{"a", 2}, {"b", 3}}, "2")};
      react_agent_options o = with_version(version);
      o.compile = opts_with_saver();
      o.tools.handle_tool_errors = handle_no_errors();
      auto agent = create_react_agent(fake({calls, {}}),
                                      {subgraph_tool("addition", add_subgraph),
                                       subgraph_tool("multiplication", multiply_subgraph)},
                                      o);
      const value result = agent->invoke(
          messages_input(list{human_message("What's 2 + 3 and 2 * 3?")}), thread("1"));
      const list& messages = result.get("messages").as_list();
      BOOST_TEST_REQUIRE(messages.size() == 5u);
      BOOST_TEST(without_id(messages[0]) == human_message("What's 2 + 3 and 2 * 3?"));
      BOOST_TEST(messages[1] == ai_message("What's 2 + 3 and 2 * 3?", calls, "0"));
      BOOST_TEST(without_id(messages[2]) == tool_message("5", "1", "addition"));
      BOOST_TEST(without_id(messages[3]) == tool_message("6", "2", "multiplication"));
      BOOST_TEST(messages[4] ==
                 ai_message("What's 2 + 3 and 2 * 3?-What's 2 + 3 and 2 * 3?-5-6", {}, "1"));
    }
  }
}
