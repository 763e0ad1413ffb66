// create_react_agent beyond LangGraph's own tests: the remaining-steps guard, reviewing tool
// calls before they run (approve, edit, reject), and the agent over HTTP against the scripted
// OpenAI-compatible server, its tokens streamed in `messages` mode.
#include "superstep/agents/react_agent.hpp"

#include <boost/test/unit_test.hpp>
#include <mutex>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/agents/openai_chat_model.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/memory_saver.hpp"

using namespace superstep;
using namespace superstep::agents;
using superstep::test::scripted_openai_server;

namespace {

tool add_tool(std::shared_ptr<std::vector<value>> seen = nullptr) {
  tool t;
  t.name = "add";
  t.description = "Adds two integers.";
  t.parameters = value::parse_json(
      R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]})");
  t.function = [seen](const value& args, tool_runtime&) -> value {
    if (seen) seen->push_back(args);
    return args.get("a").as_int() + args.get("b").as_int();
  };
  return t;
}

std::shared_ptr<const chat_model> http_model(const scripted_openai_server& server) {
  openai_chat_options o;
  o.base_url = server.base_url();
  o.model = "scripted-1";
  o.api_key = "k";
  o.initial_backoff = std::chrono::milliseconds(1);
  return make_openai_chat_model(o);
}

value add_call_reply(std::string id, int a, int b) {
  return object{
      {"tool_calls",
       list{object{{"id", std::move(id)}, {"name", "add"}, {"args", object{{"a", a}, {"b", b}}}}}}};
}

value thread(std::string id) {
  return object{{"configurable", object{{"thread_id", std::move(id)}}}};
}

const list& messages_of(const value& state) { return state.get("messages").as_list(); }

}  // namespace

// A model that keeps asking for tools stops, with LangGraph's words, before the recursion
// limit would fail the run.
BOOST_AUTO_TEST_CASE(stops_a_model_that_keeps_calling_tools_before_the_recursion_limit) {
  scripted_openai_server server;
  for (int i = 0; i < 10; ++i) server.append(add_call_reply("c" + std::to_string(i), i, 1));
  auto agent = create_react_agent(http_model(server), {add_tool()});
  const value result = agent->invoke(object{{"messages", list{human_message("loop")}}},
                                     object{{"recursion_limit", 6}});
  const list& messages = messages_of(result);
  // agent (step 1, 5 steps left), tools, agent (3 left), tools, agent (1 left: a tool call
  // would need two more), as LangGraph's RemainingSteps counts them.
  BOOST_TEST_REQUIRE(messages.size() == 6u);
  BOOST_TEST(messages.back().get("content") ==
             value("Sorry, need more steps to process this request."));
  BOOST_TEST(messages.back().get("id") == value("chatcmpl-3"));
  BOOST_TEST(tool_calls_of(messages.back()).empty());
  BOOST_TEST(server.requests().size() == 3u);
}

// Human review before tools run (interrupt_before={"tools"}): approve resumes, edit replaces
// the AI message's call by id, reject answers the call with a tool message as the tools node.
BOOST_AUTO_TEST_CASE(reviews_tool_calls_before_they_run) {
  scripted_openai_server server;
  auto seen = std::make_shared<std::vector<value>>();
  react_agent_options o;
  o.compile.checkpointer = std::make_shared<storage::memory_saver>();
  o.compile.interrupt_before = {"tools"};
  auto agent = create_react_agent(http_model(server), {add_tool(seen)}, o);

  // Approve.
  server.append(add_call_reply("c1", 2, 3));
  server.append(object{{"content", "5"}});
  agent->invoke(object{{"messages", list{human_message("2+3?")}}}, thread("approve"));
  BOOST_TEST((agent->get_state(thread("approve")).next == std::vector<std::string>{"tools"}));
  BOOST_TEST(seen->empty());
  value result = agent->invoke(value(), thread("approve"));
  BOOST_TEST(messages_of(result).back().get("content") == value("5"));
  BOOST_TEST_REQUIRE(seen->size() == 1u);
  BOOST_TEST(seen->at(0) == value(object{{"a", 2}, {"b", 3}}));

  // Edit: the same AI message (same id) with other arguments.
  server.append(add_call_reply("c2", 2, 3));
  server.append(object{{"content", "12"}});
  agent->invoke(object{{"messages", list{human_message("2+3?")}}}, thread("edit"));
  value pending = messages_of(agent->get_state(thread("edit")).values).back();
  object edited = pending.as_object();
  edited.set("tool_calls", list{tool_call{"add", object{{"a", 10}, {"b", 2}}, "c2"}.to_value()});
  agent->update_state(thread("edit"), object{{"messages", list{value(edited)}}});
  BOOST_TEST((agent->get_state(thread("edit")).next == std::vector<std::string>{"tools"}));
  result = agent->invoke(value(), thread("edit"));
  BOOST_TEST_REQUIRE(seen->size() == 2u);
  BOOST_TEST(seen->at(1) == value(object{{"a", 10}, {"b", 2}}));
  BOOST_TEST(messages_of(result).size() == 4u);
  BOOST_TEST(messages_of(result)[1].get("tool_calls").as_list()[0].get("args") ==
             value(object{{"a", 10}, {"b", 2}}));

  // Reject: answer the call as the tools node; the model hears the refusal.
  server.append(add_call_reply("c3", 2, 3));
  server.append(object{{"content", "I will not add."}});
  agent->invoke(object{{"messages", list{human_message("2+3?")}}}, thread("reject"));
  agent->update_state(thread("reject"),
                      object{{"messages", list{tool_message("The user rejected this call.", "c3",
                                                            "add", "error")}}},
                      std::string("tools"));
  BOOST_TEST((agent->get_state(thread("reject")).next == std::vector<std::string>{"agent"}));
  result = agent->invoke(value(), thread("reject"));
  BOOST_TEST(seen->size() == 2u);
  BOOST_TEST(messages_of(result).back().get("content") == value("I will not add."));
  const value last_request = server.requests().back().get("body").get("messages");
  BOOST_TEST(
      last_request.as_list().back() ==
      value(object{
          {"role", "tool"}, {"content", "The user rejected this call."}, {"tool_call_id", "c3"}}));
}

// The agent over HTTP: tools sent, tool calls run, tokens streamed with the agent node's
// metadata, the tool message streamed as the tools node's, no message streamed twice.
BOOST_AUTO_TEST_CASE(runs_over_http_and_streams_tokens_in_messages_mode) {
  scripted_openai_server server(
      {add_call_reply("c1", 20, 22), object{{"content", "The sum is 42."}}});
  react_agent_options o;
  o.prompt = "You add numbers.";
  auto agent = create_react_agent(http_model(server), {add_tool()}, o);
  std::vector<value> events;
  std::mutex m;
  agent->stream(object{{"messages", list{human_message("20+22?", "h1")}}}, value(),
                stream_options{{stream_mode::messages, stream_mode::values}, false},
                [&](const stream_event& e) {
                  std::lock_guard lock(m);
                  if (e.mode == stream_mode::messages)
                    events.push_back(e.data);
                  else if (e.mode == stream_mode::values)
                    events.push_back(object{{"values", e.data}});
                });
  std::string tokens;
  std::vector<std::string> nodes;
  value final_state;
  for (const value& e : events) {
    if (e.is_object()) {
      final_state = e.get("values");
      continue;
    }
    const value& message = e.as_list()[0];
    nodes.push_back(e.as_list()[1].get("langgraph_node").as_string());
    if (message.get("type") == value("AIMessageChunk") && message.get("content").is_string())
      tokens += message.get("content").as_string();
  }
  BOOST_TEST(tokens == "The sum is 42.");
  BOOST_TEST(std::count(nodes.begin(), nodes.end(), "tools") == 1);
  BOOST_TEST(std::count(nodes.begin(), nodes.end(), "agent") >= 4);  // call deltas and tokens
  const list& messages = messages_of(final_state);
  BOOST_TEST_REQUIRE(messages.size() == 4u);
  BOOST_TEST(messages[2].get("content") == value("42"));
  BOOST_TEST(messages[3].get("content") == value("The sum is 42."));

  const list requests = server.requests();
  BOOST_TEST_REQUIRE(requests.size() == 2u);
  const value first = requests[0].get("body");
  BOOST_TEST(first.get("stream") == value(true));
  BOOST_TEST(first.get("tools").as_list()[0].get("function").get("name") == value("add"));
  BOOST_TEST(first.get("messages").as_list()[0] ==
             value(object{{"role", "system"}, {"content", "You add numbers."}}));
  const list& second = requests[1].get("body").get("messages").as_list();
  BOOST_TEST_REQUIRE(second.size() == 4u);
  BOOST_TEST(second[3] ==
             value(object{{"role", "tool"}, {"content", "42"}, {"tool_call_id", "c1"}}));
}
