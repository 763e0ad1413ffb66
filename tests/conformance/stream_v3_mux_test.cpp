// LangGraph's v3 event streaming: the mux and the values and messages transformers on hand-made
// events (libs/langgraph/tests/test_pregel_stream_events_v3.py, TestStreamMux,
// TestValuesTransformer, TestOutputWithoutValuesTransformer, TestMessagesTransformer,
// TestStreamMuxResilience, TestStreamChannelAutoLifecycle, and the mux-only case of
// TestCustomTransformer).
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

std::vector<std::shared_ptr<stream_transformer>> one(std::shared_ptr<stream_transformer> t) {
  return {std::move(t)};
}

strs methods(const std::vector<protocol_event>& events) {
  strs out;
  for (const auto& e : events) out.push_back(e.method);
  return out;
}

/// A transformer whose one projection "items" is a local channel it pushes every event to.
class simple_channel_transformer : public plain_transformer {
 public:
  std::shared_ptr<stream_channel<std::string>> log =
      std::make_shared<stream_channel<std::string>>();
  stream_projections init() override { return {{"items", log}}; }
  bool process(protocol_event&) override {
    log->push("saw_event");
    return true;
  }
};

}  // namespace

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMux::test_register_non_dict_raises
// A C++ init() returns stream_projections by type; what the mux can still be given wrong is a
// projection that is nothing (null), refused naming the transformer and the key.
BOOST_AUTO_TEST_CASE(TestStreamMux_test_register_non_dict_raises) {
  class bad_transformer : public plain_transformer {
   public:
    stream_projections init() override { return {{"not_a_projection", nullptr}}; }
    std::string name() const override { return "bad_transformer"; }
  };
  BOOST_TEST(throws_with([] { stream_mux mux(one(std::make_shared<bad_transformer>())); },
                         "bad_transformer returned a null projection 'not_a_projection'"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMux::test_event_suppression
BOOST_AUTO_TEST_CASE(TestStreamMux_test_event_suppression) {
  class filter_transformer : public plain_transformer {
   public:
    bool process(protocol_event& e) override { return e.method != "updates"; }
  };
  stream_mux mux(one(std::make_shared<filter_transformer>()));
  auto it = mux.events().cursor();
  mux.push(pevent("values", object{{"a", 1}}));
  mux.push(pevent("updates", object{{"b", 2}}));
  mux.push(pevent("custom", object{{"c", 3}}));
  mux.close();
  BOOST_TEST(methods(drain(it)) == (strs{"values", "custom"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMux::test_suppression_all_transformers_still_see_event
BOOST_AUTO_TEST_CASE(TestStreamMux_test_suppression_all_transformers_still_see_event) {
  strs seen_by_second;
  class reject_transformer : public plain_transformer {
   public:
    explicit reject_transformer(strs& seen) : seen_(seen) {}
    bool process(protocol_event& e) override {
      seen_.push_back(e.method);
      return false;
    }

   private:
    strs& seen_;
  };
  stream_mux mux({std::make_shared<plain_transformer>(),
                  std::make_shared<reject_transformer>(seen_by_second)});
  mux.push(pevent("values"));
  mux.close();
  BOOST_TEST(seen_by_second == (strs{"values"}));
  BOOST_TEST(drain(mux.events()).empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMux::test_empty_mux
BOOST_AUTO_TEST_CASE(TestStreamMux_test_empty_mux) {
  stream_mux mux(std::vector<std::shared_ptr<stream_transformer>>{});
  auto it = mux.events().cursor();
  mux.push(pevent("values", object{{"x", 1}}));
  mux.close();
  const auto events = drain(it);
  BOOST_TEST(events.size() == 1u);
  BOOST_TEST(events[0].method == "values");
  BOOST_TEST(events[0].seq.value_or(-1) == 1);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMux::test_empty_mux_fail
BOOST_AUTO_TEST_CASE(TestStreamMux_test_empty_mux_fail) {
  stream_mux mux(std::vector<std::shared_ptr<stream_transformer>>{});
  mux.fail(failure("boom"));
  BOOST_TEST(throws_with([&] { drain(mux.events()); }, "boom"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestValuesTransformer::test_ignores_non_root_namespace
BOOST_AUTO_TEST_CASE(TestValuesTransformer_test_ignores_non_root_namespace) {
  values_transformer t;
  (void)t.init();
  auto it = t.log().cursor();
  t.process(*std::make_unique<protocol_event>(pevent("values", object{{"val", "root"}})));
  t.process(*std::make_unique<protocol_event>(pevent("values", object{{"val", "sub"}}, {"sub"})));
  t.log().close();
  const auto items = drain(it);
  BOOST_TEST(items.size() == 1u);
  BOOST_TEST(items[0].get("val") == value("root"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestValuesTransformer::test_ignores_non_values_methods
BOOST_AUTO_TEST_CASE(TestValuesTransformer_test_ignores_non_values_methods) {
  values_transformer t;
  (void)t.init();
  auto it = t.log().cursor();
  protocol_event e = pevent("updates", object{{"x", 1}});
  BOOST_TEST(t.process(e));
  t.log().close();
  BOOST_TEST(drain(it).empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestValuesTransformer::test_tracks_interrupts
BOOST_AUTO_TEST_CASE(TestValuesTransformer_test_tracks_interrupts) {
  values_transformer t;
  (void)t.init();
  protocol_event e = pevent("values", object{{"v", 1}}, {},
                            list{object{{"value", "pause1"}}, object{{"value", "pause2"}}});
  t.process(e);
  BOOST_TEST(t.interrupted());
  BOOST_TEST(t.interrupts().size() == 2u);
  BOOST_TEST(t.latest() == value(object{{"v", 1}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestOutputWithoutValuesTransformer::test_output_without_values_transformer
BOOST_AUTO_TEST_CASE(TestOutputWithoutValuesTransformer_test_output_without_values_transformer) {
  auto mux = std::make_unique<stream_mux>(
      std::vector<transformer_factory>{factory_of<messages_transformer>()});
  graph_run_stream run(std::move(mux), std::make_unique<vector_source>(std::vector<stream_event>{
                                           {{}, stream_mode::values, object{{"v", "final"}}}}));
  BOOST_TEST(!run.extensions().count("values"));
  BOOST_TEST(code_of([&] { (void)run.values(); }) == error_code::not_found);
  BOOST_TEST(run.output() == value(object{{"v", "final"}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestOutputWithoutValuesTransformer::test_interrupts_without_values_transformer
BOOST_AUTO_TEST_CASE(
    TestOutputWithoutValuesTransformer_test_interrupts_without_values_transformer) {
  auto mux = std::make_unique<stream_mux>(
      std::vector<transformer_factory>{factory_of<messages_transformer>()});
  const value data =
      object{{"v", 1}, {"__interrupt__", value::array({object{{"value", "pause"}}})}};
  graph_run_stream run(
      std::move(mux),
      std::make_unique<vector_source>(std::vector<stream_event>{{{}, stream_mode::values, data}}));
  BOOST_TEST(run.interrupted());
  BOOST_TEST(run.interrupts().size() == 1u);
  BOOST_TEST(run.output() == value(object{{"v", 1}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMessagesTransformer::test_ignores_non_root_namespace
BOOST_AUTO_TEST_CASE(TestMessagesTransformer_test_ignores_non_root_namespace) {
  messages_transformer t;
  (void)t.init();
  auto it = t.log().cursor();
  const value meta = object{{"langgraph_node", "llm"}, {"run_id", "run-1"}};
  protocol_event e = pevent(
      "messages", value::array({object{{"event", "message-start"}, {"message_id", "run-1"}}, meta}),
      {"sub"});
  t.process(e);
  t.log().close();
  BOOST_TEST(drain(it).empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMessagesTransformer::test_ignores_non_messages_methods
BOOST_AUTO_TEST_CASE(TestMessagesTransformer_test_ignores_non_messages_methods) {
  messages_transformer t;
  (void)t.init();
  auto it = t.log().cursor();
  protocol_event e = pevent("values", object{{"v", 1}});
  BOOST_TEST(t.process(e));
  t.log().close();
  BOOST_TEST(drain(it).empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestMessagesTransformer::test_fail_propagates
BOOST_AUTO_TEST_CASE(TestMessagesTransformer_test_fail_propagates) {
  messages_transformer t;
  (void)t.init();
  auto it = t.log().cursor();
  t.log().fail(failure("msg error"));
  BOOST_TEST(throws_with([&] { drain(it); }, "msg error"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMuxResilience::test_close_continues_after_finalize_error
BOOST_AUTO_TEST_CASE(TestStreamMuxResilience_test_close_continues_after_finalize_error) {
  class broken_finalizer : public plain_transformer {
   public:
    void finalize() override { throw std::runtime_error("finalize broke"); }
  };
  class good_transformer : public plain_transformer {
   public:
    bool finalized = false;
    void finalize() override { finalized = true; }
  };
  auto good = std::make_shared<good_transformer>();
  stream_mux mux({std::make_shared<broken_finalizer>(), good});
  mux.push(pevent("values"));
  BOOST_TEST(throws_with([&] { mux.close(); }, "finalize broke"));
  BOOST_TEST(good->finalized);
  BOOST_TEST(mux.events().closed());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMuxResilience::test_fail_continues_after_transformer_error
BOOST_AUTO_TEST_CASE(TestStreamMuxResilience_test_fail_continues_after_transformer_error) {
  class broken_failer : public plain_transformer {
   public:
    void fail(const std::exception_ptr&) override {
      throw std::runtime_error("fail handler broke");
    }
  };
  class good_transformer : public plain_transformer {
   public:
    std::exception_ptr failed_with;
    void fail(const std::exception_ptr& err) override { failed_with = err; }
  };
  auto good = std::make_shared<good_transformer>();
  stream_mux mux({std::make_shared<broken_failer>(), good});
  const std::exception_ptr original = failure("original");
  mux.fail(original);
  BOOST_TEST((good->failed_with == original));
  BOOST_TEST((mux.events().error() == original));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamMuxResilience::test_channels_closed_after_finalize_error
BOOST_AUTO_TEST_CASE(TestStreamMuxResilience_test_channels_closed_after_finalize_error) {
  class broken_with_channel : public plain_transformer {
   public:
    std::shared_ptr<stream_channel<value>> channel = std::make_shared<stream_channel<value>>("ch");
    stream_projections init() override { return {{"ch", channel}}; }
    void finalize() override { throw std::runtime_error("finalize broke"); }
  };
  auto t = std::make_shared<broken_with_channel>();
  stream_mux mux(one(t));
  BOOST_TEST(throws_with([&] { mux.close(); }, "finalize broke"));
  BOOST_TEST(t->channel->closed());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelAutoLifecycle::test_mux_auto_closes_channels
BOOST_AUTO_TEST_CASE(TestStreamChannelAutoLifecycle_test_mux_auto_closes_channels) {
  auto t = std::make_shared<simple_channel_transformer>();
  stream_mux mux(one(t));
  auto it = mux.events().cursor();
  auto items = t->log->cursor();
  mux.push(pevent("values"));
  mux.close();
  BOOST_TEST(drain(it).size() == 1u);
  BOOST_TEST(t->log->closed());
  BOOST_TEST(drain(items) == (strs{"saw_event"}));  // closed by the mux: the cursor ends
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelAutoLifecycle::test_mux_auto_fails_channels
BOOST_AUTO_TEST_CASE(TestStreamChannelAutoLifecycle_test_mux_auto_fails_channels) {
  auto t = std::make_shared<simple_channel_transformer>();
  stream_mux mux(one(t));
  auto it = t->log->cursor();
  mux.push(pevent("values"));
  mux.fail(failure("boom"));
  strs items;
  BOOST_TEST(throws_with(
      [&] {
        for (auto& s : it) items.push_back(s);
      },
      "boom"));
  BOOST_TEST(items == (strs{"saw_event"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelAutoLifecycle::test_no_double_close_if_transformer_closes_own_log
BOOST_AUTO_TEST_CASE(
    TestStreamChannelAutoLifecycle_test_no_double_close_if_transformer_closes_own_log) {
  class manual_close_transformer : public plain_transformer {
   public:
    std::shared_ptr<stream_channel<std::string>> log =
        std::make_shared<stream_channel<std::string>>();
    stream_projections init() override { return {{"items", log}}; }
    void finalize() override { log->close(); }
  };
  auto t = std::make_shared<manual_close_transformer>();
  stream_mux mux(one(t));
  BOOST_CHECK_NO_THROW(mux.close());
  BOOST_TEST(t->log->closed());
  BOOST_TEST(!t->log->error());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_stream_channel_seq_ordering
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_stream_channel_seq_ordering) {
  // A channel push forwarded while an event is processed is numbered before that event.
  class channel_pusher : public plain_transformer {
   public:
    std::shared_ptr<stream_channel<value>> channel = std::make_shared<stream_channel<value>>("ch");
    stream_projections init() override { return {{"ch", channel}}; }
    bool process(protocol_event& e) override {
      channel->push("saw:" + e.method);
      return true;
    }
  };
  stream_mux mux(one(std::make_shared<channel_pusher>()));
  auto it = mux.events().cursor();
  mux.push(pevent("values"));
  mux.push(pevent("updates"));
  mux.close();
  const auto events = drain(it);
  BOOST_TEST(methods(events) == (strs{"custom:ch", "values", "custom:ch", "updates"}));
  for (std::size_t i = 0; i < events.size(); ++i)
    BOOST_TEST(events[i].seq.value_or(-1) == static_cast<std::int64_t>(i + 1));
  BOOST_TEST(events[0].params.data == value("saw:values"));
}
