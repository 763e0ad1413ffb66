// The agent part of the `std` library (llm.chat, tools.run, tools.route, std.route_by, the std
// tools) and the registry's tools and model settings, against a scripted OpenAI-compatible
// server on loopback.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdlib>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/cluster/function_params.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/core/error.hpp"
#include "support/environment_keys.hpp"

using namespace superstep;
using namespace superstep::cluster;

namespace {

class test_context final : public node_context {
 public:
  const value& config() const noexcept override { return config_; }
  std::string_view node() const noexcept override { return "n"; }
  std::string_view task_id() const noexcept override { return "task"; }
  std::int64_t step() const noexcept override { return 0; }
  std::int64_t remaining_steps() const noexcept override { return 25; }
  std::string_view checkpoint_ns() const noexcept override { return ""; }
  value interrupt(value v) override { throw error(error_code::interrupted, v.to_json()); }
  void emit_custom(value) override {}
  void emit_message(value m) override { streamed.push_back(std::move(m)); }

  std::vector<value> streamed;

 private:
  value config_ = value(object{});
};

value json(const std::string& text) { return value::parse_json(text); }

struct fixture {
  fixture() {
    register_std_library(registry);
    registry.set_key_source(test::environment_keys());  // as the program's, from its environment
    registry.set_model_settings(object{{"name", "demo"},
                                       {"url", server.base_url()},
                                       {"key_env", "STD_AGENTS_TEST_KEY"},
                                       {"max_retries", 0}});
  }
  value call(const std::string& fn, const std::string& params, const value& input) {
    return registry.make_node(fn, json(params))(input, ctx);
  }
  std::string bad_param(const std::string& fn, const std::string& params) {
    try {
      registry.make_node(fn, json(params));
    } catch (const invalid_param& e) {
      return e.param() + ": " + e.reason();
    }
    return "<accepted>";
  }

  test::scripted_openai_server server;
  function_registry registry;
  test_context ctx;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(llm_chat_sends_templates_and_history_and_appends_the_answer, fixture) {
  server.append(json(R"({"content": "hello Ada"})"));
  value out = call("llm.chat", R"({"system": "Greet {name}.", "prompt": "I am {name}"})",
                   json(R"({"name": "Ada", "messages": [{"role": "user", "content": "hi"}]})"));
  const list& messages = out.get("messages").as_list();
  BOOST_REQUIRE_EQUAL(messages.size(), 1u);
  BOOST_TEST(agents::message_text(messages[0]) == "hello Ada");
  const value body = server.requests().at(0).get("body");
  BOOST_TEST(body.get("model") == value("demo"));
  const list& sent = body.get("messages").as_list();
  BOOST_REQUIRE_EQUAL(sent.size(), 3u);
  BOOST_TEST(sent[0].get("role") == value("system"));
  BOOST_TEST(sent[0].get("content") == value("Greet Ada."));
  BOOST_TEST(sent[1].get("content") == value("hi"));
  BOOST_TEST(sent[2].get("role") == value("user"));
  BOOST_TEST(sent[2].get("content") == value("I am Ada"));
  BOOST_TEST(body.find("tools") == nullptr);
}

BOOST_FIXTURE_TEST_CASE(llm_chat_offers_the_named_tools_and_structured_output, fixture) {
  server.append(json(R"({"content": "{\"step\": \"poem\"}"})"));
  value out = call("llm.chat",
                   R"({"prompt": "{input}", "tools": ["calculator"], "output_schema":
                       {"type": "object", "properties": {"step": {"type": "string"}}}})",
                   json(R"({"input": "a poem"})"));
  BOOST_TEST(out == json(R"({"step": "poem"})"));
  const value body = server.requests().at(0).get("body");
  BOOST_REQUIRE_EQUAL(body.get("tools").as_list().size(), 1u);
  BOOST_TEST(body.get("tools").as_list()[0].get("function").get("name") == value("calculator"));
  BOOST_TEST(body.get("response_format").get("type") == value("json_schema"));

  server.append(json(R"({"content": "{\"step\": \"story\"}"})"));
  out =
      call("llm.chat", R"({"prompt": "x", "output_key": "d", "output_schema": {"type": "object"}})",
           value(object{}));
  BOOST_TEST(out == json(R"({"d": {"step": "story"}})"));

  server.append(json(R"({"content": "not json"})"));
  try {
    call("llm.chat", R"({"prompt": "x", "output_schema": {"type": "object"}})", value(object{}));
    BOOST_FAIL("a structured answer that is not JSON must fail");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::protocol_error);
    BOOST_TEST(std::string(e.what()).find("not json") != std::string::npos, e.what());
  }
}

BOOST_FIXTURE_TEST_CASE(llm_chat_streams_tokens_to_the_node, fixture) {
  server.append(json(R"({"content": "one two three"})"));
  value out = call("llm.chat", R"({"prompt": "count", "stream": true})", value(object{}));
  BOOST_TEST(agents::message_text(out.get("messages").as_list()[0]) == "one two three");
  BOOST_TEST(ctx.streamed.size() >= 3u);
  BOOST_TEST(server.requests().at(0).get("body").get("stream") == value(true));
}

BOOST_FIXTURE_TEST_CASE(the_command_lines_settings_win_and_the_key_comes_from_the_environment,
                        fixture) {
  ::setenv("STD_AGENTS_TEST_KEY", "sk-secret", 1);
  server.append(json(R"({"content": "ok"})"));
  call("llm.chat", R"({"model": {"name": "from-spec", "url": "http://127.0.0.1:1/v1"},
                       "prompt": "x"})",
       value(object{}));
  ::unsetenv("STD_AGENTS_TEST_KEY");
  const value request = server.requests().at(0);
  BOOST_TEST(request.get("body").get("model") == value("demo"));
  BOOST_TEST(request.get("authorization") == value("Bearer sk-secret"));
}

BOOST_FIXTURE_TEST_CASE(bad_params_fail_when_the_spec_loads, fixture) {
  BOOST_TEST(bad_param("llm.chat", R"({"tools": ["nope"]})")
                 .starts_with(
                     "tools: unknown tool 'nope' (known: calculator, save_memory, search_memory)"));
  BOOST_TEST(bad_param("llm.chat", R"({"output_key": "x"})") ==
             "output_key: goes with output_schema");
  BOOST_TEST(bad_param("llm.chat", R"({"output_schema": {"type": "string"}})")
                 .starts_with("output_schema: "));
  BOOST_TEST(bad_param("llm.chat", R"({"prompt": "{x"})").starts_with("prompt: unclosed '{'"));
  BOOST_TEST(bad_param("llm.chat", R"({"model": 3})").starts_with("model: expected a model name"));
  BOOST_TEST(bad_param("llm.chat", R"({"temperature": 0})").starts_with("temperature"));
  BOOST_TEST(bad_param("tools.run", R"({"handle_errors": "some"})").starts_with("handle_errors: "));
  function_registry bare;
  register_std_library(bare);
  try {
    bare.make_node("llm.chat", json(R"({"prompt": "x"})"));
    BOOST_FAIL("llm.chat without a model name must fail");
  } catch (const invalid_param& e) {
    BOOST_TEST(std::string(e.what()).find("--model") != std::string::npos, e.what());
  }
  // A head's lenient registry loads it as a stand-in that fails when run.
  bare.allow_missing(true);
  node_function stand_in = bare.make_node("llm.chat", json(R"({"prompt": "x"})"));
  try {
    stand_in(value(object{}), ctx);
    BOOST_FAIL("the stand-in must fail");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::unavailable);
  }
}

BOOST_FIXTURE_TEST_CASE(tools_run_answers_the_last_ai_messages_calls, fixture) {
  value ai = agents::ai_message(
      "", {agents::tool_call{"calculator", json(R"({"a": 2, "op": "^", "b": 10})"), "c1"},
           agents::tool_call{"calculator", json(R"({"a": 1, "op": "/", "b": 0})"), "c2"}});
  value state(object{{"messages", value::array({ai})}});
  value out = call("tools.run", R"({"tools": ["calculator"], "handle_errors": "all"})", state);
  const list& answers = out.get("messages").as_list();
  BOOST_REQUIRE_EQUAL(answers.size(), 2u);
  BOOST_TEST(answers[0].get("content") == value("1024"));
  BOOST_TEST(answers[1].get("status") == value("error"));
  BOOST_TEST(agents::message_text(answers[1]).find("division by zero") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(routers_follow_tool_calls_and_state_keys, fixture) {
  value with_calls(object{
      {"messages",
       value::array({agents::ai_message("", {agents::tool_call{"calculator", object{}, "c"}})})}});
  value without(object{{"messages", value::array({agents::ai_message("done")})}});
  auto route = registry.make_router("tools.route", json(R"({"tools": "t", "end": "boss"})"));
  BOOST_TEST(route(with_calls, ctx) == value("t"));
  BOOST_TEST(route(without, ctx) == value("boss"));
  auto by = registry.make_router("std.route_by", json(R"({"key": "d", "field": "step"})"));
  BOOST_TEST(by(json(R"({"d": {"step": "joke"}})"), ctx) == value("joke"));
  try {
    by(json(R"({"d": {"step": 3}})"), ctx);
    BOOST_FAIL("a destination that is not a string must fail");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::type_error);
  }
}

BOOST_AUTO_TEST_CASE(a_plugin_tool_is_found_by_name_and_names_are_unique) {
  function_registry registry;
  register_std_library(registry);
  agents::tool echo;
  echo.name = "echo";
  echo.function = [](const value& a, agents::tool_runtime&) { return a; };
  registry.add_tool(echo);
  BOOST_TEST(registry.tools().has("echo"));
  BOOST_CHECK_THROW(registry.add_tool(echo), error);
  BOOST_CHECK_THROW(registry.add_node("llm.chat", [](const value&) { return node_function(); }),
                    error);
  const auto names = registry.node_names();
  BOOST_TEST((std::find(names.begin(), names.end(), "llm.chat") != names.end()));
}
