// LangGraph's libs/langgraph/tests/test_graph_callbacks.py: graph lifecycle callbacks
// (graph_callback_handler in stream_options::callbacks) told when a run pauses at interrupts
// and when it resumes; see conformance.hpp. LangGraph's tests also pass a LangChain handler
// that must hear nothing: here only graph_callback_handlers can be given.
#include <memory>
#include <stdexcept>
#include <vector>

#include "conformance.hpp"
#include "support/recording_graph_handler.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// LangGraph's _GraphEventHandler.
using recording_handler = test::recording_graph_handler;

// LangGraph's _RaisingGraphEventHandler; its ValueError is std::invalid_argument.
struct raising {
  bool on_interrupt = false;
  bool on_resume = false;
  bool raise_error = false;
};

class raising_handler final : public graph_callback_handler {
 public:
  explicit raising_handler(raising r) : graph_callback_handler(r.raise_error), r_(r) {}
  void on_interrupt(const graph_interrupt_event&) override {
    if (r_.on_interrupt) throw std::invalid_argument("boom-interrupt");
  }
  void on_resume(const graph_resume_event&) override {
    if (r_.on_resume) throw std::invalid_argument("boom-resume");
  }

 private:
  raising r_;
};

// LangGraph's _build_interrupt_graph: one node that asks for its answer.
std::shared_ptr<pregel> interrupt_graph() {
  state_graph b;
  b.add_key("answer");
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    return object{{"answer", ctx.interrupt("Provide value")}};
  });
  b.add_edge("__start__", "ask");
  return b.compile(opts_with_saver());
}

stream_options told(std::vector<std::shared_ptr<graph_callback_handler>> handlers) {
  stream_options o;
  o.callbacks = std::move(handlers);
  return o;
}

const value no_answer = object{{"answer", value()}};

}  // namespace

// libs/langgraph/tests/test_graph_callbacks.py::test_graph_callbacks_interrupt_and_resume_sync
BOOST_AUTO_TEST_CASE(test_graph_callbacks_interrupt_and_resume_sync) {
  auto graph = interrupt_graph();
  auto handler = std::make_shared<recording_handler>();
  const value cfg = thread("graph-callback-sync");

  value first = graph->invoke(no_answer, cfg, told({handler}));
  BOOST_TEST((first.find("__interrupt__") != nullptr));
  BOOST_TEST_REQUIRE(handler->interrupt_events.size() == 1u);
  const graph_interrupt_event& paused = handler->interrupt_events[0];
  BOOST_TEST_REQUIRE(!paused.interrupts.empty());
  // An Interrupt: its value and id.
  BOOST_TEST(paused.interrupts[0].get("value") == value("Provide value"));
  BOOST_TEST(paused.interrupts[0].get("id").is_string());
  BOOST_TEST(paused.checkpoint_ns.empty());

  handler->resume_events.clear();
  value resumed = graph->invoke(resume("done"), cfg, told({handler}));
  BOOST_TEST(resumed.to_json() == R"({"answer":"done"})");
  BOOST_TEST_REQUIRE(handler->resume_events.size() == 1u);
  BOOST_TEST(handler->resume_events[0].checkpoint_ns.empty());
}

// libs/langgraph/tests/test_graph_callbacks.py::test_graph_callbacks_continue_when_interrupt_handler_raises_sync
BOOST_AUTO_TEST_CASE(test_graph_callbacks_continue_when_interrupt_handler_raises_sync) {
  auto graph = interrupt_graph();
  auto raises = std::make_shared<raising_handler>(raising{.on_interrupt = true});
  auto recording = std::make_shared<recording_handler>();

  value first =
      graph->invoke(no_answer, thread("graph-callback-sync-raises"), told({raises, recording}));
  BOOST_TEST((first.find("__interrupt__") != nullptr));
  BOOST_TEST(recording->interrupt_events.size() == 1u);
}

// libs/langgraph/tests/test_graph_callbacks.py::test_graph_callbacks_continue_when_resume_handler_raises_sync
BOOST_AUTO_TEST_CASE(test_graph_callbacks_continue_when_resume_handler_raises_sync) {
  auto graph = interrupt_graph();
  auto raises = std::make_shared<raising_handler>(raising{.on_resume = true});
  auto recording = std::make_shared<recording_handler>();
  const value cfg = thread("graph-callback-sync-raises-resume");

  value first = graph->invoke(no_answer, cfg, told({raises, recording}));
  BOOST_TEST((first.find("__interrupt__") != nullptr));

  value resumed = graph->invoke(resume("done"), cfg, told({raises, recording}));
  BOOST_TEST(resumed.to_json() == R"({"answer":"done"})");
  BOOST_TEST(recording->resume_events.size() == 1u);
}

// libs/langgraph/tests/test_graph_callbacks.py::test_graph_callbacks_raise_error_propagates_sync
BOOST_AUTO_TEST_CASE(test_graph_callbacks_raise_error_propagates_sync) {
  auto graph = interrupt_graph();
  auto raises =
      std::make_shared<raising_handler>(raising{.on_interrupt = true, .raise_error = true});

  BOOST_CHECK_EXCEPTION(
      graph->invoke(no_answer, thread("graph-callback-sync-raise-error"), told({raises})),
      std::invalid_argument,
      [](const std::invalid_argument& e) { return std::string(e.what()) == "boom-interrupt"; });
}
