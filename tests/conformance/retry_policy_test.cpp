// LangGraph's retry policy tests (libs/langgraph/tests/test_retry.py), ported: which errors a
// policy retries, the back-off between attempts, several policies per node, and the attempt
// number and first-attempt time a node sees. LangGraph patches time.sleep to observe the
// waits; here the graph is compiled with a retry_sleep that records them instead of sleeping.
// Python's exception classes become error codes and messages: a node throwing
// std::runtime_error fails with node_error and the exception's message.

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "conformance.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// Records each back-off instead of sleeping (LangGraph's `patch("time.sleep")`).
struct recorded_sleeps {
  std::mutex m;
  std::vector<double> ms;

  std::function<void(std::chrono::duration<double, std::milli>)> sleeper() {
    return [this](std::chrono::duration<double, std::milli> d) {
      std::lock_guard lock(m);
      ms.push_back(d.count());
    };
  }
  std::vector<double> taken() {
    std::lock_guard lock(m);
    return ms;
  }
};

// LangGraph's `retry_on=ValueError`: the node's own exceptions whose message starts so.
std::function<bool(const error&)> retry_on_message(std::string prefix) {
  return [prefix](const error& e) {
    return e.code() == error_code::node_error && std::string(e.what()).rfind(prefix, 0) == 0;
  };
}

retry_policy policy(std::int64_t max_attempts, double initial_ms, bool jitter,
                    std::function<bool(const error&)> retry_on) {
  retry_policy p;
  p.max_attempts = max_attempts;
  p.initial_interval_ms = initial_ms;
  p.jitter = jitter;
  p.retry_on = std::move(retry_on);
  return p;
}

compile_options sleeping_into(recorded_sleeps& s, compile_options o = opts()) {
  o.retry_sleep = s.sleeper();
  return o;
}

}  // namespace

// libs/langgraph/tests/test_retry.py::test_should_retry_on_callable
BOOST_AUTO_TEST_CASE(test_should_retry_on_callable) {
  retry_policy p;
  p.retry_on = [](const error& e) {
    return e.code() == error_code::node_error &&
           std::string(e.what()).find("retry") != std::string::npos;
  };
  BOOST_TEST(should_retry_on(p, error(error_code::node_error, "please retry this")));
  BOOST_TEST(!should_retry_on(p, error(error_code::node_error, "other error")));
  BOOST_TEST(!should_retry_on(p, error(error_code::invalid_update, "please retry this")));
}

// libs/langgraph/tests/test_retry.py::test_should_retry_default_retry_on
// LangGraph's default retries what the node's code raises (its own exception classes, network
// and 5xx errors) but not programming errors; in C++ a node's exceptions are all node_error
// (or storage_error from a store), retried, and the runtime's verdicts on bad updates, input
// or graphs, which would fail again, are not.
BOOST_AUTO_TEST_CASE(test_should_retry_default_retry_on) {
  retry_policy p;
  BOOST_TEST(should_retry_on(p, error(error_code::node_error, "custom error")));
  BOOST_TEST(should_retry_on(p, error(error_code::storage_error, "connection refused")));
  BOOST_TEST(!should_retry_on(p, error(error_code::invalid_update, "invalid value")));
  BOOST_TEST(!should_retry_on(p, error(error_code::type_error, "invalid type")));
  BOOST_TEST(!should_retry_on(p, error(error_code::invalid_argument, "bad input")));
  BOOST_TEST(!should_retry_on(p, error(error_code::graph_recursion, "recursion")));
}

// libs/langgraph/tests/test_retry.py::test_graph_with_single_retry_policy
BOOST_AUTO_TEST_CASE(test_graph_with_single_retry_policy) {
  std::atomic<int> attempt_count = 0;
  std::vector<std::int64_t> attempt_numbers;
  std::vector<double> first_attempt_times;
  state_graph b;
  b.add_key("foo");
  b.add_node("failing_node",
             [&](const value&, node_context& ctx) -> value {
               const int n = ++attempt_count;
               BOOST_TEST(ctx.node_attempt() == n);
               attempt_numbers.push_back(ctx.node_attempt());
               first_attempt_times.push_back(ctx.node_first_attempt_time());
               if (n < 3) throw std::runtime_error("Intentional failure");
               return object{{"foo", "success"}};
             },
             {.retry = {policy(3, 10, false, retry_on_message("Intentional"))}});
  b.add_node("other_node", [](const value&, node_context&) -> value {
    return object{{"foo", "other_node"}};
  });
  b.add_edge(std::string(START), "failing_node");
  b.add_edge("failing_node", "other_node");
  recorded_sleeps sleeps;
  auto graph = b.compile(sleeping_into(sleeps));

  value result = graph->invoke(object{{"foo", ""}});

  BOOST_TEST(attempt_count == 3);
  BOOST_TEST(attempt_numbers == (std::vector<std::int64_t>{1, 2, 3}));
  BOOST_REQUIRE(first_attempt_times.size() == 3u);
  BOOST_TEST(first_attempt_times[0] > 0);
  BOOST_TEST(first_attempt_times[1] == first_attempt_times[0]);
  BOOST_TEST(first_attempt_times[2] == first_attempt_times[0]);
  BOOST_TEST(result.get("foo").as_string() == "other_node");
  BOOST_TEST(sleeps.taken() == (std::vector<double>{10, 20}));  // backoff 2
}

// libs/langgraph/tests/test_retry.py::test_runtime_execution_info_defaults_without_retry
BOOST_AUTO_TEST_CASE(test_runtime_execution_info_defaults_without_retry) {
  std::int64_t node_attempt = 0;
  double first_time = -1;
  state_graph b;
  b.add_key("foo");
  b.add_node("node", [&](const value&, node_context& ctx) -> value {
    node_attempt = ctx.node_attempt();
    first_time = ctx.node_first_attempt_time();
    return object{{"foo", "ok"}};
  });
  b.add_edge(std::string(START), "node");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "ok");
  BOOST_TEST(node_attempt == 1);
  BOOST_TEST(first_time > 0);  // a time, in seconds since the epoch
}

// libs/langgraph/tests/test_retry.py::test_graph_with_jitter_retry_policy
// LangGraph mocks random.uniform(0, 1) to 0.05 s and checks the wait is 0.01 + 0.05 s; here the
// random part is the engine's: the wait is the interval plus 0 to 1000 ms.
BOOST_AUTO_TEST_CASE(test_graph_with_jitter_retry_policy) {
  std::atomic<int> attempt_count = 0;
  state_graph b;
  b.add_key("foo");
  b.add_node("failing_node",
             [&](const value&, node_context&) -> value {
               if (++attempt_count < 2) throw std::runtime_error("Intentional failure");
               return object{{"foo", "success"}};
             },
             {.retry = {policy(3, 10, true, retry_on_message("Intentional"))}});
  b.add_edge(std::string(START), "failing_node");
  recorded_sleeps sleeps;
  value result = b.compile(sleeping_into(sleeps))->invoke(object{{"foo", ""}});
  BOOST_TEST(attempt_count == 2);
  BOOST_TEST(result.get("foo").as_string() == "success");
  auto taken = sleeps.taken();
  BOOST_REQUIRE(taken.size() == 1u);
  BOOST_TEST(taken[0] >= 10);
  BOOST_TEST(taken[0] <= 1010);
}

// libs/langgraph/tests/test_retry.py::test_graph_with_multiple_retry_policies
BOOST_AUTO_TEST_CASE(test_graph_with_multiple_retry_policies) {
  std::atomic<int> value_errors = 0, key_errors = 0;
  state_graph b;
  b.add_key("foo");
  b.add_key("error_type");
  b.add_node("failing_node",
             [&](const value& s, node_context&) -> value {
               const std::string type = s.get("error_type").as_string();
               if (type == "value_error" && ++value_errors < 2)
                 throw std::runtime_error("Value error");
               if (type == "key_error" && ++key_errors < 3) throw std::runtime_error("Key error");
               return object{{"foo", "recovered_from_" + type}};
             },
             {.retry = {policy(2, 1, false, retry_on_message("Value")),
                        policy(3, 2, false, retry_on_message("Key"))}});
  b.add_edge(std::string(START), "failing_node");
  recorded_sleeps sleeps;
  auto graph = b.compile(sleeping_into(sleeps));

  value r1 = graph->invoke(object{{"foo", ""}, {"error_type", "value_error"}});
  BOOST_TEST(value_errors == 2);
  BOOST_TEST(r1.get("foo").as_string() == "recovered_from_value_error");

  value_errors = 0;
  key_errors = 0;
  value r2 = graph->invoke(object{{"foo", ""}, {"error_type", "key_error"}});
  BOOST_TEST(key_errors == 3);
  BOOST_TEST(r2.get("foo").as_string() == "recovered_from_key_error");
  // Each wait is the matching policy's: 1 ms for the ValueError, then 2 and 4 ms.
  BOOST_TEST(sleeps.taken() == (std::vector<double>{1, 2, 4}));
}

// libs/langgraph/tests/test_retry.py::test_graph_with_max_attempts_exceeded
BOOST_AUTO_TEST_CASE(test_graph_with_max_attempts_exceeded) {
  std::atomic<int> calls = 0;
  state_graph b;
  b.add_key("foo");
  b.add_node("always_failing",
             [&](const value&, node_context&) -> value {
               ++calls;
               throw std::runtime_error("Always fails");
             },
             {.retry = {policy(2, 10, false, retry_on_message("Always"))}});
  b.add_edge(std::string(START), "always_failing");
  recorded_sleeps sleeps;
  auto graph = b.compile(sleeping_into(sleeps));
  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::node_error, "Always fails");
  BOOST_TEST(calls == 2);
  BOOST_TEST(sleeps.taken() == (std::vector<double>{10}));
}

// libs/langgraph/tests/test_retry.py::test_execution_info_identity_fields_populated_on_retry
BOOST_AUTO_TEST_CASE(test_execution_info_identity_fields_populated_on_retry) {
  struct info {
    std::string thread_id;
    std::int64_t node_attempt;
    double first_time;
    std::string checkpoint_ns;
  };
  std::vector<info> captured;
  state_graph b;
  b.add_key("foo");
  b.add_node(
      "failing_node",
      [&](const value&, node_context& ctx) -> value {
        captured.push_back({ctx.configurable("thread_id").as_string(), ctx.node_attempt(),
                            ctx.node_first_attempt_time(), std::string(ctx.checkpoint_ns())});
        if (captured.size() < 2) throw std::runtime_error("Intentional failure");
        return object{{"foo", "success"}};
      },
      {.retry = {policy(3, 1, false, retry_on_message("Intentional"))}});
  b.add_edge(std::string(START), "failing_node");
  recorded_sleeps sleeps;
  auto graph = b.compile(sleeping_into(sleeps, opts_with_saver()));
  value result = graph->invoke(object{{"foo", ""}}, thread("retry-thread"));

  BOOST_TEST(result.get("foo").as_string() == "success");
  BOOST_REQUIRE(captured.size() == 2u);
  BOOST_TEST(captured[0].thread_id == "retry-thread");
  BOOST_TEST(captured[1].thread_id == "retry-thread");
  BOOST_TEST(captured[0].first_time == captured[1].first_time);
  BOOST_TEST(captured[0].checkpoint_ns == captured[1].checkpoint_ns);
  BOOST_TEST(captured[0].node_attempt == 1);
  BOOST_TEST(captured[1].node_attempt == 2);
}
