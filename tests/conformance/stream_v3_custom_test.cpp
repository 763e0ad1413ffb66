// LangGraph's v3 event streaming: user transformers on real runs, and what stream_events takes
// besides them (libs/langgraph/tests/test_pregel_stream_events_v3.py, TestCustomTransformer and
// TestStreamChannelAutoLifecycle on graphs; test_stream_events_v3_kwarg_forwarding.py;
// test_stream_events_v3.py::TestV2Stream::test_stream_events_v3_accepts_control_for_drain).
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

/// `CounterTransformer`: a named channel "counter" of the number of values events so far.
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
  int count_ = 0;
};

/// `FooTransformer`: native, a local channel "foo" of "saw_values".
class foo_transformer : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {{"foo", log_}}; }
  bool native() const override { return true; }
  bool process(protocol_event& e) override {
    if (e.method == "values") log_->push("saw_values");
    return true;
  }

 private:
  std::shared_ptr<stream_channel<value>> log_ = std::make_shared<stream_channel<value>>();
};

}  // namespace

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_extension_transformer_with_stream_channel
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_extension_transformer_with_stream_channel) {
  auto run = simple_graph()->stream_events(simple_input(), value(), {},
                                           {factory_of<counter_transformer>()});
  BOOST_TEST(run->extensions().count("counter") == 1u);
  auto counter = run->extension<stream_channel<value>>("counter").cursor();
  (void)run->output();
  const auto counts = drain(counter);
  BOOST_TEST(counts == (std::vector<value>{1, 2, 3}));
  // Not native: no direct projection.
  BOOST_TEST(!run->native_keys().count("counter"));
  BOOST_TEST(code_of([&] { (void)run->native<stream_channel<value>>("counter"); }) ==
             error_code::not_found);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_native_transformer_gets_direct_attr
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_native_transformer_gets_direct_attr) {
  auto run =
      simple_graph()->stream_events(simple_input(), value(), {}, {factory_of<foo_transformer>()});
  auto& foo = run->native<stream_channel<value>>("foo");
  auto it = foo.cursor();
  (void)run->output();
  BOOST_TEST(run->extensions().count("foo") == 1u);
  BOOST_TEST(&foo == run->extensions().at("foo").get());
  const auto items = drain(it);
  BOOST_TEST(std::count(items.begin(), items.end(), value("saw_values")) == 3);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_stream_events_v3_rejects_transformer_instances
// Python rejects a pre-built transformer because it cannot be made again for each subgraph
// scope; a C++ caller passes factories by type, and what can still be wrong is a factory that
// is empty or makes nothing, refused naming its position.
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_stream_events_v3_rejects_transformer_instances) {
  auto graph = simple_graph();
  BOOST_TEST(throws_with(
      [&] { (void)graph->stream_events(simple_input(), value(), {}, {transformer_factory()}); },
      "transformer factory #0 is empty"));
  BOOST_TEST(throws_with(
      [&] {
        (void)graph->stream_events(simple_input(), value(), {},
                                   {[](const std::vector<std::string>&) {
                                     return std::shared_ptr<stream_transformer>();
                                   }});
      },
      "made no transformer"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_stream_channel_auto_forward
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_stream_channel_auto_forward) {
  class emitter_transformer : public stream_transformer {
   public:
    using stream_transformer::stream_transformer;
    stream_projections init() override { return {{"emitter", channel_}}; }
    bool process(protocol_event& e) override {
      if (e.method == "values") channel_->push("emitted");
      return true;
    }

   private:
    std::shared_ptr<stream_channel<value>> channel_ =
        std::make_shared<stream_channel<value>>("emitter");
  };
  auto run = simple_graph()->stream_events(simple_input(), value(), {},
                                           {factory_of<emitter_transformer>()});
  std::vector<protocol_event> forwarded;
  for (auto& e : run->events())
    if (e.method == "custom:emitter") forwarded.push_back(e);
  BOOST_REQUIRE(forwarded.size() == 3u);  // one per values event
  BOOST_TEST(forwarded[0].params.data == value("emitted"));
  BOOST_TEST(forwarded[0].params.ns.empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestCustomTransformer::test_projection_key_conflict_raises
BOOST_AUTO_TEST_CASE(TestCustomTransformer_test_projection_key_conflict_raises) {
  class conflict_transformer : public stream_transformer {
   public:
    using stream_transformer::stream_transformer;
    stream_projections init() override {
      return {{"values", std::make_shared<stream_channel<value>>()}};
    }
    bool process(protocol_event&) override { return true; }
  };
  auto graph = simple_graph();
  const auto call = [&] {
    (void)graph->stream_events(simple_input(), value(), {}, {factory_of<conflict_transformer>()});
  };
  BOOST_TEST(throws_with(call,
                         "conflict with already-registered keys: 'values' (owned by "
                         "values_transformer)"));
  BOOST_TEST(code_of(call) == error_code::invalid_argument);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelAutoLifecycle::test_transformer_without_finalize_works
BOOST_AUTO_TEST_CASE(TestStreamChannelAutoLifecycle_test_transformer_without_finalize_works) {
  class minimal_transformer : public stream_transformer {
   public:
    using stream_transformer::stream_transformer;
    stream_projections init() override { return {{"minimal", log_}}; }
    bool process(protocol_event& e) override {
      if (e.method == "values") log_->push("got_it");
      return true;
    }

   private:
    std::shared_ptr<stream_channel<value>> log_ = std::make_shared<stream_channel<value>>();
  };
  auto run = simple_graph()->stream_events(simple_input(), value(), {},
                                           {factory_of<minimal_transformer>()});
  auto minimal = run->extension<stream_channel<value>>("minimal").cursor();
  (void)run->output();
  // Closed by the mux at the end of the run, so the cursor ends.
  BOOST_TEST(drain(minimal).size() == 3u);
}

namespace {

/// `_build_context_reading_graph`: read_context answers with the run context's api_key.
std::shared_ptr<pregel> context_reading_graph() {
  state_graph g;
  g.add_key("message");
  g.add_node("read_context", [](const value&, node_context& ctx) -> value {
    return object{{"message", "api key: " + ctx.context().get("api_key").as_string()}};
  });
  g.add_edge("__start__", "read_context");
  g.add_edge("read_context", "__end__");
  return g.compile(opts());
}

}  // namespace

// libs/langgraph/tests/test_stream_events_v3_kwarg_forwarding.py::TestKwargForwardingSync::test_context_reaches_node
// LangGraph's context= keyword is the run config's "context" here; stream_events hands the
// config and the run options to the run as given.
BOOST_AUTO_TEST_CASE(TestKwargForwardingSync_test_context_reaches_node) {
  auto run = context_reading_graph()->stream_events(
      object{{"message", "hello"}}, object{{"context", object{{"api_key", "sk_sync"}}}});
  BOOST_TEST(run->output() == value(object{{"message", "api key: sk_sync"}}));
}

// libs/langgraph/tests/test_stream_events_v3_kwarg_forwarding.py::TestKwargForwardingSync::test_rejects_stream_mode
BOOST_AUTO_TEST_CASE(TestKwargForwardingSync_test_rejects_stream_mode) {
  auto graph = context_reading_graph();
  stream_options o;
  o.modes = {stream_mode::values};
  const auto call = [&] { (void)graph->stream_events(object{{"message", "hello"}}, value(), o); };
  BOOST_TEST(throws_with(call, "does not accept stream_options modes"));
  BOOST_TEST(code_of(call) == error_code::invalid_argument);
}

// libs/langgraph/tests/test_stream_events_v3_kwarg_forwarding.py::TestKwargForwardingSync::test_rejects_subgraphs
// Python refuses the keyword whatever its value; a C++ bool cannot be absent, so the one that
// can be refused is subgraphs = true (false is what stream_options has by default).
BOOST_AUTO_TEST_CASE(TestKwargForwardingSync_test_rejects_subgraphs) {
  auto graph = context_reading_graph();
  stream_options o;
  o.subgraphs = true;
  const auto call = [&] { (void)graph->stream_events(object{{"message", "hello"}}, value(), o); };
  BOOST_TEST(throws_with(call, "does not accept stream_options subgraphs"));
  BOOST_TEST(code_of(call) == error_code::invalid_argument);
}

// libs/langgraph/tests/test_stream_events_v3.py::TestV2Stream::test_stream_events_v3_accepts_control_for_drain
BOOST_AUTO_TEST_CASE(TestV2Stream_test_stream_events_v3_accepts_control_for_drain) {
  auto control = std::make_shared<run_control>();
  auto skipped = std::make_shared<std::atomic<bool>>(false);
  state_graph g;
  g.add_key("value");
  g.add_key("skipped");
  g.add_node("first", [control](const value&, node_context&) -> value {
    control->request_drain("sigterm");
    return object{{"value", "done"}};
  });
  g.add_node("second", [skipped](const value&, node_context&) -> value {
    *skipped = true;
    return object{{"skipped", "nope"}};
  });
  g.add_edge("__start__", "first");
  g.add_edge("first", "second");
  g.add_edge("second", "__end__");
  auto graph = g.compile(opts());
  stream_options o;
  o.control = control;
  auto run = graph->stream_events(object{}, value(), o);
  const auto call = [&] { (void)drain(run->values()); };
  BOOST_TEST(throws_with(call, "sigterm"));
  BOOST_TEST(code_of([&] { (void)run->output(); }) == error_code::drained);
  BOOST_TEST(!skipped->load());
}
