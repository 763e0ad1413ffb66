// LangGraph's v3 event streaming: the before_builtins lane of the mux
// (libs/langgraph/tests/test_stream_before_builtins.py).
#include <typeinfo>

#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

/// `_Tap`: records its label in `log` each time it sees an event; projection "tap_<label>".
class tap : public stream_transformer {
 public:
  tap(std::vector<std::string> scope, std::string label, std::shared_ptr<strs> seen = nullptr)
      : stream_transformer(std::move(scope)), label(std::move(label)), seen_(std::move(seen)) {}
  stream_projections init() override { return {{"tap_" + label, channel_}}; }
  bool process(protocol_event&) override {
    log.push_back(label);
    if (seen_) seen_->push_back(label);
    return true;
  }
  std::string label;
  strs log;

 private:
  std::shared_ptr<strs> seen_;
  std::shared_ptr<stream_channel<value>> channel_ = std::make_shared<stream_channel<value>>();
};

/// `_PreTap`.
class pre_tap : public tap {
 public:
  using tap::tap;
  bool before_builtins() const override { return true; }
};

/// `_TextRedactor`: rewrites the text of text-delta content-block events to "[REDACTED]".
class text_redactor : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {{"redactor", channel_}}; }
  bool before_builtins() const override { return true; }
  std::vector<stream_mode> required_stream_modes() const override {
    return {stream_mode::messages};
  }
  bool process(protocol_event& e) override {
    if (e.method != "messages" || !e.params.data.is_list() || e.params.data.as_list().size() != 2)
      return true;
    const value& payload = e.params.data.as_list()[0];
    if (payload.get("event") != value("content-block-delta")) return true;
    if (payload.get("delta").get("type") != value("text-delta")) return true;
    object delta = payload.get("delta").as_object();
    delta.set("text", "[REDACTED]");
    object changed = payload.as_object();
    changed.set("delta", value(std::move(delta)));
    e.params.data = value::array({value(std::move(changed)), e.params.data.as_list()[1]});
    return true;
  }

 private:
  std::shared_ptr<stream_channel<value>> channel_ = std::make_shared<stream_channel<value>>();
};

protocol_event messages_event(value payload, value meta) {
  return pevent("messages", value::array({std::move(payload), std::move(meta)}));
}

template <class T>
std::ptrdiff_t index_of(const stream_mux& mux) {
  const auto& ts = mux.transformers();
  for (std::size_t i = 0; i < ts.size(); ++i)
    if (dynamic_cast<T*>(ts[i].get())) return static_cast<std::ptrdiff_t>(i);
  return -1;
}

}  // namespace

// libs/langgraph/tests/test_stream_before_builtins.py::test_before_builtins_factories_run_before_others
BOOST_AUTO_TEST_CASE(test_before_builtins_factories_run_before_others) {
  auto seen = std::make_shared<strs>();
  stream_mux mux(std::vector<transformer_factory>{
      [seen](const std::vector<std::string>& s) { return std::make_shared<tap>(s, "post", seen); },
      [seen](const std::vector<std::string>& s) {
        return std::make_shared<pre_tap>(s, "eager", seen);
      }});
  // The eager tap was given second but is registered first...
  BOOST_REQUIRE(mux.transformers().size() == 2u);
  BOOST_TEST(static_cast<tap&>(*mux.transformers()[0]).label == "eager");
  BOOST_TEST(static_cast<tap&>(*mux.transformers()[1]).label == "post");
  // ...and runs first.
  mux.push(
      messages_event(object{{"event", "message-start"}, {"role", "ai"}, {"id", "m1"}}, object{}));
  BOOST_TEST(*seen == (strs{"eager", "post"}));
}

// libs/langgraph/tests/test_stream_before_builtins.py::test_within_lane_order_preserved
BOOST_AUTO_TEST_CASE(test_within_lane_order_preserved) {
  const auto make_tap = [](std::string label) -> transformer_factory {
    return [label](const std::vector<std::string>& s) { return std::make_shared<tap>(s, label); };
  };
  const auto make_pre = [](std::string label) -> transformer_factory {
    return
        [label](const std::vector<std::string>& s) { return std::make_shared<pre_tap>(s, label); };
  };
  stream_mux mux(
      std::vector<transformer_factory>{make_tap("c"), make_pre("a"), make_tap("d"), make_pre("b")});
  strs order;
  for (const auto& t : mux.transformers()) order.push_back(static_cast<tap&>(*t).label);
  BOOST_TEST(order == (strs{"a", "b", "c", "d"}));
}

// libs/langgraph/tests/test_stream_before_builtins.py::test_redactor_runs_before_messages_transformer
BOOST_AUTO_TEST_CASE(test_redactor_runs_before_messages_transformer) {
  // Given after the built-in (as stream_events orders them), registered before it.
  stream_mux mux(std::vector<transformer_factory>{factory_of<messages_transformer>(),
                                                  factory_of<text_redactor>()});
  BOOST_TEST(index_of<text_redactor>(mux) < index_of<messages_transformer>(mux));
  BOOST_TEST(index_of<text_redactor>(mux) >= 0);
}

// libs/langgraph/tests/test_stream_before_builtins.py::test_lifecycle_unaffected_by_pre_lane_observer
BOOST_AUTO_TEST_CASE(test_lifecycle_unaffected_by_pre_lane_observer) {
  class noop_pre_observer : public stream_transformer {
   public:
    using stream_transformer::stream_transformer;
    std::vector<std::vector<std::string>> seen;
    stream_projections init() override { return {{"noop_observer", channel_}}; }
    bool before_builtins() const override { return true; }
    std::vector<stream_mode> required_stream_modes() const override { return {stream_mode::tasks}; }
    bool process(protocol_event& e) override {
      if (e.method == "tasks") seen.push_back(e.params.ns);
      return true;
    }

   private:
    std::shared_ptr<stream_channel<value>> channel_ = std::make_shared<stream_channel<value>>();
  };
  stream_mux mux(std::vector<transformer_factory>{factory_of<lifecycle_transformer>(),
                                                  factory_of<tasks_transformer>(),
                                                  factory_of<noop_pre_observer>()});
  BOOST_TEST(index_of<noop_pre_observer>(mux) < index_of<lifecycle_transformer>(mux));
  auto& observer = dynamic_cast<noop_pre_observer&>(*mux.transformers()[0]);
  auto& lifecycle = dynamic_cast<lifecycle_transformer&>(
      *mux.transformers()[index_of<lifecycle_transformer>(mux)]);

  mux.push(pevent("tasks", object{{"name", "child"}}, {"child:abc"}));
  // The observer saw it, and the lifecycle transformer still registered the namespace.
  BOOST_TEST(observer.seen == (std::vector<strs>{{"child:abc"}}));
  BOOST_TEST(lifecycle.seen().count(strs{"child:abc"}) == 1u);
}

// libs/langgraph/tests/test_stream_before_builtins.py::test_default_is_false
BOOST_AUTO_TEST_CASE(test_default_is_false) {
  BOOST_TEST(!plain_transformer().before_builtins());
  BOOST_TEST(!messages_transformer().before_builtins());
  BOOST_TEST(!lifecycle_transformer().before_builtins());
}

// libs/langgraph/tests/test_stream_before_builtins.py::test_pre_lane_mutation_lands_in_messages_projection
BOOST_AUTO_TEST_CASE(test_pre_lane_mutation_lands_in_messages_projection) {
  stream_mux mux(std::vector<transformer_factory>{factory_of<messages_transformer>(),
                                                  factory_of<text_redactor>()});
  auto& messages =
      dynamic_cast<messages_transformer&>(*mux.transformers()[index_of<messages_transformer>(mux)]);
  auto logged = mux.events().cursor();
  auto projected = messages.log().cursor();

  const value meta = object{{"langgraph_node", "model"}, {"run_id", "run-1"}};
  mux.push(
      messages_event(object{{"event", "message-start"}, {"role", "ai"}, {"id", "msg-1"}}, meta));
  mux.push(messages_event(
      object{{"event", "content-block-delta"},
             {"index", 0},
             {"delta", object{{"type", "text-delta"}, {"text", "secret@example.com"}}}},
      meta));
  // The stream still open, before message-finish takes it out of the routing.
  BOOST_REQUIRE(messages.open_streams().count("run-1") == 1u);
  const auto chat_stream = messages.open_streams().at("run-1");
  mux.push(messages_event(object{{"event", "message-finish"}}, meta));
  mux.close();

  // The text the chat model stream took is the redacted one.
  const auto items = drain(projected);
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0] == chat_stream);
  BOOST_TEST(chat_stream->text_deltas_so_far() == (strs{"[REDACTED]"}));
  BOOST_TEST(chat_stream->output_text() == "[REDACTED]");
  // The main log has the redacted event too.
  const auto events = drain(logged);
  BOOST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[1].params.data.as_list()[0].get("delta").get("text") == value("[REDACTED]"));
}
