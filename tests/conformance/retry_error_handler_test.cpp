// LangGraph's node error handler tests (libs/langgraph/tests/test_retry.py), ported: a node's
// `error_handler` runs once its retries are exhausted, with the failed node's state and the
// failure (LangGraph's NodeError parameter: node_context::node_error() here), and routes on
// with its update or Command; `set_node_defaults` gives every node a default handler or retry
// policy. Python exceptions become error codes and messages.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "conformance.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string start{START};

retry_policy policy(std::int64_t max_attempts, bool retry_all = false) {
  retry_policy p;
  p.max_attempts = max_attempts;
  p.initial_interval_ms = 1;
  p.jitter = false;
  if (!retry_all)  // LangGraph's retry_on=ValueError: the node's own errors
    p.retry_on = [](const error& e) { return e.code() == error_code::node_error; };
  return p;
}

value goto_with(value update, std::string node) {
  command c;
  c.update = std::move(update);
  c.go_to = {value(std::move(node))};
  return make_command(c);
}

node_function failing(std::string message, std::atomic<int>* calls = nullptr) {
  return [message, calls](const value&, node_context&) -> value {
    if (calls) ++*calls;
    throw std::runtime_error(message);
  };
}

// The State of the route tests: route, and foo with operator.add.
state_graph route_state() {
  state_graph b;
  b.add_key("route");
  b.add_key("foo", "add");
  return b;
}

std::map<std::string, std::string> fail_a_or_b() {
  return {{"fail_a", "fail_a"}, {"fail_b", "fail_b"}};
}

value route_to(const value& s, node_context&) { return s.get("route"); }

value input_route(const char* route) { return object{{"route", route}, {"foo", list{}}}; }

}  // namespace

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_runs_after_retry_exhaustion
BOOST_AUTO_TEST_CASE(test_graph_error_handler_runs_after_retry_exhaustion) {
  std::atomic<int> attempts = 0;
  std::optional<node_failure> captured;
  state_graph b;
  b.add_key("foo");
  b.add_node("always_failing", failing("Always fails", &attempts),
             {.retry = {policy(2)}, .error_handler = [&](const value&, node_context& ctx) -> value {
                captured = *ctx.node_error();
                return goto_with(object{{"foo", "handled"}}, "after_handler");
              }});
  b.add_node("after_handler", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "_after"}};
  });
  b.add_edge(start, "always_failing");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(attempts == 2);
  BOOST_TEST(result.get("foo").as_string() == "handled_after");
  BOOST_REQUIRE(captured.has_value());
  BOOST_TEST(captured->node == "always_failing");
  BOOST_TEST(captured->code == error_code::node_error);
  BOOST_TEST(captured->message == "Always fails");
}

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_can_route_with_command
BOOST_AUTO_TEST_CASE(test_graph_error_handler_can_route_with_command) {
  std::atomic<int> attempts = 0;
  state_graph b;
  b.add_key("foo");
  b.add_node("always_failing", failing("Always fails", &attempts),
             {.retry = {policy(1)}, .error_handler = [](const value&, node_context&) -> value {
                return goto_with(object{{"foo", "handled"}}, "next_node");
              }});
  b.add_node("next_node", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "_next"}};
  });
  b.add_edge(start, "always_failing");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(attempts == 1);
  BOOST_TEST(result.get("foo").as_string() == "handled_next");
}

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_failure_fails_run
BOOST_AUTO_TEST_CASE(test_graph_error_handler_failure_fails_run) {
  state_graph b;
  b.add_key("foo");
  b.add_node("always_failing", failing("Always fails"),
             {.error_handler = failing("handler failed")});
  b.add_edge(start, "always_failing");
  auto graph = b.compile(opts());
  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::node_error, "handler failed");
}

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_handles_subgraph_internal_failure
BOOST_AUTO_TEST_CASE(test_graph_error_handler_handles_subgraph_internal_failure) {
  state_graph sub;
  sub.add_key("foo");
  sub.add_node("sub_fail_node", failing("subgraph boom"));
  sub.add_edge(start, "sub_fail_node");
  auto subgraph = sub.compile(opts());

  std::optional<node_failure> captured;
  state_graph parent;
  parent.add_key("foo");
  parent.add_node("subgraph_node", subgraph,
                  {.error_handler = [&](const value&, node_context& ctx) -> value {
                    captured = *ctx.node_error();
                    return object{{"foo", "handled_by_parent"}};
                  }});
  parent.add_edge(start, "subgraph_node");
  value result = parent.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "handled_by_parent");
  BOOST_REQUIRE(captured.has_value());
  BOOST_TEST(captured->node == "subgraph_node");
  BOOST_TEST(captured->message == "subgraph boom");
}

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_error_context_survives_checkpoint_resume
BOOST_AUTO_TEST_CASE(test_graph_error_handler_error_context_survives_checkpoint_resume) {
  std::optional<node_failure> captured;
  state_graph b;
  b.add_key("foo");
  b.add_node("always_failing", failing("failed before handler"),
             {.error_handler = [&](const value&, node_context& ctx) -> value {
               captured = *ctx.node_error();
               return object{{"foo", "handled_after_resume"}};
             }});
  b.add_edge(start, "always_failing");
  compile_options o = opts_with_saver();
  o.interrupt_before = {"__error_handler__always_failing"};
  auto graph = b.compile(o);
  const value config = thread("graph-error-resume");
  graph->invoke(object{{"foo", ""}}, config);
  value result = graph->invoke(value(), config);
  BOOST_TEST(result.get("foo").as_string() == "handled_after_resume");
  BOOST_REQUIRE(captured.has_value());
  BOOST_TEST(captured->node == "always_failing");
  BOOST_TEST(captured->message == "failed before handler");
}

// libs/langgraph/tests/test_retry.py::test_graph_error_handler_does_not_swallow_interrupt_concurrent
BOOST_AUTO_TEST_CASE(test_graph_error_handler_does_not_swallow_interrupt_concurrent) {
  state_graph b;
  b.add_key("foo");
  b.add_node("node_a",
             [](const value&, node_context& ctx) -> value {
               value v = ctx.interrupt("need human input");
               return object{{"foo", "a_" + v.as_string()}};
             },
             {.error_handler = [](const value&, node_context&) -> value {
               return object{{"foo", "handled"}};
             }});
  b.add_node("node_b", [](const value&, node_context&) -> value { return object{}; });
  b.add_edge(start, "node_a");
  b.add_edge(start, "node_b");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("test-interrupt-concurrent");
  graph->invoke(object{{"foo", ""}}, config);
  state_snapshot state = graph->get_state(config);
  BOOST_TEST(!state.tasks.empty());
  std::size_t with_interrupts = 0;
  for (const auto& t : state.tasks)
    if (!t.interrupts.empty()) ++with_interrupts;
  BOOST_TEST(with_interrupts > 0u);  // the interrupt was not taken for a failure
}

// libs/langgraph/tests/test_retry.py::test_node_error_handlers_route_to_matching_handler
BOOST_AUTO_TEST_CASE(test_node_error_handlers_route_to_matching_handler) {
  state_graph b = route_state();
  b.add_node("route_node", [](const value&, node_context&) -> value {
    return object{{"foo", list{}}};
  });
  b.add_node("fail_a", failing("a failed"),
             {.error_handler = [](const value&, node_context& ctx) -> value {
               BOOST_TEST(ctx.node_error()->node == "fail_a");
               return object{{"foo", list{"handled_a"}}};
             }});
  b.add_node("fail_b", failing("b failed"),
             {.error_handler = [](const value&, node_context& ctx) -> value {
               BOOST_TEST(ctx.node_error()->node == "fail_b");
               return object{{"foo", list{"handled_b"}}};
             }});
  b.add_edge(start, "route_node");
  b.add_conditional_edges("route_node", route_to, fail_a_or_b());
  auto graph = b.compile(opts());
  BOOST_TEST(graph->invoke(input_route("fail_a")).get("foo") == value(list{"handled_a"}));
  BOOST_TEST(graph->invoke(input_route("fail_b")).get("foo") == value(list{"handled_b"}));
}

// libs/langgraph/tests/test_retry.py::test_node_without_error_handler_still_fails_run
BOOST_AUTO_TEST_CASE(test_node_without_error_handler_still_fails_run) {
  state_graph b;
  b.add_key("foo");
  b.add_node("fail_without_handler", failing("no handler"));
  b.add_edge(start, "fail_without_handler");
  auto graph = b.compile(opts());
  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::node_error, "no handler");
}

// libs/langgraph/tests/test_retry.py::test_error_handler_resumes_after_crash
BOOST_AUTO_TEST_CASE(test_error_handler_resumes_after_crash) {
  std::atomic<int> node_calls = 0, handler_calls = 0;
  std::atomic<bool> handler_should_fail = true;
  std::vector<node_failure> captured;
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.error_handler = [&](const value&, node_context& ctx) -> value {
    ++handler_calls;
    captured.push_back(*ctx.node_error());
    if (handler_should_fail) throw std::runtime_error("handler crash");
    return object{{"foo", "recovered"}};
  }});
  b.add_node("fail", failing("boom", &node_calls));
  b.add_edge(start, "fail");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("t1");

  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}}, config);
      },
      error_code::node_error, "handler crash");
  BOOST_TEST(node_calls == 1);
  BOOST_TEST(handler_calls == 1);
  BOOST_REQUIRE(captured.size() == 1u);
  BOOST_TEST(captured[0].node == "fail");
  BOOST_TEST(captured[0].message == "boom");

  // Resuming runs the handler again, not the node that failed.
  handler_should_fail = false;
  value result = graph->invoke(value(), config);
  BOOST_TEST(result.get("foo").as_string() == "recovered");
  BOOST_TEST(node_calls == 1);
  BOOST_TEST(handler_calls == 2);
  BOOST_REQUIRE(captured.size() == 2u);
  BOOST_TEST(captured[1].node == "fail");
  BOOST_TEST(captured[1].message.find("boom") != std::string::npos);
}

// libs/langgraph/tests/test_retry.py::test_error_handler_resumes_after_crash_multiple_nodes
BOOST_AUTO_TEST_CASE(test_error_handler_resumes_after_crash_multiple_nodes) {
  std::atomic<int> a_calls = 0, b_calls = 0, handler_a_calls = 0, handler_b_calls = 0;
  std::atomic<bool> handler_should_fail = true;
  // handler_a starting while node b still runs shows the handler runs while the step's other
  // tasks are in flight (LangGraph's threading.Event).
  std::mutex m;
  std::condition_variable cv;
  bool handler_a_started = false;
  // What the handlers saw, checked on this thread: Boost.Test's assertions are not
  // thread-safe, and the handlers run on the pool's threads, one while b waits.
  std::vector<node_failure> seen;
  std::atomic<bool> b_timed_out = false;
  auto check_seen = [&] {
    std::lock_guard lock(m);
    BOOST_TEST(!b_timed_out, "handler_a never started");
    BOOST_REQUIRE(seen.size() == 2u);
    for (const auto& f : seen) {
      BOOST_TEST((f.node == "a" || f.node == "b"));
      BOOST_TEST(f.message.find(f.node + " failed") != std::string::npos, f.message);
    }
    BOOST_TEST(seen[0].node != seen[1].node);
    seen.clear();
  };
  state_graph b;
  b.add_key("results", "add");
  b.add_node("a", failing("a failed", &a_calls),
             {.error_handler = [&](const value&, node_context& ctx) -> value {
               ++handler_a_calls;
               {
                 std::lock_guard lock(m);
                 seen.push_back(*ctx.node_error());
                 handler_a_started = true;
               }
               cv.notify_all();
               if (handler_should_fail) throw std::runtime_error("handler_a crash");
               return object{{"results", list{"recovered_a:" + ctx.node_error()->node}}};
             }});
  b.add_node("b",
             [&](const value&, node_context&) -> value {
               ++b_calls;
               std::unique_lock lock(m);
               if (!cv.wait_for(lock, std::chrono::seconds(5), [&] { return handler_a_started; }))
                 b_timed_out = true;
               throw std::runtime_error("b failed");
             },
             {.error_handler = [&](const value&, node_context& ctx) -> value {
               ++handler_b_calls;
               {
                 std::lock_guard lock(m);
                 seen.push_back(*ctx.node_error());
               }
               if (handler_should_fail) throw std::runtime_error("handler_b crash");
               return object{{"results", list{"recovered_b:" + ctx.node_error()->node}}};
             }});
  b.add_edge(start, "a");
  b.add_edge(start, "b");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("t1");

  test::expect_error(
      [&] {
        graph->invoke(object{{"results", list{}}}, config);
      },
      error_code::node_error, "crash");
  BOOST_TEST(a_calls == 1);
  BOOST_TEST(b_calls == 1);
  BOOST_TEST(handler_a_calls == 1);
  BOOST_TEST(handler_b_calls == 1);
  check_seen();

  handler_should_fail = false;
  {
    std::lock_guard lock(m);
    handler_a_started = false;
  }
  value result = graph->invoke(value(), config);
  BOOST_TEST(a_calls == 1);
  BOOST_TEST(b_calls == 1);
  BOOST_TEST(handler_a_calls == 2);
  BOOST_TEST(handler_b_calls == 2);
  check_seen();
  const list& results = result.get("results").as_list();
  auto has = [&](const char* s) {
    return std::find(results.begin(), results.end(), value(s)) != results.end();
  };
  BOOST_TEST(has("recovered_a:a"));
  BOOST_TEST(has("recovered_b:b"));
}
