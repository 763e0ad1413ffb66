// LangGraph's functional API with timeouts (libs/langgraph/tests/test_retry.py), ported: the
// timeout of a task (`@task(timeout=...)`) and of an entrypoint (`@entrypoint(timeout=...)`)
// fail the run with node_timeout, as a node's. LangGraph's async functions stop at their next
// await; a C++ function stops at its next check_timeout(), so a "slow" one here waits in small
// steps, checking. Times are scaled as retry_timeout_test.cpp's (50 ms).

#include <atomic>
#include <chrono>
#include <thread>

#include "functional_support.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// LangGraph's `await asyncio.sleep(d)`: waits `d`, stopping when the attempt times out.
void sleep_checking(node_context& ctx, std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
    ctx.check_timeout();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ctx.check_timeout();
}

timeout_policy idle(double ms) { return {.idle_timeout_ms = ms}; }

fn::task_options with_timeout(timeout_policy t) {
  fn::task_options o;
  o.timeout = t;
  return o;
}

}  // namespace

// libs/langgraph/tests/test_retry.py::test_entrypoint_timeout_allows_pre_timeout_child_task_to_run
BOOST_AUTO_TEST_CASE(test_entrypoint_timeout_allows_pre_timeout_child_task_to_run) {
  std::atomic<bool> child_started{false};
  fn::task child("child", [&](const value& v, fn::call_context&) {
    child_started = true;
    return value(v.as_int() + 1);
  });
  fn::entrypoint_options o = ep("parent", nullptr);
  o.timeout = idle(50);
  auto parent = fn::entrypoint(o, [&](const value& v, fn::call_context& ctx) {
    child(ctx, v);
    sleep_checking(ctx, std::chrono::milliseconds(200));
    return v;
  });
  test::expect_error([&] { parent->invoke(1); }, error_code::node_timeout,
                     "Node 'parent' exceeded its idle timeout of 0.050s without making progress");
  // The step ends when its calls have: the child ran.
  BOOST_TEST(child_started.load());
}

// libs/langgraph/tests/test_retry.py::test_task_decorator_timeout_e2e
BOOST_AUTO_TEST_CASE(test_task_decorator_timeout_e2e) {
  fn::task slow_task(
      "slow_task",
      [](const value& x, fn::call_context& ctx) {
        sleep_checking(ctx, std::chrono::milliseconds(200));
        return value(x.as_int() + 1);
      },
      with_timeout(idle(50)));
  auto workflow = fn::entrypoint(
      ep("workflow", nullptr),
      [&](const value& x, fn::call_context& ctx) { return slow_task(ctx, x).result(); });
  test::expect_error(
      [&] { workflow->invoke(1); }, error_code::node_timeout,
      "Node 'slow_task' exceeded its idle timeout of 0.050s without making progress");
}

// libs/langgraph/tests/test_retry.py::test_task_decorator_preserves_user_idle_timeout_kwarg
// (the task's input is an object with an "idle_timeout" key; the timeout option does not take it)
BOOST_AUTO_TEST_CASE(test_task_decorator_preserves_user_idle_timeout_kwarg) {
  fn::task echo_idle_timeout(
      "echo_idle_timeout",
      [](const value& in, fn::call_context& ctx) {
        ctx.check_timeout();
        return in.get("idle_timeout");
      },
      with_timeout(idle(1000)));
  auto workflow =
      fn::entrypoint(ep("workflow", nullptr), [&](const value& x, fn::call_context& ctx) {
        return echo_idle_timeout(ctx, object{{"idle_timeout", x}}).result();
      });
  BOOST_TEST(workflow->invoke(5) == value(5));
}

// libs/langgraph/tests/test_retry.py::test_task_decorator_preserves_user_timeout_kwarg
// (LangGraph's `timeout=1.0` is a run timeout of one second)
BOOST_AUTO_TEST_CASE(test_task_decorator_preserves_user_timeout_kwarg) {
  fn::task echo_timeout(
      "echo_timeout",
      [](const value& in, fn::call_context& ctx) {
        ctx.check_timeout();
        return in.get("timeout");
      },
      with_timeout({.run_timeout_ms = 1000}));
  auto workflow =
      fn::entrypoint(ep("workflow", nullptr), [&](const value& x, fn::call_context& ctx) {
        return echo_timeout(ctx, object{{"timeout", x}}).result();
      });
  BOOST_TEST(workflow->invoke(5) == value(5));
}

// libs/langgraph/tests/test_retry.py::test_entrypoint_timeout_e2e
BOOST_AUTO_TEST_CASE(test_entrypoint_timeout_e2e) {
  fn::entrypoint_options o = ep("slow_workflow", nullptr);
  o.timeout = idle(50);
  auto slow_workflow = fn::entrypoint(o, [](const value& x, fn::call_context& ctx) {
    sleep_checking(ctx, std::chrono::milliseconds(200));
    return x;
  });
  test::expect_error(
      [&] { slow_workflow->invoke(1); }, error_code::node_timeout,
      "Node 'slow_workflow' exceeded its idle timeout of 0.050s without making progress");
}
