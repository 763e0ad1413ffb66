// Multi-agent handoffs: a handoff tool's Command to the parent graph, and a supervisor routing
// to a ReAct agent and back, each agent a model behind its own scripted OpenAI-compatible
// server.
#include <boost/test/unit_test.hpp>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/handoff.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/openai_chat_model.hpp"
#include "superstep/agents/tool_node.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"

using namespace superstep;
using namespace superstep::agents;
using superstep::test::scripted_openai_server;

namespace {

std::shared_ptr<const chat_model> http_model(const scripted_openai_server& server,
                                             std::string model) {
  openai_chat_options o;
  o.base_url = server.base_url();
  o.model = std::move(model);
  o.api_key = "k";
  return make_openai_chat_model(o);
}

tool add_tool() {
  tool t;
  t.name = "add";
  t.description = "Adds two integers.";
  t.parameters = value::parse_json(
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})");
  t.function = [](const value& args, tool_runtime&) -> value {
    return args.get("a").as_int() + args.get("b").as_int();
  };
  return t;
}

// A reply calling one tool; `message_id` is the completion's id (the AI message's).
value call_reply(std::string message_id, std::string id, std::string name, value args) {
  return object{
      {"id", std::move(message_id)},
      {"tool_calls",
       list{object{{"id", std::move(id)}, {"name", std::move(name)}, {"args", std::move(args)}}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_handoff_tool_answers_with_a_command_to_the_parent_graph) {
  const tool handoff = make_handoff_tool("math");
  BOOST_TEST(handoff.name == "transfer_to_math");
  const value human = human_message("2+2?", "h1");
  const value ai = ai_message("", {tool_call{"transfer_to_math", object{}, "c1"}}, "a1");
  const value result = tool_node({handoff}).invoke(object{{"messages", list{human, ai}}});
  BOOST_TEST_REQUIRE(result.is_list());
  const auto cmd = as_command(result.as_list().at(0));
  BOOST_TEST_REQUIRE(cmd.has_value());
  BOOST_TEST(cmd->graph == command::parent);
  BOOST_TEST((cmd->go_to == std::vector<value>{value("math")}));
  BOOST_TEST(
      cmd->update.get("messages") ==
      value(list{human, ai,
                 tool_message("Successfully transferred to math", "c1", "transfer_to_math")}));
  try {
    make_handoff_tool("");
    BOOST_FAIL("expected an error");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
  }
}

BOOST_AUTO_TEST_CASE(a_supervisor_hands_over_to_an_agent_and_answers_after_it) {
  // Two servers: the completions carry ids of their own, as a real server's do.
  scripted_openai_server supervisor_server(
      {call_reply("boss-1", "s1", "transfer_to_math", object{}),
       object{{"id", "boss-2"}, {"content", "The answer is 42."}}});
  scripted_openai_server math_server(
      {call_reply("math-1", "m1", "add", object{{"a", 20}, {"b", 22}}),
       object{{"id", "math-2"}, {"content", "20 + 22 = 42"}}});
  react_agent_options math_options;
  math_options.name = "math";
  math_options.prompt = "You are a math expert.";
  auto math = create_react_agent(http_model(math_server, "math-model"), {add_tool()}, math_options);
  supervisor_options o;
  o.prompt = "You route questions to experts.";
  o.compile.checkpointer = std::make_shared<storage::memory_saver>();
  auto graph = create_supervisor({{"math", math}}, http_model(supervisor_server, "boss-model"), o);

  const value result = graph->invoke(object{{"messages", list{human_message("What is 20 + 22?")}}},
                                     object{{"configurable", object{{"thread_id", "s"}}}});
  const list& messages = result.get("messages").as_list();
  BOOST_TEST_REQUIRE(messages.size() == 7u, result.to_json());
  BOOST_TEST(message_type(messages[0]) == "human");
  BOOST_TEST(messages[1].get("name") == value("supervisor"));
  BOOST_TEST(tool_calls_of(messages[1]).at(0).name == "transfer_to_math");
  BOOST_TEST(messages[2].get("content") == value("Successfully transferred to math"));
  BOOST_TEST(messages[3].get("name") == value("math"));
  BOOST_TEST(tool_calls_of(messages[3]).at(0).name == "add");
  BOOST_TEST(messages[4].get("content") == value("42"));
  BOOST_TEST(messages[5].get("content") == value("20 + 22 = 42"));
  BOOST_TEST(messages[6].get("content") == value("The answer is 42."));
  BOOST_TEST(messages[6].get("name") == value("supervisor"));

  // The supervisor's model saw the handoff tool; the math agent's model its own tool and the
  // conversation so far.
  BOOST_TEST(supervisor_server.requests()
                 .at(0)
                 .get("body")
                 .get("tools")
                 .as_list()[0]
                 .get("function")
                 .get("name") == value("transfer_to_math"));
  const value math_request = math_server.requests().at(0).get("body");
  BOOST_TEST(math_request.get("tools").as_list()[0].get("function").get("name") == value("add"));
  BOOST_TEST(math_request.get("messages").as_list()[0] ==
             value(object{{"role", "system"}, {"content", "You are a math expert."}}));
  BOOST_TEST(supervisor_server.requests().size() == 2u);
  BOOST_TEST(math_server.requests().size() == 2u);
}

BOOST_AUTO_TEST_CASE(create_supervisor_checks_its_agents) {
  scripted_openai_server server;
  auto model = http_model(server, "m");
  const auto expect_invalid = [](auto f, std::string_view part) {
    try {
      f();
      BOOST_FAIL("expected an error");
    } catch (const error& e) {
      BOOST_TEST(e.code() == error_code::invalid_argument);
      BOOST_TEST(std::string(e.what()).find(part) != std::string::npos, e.what());
    }
  };
  expect_invalid([&] { create_supervisor({}, model); }, "no agents");
  auto agent = create_react_agent(model, {});
  expect_invalid(
      [&] {
        create_supervisor({{"a", agent}, {"a", agent}}, model);
      },
      "two agents are named 'a'");
  expect_invalid([&] { create_supervisor({{"b", nullptr}}, model); }, "needs a name and a graph");
}
