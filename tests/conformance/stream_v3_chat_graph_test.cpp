// Ports of LangGraph's libs/langgraph/tests/test_stream_messages_transformer.py graph cases
// (TestEndToEnd, TestEndToEndV2Invoke, TestDirectMessagesModeStaysV1,
// TestStreamMessagesHandlerV2Unit's semantics) and the messages cases of
// test_stream_events_v3_e2e.py: chat models called in nodes, streamed into the v3 messages
// projection. LangChain's GenericFakeChatModel is `generic_fake_chat_model`; one case goes
// through the OpenAI client against the scripted server of tests/agents. A LangChain model
// finds the run through its callbacks; ours is given the node (`chat_options::stream_to`).

#include <mutex>

#include "agents/scripted_openai_server.hpp"
#include "stream_v3_chat_support.hpp"
#include "superstep/agents/openai_chat_model.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

std::shared_ptr<const agents::chat_model> fake(std::vector<value> answers) {
  return std::make_shared<generic_fake_chat_model>(std::move(answers));
}

// The OpenAI client of the agents library against `server`, with short back-offs.
std::shared_ptr<const agents::chat_model> openai_model(const test::scripted_openai_server& server) {
  agents::openai_chat_options o;
  o.base_url = server.base_url();
  o.model = "scripted-1";
  o.api_key = "sk-test";
  o.timeout = std::chrono::milliseconds(5000);
  o.initial_backoff = std::chrono::milliseconds(1);
  o.max_backoff = std::chrono::milliseconds(5);
  return agents::make_openai_chat_model(o);
}

// A node calling `model->stream(...)` (LangChain's `model.stream_events(..., version="v3")` in a
// node), returning the streamed message.
node_function streaming_node(std::shared_ptr<const agents::chat_model> model) {
  return [model](const value& state, node_context& ctx) -> value {
    agents::chat_options call;
    call.stream_to = &ctx;
    return object{{"messages", model->stream(state.get("messages").as_list(), call, nullptr)}};
  };
}

std::vector<std::shared_ptr<chat_model_stream>> all_streams(graph_run_stream& run) {
  return drain(run.messages());
}

// The messages events of the main log.
std::vector<value> messages_events(graph_run_stream& run) {
  std::vector<value> out;
  for (auto e : run.events())
    if (e.method == "messages") out.push_back(e.params.data);
  return out;
}

// `_CounterTransformer`: a named channel "counter" of the number of values events so far.
class counter_transformer : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {{"counter", channel_}}; }
  bool process(protocol_event& e) override {
    if (e.method == "values") channel_->push(++count_);
    return true;
  }

 private:
  std::shared_ptr<stream_channel<value>> channel_ =
      std::make_shared<stream_channel<value>>("counter");
  std::int64_t count_ = 0;
};

}  // namespace

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEnd::test_node_calling_stream_v2_populates_messages
BOOST_AUTO_TEST_CASE(TestEndToEnd_test_node_calling_stream_v2_populates_messages) {
  auto run = one_node_graph("call_model", streaming_node(fake({"hello world"})))
                 ->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(streams[0]->output_text() == "hello world");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEnd::test_node_stream_v2_text_deltas_iterate
BOOST_AUTO_TEST_CASE(TestEndToEnd_test_node_stream_v2_text_deltas_iterate) {
  auto run = one_node_graph("call_model", streaming_node(fake({"streamed answer"})))
                 ->stream_events(hi_input("go"));
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(joined_text(*streams[0]) == "streamed answer");
  BOOST_TEST(streams[0]->text_deltas_so_far() == (strs{"streamed", " ", "answer"}));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEnd::test_non_llm_message_returned_from_node
BOOST_AUTO_TEST_CASE(TestEndToEnd_test_non_llm_message_returned_from_node) {
  auto run =
      one_node_graph("return_message", [](const value&, node_context&) -> value {
        return object{{"messages", agents::ai_message("hardcoded", {}, std::string("msg-abc"))}};
      })->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(streams[0]->output_text() == "hardcoded");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEnd::test_nested_async_iteration_yields_text_deltas
// The semantics of the async case on our pull streams: reading a stream's text while iterating
// run.messages drives the run until the stream finished.
BOOST_AUTO_TEST_CASE(TestEndToEnd_test_nested_async_iteration_yields_text_deltas) {
  auto run = one_node_graph("call_model", streaming_node(fake({"hello world"})))
                 ->stream_events(hi_input());
  std::string collected;
  for (auto& stream : run->messages()) {
    BOOST_TEST(!stream->done());  // pushed at message-start
    for (const std::string& delta : stream->text()) collected += delta;
    BOOST_TEST(stream->done());
  }
  BOOST_TEST(collected == "hello world");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEndV2Invoke::test_invoke_populates_messages
BOOST_AUTO_TEST_CASE(TestEndToEndV2Invoke_test_invoke_populates_messages) {
  auto run =
      one_node_graph("call_model", model_node(fake({"hello world"})))->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(streams[0]->output_text() == "hello world");
  BOOST_TEST(streams[0]->node().value_or("") == "call_model");
  // The state holds the message the stream showed, under the same id.
  const value out = run->output();
  const value& last = out.get("messages").as_list().back();
  BOOST_TEST(last.get("content") == value("hello world"));
  BOOST_TEST(last.get("id") == value(streams[0]->message_id().value_or("?")));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEndV2Invoke::test_invoke_emits_protocol_events
BOOST_AUTO_TEST_CASE(TestEndToEndV2Invoke_test_invoke_emits_protocol_events) {
  auto run = one_node_graph("call_model", model_node(fake({"streamed answer"})))
                 ->stream_events(hi_input("go"));
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  std::set<std::string> kinds;
  for (const value& e : streams[0]->events()) {
    BOOST_TEST(e.is_object());
    BOOST_REQUIRE(e.get("event").is_string());
    kinds.insert(e.get("event").as_string());
  }
  for (const char* k : {"message-start", "content-block-start", "content-block-delta",
                        "content-block-finish", "message-finish"})
    BOOST_TEST(kinds.count(k) == 1u, k);
  BOOST_TEST(streams[0]->output_text() == "streamed answer");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEndV2Invoke::test_invoke_text_deltas_iterate
BOOST_AUTO_TEST_CASE(TestEndToEndV2Invoke_test_invoke_text_deltas_iterate) {
  auto run = one_node_graph("call_model", model_node(fake({"delta streaming works"})))
                 ->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(joined_text(*streams[0]) == "delta streaming works");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEndV2Invoke::test_invoke_two_nodes_two_streams
BOOST_AUTO_TEST_CASE(TestEndToEndV2Invoke_test_invoke_two_nodes_two_streams) {
  state_graph g = messages_state();
  g.add_node("node_a", model_node(fake({"alpha"})));
  g.add_node("node_b", model_node(fake({"beta"})));
  g.add_edge("__start__", "node_a");
  g.add_edge("node_a", "node_b");
  g.add_edge("node_b", "__end__");
  auto run = g.compile(opts())->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 2u);
  std::set<std::string> texts;
  for (const auto& s : streams) texts.insert(s->output_text());
  BOOST_TEST((texts == std::set<std::string>{"alpha", "beta"}));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestEndToEndV2Invoke::test_invoke_plus_constructed_message_two_streams
BOOST_AUTO_TEST_CASE(TestEndToEndV2Invoke_test_invoke_plus_constructed_message_two_streams) {
  state_graph g = messages_state();
  g.add_node("streaming_node", model_node(fake({"live stream"})));
  g.add_node("constructed_node", [](const value&, node_context&) -> value {
    return object{{"messages", value::array({agents::ai_message("hardcoded", {},
                                                                std::string("constructed-1"))})}};
  });
  g.add_edge("__start__", "streaming_node");
  g.add_edge("streaming_node", "constructed_node");
  g.add_edge("constructed_node", "__end__");
  auto run = g.compile(opts())->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 2u);
  BOOST_TEST(streams[0]->node().value_or("") == "streaming_node");
  BOOST_TEST(streams[0]->output_text() == "live stream");
  BOOST_TEST(streams[1]->node().value_or("") == "constructed_node");
  BOOST_TEST(streams[1]->output_text() == "hardcoded");
  BOOST_TEST(streams[1]->message_id().value_or("") == "constructed-1");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestDirectMessagesModeStaysV1::test_direct_graph_stream_messages_yields_ai_message_chunks
BOOST_AUTO_TEST_CASE(
    TestDirectMessagesModeStaysV1_test_direct_graph_stream_messages_yields_ai_message_chunks) {
  auto graph = one_node_graph("call_model", model_node(fake({"legacy path"})));
  std::mutex m;
  std::vector<value> parts;
  graph->stream(hi_input(), value(), stream_options{{stream_mode::messages}, false},
                [&](const stream_event& e) {
                  std::lock_guard lock(m);
                  parts.push_back(e.data);
                });
  BOOST_REQUIRE(!parts.empty());
  std::string text;
  for (const value& p : parts) {
    const value& payload = p.as_list().at(0);
    BOOST_TEST(payload.get("type") == value("AIMessageChunk"));
    BOOST_TEST(!payload.find("event"));
    text += payload.get("content").as_string();
  }
  BOOST_TEST(text == "legacy path");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestDirectMessagesModeStaysV1::test_nested_graph_stream_messages_stays_v1_under_outer_stream_events_v3
BOOST_AUTO_TEST_CASE(
    TestDirectMessagesModeStaysV1_test_nested_graph_stream_messages_stays_v1_under_outer_stream_events_v3) {
  auto inner = one_node_graph("call_model", model_node(fake({"nested legacy path"})));
  state_graph outer;
  outer.add_key("saw_only_chunks");
  outer.add_key("first_payload_type");
  outer.add_key("text");
  outer.add_node("call_subgraph", [inner](const value&, node_context& ctx) -> value {
    std::mutex m;
    std::vector<value> payloads;
    inner->stream(hi_input(), ctx.config(), stream_options{{stream_mode::messages}, false},
                  [&](const stream_event& e) {
                    std::lock_guard lock(m);
                    payloads.push_back(e.data.as_list().at(0));
                  });
    if (payloads.empty()) throw std::runtime_error("the inner stream emitted nothing");
    bool only_chunks = true;
    std::string text;
    for (const value& p : payloads) {
      only_chunks = only_chunks && p.get("type") == value("AIMessageChunk");
      if (p.get("type") == value("AIMessageChunk")) text += p.get("content").as_string();
    }
    return object{{"saw_only_chunks", only_chunks},
                  {"first_payload_type", payloads[0].get("type")},
                  {"text", text}};
  });
  outer.add_edge("__start__", "call_subgraph");
  outer.add_edge("call_subgraph", "__end__");
  const value result = outer.compile(opts())->stream_events(object{})->output();
  BOOST_TEST(result.get("saw_only_chunks") == value(true));
  BOOST_TEST(result.get("first_payload_type") == value("AIMessageChunk"));
  BOOST_TEST(result.get("text") == value("nested legacy path"));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestStreamMessagesHandlerV2Unit::test_on_llm_new_token_is_noop
// The handler's semantics: in a v3 run, chunks a node emits the v1 way stream nothing.
BOOST_AUTO_TEST_CASE(TestStreamMessagesHandlerV2Unit_test_on_llm_new_token_is_noop) {
  auto run = one_node_graph("x", [](const value&, node_context& ctx) -> value {
               BOOST_TEST(ctx.message_events());
               ctx.emit_message(object{{"type", "AIMessageChunk"}, {"content", "hello"}});
               return object{};
             })->stream_events(hi_input());
  BOOST_TEST(messages_events(*run).empty());
  BOOST_TEST(all_streams(*run).empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestStreamMessagesHandlerV2Unit::test_on_chain_end_does_not_emit_tool_messages
// The handler's semantics: in a v3 run, a node returning a tool message streams nothing.
BOOST_AUTO_TEST_CASE(
    TestStreamMessagesHandlerV2Unit_test_on_chain_end_does_not_emit_tool_messages) {
  auto run = one_node_graph("tools", [](const value&, node_context&) -> value {
               return object{{"messages", value::array({agents::tool_message("[]", "call_1")})}};
             })->stream_events(hi_input());
  BOOST_TEST(messages_events(*run).empty());
  // The v1 messages mode still streams it.
  auto graph = one_node_graph("tools", [](const value&, node_context&) -> value {
    return object{{"messages", value::array({agents::tool_message("[]", "call_1")})}};
  });
  std::size_t v1 = 0;
  graph->stream(hi_input(), value(), stream_options{{stream_mode::messages}, false},
                [&](const stream_event&) { ++v1; });
  BOOST_TEST(v1 == 1u);
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestStreamMessagesHandlerV2Unit::test_on_llm_end_dedupes_when_final_message_id_differs
// The handler's semantics: a model whose final message has another id than its chunks; the
// node returns that message; it is streamed once (the call's stream), not replayed whole.
BOOST_AUTO_TEST_CASE(
    TestStreamMessagesHandlerV2Unit_test_on_llm_end_dedupes_when_final_message_id_differs) {
  auto model = std::make_shared<generic_fake_chat_model>(std::vector<value>{"hello"},
                                                         "stream-msg-1", "final-msg-1");
  auto run = one_node_graph("x", model_node(model))->stream_events(hi_input());
  std::size_t starts = 0;
  for (const value& e : messages_events(*run))
    starts += e.as_list().at(0).get("event") == value("message-start");
  BOOST_TEST(starts == 1u);
  BOOST_TEST(run->output().get("messages").as_list().back().get("id") == value("final-msg-1"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EMessages::test_messages_projection_from_invoke
BOOST_AUTO_TEST_CASE(TestStreamV2E2EMessages_test_messages_projection_from_invoke) {
  auto run =
      one_node_graph("call_model", model_node(fake({"hello world"})))->stream_events(hi_input());
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() >= 1u);
  BOOST_TEST(streams[0]->output_text() == "hello world");
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EMessages::test_messages_text_deltas
// Through the OpenAI client against the scripted server: the server's chunks are the deltas.
BOOST_AUTO_TEST_CASE(TestStreamV2E2EMessages_test_messages_text_deltas) {
  test::scripted_openai_server server({object{{"content", "streamed answer"}}});
  auto run =
      one_node_graph("call_model", model_node(openai_model(server)))->stream_events(hi_input("go"));
  const auto streams = all_streams(*run);
  BOOST_REQUIRE(streams.size() == 1u);
  BOOST_TEST(joined_text(*streams[0]) == "streamed answer");
  BOOST_TEST(streams[0]->message_id().value_or("") == "chatcmpl-1");
  BOOST_TEST(server.requests().at(0).get("body").get("stream") == value(true));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECombined::test_values_plus_messages_plus_custom
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECombined_test_values_plus_messages_plus_custom) {
  auto run = one_node_graph("call_model", model_node(fake({"combined test"})))
                 ->stream_events(hi_input(), value(), {}, {factory_of<counter_transformer>()});
  auto counts = run->extension<stream_channel<value>>("counter").cursor();
  auto values = run->values().cursor();
  auto messages = run->messages().cursor();
  const auto v = drain(values);
  const auto m = drain(messages);
  const auto c = drain(counts);
  BOOST_TEST(v.size() >= 1u);
  BOOST_REQUIRE(m.size() >= 1u);
  BOOST_TEST(c.size() >= 1u);
  BOOST_TEST(m[0]->output_text() == "combined test");
}

// A model's tool calls stream as tool-call blocks and reach the stream's output and tool
// calls, through the OpenAI client (streamed arguments in halves).
BOOST_AUTO_TEST_CASE(tool_calls_stream_into_the_chat_model_stream) {
  test::scripted_openai_server server({object{
      {"content", "Let me add"},
      {"tool_calls",
       list{object{{"id", "c1"}, {"name", "add"}, {"args", object{{"a", 1}, {"b", 22}}}}}}}});
  auto run =
      one_node_graph("agent", model_node(openai_model(server)))->stream_events(hi_input("add"));
  auto streams = run->messages().cursor();
  auto stream = streams.next();
  BOOST_REQUIRE(stream.has_value());
  std::vector<value> calls;
  for (const value& c : (*stream)->tool_calls()) calls.push_back(c);
  BOOST_REQUIRE(calls.size() == 1u);
  BOOST_TEST(calls[0].get("name") == value("add"));
  BOOST_TEST(calls[0].get("args") == value(object{{"a", 1}, {"b", 22}}));
  const value out = (*stream)->output();
  BOOST_TEST(out.get("content") == value("Let me add"));
  BOOST_TEST(out.get("response_metadata").get("finish_reason") == value("tool_calls"));
  bool tool_delta = false;
  for (const value& e : (*stream)->events())
    tool_delta = tool_delta || (e.get("event") == value("content-block-delta") &&
                                e.get("content_block").get("type") == value("tool_call_chunk"));
  BOOST_TEST(tool_delta);
  BOOST_TEST(!streams.next().has_value());
}

// A run that fails while a call streams fails the call's stream with the run's error.
BOOST_AUTO_TEST_CASE(a_failed_run_fails_the_open_chat_model_stream) {
  auto run =
      one_node_graph("x", [](const value&, node_context& ctx) -> value {
        ctx.emit_message_event(
            object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "m1"}}, "call-1");
        throw std::runtime_error("model node exploded");
      })->stream_events(hi_input());
  auto streams = run->messages().cursor();
  auto stream = streams.next();
  BOOST_REQUIRE(stream.has_value());
  BOOST_TEST(throws_with([&] { (void)(*stream)->output(); }, "model node exploded"));
  BOOST_TEST(throws_with([&] { (void)run->output(); }, "model node exploded"));
}

// A model call that fails midway fails its stream with the model's error, even when the node
// catches it and the run goes on.
BOOST_AUTO_TEST_CASE(a_chat_model_failing_midway_fails_its_stream) {
  class failing_model final : public agents::chat_model {
   public:
    std::string describe() const override { return "failing model"; }

   protected:
    value generate(const list&, const agents::chat_options&) const override { return value(); }
    value generate_stream(const list&, const agents::chat_options&,
                          const agents::chunk_callback& on_chunk) const override {
      on_chunk(object{{"type", "AIMessageChunk"}, {"content", "partial"}});
      throw error(error_code::unavailable, "the connection dropped");
    }
  };
  auto model = std::make_shared<failing_model>();
  auto run = one_node_graph("x", [model](const value& state, node_context& ctx) -> value {
               agents::chat_options call;
               call.stream_to = &ctx;
               try {
                 (void)model->invoke(state.get("messages").as_list(), call);
               } catch (const error&) {
               }
               return object{};
             })->stream_events(hi_input());
  auto streams = run->messages().cursor();
  auto stream = streams.next();
  BOOST_REQUIRE(stream.has_value());
  std::string text;
  BOOST_TEST(throws_with([&] { text = joined_text(**stream); }, "the connection dropped"));
  BOOST_TEST((*stream)->text_deltas_so_far() == (strs{"partial"}));
  BOOST_TEST(throws_with([&] { (void)(*stream)->output(); }, "the connection dropped"));
  BOOST_TEST(!streams.next().has_value());
  BOOST_TEST(run->output().get("messages").as_list().size() == 1u);
}
