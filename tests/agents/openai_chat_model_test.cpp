// The OpenAI-compatible chat model against a scripted server on loopback: requests, answers,
// tools, structured output, server-sent events, errors, retries, timeouts, token streaming
// into a graph's `messages` stream.
#include "superstep/agents/openai_chat_model.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <mutex>

#include "agents/scripted_openai_server.hpp"
#include "superstep/agents/messages.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "support/environment_keys.hpp"

using namespace superstep;
using namespace superstep::agents;
using superstep::test::scripted_openai_server;

namespace {

openai_chat_options options_for(const scripted_openai_server& server) {
  openai_chat_options o;
  o.base_url = server.base_url();
  o.model = "scripted-1";
  o.api_key = "sk-test-secret";
  o.timeout = std::chrono::milliseconds(5000);
  o.initial_backoff = std::chrono::milliseconds(1);
  o.max_backoff = std::chrono::milliseconds(5);
  return o;
}

template <class F>
void check_error(F f, error_code code, std::initializer_list<std::string_view> needles) {
  try {
    f();
    BOOST_FAIL("expected an error");
  } catch (const error& e) {
    BOOST_TEST(e.code() == code, e.what());
    for (std::string_view needle : needles)
      BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos,
                 "'" << needle << "' not in: " << e.what());
    BOOST_TEST(std::string(e.what()).find("sk-test-secret") == std::string::npos, e.what());
  }
}

tool_spec add_tool() {
  return tool_spec{"add", "Adds two integers.",
                   value::parse_json(R"({"type":"object","properties":{"a":{"type":"integer"},)"
                                     R"("b":{"type":"integer"}},"required":["a","b"]})")};
}

}  // namespace

BOOST_AUTO_TEST_CASE(answers_a_completion_and_sends_the_openai_request) {
  scripted_openai_server server({object{
      {"content", "Hi Bob"}, {"usage", object{{"prompt_tokens", 5}, {"completion_tokens", 2}}}}});
  auto model = make_openai_chat_model(options_for(server));
  const value answer = model->invoke({system_message("be brief"), human_message("hi, I am Bob")});
  BOOST_TEST(answer.get("type") == value("ai"));
  BOOST_TEST(answer.get("content") == value("Hi Bob"));
  BOOST_TEST(answer.get("id") == value("chatcmpl-1"));
  BOOST_TEST(answer.get("tool_calls") == value(list{}));
  BOOST_TEST(answer.get("usage_metadata") ==
             value(object{{"input_tokens", 5}, {"output_tokens", 2}, {"total_tokens", 7}}));
  BOOST_TEST(answer.get("response_metadata") ==
             value(object{{"finish_reason", "stop"}, {"model_name", "scripted-1"}}));
  const list requests = server.requests();
  BOOST_TEST_REQUIRE(requests.size() == 1u);
  BOOST_TEST(requests[0].get("path") == value("/v1/chat/completions"));
  BOOST_TEST(requests[0].get("authorization") == value("Bearer sk-test-secret"));
  BOOST_TEST(
      requests[0].get("body") ==
      value(object{{"model", "scripted-1"},
                   {"messages", list{object{{"role", "system"}, {"content", "be brief"}},
                                     object{{"role", "user"}, {"content", "hi, I am Bob"}}}}}));
}

BOOST_AUTO_TEST_CASE(sends_bound_tools_and_reads_tool_calls) {
  scripted_openai_server server({object{
      {"tool_calls",
       list{object{{"id", "call_1"}, {"name", "add"}, {"args", object{{"a", 2}, {"b", 3}}}}}}}});
  openai_chat_options o = options_for(server);
  o.extra = object{{"temperature", 0}};
  auto model = make_openai_chat_model(o)->bind_tools({add_tool()}, "add");
  const value answer = model->invoke({human_message("2+3?")});
  BOOST_TEST(answer.get("content") == value(""));
  BOOST_TEST_REQUIRE(tool_calls_of(answer).size() == 1u);
  BOOST_TEST((tool_calls_of(answer)[0] == tool_call{"add", object{{"a", 2}, {"b", 3}}, "call_1"}));
  BOOST_TEST(answer.get("response_metadata").get("finish_reason") == value("tool_calls"));
  const value body = server.requests().at(0).get("body");
  BOOST_TEST(body.get("tools") == value(list{add_tool().to_openai()}));
  BOOST_TEST(body.get("tool_choice") ==
             value(object{{"type", "function"}, {"function", object{{"name", "add"}}}}));
  BOOST_TEST(body.get("temperature") == value(0));

  // A tool call's message goes back to the server in the OpenAI form.
  server.append(object{{"content", "5"}});
  model->invoke({human_message("2+3?"), answer, tool_message("5", "call_1", "add")});
  const value second = server.requests().at(1).get("body").get("messages");
  BOOST_TEST(second.as_list()[1].get("tool_calls").as_list()[0].get("function") ==
             value(object{{"name", "add"}, {"arguments", R"({"a":2,"b":3})"}}));
  BOOST_TEST(second.as_list()[2] ==
             value(object{{"role", "tool"}, {"content", "5"}, {"tool_call_id", "call_1"}}));

  check_error(
      [&] {
        make_openai_chat_model(o)->bind_tools({add_tool()}, "mul")->invoke({human_message("x")});
      },
      error_code::invalid_argument, {"tool_choice 'mul'"});
}

BOOST_AUTO_TEST_CASE(answers_with_structured_output_by_json_schema) {
  scripted_openai_server server({object{{"content", R"({"step":"joke","reason":"asked"})"}},
                                 object{{"content", "not json"}}, object{{"content", "[1]"}}});
  response_format format;
  format.name = "route";
  format.schema = value::parse_json(
      R"({"type":"object","properties":{"step":{"type":"string"},"reason":{"type":"string"}},)"
      R"("required":["step","reason"],"additionalProperties":false})");
  auto router = make_openai_chat_model(options_for(server))->with_structured_output(format);
  BOOST_TEST(router->invoke({human_message("tell me a joke")}) ==
             value(object{{"step", "joke"}, {"reason", "asked"}}));
  BOOST_TEST(
      server.requests().at(0).get("body").get("response_format") ==
      value(object{{"type", "json_schema"},
                   {"json_schema",
                    object{{"name", "route"}, {"schema", format.schema}, {"strict", true}}}}));
  check_error([&] { router->invoke({human_message("x")}); }, error_code::protocol_error,
              {"structured answer ('route') is not JSON"});
  check_error([&] { router->invoke({human_message("x")}); }, error_code::protocol_error,
              {"is not a JSON object"});
  response_format bad;
  bad.schema = value("string");
  check_error([&] { make_openai_chat_model(options_for(server))->with_structured_output(bad); },
              error_code::invalid_argument, {"not a JSON schema object"});
}

BOOST_AUTO_TEST_CASE(streams_content_and_tool_call_arguments_by_server_sent_events) {
  scripted_openai_server server(
      {object{{"content", "Let me add"},
              {"chunks", list{"Let ", "me ", "add"}},
              {"tool_calls",
               list{object{{"id", "c1"}, {"name", "add"}, {"args", object{{"a", 1}, {"b", 22}}}},
                    object{{"id", "c2"}, {"name", "add"}, {"args", object{{"a", 3}, {"b", 4}}}}}},
              {"usage", object{{"prompt_tokens", 9}, {"completion_tokens", 3}}}}});
  auto model = make_openai_chat_model(options_for(server));
  std::vector<value> chunks;
  const value answer =
      model->stream({human_message("add")}, {}, [&](const value& c) { chunks.push_back(c); });
  BOOST_TEST(answer.get("content") == value("Let me add"));
  BOOST_TEST(answer.get("id") == value("chatcmpl-1"));
  const auto calls = tool_calls_of(answer);
  BOOST_TEST_REQUIRE(calls.size() == 2u);
  BOOST_TEST((calls[0] == tool_call{"add", object{{"a", 1}, {"b", 22}}, "c1"}));
  BOOST_TEST((calls[1] == tool_call{"add", object{{"a", 3}, {"b", 4}}, "c2"}));
  BOOST_TEST(answer.get("usage_metadata") ==
             value(object{{"input_tokens", 9}, {"output_tokens", 3}, {"total_tokens", 12}}));
  BOOST_TEST(answer.get("response_metadata").get("finish_reason") == value("tool_calls"));
  // Three content deltas, three deltas per tool call, the usage chunk.
  BOOST_TEST_REQUIRE(chunks.size() == 10u);
  std::string text, args0;
  for (const value& c : chunks) {
    BOOST_TEST(c.get("type") == value("AIMessageChunk"));
    BOOST_TEST(c.get("id") == value("chatcmpl-1"));
    text += c.get("content").as_string();
    if (const value& tc = c.get("tool_call_chunks"); tc.is_list())
      for (const value& part : tc.as_list())
        if (part.get("index") == value(0) && part.get("args").is_string())
          args0 += part.get("args").as_string();
  }
  BOOST_TEST(text == "Let me add");
  BOOST_TEST(args0 == R"({"a":1,"b":22})");
  BOOST_TEST(chunks.back().get("usage_metadata").get("total_tokens") == value(12));
  const value body = server.requests().at(0).get("body");
  BOOST_TEST(body.get("stream") == value(true));
  BOOST_TEST(body.get("stream_options") == value(object{{"include_usage", true}}));
}

BOOST_AUTO_TEST_CASE(names_the_status_and_the_servers_message_never_the_key) {
  scripted_openai_server server(
      {object{{"status", 400}, {"error", "messages must not be empty"}},
       object{{"status", 401}, {"error", "Incorrect API key sk-test-secret"}},
       object{{"raw", "not json"}}, object{{"raw", "{}"}}});
  auto model = make_openai_chat_model(options_for(server));
  const std::string where = "openai chat model (" + server.base_url() + ", model scripted-1)";
  check_error([&] { model->invoke({human_message("x")}); }, error_code::invalid_argument,
              {where, "HTTP 400: messages must not be empty"});
  check_error([&] { model->invoke({human_message("x")}); }, error_code::unauthorized,
              {"HTTP 401: Incorrect API key ***"});
  check_error([&] { model->invoke({human_message("x")}); }, error_code::protocol_error,
              {"the answer is not JSON"});
  check_error([&] { model->invoke({human_message("x")}); }, error_code::protocol_error,
              {"no choices[0].message"});
  // No retry for those: one request each.
  BOOST_TEST(server.requests().size() == 4u);
}

BOOST_AUTO_TEST_CASE(retries_429_and_5xx_with_back_off_honouring_retry_after) {
  scripted_openai_server server(
      {object{{"status", 429}, {"error", "slow down"}, {"retry_after", "0"}},
       object{{"status", 503}, {"error", "overloaded"}}, object{{"content", "finally"}}});
  openai_chat_options o = options_for(server);
  o.max_retries = 2;
  auto model = make_openai_chat_model(o);
  BOOST_TEST(model->invoke({human_message("x")}).get("content") == value("finally"));
  BOOST_TEST(server.requests().size() == 3u);

  // Streaming retries the same way before its answer starts.
  server.append(object{{"status", 500}, {"error", "boom"}});
  server.append(object{{"content", "streamed"}});
  BOOST_TEST(model->stream({human_message("x")}, {}, nullptr).get("content") == value("streamed"));

  for (int i = 0; i < 3; ++i) server.append(object{{"status", 500}, {"error", "still broken"}});
  check_error([&] { model->invoke({human_message("x")}); }, error_code::unavailable,
              {"HTTP 500: still broken (after 3 attempts)"});

  o.max_retries = 0;
  server.append(object{{"status", 429}, {"error", "rate limited"}, {"retry_after", "0"}});
  check_error([&] { make_openai_chat_model(o)->invoke({human_message("x")}); },
              error_code::unavailable, {"HTTP 429: rate limited"});
}

BOOST_AUTO_TEST_CASE(a_retry_after_too_large_to_count_waits_the_longest_back_off) {
  // 10^23 seconds overflowed to a negative wait: three tries at once.
  scripted_openai_server server;
  for (int i = 0; i < 3; ++i)
    server.append(
        object{{"status", 429}, {"error", "later"}, {"retry_after", "99999999999999999999999"}});
  openai_chat_options o = options_for(server);
  o.max_retries = 2;
  o.max_backoff = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  check_error([&] { make_openai_chat_model(o)->invoke({human_message("x")}); },
              error_code::unavailable, {"HTTP 429: later (after 3 attempts)"});
  BOOST_TEST((std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(600)));
}

BOOST_AUTO_TEST_CASE(a_stream_without_end_is_cut_at_the_answer_cap_in_linear_time) {
  // 80 MiB of one event that never ends: refused at 64 MiB, as a whole answer is; scanned once
  // (rescanning the growing event for its end on each piece took hours).
  scripted_openai_server server({object{{"flood", std::int64_t(80) << 20}}});
  openai_chat_options o = options_for(server);
  o.max_retries = 0;
  o.timeout = std::chrono::milliseconds(60000);
  const auto start = std::chrono::steady_clock::now();
  check_error([&] { make_openai_chat_model(o)->stream({human_message("x")}, {}, nullptr); },
              error_code::unavailable, {"larger than 64 MiB"});
  BOOST_TEST((std::chrono::steady_clock::now() - start < std::chrono::seconds(20)));
}

BOOST_AUTO_TEST_CASE(times_out_a_stalled_connection_and_retries_it) {
  scripted_openai_server server({object{{"stall", true}}, object{{"content", "awake"}}});
  openai_chat_options o = options_for(server);
  o.timeout = std::chrono::milliseconds(150);
  o.max_retries = 1;
  BOOST_TEST(make_openai_chat_model(o)->invoke({human_message("x")}).get("content") ==
             value("awake"));
  server.append(object{{"stall", true}});
  o.max_retries = 0;
  check_error([&] { make_openai_chat_model(o)->invoke({human_message("x")}); },
              error_code::unavailable, {"no answer within 150 ms"});
}

BOOST_AUTO_TEST_CASE(reports_a_server_that_cannot_be_reached) {
  std::string url;
  {
    scripted_openai_server gone;
    url = gone.base_url();
  }
  openai_chat_options o;
  o.base_url = url;
  o.model = "m";
  o.max_retries = 1;
  o.initial_backoff = std::chrono::milliseconds(1);
  check_error([&] { make_openai_chat_model(o)->invoke({human_message("x")}); },
              error_code::unavailable, {"cannot connect", "(after 2 attempts)"});
  o.base_url = "ftp://example.invalid/v1";
  check_error([&] { make_openai_chat_model(o)->invoke({human_message("x")}); },
              error_code::invalid_argument, {"bad url"});
}

BOOST_AUTO_TEST_CASE(checks_its_options_and_reads_the_key_from_the_environment) {
  openai_chat_options o;
  check_error([&] { make_openai_chat_model(o); }, error_code::invalid_argument,
              {"the model is empty"});
  o.model = "m";
  o.timeout = std::chrono::milliseconds(0);
  check_error([&] { make_openai_chat_model(o); }, error_code::invalid_argument, {"timeout"});

  scripted_openai_server server({object{{"content", "a"}}, object{{"content", "b"}}});
  o = options_for(server);
  o.api_key.reset();
  o.key_env = "SUPERSTEP_AGENTS_TEST_KEY";
  o.keys = test::environment_keys();  // the library reads no environment: the caller's source
  ::setenv("SUPERSTEP_AGENTS_TEST_KEY", "k-from-env", 1);
  make_openai_chat_model(o)->invoke({human_message("x")});
  ::unsetenv("SUPERSTEP_AGENTS_TEST_KEY");
  make_openai_chat_model(o)->invoke({human_message("x")});
  BOOST_TEST(server.requests().at(0).get("authorization") == value("Bearer k-from-env"));
  BOOST_TEST(server.requests().at(1).get("authorization") == value(""));
}

// LangGraph's messages stream mode shows a model's tokens as they come, with the metadata of
// the node that called the model, and not the whole message again when the node returns it.
BOOST_AUTO_TEST_CASE(streams_tokens_into_the_graphs_messages_mode) {
  scripted_openai_server server({object{{"content", "Hello there Bob"}}});
  auto model = make_openai_chat_model(options_for(server));
  state_graph b;
  b.add_key("messages", "add_messages");
  b.add_node("agent", [model](const value& state, node_context& ctx) -> value {
    chat_options call;
    call.stream_to = &ctx;
    return object{{"messages", list{model->invoke(state.get("messages").as_list(), call)}}};
  });
  b.add_edge(std::string(START), "agent");
  auto graph = b.compile(compile_options{});
  std::vector<value> events;
  std::mutex m;
  graph->stream(object{{"messages", list{human_message("hi", "h1")}}}, value(),
                stream_options{{stream_mode::messages}, false}, [&](const stream_event& e) {
                  std::lock_guard lock(m);
                  events.push_back(e.data);
                });
  BOOST_TEST_REQUIRE(events.size() == 3u);
  std::string text;
  for (const value& e : events) {
    const list& pair = e.as_list();
    BOOST_TEST(pair[0].get("type") == value("AIMessageChunk"));
    BOOST_TEST(pair[0].get("id") == value("chatcmpl-1"));
    BOOST_TEST(pair[1].get("langgraph_node") == value("agent"));
    BOOST_TEST(pair[1].get("langgraph_step") == value(1));
    text += pair[0].get("content").as_string();
  }
  BOOST_TEST(text == "Hello there Bob");
  BOOST_TEST(server.requests().at(0).get("body").get("stream") == value(true));
}

// Servers differ: events ending in CRLF pairs, a server answering a streamed request whole, and
// one answering with something else altogether.
BOOST_AUTO_TEST_CASE(reads_streams_in_crlf_and_whole_answers_to_streamed_requests) {
  scripted_openai_server server(
      {object{{"content", "over crlf"}, {"crlf", true}},
       object{
           {"raw",
            R"({"id":"whole-1","choices":[{"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]})"}},
       object{{"raw", "<html>not an api</html>"}}});
  auto model = make_openai_chat_model(options_for(server));
  std::vector<value> chunks;
  const auto collect = [&](const value& c) { chunks.push_back(c); };
  BOOST_TEST(model->stream({human_message("x")}, {}, collect).get("content") == value("over crlf"));
  BOOST_TEST(chunks.size() == 2u);
  chunks.clear();
  const value whole = model->stream({human_message("x")}, {}, collect);
  BOOST_TEST(whole.get("content") == value("whole"));
  BOOST_TEST(whole.get("id") == value("whole-1"));
  BOOST_TEST_REQUIRE(chunks.size() == 1u);
  BOOST_TEST(chunks[0].get("type") == value("AIMessageChunk"));
  check_error([&] { model->stream({human_message("x")}, {}, collect); }, error_code::protocol_error,
              {"holds no server-sent events", "<html>not an api</html>"});
}
