// LangGraph's large cases of interrupts (libs/langgraph/tests/test_large_cases.py): a dynamic
// interrupt in a node, in a subgraph and beside a finished Send, resumed or cleared with
// update_state(as_node=END); a static one between two processes; see conformance.hpp.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

retry_policy fast_retries() {
  retry_policy r;
  r.initial_interval_ms = 1;
  r.max_interval_ms = 1;
  r.jitter = false;
  return r;
}

// A one-shot event, waited for with a bound so a broken run fails instead of hanging.
struct latch {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  bool armed = false;  // wait() waits only while armed
  void set(bool v) {
    std::lock_guard lock(m);
    open = v;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(m);
    if (armed) cv.wait_for(lock, std::chrono::seconds(10), [&] { return open; });
  }
};

// LangGraph's tool_two_node: interrupts when market is DE (once `before_interrupt` lets it,
// as LangGraph's sleep there), else answers " all good"; counts its calls.
node_function tool_two_node(std::shared_ptr<std::atomic<int>> count,
                            std::shared_ptr<latch> before_interrupt = nullptr) {
  return [count, before_interrupt](const value& s, node_context& ctx) -> value {
    ++*count;
    if (s.get("market") != value("DE")) return object{{"my_key", " all good"}};
    if (before_interrupt) before_interrupt->wait();
    return object{{"my_key", ctx.interrupt("Just because...")}};
  };
}

value with_durability(const value& cfg, const char* durability) {
  object o = cfg.as_object();
  o.set("durability", durability);
  return o;
}

std::vector<value> metadata_of(checkpoint_saver& saver, const char* thread_id) {
  std::vector<value> out;
  for (const auto& t : saver.list(checkpoint_config{thread_id, "", ""}, {}))
    out.push_back(metadata_to_value(t.metadata));
  return out;
}

void requires_thread_id(const pregel& graph) {
  try {
    graph.invoke(object{{"my_key", "value"}, {"market", "DE"}});
    BOOST_FAIL("a run with a checkpointer and no thread_id must be refused");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("thread_id") != std::string::npos, e.what());
  }
}

const char* const interrupted = R"({"__interrupt__":[{"value":"Just because...","id":"*"}]})";

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_dynamic_interrupt
// (the tracer's run, a callback, left out; its outputs are the invoke's own)
BOOST_AUTO_TEST_CASE(test_dynamic_interrupt) {
  auto count = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key("my_key", "add").add_key("market");
  b.add_node("tool_two", tool_two_node(count), node_options{.retry = {fast_retries()}});
  b.add_edge("__start__", "tool_two");
  auto tool_two = b.compile(opts());
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value"}, {"market", "DE"}})) ==
             R"({"my_key":"value","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(count->load() == 1, "interrupts aren't retried");
  BOOST_TEST(tool_two->invoke(object{{"my_key", "value"}, {"market", "US"}}).to_json() ==
             R"({"my_key":"value all good","market":"US"})");

  tool_two = b.compile(opts_with_saver());
  requires_thread_id(*tool_two);

  const value thread2 = thread("2");
  BOOST_TEST(stream_all(*tool_two, object{{"my_key", "value ⛰️"}, {"market", "DE"}}, thread2) ==
                 strings{interrupted},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*tool_two, resume(" my answer"), thread2) ==
                 strings{R"({"tool_two":{"my_key":" my answer"}})"},
             boost::test_tools::per_element());

  // Interrupt, then clear the tasks.
  const value thread1 = thread("1");
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value ⛰️"}, {"market", "DE"}},
                                   with_durability(thread1, "exit"))) ==
             R"({"my_key":"value ⛰️","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(
      metadata_of(*tool_two->checkpointer(), "1") ==
          std::vector<value>{value::parse_json(R"({"source":"loop","step":0,"parents":{}})")},
      boost::test_tools::per_element());
  state_snapshot paused = tool_two->get_state(thread1);
  BOOST_TEST(paused.values.to_json() == R"({"my_key":"value ⛰️","market":"DE"})");
  BOOST_TEST(paused.next == strings{"tool_two"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(paused.tasks.size() == 1u);
  BOOST_TEST(paused.tasks[0].name == "tool_two");
  BOOST_TEST(json(object{{"__interrupt__", paused.tasks[0].interrupts}}) == interrupted);
  BOOST_TEST(paused.metadata.to_json() == R"({"source":"loop","step":0,"parents":{}})");
  BOOST_TEST(!paused.parent_config.has_value());

  tool_two->update_state(thread1, value(), std::string("__end__"));
  state_snapshot cleared = tool_two->get_state(thread1);
  BOOST_TEST(cleared.values.to_json() == R"({"my_key":"value ⛰️","market":"DE"})");
  BOOST_TEST(cleared.next.empty());
  BOOST_TEST(cleared.tasks.empty());
  BOOST_TEST(cleared.metadata.to_json() == R"({"source":"update","step":1,"parents":{}})");
  BOOST_TEST_REQUIRE(cleared.parent_config.has_value());
  BOOST_TEST(cleared.parent_config->checkpoint_id == paused.config.checkpoint_id);
}

// libs/langgraph/tests/test_large_cases.py::test_partial_pending_checkpoint
// (the tracer's run left out)
BOOST_AUTO_TEST_CASE(test_partial_pending_checkpoint) {
  auto count = std::make_shared<std::atomic<int>>(0);
  auto one_streamed = std::make_shared<latch>();
  state_graph b;
  b.add_key("my_key", "add").add_key("market");
  b.add_node("tool_two", tool_two_node(count, one_streamed),
             node_options{.retry = {fast_retries()}});
  b.add_node("tool_one", [](const value&, node_context&) -> value {
    return object{{"my_key", " one"}};
  });
  b.add_conditional_edges("__start__", [](const value& s, node_context&) -> value {
    return list{"tool_two", make_send("tool_one", s)};
  });
  auto tool_two = b.compile(opts());
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value"}, {"market", "DE"}})) ==
             R"({"my_key":"value one","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(count->load() == 1, "interrupts aren't retried");
  BOOST_TEST(tool_two->invoke(object{{"my_key", "value"}, {"market", "US"}}).to_json() ==
             R"({"my_key":"value all good one","market":"US"})");

  tool_two = b.compile(opts_with_saver());
  requires_thread_id(*tool_two);

  // tool_two interrupts once tool_one's update was streamed (LangGraph's sleep).
  const value thread2 = thread("2");
  strings first;
  one_streamed->armed = true;
  tool_two->stream(object{{"my_key", "value ⛰️"}, {"market", "DE"}}, thread2,
                   stream_options{{stream_mode::updates}, false}, [&](const stream_event& e) {
                     first.push_back(json(e.data));
                     if (e.data.as_object().contains("tool_one")) one_streamed->set(true);
                   });
  one_streamed->armed = false;
  BOOST_TEST(first == (strings{R"({"tool_one":{"my_key":" one"}})", interrupted}),
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*tool_two, resume(" my answer"), thread2) ==
                 (strings{R"({"tool_one":{"my_key":" one"},"__metadata__":{"cached":true}})",
                          R"({"tool_two":{"my_key":" my answer"}})"}),
             boost::test_tools::per_element());

  // Interrupt, then clear the unresolved tasks: the finished ones are kept.
  const value thread1 = thread("1");
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value ⛰️"}, {"market", "DE"}},
                                   with_durability(thread1, "exit"))) ==
             R"({"my_key":"value ⛰️ one","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(
      metadata_of(*tool_two->checkpointer(), "1") ==
          std::vector<value>{value::parse_json(R"({"source":"loop","step":0,"parents":{}})")},
      boost::test_tools::per_element());
  state_snapshot paused = tool_two->get_state(thread1);
  BOOST_TEST(paused.values.to_json() == R"({"my_key":"value ⛰️ one","market":"DE"})");
  BOOST_TEST(paused.next == strings{"tool_two"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(paused.tasks.size() == 2u);
  BOOST_TEST(paused.tasks[0].name == "tool_one");
  BOOST_TEST(value(paused.tasks[0].path).to_json() == R"(["__pregel_push",0,false])");
  BOOST_TEST(paused.tasks[0].interrupts.empty());
  BOOST_TEST(!paused.tasks[0].error.has_value());
  BOOST_TEST(paused.tasks[0].result.to_json() == R"({"my_key":" one"})");
  BOOST_TEST(!paused.tasks[0].state);
  BOOST_TEST(paused.tasks[1].name == "tool_two");
  BOOST_TEST(value(paused.tasks[1].path).to_json() == R"(["__pregel_pull","tool_two"])");
  BOOST_TEST(json(object{{"__interrupt__", paused.tasks[1].interrupts}}) == interrupted);
  BOOST_TEST(!paused.tasks[1].error.has_value());
  BOOST_TEST(paused.tasks[1].result.is_null());
  BOOST_TEST(!paused.tasks[1].state);
  BOOST_TEST(paused.metadata.to_json() == R"({"source":"loop","step":0,"parents":{}})");
  BOOST_TEST(!paused.parent_config.has_value());

  tool_two->update_state(thread1, value(), std::string("__end__"));
  state_snapshot cleared = tool_two->get_state(thread1);
  BOOST_TEST(cleared.values.to_json() == R"({"my_key":"value ⛰️ one","market":"DE"})");
  BOOST_TEST(cleared.next.empty());
  BOOST_TEST(cleared.tasks.empty());
  BOOST_TEST(cleared.metadata.to_json() == R"({"source":"update","step":1,"parents":{}})");
  BOOST_TEST_REQUIRE(cleared.parent_config.has_value());
  BOOST_TEST(cleared.parent_config->checkpoint_id == paused.config.checkpoint_id);
}

// libs/langgraph/tests/test_large_cases.py::test_dynamic_interrupt_subgraph
// (the tracer's run left out)
BOOST_AUTO_TEST_CASE(test_dynamic_interrupt_subgraph) {
  auto count = std::make_shared<std::atomic<int>>(0);
  state_graph sub;
  sub.add_key("my_key").add_key("market");
  sub.add_node("do", tool_two_node(count), node_options{.retry = {fast_retries()}});
  sub.add_edge("__start__", "do");
  state_graph b;
  b.add_key("my_key", "add").add_key("market");
  b.add_node("tool_two", sub.compile(opts()));
  b.add_edge("__start__", "tool_two");
  auto tool_two = b.compile(opts());
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value"}, {"market", "DE"}})) ==
             R"({"my_key":"value","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(count->load() == 1, "interrupts aren't retried");
  BOOST_TEST(tool_two->invoke(object{{"my_key", "value"}, {"market", "US"}}).to_json() ==
             R"({"my_key":"value all good","market":"US"})");

  tool_two = b.compile(opts_with_saver());
  requires_thread_id(*tool_two);

  const value thread2 = thread("2");
  BOOST_TEST(stream_all(*tool_two, object{{"my_key", "value ⛰️"}, {"market", "DE"}}, thread2) ==
                 strings{interrupted},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*tool_two, resume(" my answer"), thread2) ==
                 strings{R"({"tool_two":{"my_key":" my answer","market":"DE"}})"},
             boost::test_tools::per_element());

  const value thread1 = thread("1");
  BOOST_TEST(json(tool_two->invoke(object{{"my_key", "value ⛰️"}, {"market", "DE"}},
                                   with_durability(thread1, "exit"))) ==
             R"({"my_key":"value ⛰️","market":"DE",)"
             R"("__interrupt__":[{"value":"Just because...","id":"*"}]})");
  BOOST_TEST(
      metadata_of(*tool_two->checkpointer(), "1") ==
          std::vector<value>{value::parse_json(R"({"source":"loop","step":0,"parents":{}})")},
      boost::test_tools::per_element());
  state_snapshot paused = tool_two->get_state(thread1);
  BOOST_TEST(paused.values.to_json() == R"({"my_key":"value ⛰️","market":"DE"})");
  BOOST_TEST(paused.next == strings{"tool_two"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(paused.tasks.size() == 1u);
  BOOST_TEST(json(object{{"__interrupt__", paused.tasks[0].interrupts}}) == interrupted);
  // The task's `state`: its subgraph's config, {"thread_id": "1", "checkpoint_ns": "tool_two:*"}.
  BOOST_TEST(!paused.tasks[0].state);
  BOOST_TEST_REQUIRE(paused.tasks[0].state_config.has_value());
  BOOST_TEST(paused.tasks[0].state_config->thread_id == "1");
  BOOST_TEST(paused.tasks[0].state_config->checkpoint_ns.starts_with("tool_two:"));
  BOOST_TEST(paused.tasks[0].result.is_null());
  BOOST_TEST(paused.metadata.to_json() == R"({"source":"loop","step":0,"parents":{}})");

  tool_two->update_state(thread1, value(), std::string("__end__"));
  state_snapshot cleared = tool_two->get_state(thread1);
  BOOST_TEST(cleared.values.to_json() == R"({"my_key":"value ⛰️","market":"DE"})");
  BOOST_TEST(cleared.next.empty());
  BOOST_TEST(cleared.tasks.empty());
  BOOST_TEST(cleared.metadata.to_json() == R"({"source":"update","step":1,"parents":{}})");
  BOOST_TEST_REQUIRE(cleared.parent_config.has_value());
  BOOST_TEST(cleared.parent_config->checkpoint_id == paused.config.checkpoint_id);
}

// libs/langgraph/tests/test_large_cases.py::test_subgraph_to_end_does_not_warn
BOOST_AUTO_TEST_CASE(test_subgraph_to_end_does_not_warn) {
  state_graph sub;
  sub.add_key("x");
  sub.add_node("update_x", [](const value& s, node_context&) -> value {
    return make_cmd(object{{"x", s.get("x").as_string() + "!"}}, {value("__end__")});
  });
  sub.add_edge("__start__", "update_x").add_edge("update_x", "__end__");
  state_graph b;
  b.add_key("x");
  b.add_node("subgraph_node", sub.compile(opts()));
  b.add_edge("__start__", "subgraph_node").add_edge("subgraph_node", "__end__");
  BOOST_TEST(b.compile(opts())->invoke(object{{"x", "hello"}}).to_json() == R"({"x":"hello!"})");
}

// libs/langgraph/tests/test_large_cases.py::test_invoke_two_processes_in_out_interrupt
// (as a state graph: `one` writes input + 1 to inbox, `two` writes inbox + 1 to output,
// interrupt after `one`)
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_in_out_interrupt) {
  state_graph b;
  b.add_key("input").add_key("inbox").add_key("output");
  b.add_node("one", [](const value& s, node_context&) -> value {
    return object{{"inbox", s.get("input").as_int() + 1}};
  });
  b.add_node("two", [](const value& s, node_context&) -> value {
    return object{{"output", s.get("inbox").as_int() + 1}};
  });
  b.add_edge("__start__", "one").add_edge("one", "two");
  compile_options o = opts_with_saver();
  o.interrupt_after = {"one"};
  auto graph = b.compile(o);
  const value thread1 = thread("1");
  const value thread2 = thread("2");

  // Start, stop at inbox; resume, finish.
  BOOST_TEST(!graph->invoke(object{{"input", 2}}, thread1).find("output"));
  BOOST_TEST(graph->get_state(thread1).values.get("inbox") == value(3));
  BOOST_TEST(graph->invoke(value(), thread1).get("output") == value(4));

  // Start again, stop at inbox.
  graph->invoke(object{{"input", 20}}, thread1);
  BOOST_TEST(graph->get_state(thread1).values.get("inbox") == value(21));
  BOOST_TEST((graph->get_state(thread1).next == std::vector<std::string>{"two"}));

  // New input discards the pending `two` (of inbox 21): only `one` is next.
  graph->invoke(object{{"input", 3}}, thread1);
  state_snapshot after_new_input = graph->get_state(thread1);
  BOOST_TEST(after_new_input.values.get("inbox") == value(4));
  BOOST_TEST((after_new_input.next == std::vector<std::string>{"two"}));
  BOOST_TEST(graph->invoke(value(), thread1).get("output") == value(5));
  std::vector<state_snapshot> history = graph->get_state_history(thread1);
  BOOST_TEST_REQUIRE(history.size() >= 4u);
  // The third run's input checkpoint (a state graph starts with `__start__`): the old `two`,
  // of inbox 21, discarded; and the step after it runs `one` only.
  BOOST_TEST(history[3].metadata.get("source") == value("input"));
  BOOST_TEST((history[3].next == std::vector<std::string>{"__start__"}));
  BOOST_TEST(history[3].values.get("inbox") == value(21));
  BOOST_TEST((history[2].next == std::vector<std::string>{"one"}));

  // On another thread: stop at inbox, update as `one`, resume.
  graph->invoke(object{{"input", 20}}, thread2);
  state_snapshot snapshot = graph->get_state(thread2);
  BOOST_TEST(snapshot.values.get("inbox") == value(21));
  BOOST_TEST((snapshot.next == std::vector<std::string>{"two"}));
  graph->update_state(thread2, object{{"inbox", 25}}, std::string("one"));
  BOOST_TEST(graph->invoke(value(), thread2).get("output") == value(26));
  BOOST_TEST(graph->get_state(thread2).next.empty());
}
