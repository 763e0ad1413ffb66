// libs/prebuilt/tests/test_react_agent.py, part 2: interrupts in tools, the agent inside a
// node's stream, tool binding, dynamic models (LangGraph's callable model: a model_selector
// here), pre- and post-model hooks.
#include <atomic>

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

std::shared_ptr<fake_tool_calling_model> fake(tool_calls_script calls = {}, std::size_t index = 0) {
  return std::make_shared<fake_tool_calling_model>(std::move(calls), index);
}

react_agent_options with_version(const char* version) {
  react_agent_options o;
  o.version = version;
  o.compile = opts();
  return o;
}

value messages_input(list messages) { return object{{"messages", value(std::move(messages))}}; }

tool int_tool(std::string name, std::string prefix) {
  return make_tool(std::move(name), args_schema({{"x", "integer"}}),
                   [prefix](const value& args, tool_runtime&) -> value {
                     return prefix + std::to_string(args.get("x").as_int());
                   });
}

const std::string& last_content(const value& result) {
  return result.get("messages").as_list().back().get("content").as_string();
}

std::size_t message_count(const value& result) { return result.get("messages").as_list().size(); }

std::vector<value> updates_of(const pregel& g, const value& input) {
  std::vector<value> events;
  g.stream(input, value(), stream_options{{stream_mode::updates}, false},
           [&](const stream_event& e) { events.push_back(e.data); });
  return events;
}

}  // namespace

// libs/prebuilt/tests/test_react_agent.py::test_react_agent_subgraph_streaming_sync (the agent
// runs inside a node through run_nested, which forwards its events to the parent's stream; the
// node reads the agent's answer from its output rather than from a stream of its own)
BOOST_AUTO_TEST_CASE(test_react_agent_subgraph_streaming_sync) {
  const tool get_weather =
      make_tool("get_weather", args_schema({{"city", "string"}}),
                [](const value& args, tool_runtime&) -> value {
                  return "The weather of " + args.get("city").as_string() + " is sunny.";
                });
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      react_agent_options o = with_version(version);
      o.prompt = "You are a helpful travel assistant.";
      auto model = fake({{call("get_weather", object{{"city", "Tokyo"}}, "1")}, {}});
      std::shared_ptr<const pregel> agent = create_react_agent(model, {get_weather}, o);
      state_graph workflow;
      workflow.add_key("messages", "add_messages");
      workflow.add_node("react_agent", [agent](const value& state, node_context& ctx) -> value {
        const value out = agent->run_nested(
            messages_input(
                list{list{"user", message_text(state.get("messages").as_list().back())}}),
            ctx);
        std::string collected;
        for (const value& m : out.get("messages").as_list())
          if (message_type(m) != "human") collected += message_text(m);
        return object{{"messages", list{list{"assistant", collected}}}};
      });
      workflow.add_edge(std::string(START), "react_agent");
      workflow.add_edge("react_agent", std::string(END));
      auto compiled = workflow.compile(opts());
      const value input = messages_input(list{list{"user", "What is the weather in Tokyo?"}});
      const value result = compiled->invoke(input);
      BOOST_TEST_REQUIRE(message_count(result) == 2u);
      BOOST_TEST(result.get("messages").as_list()[0].get("content") ==
                 value("What is the weather in Tokyo?"));
      BOOST_TEST(message_type(result.get("messages").as_list()[1]) == "ai");

      for (const bool subgraphs : {false, true}) {
        std::vector<stream_event> events;
        compiled->stream(input, value(), stream_options{{stream_mode::messages}, subgraphs},
                         [&](const stream_event& e) { events.push_back(e); });
        if (!subgraphs) {
          BOOST_TEST(events.size() == 0u);
          continue;
        }
        BOOST_TEST_REQUIRE(events.size() == 3u);
        BOOST_TEST(events[0].data.as_list()[0].get("content").as_string().starts_with(
            "You are a helpful travel assistant"));
        BOOST_TEST(events[1].data.as_list()[0].get("content").as_string().starts_with(
            "The weather of Tokyo is sunny."));
      }
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_tool_node_node_interrupt
BOOST_AUTO_TEST_CASE(test_tool_node_node_interrupt) {
  const tool tool_normal = make_tool("tool_normal", args_schema({{"some_val", "integer"}}),
                                     [](const value&, tool_runtime&) -> value { return "normal"; });
  const tool tool_interrupt = make_tool(
      "tool_interrupt", args_schema({{"some_val", "integer"}}),
      [](const value&, tool_runtime& rt) { return rt.interrupt("provide value for foo"); });
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      const std::vector<tool_call> calls{call("tool_interrupt", object{{"some_val", 0}}, "1"),
                                         call("tool_normal", object{{"some_val", 1}}, "2")};
      react_agent_options o = with_version(version);
      o.compile = opts_with_saver();
      auto agent = create_react_agent(fake({calls, {}}), {tool_interrupt, tool_normal}, o);
      const value result = agent->invoke(messages_input(list{human_message("hi?")}), thread("1"));
      const list& messages = result.get("messages").as_list();
      // v1: the interrupt holds back the other call's answer; v2: each call is its own task.
      BOOST_TEST_REQUIRE(messages.size() == (std::string(version) == "v1" ? 2u : 3u));
      BOOST_TEST(without_id(messages[0]) == human_message("hi?"));
      BOOST_TEST(messages[1] == ai_message("hi?", calls, "0"));
      if (messages.size() == 3u)
        BOOST_TEST(without_id(messages[2]) == tool_message("normal", "2", "tool_normal"));

      const state_snapshot state = agent->get_state(thread("1"));
      BOOST_TEST((state.next == std::vector<std::string>{"tools"}));
      BOOST_TEST_REQUIRE(!state.tasks.empty());
      BOOST_TEST(state.tasks[0].name == "tools");
      BOOST_TEST_REQUIRE(state.tasks[0].interrupts.size() == 1u);
      BOOST_TEST(state.tasks[0].interrupts[0].get("value") == value("provide value for foo"));
      BOOST_TEST(state.tasks[0].interrupts[0].get("id").is_string());
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_should_bind_tools (LangGraph's private
// _should_bind_tools, seen through create_react_agent: which tools the model is called with;
// a RunnableSequence after the model is Python's)
BOOST_AUTO_TEST_CASE(test_should_bind_tools) {
  const tool some_tool = make_tool("some_tool", args_schema({{"some_val", "integer"}}),
                                   [](const value&, tool_runtime&) -> value { return "meow"; });
  const tool some_other_tool =
      make_tool("some_other_tool", args_schema({{"some_val", "integer"}}),
                [](const value&, tool_runtime&) -> value { return "meow"; });
  // A model without tools gets the agent's bound; with none, none.
  for (const std::vector<tool>& tools : {std::vector<tool>{}, std::vector<tool>{some_tool}}) {
    auto model = fake();
    create_react_agent(model, tools, with_version("v2"))
        ->invoke(messages_input(list{human_message("hi")}));
    BOOST_TEST_REQUIRE(model->tools_of_calls().size() == 1u);
    BOOST_TEST(model->tools_of_calls()[0].size() == tools.size());
  }
  // A model with the agent's tools bound is not bound again.
  auto model = fake();
  create_react_agent(model->bind_tools({some_tool.spec()}), {some_tool}, with_version("v2"))
      ->invoke(messages_input(list{human_message("hi")}));
  BOOST_TEST((model->tools_of_calls() == std::vector<std::vector<std::string>>{{"some_tool"}}));
  // Bound tools that are not the agent's.
  const auto bound = fake()->bind_tools({some_tool.spec()});
  test::expect_error([&] { create_react_agent(bound, {}); }, error_code::invalid_argument,
                     "must match");
  test::expect_error([&] { create_react_agent(bound, {some_other_tool}); },
                     error_code::invalid_argument, "Missing tools 'some_other_tool'");
  test::expect_error(
      [&] {
        create_react_agent(bound, {some_tool, some_other_tool});
      },
      error_code::invalid_argument, "must match");
}

// libs/prebuilt/tests/test_react_agent.py::test_get_model (LangGraph's private _get_model:
// chat_model::without_bindings)
BOOST_AUTO_TEST_CASE(test_get_model) {
  auto model = fake();
  BOOST_TEST(model->without_bindings().get() == model.get());
  const tool some_tool = make_tool("some_tool", args_schema({{"some_val", "integer"}}),
                                   [](const value&, tool_runtime&) -> value { return "meow"; });
  const auto with_tools = model->bind_tools({some_tool.spec()});
  BOOST_TEST(with_tools.get() != static_cast<const chat_model*>(model.get()));
  BOOST_TEST(with_tools->without_bindings().get() == model.get());
  BOOST_TEST(model->bound_tools() == nullptr);
  BOOST_TEST_REQUIRE(with_tools->bound_tools() != nullptr);
  BOOST_TEST(with_tools->bound_tools()->at(0).name == "some_tool");
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_basic
BOOST_AUTO_TEST_CASE(test_dynamic_model_basic) {
  for (const char* version : versions) {
    react_agent_options o = with_version(version);
    o.model_selector = [](const value&, node_context&) { return fake(); };
    auto agent = create_react_agent(nullptr, {}, o);
    for (const char* text : {"hello", "urgent help"}) {
      const value result = agent->invoke(messages_input(list{human_message(text)}));
      BOOST_TEST(message_count(result) == 2u);
      BOOST_TEST(last_content(result) == text);
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_tools
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_tools) {
  for (const char* version : versions) {
    BOOST_TEST_CONTEXT("version " << version) {
      react_agent_options o = with_version(version);
      o.model_selector = [](const value& state, node_context&) {
        const bool advanced =
            message_text(state.get("messages").as_list().back()).find("advanced") !=
            std::string::npos;
        return fake({{call(advanced ? "advanced_tool" : "basic_tool", object{{"x", 1}}, "1")}, {}});
      };
      auto agent = create_react_agent(
          nullptr, {int_tool("basic_tool", "basic: "), int_tool("advanced_tool", "advanced: ")}, o);
      for (const std::string kind : {"basic", "advanced"}) {
        const value result = agent->invoke(messages_input(list{human_message(kind + " request")}));
        BOOST_TEST_REQUIRE(message_count(result) == 3u);
        const value& tool_msg = result.get("messages").as_list().back();
        BOOST_TEST(tool_msg.get("content") == value(kind + ": 1"));
        BOOST_TEST(tool_msg.get("name") == value(kind + "_tool"));
      }
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_context
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_context) {
  for (const char* version : versions) {
    auto seen = std::make_shared<std::vector<std::string>>();
    react_agent_options o = with_version(version);
    o.model_selector = [seen](const value&, node_context& ctx) {
      seen->push_back(ctx.context().get("user_id").as_string());
      return fake();
    };
    auto agent = create_react_agent(nullptr, {}, o);
    for (const char* user : {"user_basic", "user_premium"})
      BOOST_TEST(message_count(agent->invoke(messages_input(list{human_message("hello")}),
                                             object{{"context", object{{"user_id", user}}}})) ==
                 2u);
    BOOST_TEST((*seen == std::vector<std::string>{"user_basic", "user_premium"}));
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_state_schema
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_state_schema) {
  for (const char* version : versions) {
    auto preference = std::make_shared<value>();
    react_agent_options o = with_version(version);
    o.state_schema = {{"model_preference", ""}};
    o.model_selector = [preference](const value& state, node_context&) {
      *preference = state.get("model_preference");
      return fake();
    };
    const value result = create_react_agent(nullptr, {}, o)
                             ->invoke(object{{"messages", list{human_message("hello")}},
                                             {"model_preference", "advanced"}});
    BOOST_TEST(message_count(result) == 2u);
    BOOST_TEST(result.get("model_preference") == value("advanced"));
    BOOST_TEST(*preference == value("advanced"));
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_prompt
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_prompt) {
  for (const char* version : versions) {
    react_agent_options o = with_version(version);
    o.model_selector = [](const value&, node_context&) { return fake(); };
    o.prompt = "system_msg";
    BOOST_TEST(last_content(create_react_agent(nullptr, {}, o)
                                ->invoke(messages_input(list{human_message("human_msg")}))) ==
               "system_msg-human_msg");
    o.prompt = value();
    o.prompt_function = [](const value& state, node_context&) {
      list messages{object{{"role", "system"}, {"content", "system_msg"}}};
      for (const value& m : state.get("messages").as_list()) messages.push_back(m);
      return messages;
    };
    BOOST_TEST(last_content(create_react_agent(nullptr, {}, o)
                                ->invoke(messages_input(list{human_message("human_msg")}))) ==
               "system_msg-human_msg");
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_structured_response
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_structured_response) {
  for (const char* version : versions) {
    react_agent_options o = with_version(version);
    o.model_selector = [](const value&, node_context&) {
      auto model = fake();
      model->set_structured_response(object{{"message", "dynamic response"}, {"confidence", 0.9}});
      return model;
    };
    response_format format;
    format.name = "TestResponse";
    format.schema = value::parse_json(
        R"({"type":"object","properties":{"message":{"type":"string"},"confidence":{"type":"number"}},)"
        R"("required":["message","confidence"]})");
    o.response_format = format;
    const value result =
        create_react_agent(nullptr, {}, o)->invoke(messages_input(list{human_message("hello")}));
    BOOST_TEST_REQUIRE(result.find("structured_response"));
    BOOST_TEST(result.get("structured_response").get("message") == value("dynamic response"));
    BOOST_TEST(result.get("structured_response").get("confidence") == value(0.9));
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_with_checkpointer
BOOST_AUTO_TEST_CASE(test_dynamic_model_with_checkpointer) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  react_agent_options o = with_version("v2");
  o.compile = opts_with_saver();
  // Each model's first answer takes the call count as its id, so answers do not replace
  // each other in add_messages.
  o.model_selector = [calls](const value&, node_context&) {
    return fake({}, static_cast<std::size_t>(++*calls));
  };
  auto agent = create_react_agent(nullptr, {}, o);
  BOOST_TEST(message_count(agent->invoke(messages_input(list{human_message("hello")}),
                                         thread("test_dynamic"))) == 2u);
  BOOST_TEST(message_count(agent->invoke(messages_input(list{human_message("world")}),
                                         thread("test_dynamic"))) == 4u);
  BOOST_TEST(*calls >= 2);
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_state_dependent_tools
BOOST_AUTO_TEST_CASE(test_dynamic_model_state_dependent_tools) {
  for (const char* version : versions) {
    react_agent_options o = with_version(version);
    o.model_selector = [](const value& state, node_context&) {
      bool use_b = false;
      for (const value& m : state.get("messages").as_list())
        use_b = use_b || message_text(m).find("use_b") != std::string::npos;
      return use_b ? fake({{call("tool_b", object{{"x", 2}}, "1")}, {}})
                   : fake({{call("tool_a", object{{"x", 1}}, "1")}, {}});
    };
    auto agent =
        create_react_agent(nullptr, {int_tool("tool_a", "A: "), int_tool("tool_b", "B: ")}, o);
    value result = agent->invoke(messages_input(list{human_message("use_b please")}));
    BOOST_TEST(message_type(result.get("messages").as_list().back()) == "tool");
    BOOST_TEST(last_content(result) == "B: 2");
    result = agent->invoke(messages_input(list{human_message("hello")}));
    BOOST_TEST(message_type(result.get("messages").as_list().back()) == "tool");
    BOOST_TEST(last_content(result) == "A: 1");
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_error_handling
BOOST_AUTO_TEST_CASE(test_dynamic_model_error_handling) {
  for (const char* version : versions) {
    react_agent_options o = with_version(version);
    o.model_selector = [](const value& state, node_context&) {
      if (message_text(state.get("messages").as_list().back()).find("fail") != std::string::npos)
        throw std::invalid_argument("Dynamic model failed");
      return fake();
    };
    auto agent = create_react_agent(nullptr, {}, o);
    BOOST_TEST(message_count(agent->invoke(messages_input(list{human_message("hello")}))) == 2u);
    try {
      agent->invoke(messages_input(list{human_message("fail now")}));
      BOOST_FAIL("expected an error");
    } catch (const error& e) {
      BOOST_TEST(std::string(e.what()).find("Dynamic model failed") != std::string::npos, e.what());
    }
  }
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_vs_static_model_behavior
BOOST_AUTO_TEST_CASE(test_dynamic_model_vs_static_model_behavior) {
  auto static_agent = create_react_agent(fake(), {}, with_version("v2"));
  react_agent_options o = with_version("v2");
  o.model_selector = [](const value&, node_context&) { return fake(); };
  auto dynamic_agent = create_react_agent(nullptr, {}, o);
  const value input = messages_input(list{human_message("test message")});
  const value static_result = static_agent->invoke(input);
  const value dynamic_result = dynamic_agent->invoke(input);
  BOOST_TEST_REQUIRE(message_count(static_result) == message_count(dynamic_result));
  for (std::size_t i = 0; i < 2; ++i)
    BOOST_TEST(static_result.get("messages").as_list()[i].get("content") ==
               dynamic_result.get("messages").as_list()[i].get("content"));
}

// libs/prebuilt/tests/test_react_agent.py::test_dynamic_model_receives_correct_state
BOOST_AUTO_TEST_CASE(test_dynamic_model_receives_correct_state) {
  auto received = std::make_shared<std::vector<value>>();
  react_agent_options o = with_version("v2");
  o.state_schema = {{"custom_field", ""}};
  o.model_selector = [received](const value& state, node_context&) {
    received->push_back(state);
    return fake();
  };
  create_react_agent(nullptr, {}, o)
      ->invoke(object{{"messages", list{human_message("hello")}}, {"custom_field", "test_value"}});
  BOOST_TEST_REQUIRE(received->size() == 1u);
  BOOST_TEST(received->at(0).get("custom_field") == value("test_value"));
  BOOST_TEST_REQUIRE(received->at(0).get("messages").as_list().size() == 1u);
  BOOST_TEST(received->at(0).get("messages").as_list()[0].get("content") == value("hello"));
}

// libs/prebuilt/tests/test_react_agent.py::test_pre_model_hook
BOOST_AUTO_TEST_CASE(test_pre_model_hook) {
  auto model = fake();
  react_agent_options o = with_version("v2");
  o.pre_model_hook = [](const value&, node_context&) -> value {
    return object{{"llm_input_messages", list{human_message("Hello!")}}};
  };
  value result =
      create_react_agent(model, {}, o)->invoke(messages_input(list{human_message("hi?")}));
  BOOST_TEST_REQUIRE(result.as_object().size() == 1u);
  BOOST_TEST_REQUIRE(message_count(result) == 2u);
  BOOST_TEST(without_id(result.get("messages").as_list()[0]) == human_message("hi?"));
  BOOST_TEST(result.get("messages").as_list()[1] == ai_message("Hello!", {}, "0"));

  o.pre_model_hook = [](const value&, node_context&) -> value {
    return object{{"messages", list{remove_message(std::string(remove_all_messages_id)),
                                    human_message("Hello!")}}};
  };
  result = create_react_agent(model, {}, o)->invoke(messages_input(list{human_message("hi?")}));
  BOOST_TEST_REQUIRE(result.as_object().size() == 1u);
  BOOST_TEST_REQUIRE(message_count(result) == 2u);
  BOOST_TEST(without_id(result.get("messages").as_list()[0]) == human_message("Hello!"));
  BOOST_TEST(result.get("messages").as_list()[1] == ai_message("Hello!", {}, "1"));
}

// libs/prebuilt/tests/test_react_agent.py::test_post_model_hook
BOOST_AUTO_TEST_CASE(test_post_model_hook) {
  auto model = fake();
  react_agent_options o = with_version("v2");
  o.state_schema = {{"flag", ""}};
  o.post_model_hook = [](const value&, node_context&) -> value { return object{{"flag", true}}; };
  auto agent = create_react_agent(model, {}, o);
  BOOST_TEST(agent->invoke(object{{"messages", list{human_message("hi?")}}, {"flag", false}})
                 .get("flag") == value(true));
  const auto events =
      updates_of(*agent, object{{"messages", list{human_message("hi?")}}, {"flag", false}});
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0] ==
             value(object{{"agent", object{{"messages", list{ai_message("hi?", {}, "1")}}}}}));
  BOOST_TEST(events[1] == value(object{{"post_model_hook", object{{"flag", true}}}}));
}

// libs/prebuilt/tests/test_react_agent.py::test_post_model_hook_with_structured_output
BOOST_AUTO_TEST_CASE(test_post_model_hook_with_structured_output) {
  const tool get_weather = make_tool(
      "get_weather", args_schema({}),
      [](const value&, tool_runtime&) -> value { return "The weather is sunny and 75°F."; });
  const std::vector<tool_call> calls{call("get_weather", object{}, "1")};
  auto model = fake({calls});
  model->set_structured_response(object{{"temperature", 75}});
  react_agent_options o = with_version("v2");
  response_format format;
  format.name = "WeatherResponse";
  format.schema = value::parse_json(
      R"({"type":"object","properties":{"temperature":{"type":"number"}},"required":["temperature"]})");
  o.response_format = format;
  o.state_schema = {{"flag", ""}};
  o.post_model_hook = [](const value&, node_context&) -> value { return object{{"flag", true}}; };
  auto agent = create_react_agent(model, {get_weather}, o);
  const value input =
      object{{"messages", list{human_message("What's the weather?")}}, {"flag", false}};
  const value response = agent->invoke(input);
  BOOST_TEST(response.get("flag") == value(true));
  BOOST_TEST(response.get("structured_response") == value(object{{"temperature", 75}}));

  const auto events = updates_of(*agent, input);
  BOOST_TEST_REQUIRE(events.size() == 6u);
  BOOST_TEST(
      events[0] ==
      value(object{
          {"agent", object{{"messages", list{ai_message("What's the weather?", calls, "2")}}}}}));
  BOOST_TEST(events[1] == value(object{{"post_model_hook", object{{"flag", true}}}}));
  const value& tool_update = events[2].get("tools").get("messages");
  BOOST_TEST_REQUIRE(tool_update.is_list());
  object tool_msg = tool_update.as_list().at(0).as_object();
  tool_msg.erase("id");
  BOOST_TEST(value(tool_msg) == tool_message("The weather is sunny and 75°F.", "1", "get_weather"));
  BOOST_TEST(
      events[3] ==
      value(object{
          {"agent",
           object{{"messages",
                   list{ai_message(
                       "What's the weather?-What's the weather?-The weather is sunny and 75°F.",
                       calls, "3")}}}}}));
  BOOST_TEST(events[4] == value(object{{"post_model_hook", object{{"flag", true}}}}));
  BOOST_TEST(events[5] ==
             value(object{{"generate_structured_response",
                           object{{"structured_response", object{{"temperature", 75}}}}}}));
}

// libs/prebuilt/tests/test_react_agent.py::test_create_react_agent_inject_vars_with_post_model_hook
// (the TypedDict state; the pydantic one is Python's)
BOOST_AUTO_TEST_CASE(test_create_react_agent_inject_vars_with_post_model_hook) {
  auto st = store();
  st->put({"test"}, "test_key", object{{"bar", 3}});
  tool tool1 = make_tool("tool1", args_schema({{"some_val", "integer"}}),
                         [](const value& args, tool_runtime& rt) -> value {
                           return args.get("some_val").as_int() +
                                  args.get("state").get("foo").as_int() +
                                  rt.store()->get({"test"}, "test_key")->v.get("bar").as_int();
                         });
  tool1.injected_state = {{"state", ""}};
  tool1.injected_store = true;
  const tool_call the_call = call("tool1", object{{"some_val", 1}}, "some 0");
  react_agent_options o = with_version("v2");
  o.tools.handle_tool_errors = handle_no_errors();
  o.state_schema = {{"foo", ""}};
  o.compile.store = st;
  o.post_model_hook = [](const value&, node_context&) -> value { return object{{"foo", 2}}; };
  const value input_message = human_message("hi", "h1");
  const value result = create_react_agent(fake({{the_call}, {}}), {tool1}, o)
                           ->invoke(object{{"messages", list{input_message}}, {"foo", 2}});
  const list& messages = result.get("messages").as_list();
  BOOST_TEST_REQUIRE(messages.size() == 4u);
  BOOST_TEST(messages[0] == input_message);
  BOOST_TEST(messages[1] == ai_message("hi", {the_call}, "0"));
  BOOST_TEST(without_id(messages[2]) == tool_message("6", "some 0", "tool1"));
  BOOST_TEST(messages[3] == ai_message("hi-hi-6", {}, "1"));
  BOOST_TEST(result.get("foo") == value(2));
}
