// Graph lifecycle callbacks (stream_options::callbacks, graph_callbacks.hpp) beyond LangGraph's
// own tests (tests/conformance/graph_callbacks_test.cpp): interrupts raised inside subgraphs,
// breakpoints, what an event carries, and a resume handler marked raise_error.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "coordinator/test_execution.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "support/expect_error.hpp"
#include "support/recording_graph_handler.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using recording_handler = test::recording_graph_handler;

class raising_resume_handler final : public graph_callback_handler {
 public:
  raising_resume_handler() : graph_callback_handler(/*raise_error=*/true) {}
  void on_resume(const graph_resume_event&) override { throw std::invalid_argument("boom-resume"); }
};

compile_options with_saver(compile_options o = test::opts()) {
  o.checkpointer = test::make_saver();
  return o;
}

stream_options told(std::shared_ptr<graph_callback_handler> handler) {
  stream_options o;
  o.callbacks = {std::move(handler)};
  return o;
}

// Thread "t" with run id `run_id`.
value run_config(const char* run_id) {
  return object{{"configurable", object{{"thread_id", "t"}}}, {"run_id", run_id}};
}

// A graph whose node "ask" asks for its answer, counting its runs.
state_graph asking_graph(std::shared_ptr<std::atomic<int>> runs) {
  state_graph b;
  b.add_key("answer");
  b.add_node("ask", [runs](const value&, node_context& ctx) -> value {
    runs->fetch_add(1);
    return object{{"answer", ctx.interrupt("question")}};
  });
  b.add_edge("__start__", "ask");
  return b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_subgraph_interrupt_is_told_by_the_run_and_its_resume_by_both_graphs) {
  for (auto kept : {subgraph_checkpointer::per_invocation, subgraph_checkpointer::stateful}) {
    BOOST_TEST_CONTEXT((kept == subgraph_checkpointer::stateful ? "stateful" : "per invocation")) {
      compile_options sub_options = test::opts();
      sub_options.as_subgraph = kept;
      auto sub = asking_graph(std::make_shared<std::atomic<int>>(0)).compile(sub_options);
      state_graph b;
      b.add_key("answer");
      b.add_node("sub", sub);
      b.add_edge("__start__", "sub");
      auto graph = b.compile(with_saver());
      auto handler = std::make_shared<recording_handler>();

      value out = graph->invoke(object{{"answer", value()}}, run_config("run-1"), told(handler));
      BOOST_TEST((out.find("__interrupt__") != nullptr));
      BOOST_TEST(handler->resume_events.empty());
      // As LangGraph: the top-level graph tells it, with the subgraph's interrupt.
      BOOST_TEST_REQUIRE(handler->interrupt_events.size() == 1u);
      const graph_interrupt_event& paused = handler->interrupt_events[0];
      BOOST_TEST(paused.run_id == "run-1");
      BOOST_TEST((paused.status == graph_lifecycle_status::pending));
      BOOST_TEST(paused.checkpoint_ns.empty());
      BOOST_TEST_REQUIRE(paused.interrupts.size() == 1u);
      BOOST_TEST(paused.interrupts[0].get("value") == value("question"));
      BOOST_TEST(paused.interrupts[0] == out.get("__interrupt__").as_list().at(0));
      state_snapshot at = graph->get_state(test::thread("t"), true);
      BOOST_TEST(paused.checkpoint_id == at.config.checkpoint_id);
      BOOST_TEST_REQUIRE(at.tasks.size() == 1u);
      BOOST_TEST_REQUIRE(at.tasks[0].state != nullptr);
      const checkpoint_config& sub_at = at.tasks[0].state->config;

      out = graph->invoke(test::resume("yes"), run_config("run-2"), told(handler));
      BOOST_TEST(out.to_json() == R"({"answer":"yes"})");
      BOOST_TEST(handler->interrupt_events.size() == 1u);
      // The run resumes, then the subgraph from its own checkpoint when its task runs again.
      BOOST_TEST_REQUIRE(handler->resume_events.size() == 2u);
      const graph_resume_event& root = handler->resume_events[0];
      BOOST_TEST(root.run_id == "run-2");
      BOOST_TEST((root.status == graph_lifecycle_status::pending));
      BOOST_TEST(root.checkpoint_id == at.config.checkpoint_id);
      BOOST_TEST(root.checkpoint_ns.empty());
      const graph_resume_event& inner = handler->resume_events[1];
      BOOST_TEST(inner.run_id == "run-2");
      BOOST_TEST(inner.checkpoint_id == sub_at.checkpoint_id);
      BOOST_TEST_REQUIRE(inner.checkpoint_ns.size() == 1u);
      BOOST_TEST(inner.checkpoint_ns[0] == sub_at.checkpoint_ns);
      if (kept == subgraph_checkpointer::stateful)
        BOOST_TEST(inner.checkpoint_ns[0] == "sub");
      else
        BOOST_TEST(inner.checkpoint_ns[0].rfind("sub:", 0) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(breakpoints_are_told_with_their_status_and_no_interrupts) {
  state_graph b;
  b.add_key("log", "append");
  for (const char* n : {"a", "b"})
    b.add_node(n, [n](const value&, node_context&) -> value { return object{{"log", list{n}}}; });
  b.add_edge("__start__", "a").add_edge("a", "b");
  compile_options o = with_saver();
  o.interrupt_before = {"b"};
  o.interrupt_after = {"b"};
  auto graph = b.compile(o);
  auto handler = std::make_shared<recording_handler>();
  const value cfg = test::thread("t");

  graph->invoke(object{{"log", list{}}}, cfg, told(handler));
  BOOST_TEST_REQUIRE(handler->interrupt_events.size() == 1u);
  BOOST_TEST((handler->interrupt_events[0].status == graph_lifecycle_status::interrupt_before));
  BOOST_TEST(handler->interrupt_events[0].interrupts.empty());
  BOOST_TEST(handler->interrupt_events[0].checkpoint_id ==
             graph->get_state(cfg).config.checkpoint_id);
  BOOST_TEST(handler->resume_events.empty());

  const std::string before_b = graph->get_state(cfg).config.checkpoint_id;
  graph->invoke(value(), cfg, told(handler));
  BOOST_TEST_REQUIRE(handler->resume_events.size() == 1u);
  BOOST_TEST(handler->resume_events[0].checkpoint_id == before_b);
  BOOST_TEST_REQUIRE(handler->interrupt_events.size() == 2u);
  BOOST_TEST((handler->interrupt_events[1].status == graph_lifecycle_status::interrupt_after));
  BOOST_TEST(handler->interrupt_events[1].checkpoint_id ==
             graph->get_state(cfg).config.checkpoint_id);

  BOOST_TEST(graph->invoke(value(), cfg, told(handler)).to_json() == R"({"log":["a","b"]})");
  BOOST_TEST(handler->resume_events.size() == 2u);
  BOOST_TEST(handler->interrupt_events.size() == 2u);  // the run ended: nothing to tell
}

BOOST_AUTO_TEST_CASE(a_resume_handler_marked_raise_error_fails_the_run_before_its_step) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  auto graph = asking_graph(runs).compile(with_saver());
  const value cfg = test::thread("t");
  graph->invoke(object{{"answer", value()}}, cfg);
  BOOST_TEST(runs->load() == 1);

  BOOST_CHECK_EXCEPTION(
      graph->invoke(test::resume("yes"), cfg, told(std::make_shared<raising_resume_handler>())),
      std::invalid_argument,
      [](const std::invalid_argument& e) { return std::string(e.what()) == "boom-resume"; });
  BOOST_TEST(runs->load() == 1);  // the interrupted node did not run again
  BOOST_TEST(graph->get_state(cfg).next == std::vector<std::string>{"ask"},
             boost::test_tools::per_element());

  BOOST_TEST(graph->invoke(test::resume("yes"), cfg).to_json() == R"({"answer":"yes"})");
  BOOST_TEST(runs->load() == 2);
}

BOOST_AUTO_TEST_CASE(a_subgraph_resume_handler_marked_raise_error_fails_the_run) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  auto sub = asking_graph(runs).compile(test::opts());
  state_graph b;
  b.add_key("answer");
  b.add_node("sub", sub);
  b.add_edge("__start__", "sub");
  auto graph = b.compile(with_saver());
  const value cfg = test::thread("t");
  graph->invoke(object{{"answer", value()}}, cfg);

  // Only the subgraph's resume throws: its task fails with it, and so the run.
  class raising_in_subgraphs final : public graph_callback_handler {
   public:
    raising_in_subgraphs() : graph_callback_handler(true) {}
    void on_resume(const graph_resume_event& e) override {
      if (!e.checkpoint_ns.empty()) throw std::invalid_argument("boom-resume");
    }
  };
  test::expect_error(
      [&] {
        graph->invoke(test::resume("yes"), cfg, told(std::make_shared<raising_in_subgraphs>()));
      },
      error_code::node_error, "boom-resume");
  BOOST_TEST(runs->load() == 1);
}
