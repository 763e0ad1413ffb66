// Ports of LangGraph's libs/langgraph/tests/test_stream_messages_transformer.py, the
// MessagesTransformer unit cases (TestProtocolEventRouting, TestWholeMessageFallback,
// TestFiltering, TestLifecycle, TestAsyncMode's sync semantics, TestWireRequestMore, TestViaMux),
// and test_pregel_stream_events_v3.py::TestMessagesTransformer::test_captures_root_messages.
// The graph cases are in stream_v3_chat_graph_test.cpp.

#include "stream_v3_chat_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

protocol_event v1_chunk(const std::string& text, bool finish = false) {
  object chunk{{"type", "AIMessageChunk"}, {"content", text}, {"id", "msg-1"}};
  if (finish) chunk.set("response_metadata", object{{"finish_reason", "stop"}});
  return pevent("messages",
                value::array({value(std::move(chunk)), object{{"langgraph_node", "llm"}}}));
}

protocol_event whole_msg(const std::string& text, const std::string& id = "msg-10") {
  return pevent("messages", value::array({object{{"type", "ai"}, {"content", text}, {"id", id}},
                                          object{{"langgraph_node", "node"}}}));
}

strs event_kinds(const std::vector<value>& events) {
  strs out;
  for (const value& e : events) out.push_back(e.get("event").as_string());
  return out;
}

}  // namespace

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_message_start_creates_stream
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_message_start_creates_stream) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "run-1"}});
  s.t.process(e);
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->message_id().value_or("") == "run-1");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_full_lifecycle_yields_done_stream
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_full_lifecycle_yields_done_stream) {
  sync_transformer s;
  for (const value& evt : lifecycle("hello world")) {
    auto e = proto_event(evt, "run-1");
    s.t.process(e);
  }
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->done());
  BOOST_TEST(items[0]->output_text() == "hello world");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_message_finish_cleans_up_routing
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_message_finish_cleans_up_routing) {
  sync_transformer s;
  for (const value& evt : lifecycle()) {
    auto e = proto_event(evt, "run-1");
    s.t.process(e);
  }
  BOOST_TEST(s.t.open_streams().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_events_without_prior_start_are_ignored
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_events_without_prior_start_are_ignored) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "content-block-delta"},
                              {"index", 0},
                              {"content_block", object{{"type", "text"}, {"text", "orphan"}}}},
                       "unknown");
  s.t.process(e);
  BOOST_TEST(s.items().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_tool_role_protocol_events_are_ignored
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_tool_role_protocol_events_are_ignored) {
  sync_transformer s;
  for (const value& evt :
       {value(object{{"event", "message-start"}, {"role", "tool"}, {"message_id", "tool-msg-1"}}),
        value(object{{"event", "content-block-delta"},
                     {"index", 0},
                     {"content_block", object{{"type", "text"}, {"text", "[]"}}}}),
        value(object{{"event", "message-finish"}, {"reason", "stop"}})}) {
    auto e = proto_event(evt, "tool-run");
    s.t.process(e);
  }
  BOOST_TEST(s.items().empty());
  BOOST_TEST(s.t.ignored_runs().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_concurrent_streams_routed_by_run_id
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_concurrent_streams_routed_by_run_id) {
  sync_transformer s;
  const auto a = lifecycle("aaaa", "run-a"), b = lifecycle("bbbb", "run-b");
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto ea = proto_event(a[i], "run-a");
    s.t.process(ea);
    auto eb = proto_event(b[i], "run-b");
    s.t.process(eb);
  }
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 2u);
  std::map<std::string, std::shared_ptr<chat_model_stream>> by_id;
  for (const auto& st : items) by_id[st->message_id().value_or("")] = st;
  BOOST_TEST(by_id.at("run-a")->output_text() == "aaaa");
  BOOST_TEST(by_id.at("run-b")->output_text() == "bbbb");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_text_deltas_accumulated_on_stream
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_text_deltas_accumulated_on_stream) {
  sync_transformer s;
  for (const value& evt : lifecycle("abcdef")) {
    auto e = proto_event(evt);
    s.t.process(e);
  }
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 1u);
  std::string joined;
  for (const auto& d : items[0]->text_deltas_so_far()) joined += d;
  BOOST_TEST(joined == "abcdef");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_stream_pushed_on_message_start_not_finish
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_stream_pushed_on_message_start_not_finish) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "run-1"}});
  s.t.process(e);
  // The consumer sees the stream before message-finish arrives.
  BOOST_TEST(s.t.log().size() == 1u);
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestProtocolEventRouting::test_node_metadata_set_on_stream
BOOST_AUTO_TEST_CASE(TestProtocolEventRouting_test_node_metadata_set_on_stream) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "run-1"}},
                       "run-1", "my_llm");
  s.t.process(e);
  auto stream = s.log.next();
  BOOST_REQUIRE(stream.has_value());
  BOOST_TEST((*stream)->node().value_or("") == "my_llm");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestWholeMessageFallback::test_whole_ai_message_produces_complete_stream
BOOST_AUTO_TEST_CASE(TestWholeMessageFallback_test_whole_ai_message_produces_complete_stream) {
  sync_transformer s;
  auto e = whole_msg("the full answer");
  s.t.process(e);
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->done());
  BOOST_TEST(items[0]->output_text() == "the full answer");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestWholeMessageFallback::test_whole_tool_message_is_ignored
BOOST_AUTO_TEST_CASE(TestWholeMessageFallback_test_whole_tool_message_is_ignored) {
  sync_transformer s;
  auto e = pevent(
      "messages",
      value::array({agents::tool_message("[]", "call_1", "", "success", std::string("tool-msg-1")),
                    object{{"langgraph_node", "tools"}}}));
  s.t.process(e);
  BOOST_TEST(s.items().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestWholeMessageFallback::test_whole_message_has_full_lifecycle
BOOST_AUTO_TEST_CASE(TestWholeMessageFallback_test_whole_message_has_full_lifecycle) {
  sync_transformer s;
  auto e = whole_msg("full");
  s.t.process(e);
  const auto items = s.items();
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(event_kinds(items[0]->events_so_far()) ==
             (strs{"message-start", "content-block-start", "content-block-delta",
                   "content-block-finish", "message-finish"}));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestFiltering::test_non_messages_events_pass_through
BOOST_AUTO_TEST_CASE(TestFiltering_test_non_messages_events_pass_through) {
  sync_transformer s;
  protocol_event e;
  e.method = "values";
  e.params.data = object{{"x", 1}};
  BOOST_TEST(s.t.process(e));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestFiltering::test_subgraph_namespace_dropped
BOOST_AUTO_TEST_CASE(TestFiltering_test_subgraph_namespace_dropped) {
  sync_transformer s;
  auto e = pevent("messages",
                  value::array({object{{"event", "message-start"}, {"message_id", "run-x"}},
                                object{{"run_id", "run-x"}}}),
                  {"subgraph"});
  s.t.process(e);
  BOOST_TEST(s.items().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestFiltering::test_legacy_v1_chunks_ignored
BOOST_AUTO_TEST_CASE(TestFiltering_test_legacy_v1_chunks_ignored) {
  sync_transformer s;
  auto a = v1_chunk("hello"), b = v1_chunk(" world", true);
  s.t.process(a);
  s.t.process(b);
  BOOST_TEST(s.items().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestLifecycle::test_fail_propagates_to_open_streams
BOOST_AUTO_TEST_CASE(TestLifecycle_test_fail_propagates_to_open_streams) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "message-start"}, {"message_id", "run-1"}}, "run-1");
  s.t.process(e);
  auto stream = s.log.next();
  BOOST_REQUIRE(stream.has_value());
  const auto err = failure("graph died");
  s.t.fail(err);
  BOOST_TEST(s.t.open_streams().empty());
  BOOST_TEST(((*stream)->error() == err));
  BOOST_TEST(throws_with([&] { (void)(*stream)->output(); }, "graph died"));
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestLifecycle::test_finalize_clears_routing_state
BOOST_AUTO_TEST_CASE(TestLifecycle_test_finalize_clears_routing_state) {
  sync_transformer s;
  auto e = proto_event(object{{"event", "message-start"}, {"message_id", "run-1"}}, "run-1");
  s.t.process(e);
  BOOST_TEST(s.t.open_streams().count("run-1") == 1u);
  s.t.finalize();
  BOOST_TEST(s.t.open_streams().empty());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestAsyncMode::test_text_projection_yields_deltas
// The async projection's semantics on our one kind of stream: a stream with no pump, read after
// its events were dispatched, yields its deltas and ends.
BOOST_AUTO_TEST_CASE(TestAsyncMode_test_text_projection_yields_deltas) {
  messages_transformer t;
  auto log = (t.init(), t.log().cursor());
  for (const value& evt : lifecycle("hello world")) {
    auto e = proto_event(evt);
    t.process(e);
  }
  auto stream = log.next();
  BOOST_REQUIRE(stream.has_value());
  BOOST_TEST(!(*stream)->pump());
  BOOST_TEST(joined_text(**stream) == "hello world");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestAsyncMode::test_output_awaitable
// As above: the output of a stream with no pump, once its events were dispatched.
BOOST_AUTO_TEST_CASE(TestAsyncMode_test_output_awaitable) {
  messages_transformer t;
  auto log = (t.init(), t.log().cursor());
  for (const value& evt : lifecycle("async")) {
    auto e = proto_event(evt);
    t.process(e);
  }
  auto stream = log.next();
  BOOST_REQUIRE(stream.has_value());
  BOOST_TEST((*stream)->output_text() == "async");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestWireRequestMore::test_bind_pump_called_on_wire
BOOST_AUTO_TEST_CASE(TestWireRequestMore_test_bind_pump_called_on_wire) {
  auto mux = std::make_unique<stream_mux>(std::vector<transformer_factory>{
      factory_of<values_transformer>(), factory_of<messages_transformer>()});
  auto& messages = dynamic_cast<messages_transformer&>(*mux->transformers()[1]);
  BOOST_TEST(!messages.pump());
  graph_run_stream run(std::move(mux),
                       std::make_unique<vector_source>(std::vector<stream_event>{}));
  BOOST_REQUIRE(static_cast<bool>(messages.pump()));
  BOOST_TEST(!messages.pump()());
  BOOST_TEST(run.exhausted());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestWireRequestMore::test_created_streams_have_request_more
// The stream's pump is the run stream's: pumping through it drives the run.
BOOST_AUTO_TEST_CASE(TestWireRequestMore_test_created_streams_have_request_more) {
  auto mux = std::make_unique<stream_mux>(std::vector<transformer_factory>{
      factory_of<values_transformer>(), factory_of<messages_transformer>()});
  auto& messages = dynamic_cast<messages_transformer&>(*mux->transformers()[1]);
  graph_run_stream run(std::move(mux), std::make_unique<vector_source>(std::vector<stream_event>{
                                           {{}, stream_mode::values, object{{"v", 1}}}}));
  auto log = run.messages().cursor();
  for (const value& evt : lifecycle()) {
    auto e = proto_event(evt);
    messages.process(e);
  }
  auto stream = log.next();
  BOOST_REQUIRE(stream.has_value());
  BOOST_REQUIRE(static_cast<bool>((*stream)->pump()));
  BOOST_TEST(!run.exhausted());
  BOOST_TEST((*stream)->pump()());  // the values event
  BOOST_TEST(!(*stream)->pump()());
  BOOST_TEST(run.exhausted());
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestViaMux::test_streaming_via_mux
BOOST_AUTO_TEST_CASE(TestViaMux_test_streaming_via_mux) {
  stream_mux mux(std::vector<transformer_factory>{factory_of<values_transformer>(),
                                                  factory_of<messages_transformer>()});
  auto& messages = dynamic_cast<messages_transformer&>(*mux.transformers()[1]);
  messages.bind_pump([] { return false; });
  auto log = dynamic_cast<stream_channel<std::shared_ptr<chat_model_stream>>&>(
                 *mux.extensions().at("messages"))
                 .cursor();
  for (const value& evt : lifecycle("mux stream")) mux.push(proto_event(evt));
  mux.close();
  const auto items = drain(log);
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->output_text() == "mux stream");
}

// libs/langgraph/tests/test_stream_messages_transformer.py::TestViaMux::test_whole_message_via_mux
BOOST_AUTO_TEST_CASE(TestViaMux_test_whole_message_via_mux) {
  stream_mux mux(std::vector<transformer_factory>{factory_of<values_transformer>(),
                                                  factory_of<messages_transformer>()});
  auto& messages = dynamic_cast<messages_transformer&>(*mux.transformers()[1]);
  messages.bind_pump([] { return false; });
  auto log = dynamic_cast<stream_channel<std::shared_ptr<chat_model_stream>>&>(
                 *mux.extensions().at("messages"))
                 .cursor();
  mux.push(whole_msg("result"));
  mux.close();
  const auto items = drain(log);
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->output_text() == "result");
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMessagesTransformer::test_captures_root_messages
BOOST_AUTO_TEST_CASE(TestMessagesTransformer_test_captures_root_messages) {
  messages_transformer t;
  (void)t.init();
  t.bind_pump([] { return false; });
  auto it = t.log().cursor();
  const value meta = object{{"langgraph_node", "llm"}, {"run_id", "run-1"}};
  for (const value& evt :
       {value(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "run-1"}}),
        value(object{{"event", "message-finish"}, {"reason", "stop"}})}) {
    auto e = pevent("messages", value::array({evt, meta}));
    t.process(e);
  }
  t.log().close();
  const auto items = drain(it);
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->done());
  BOOST_TEST(items[0]->message_id().value_or("") == "run-1");
}

// The stream's own checks: malformed events are refused naming them, a call's tool calls are
// assembled from their blocks, and an error event fails the stream.
BOOST_AUTO_TEST_CASE(chat_model_stream_refuses_malformed_events_and_assembles_tool_calls) {
  auto s = std::make_shared<chat_model_stream>(strs{}, "llm", std::nullopt);
  BOOST_TEST(code_of([&] { s->dispatch(value("message-start")); }) == error_code::invalid_argument);
  s->dispatch(object{{"event", "message-start"}, {"role", "ai"}, {"message_id", "m"}});
  BOOST_TEST(throws_with(
      [&] {
        s->dispatch(object{{"event", "message-start"}});
      },
      "a second message-start"));
  BOOST_TEST(throws_with(
      [&] {
        s->dispatch(object{{"event", "content-block-delta"}});
      },
      "needs an integer \"index\""));
  const list events = message_event_builder("m").finish(agents::ai_message(
      "x", {agents::tool_call{"add", object{{"a", 1}}, "c1"}}, std::string("m")));
  for (std::size_t i = 1; i < events.size(); ++i) s->dispatch(events[i]);
  BOOST_TEST(s->done());
  const value out = s->output();
  BOOST_TEST(out.get("content") == value("x"));
  BOOST_TEST(out.get("tool_calls").as_list().size() == 1u);
  BOOST_TEST(out.get("tool_calls").as_list()[0].get("args") == value(object{{"a", 1}}));
  std::size_t calls = 0;
  for (const value& c : s->tool_calls()) calls += c.get("id") == value("c1");
  BOOST_TEST(calls == 1u);
  BOOST_TEST(throws_with(
      [&] {
        s->dispatch(object{{"event", "message-finish"}});
      },
      "after message-finish"));

  auto failed = std::make_shared<chat_model_stream>(strs{}, std::nullopt, "f");
  failed->dispatch(object{{"event", "message-start"}});
  failed->dispatch(object{{"event", "error"}, {"message", "model failed"}});
  BOOST_TEST(throws_with([&] { (void)failed->output(); }, "model failed"));
}
