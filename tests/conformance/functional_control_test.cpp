// LangGraph's functional API under run control, ported: a drain request while an entrypoint
// runs (RunControl.request_drain, stream_options::control) and cancelled task calls
// (future.cancel(), functional::future::cancel).
//
// LangGraph's asyncio test waits (asyncio.sleep) for the calls to start and to be cancelled;
// here a call waits on a condition with its call_context::stop_token(), which cancelling
// wakes, and the entrypoint waits for the calls it expects to have started.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "functional_support.hpp"
#include "superstep/pregel/run_control.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

std::string twice(const value& x) {
  return std::to_string(x.as_int()) + std::to_string(x.as_int());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_control)

// libs/langgraph/tests/test_pregel.py::test_request_drain_allows_inflight_call_scheduling
BOOST_AUTO_TEST_CASE(test_request_drain_allows_inflight_call_scheduling) {
  fn::task child("child", [](const value& x, fn::call_context&) { return value(x.as_int() + 1); });
  auto control = std::make_shared<run_control>();
  auto graph = fn::entrypoint(ep("graph", saver()), [&](const value& x, fn::call_context& ctx) {
    control->request_drain();
    fn::future f = child(ctx, x);
    return f.result();
  });
  stream_options so;
  so.control = control;
  BOOST_TEST(graph->stream(value(1), thread("drain-call-sync"), so, nullptr) == value(2));
  BOOST_TEST(control->drain_requested());
  BOOST_TEST(control->drain_reason().value_or("") == "shutdown");
}

// libs/langgraph/tests/test_pregel_async.py::test_imp_task_cancel (for each durability)
BOOST_AUTO_TEST_CASE(test_imp_task_cancel) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      std::mutex m;
      std::condition_variable_any cv;
      int mapper_calls = 0;  // guarded by m
      std::atomic<int> mapper_cancels{0};
      bool released = false;  // the entrypoint lets the calls it keeps finish
      std::atomic<bool> cancelled_one{false};
      fn::task mapper("mapper", [&](const value& input, fn::call_context& ctx) {
        std::unique_lock lock(m);
        ++mapper_calls;
        cv.notify_all();
        // LangGraph's `await asyncio.sleep(1)`, which cancelling interrupts.
        cv.wait(lock, ctx.stop_token(), [&] { return released; });
        if (ctx.stop_token().stop_requested()) {
          ++mapper_cancels;
          ctx.check_cancelled();  // LangGraph's mapper re-raises the CancelledError
        }
        return value(twice(input));
      });
      auto graph =
          fn::entrypoint(ep("graph", saver()), [&](const value& input, fn::call_context& ctx) {
            int started_before = 0;
            {
              std::lock_guard lock(m);
              released = false;
              started_before = mapper_calls;
            }
            std::vector<fn::future> futures;
            for (const auto& i : input.as_list()) futures.push_back(mapper(ctx, i));
            // The calls not restored from a saved result are running (LangGraph sleeps 0.1 s).
            int running = 0;
            for (const auto& f : futures) running += f.done() ? 0 : 1;
            {
              std::unique_lock lock(m);
              cv.wait(lock, [&] { return mapper_calls - started_before >= running; });
            }
            cancelled_one = futures.back().cancel();  // cancel one
            futures.pop_back();
            {
              std::lock_guard lock(m);
              released = true;
            }
            cv.notify_all();
            std::vector<std::string> mapped;
            for (auto& f : futures) mapped.push_back(f.result().as_string());
            value answer = ctx.interrupt("question");
            list out;
            for (const auto& x : mapped) out.emplace_back(x + answer.as_string());
            return value(std::move(out));
          });
      const value thread1 = with_durability(thread("1"), durability);
      auto events = collect(*graph, value::array({0, 1}), thread1);
      BOOST_REQUIRE(events.size() == 2u);
      BOOST_TEST(events[0].to_json() == R"({"mapper":"00"})");
      BOOST_TEST(interrupt_values(events[1]) == std::vector<value>{value("question")});
      BOOST_TEST(events[1].get(INTERRUPT).as_list()[0].get("id").is_string());
      BOOST_TEST(cancelled_one);
      BOOST_TEST(mapper_calls == 2);
      BOOST_TEST(mapper_cancels == 1);

      cancelled_one = false;
      BOOST_TEST(graph->invoke(resume("answer"), thread1) == value::array({"00answer"}));
      BOOST_TEST(cancelled_one);
      BOOST_TEST(mapper_calls == 3);
      BOOST_TEST(mapper_cancels == 2);
    }
  }
}

// A cancelled call reports cancelled at once; what its function returns after (it need not
// look at its stop token) is dropped: not streamed, not saved, and it does not fail the
// entrypoint that never asks for it. A finished call cannot be cancelled. (What the functions
// see is checked once the run is over: Boost.Test checks belong to the test's thread.)
BOOST_AUTO_TEST_CASE(cancelled_call_reports_cancelled_and_drops_its_result) {
  std::mutex m;
  std::condition_variable cv;
  bool started = false, cancelled = false;
  std::atomic<bool> body_saw_stop{false};
  fn::task slow("slow", [&](const value&, fn::call_context& ctx) {
    std::unique_lock lock(m);
    started = true;
    cv.notify_all();
    cv.wait(lock, [&] { return cancelled; });
    body_saw_stop = ctx.stop_token().stop_requested();
    return value("late");  // ignores the cancellation
  });
  fn::task quick("quick", [](const value& x, fn::call_context&) { return x; });
  std::atomic<int> runs{0};
  struct seen {
    value done_result;
    bool done_cancel = true, done_cancelled = true;
    bool first_cancel = false, second_cancel = true, cancelled = false, done = false;
    std::optional<error> result_error;
  } saw;
  auto graph = fn::entrypoint(ep("graph", saver()), [&](const value&, fn::call_context& ctx) {
    ++runs;
    fn::future done = quick(ctx, value(1));
    saw.done_result = done.result();
    saw.done_cancel = done.cancel();
    saw.done_cancelled = done.cancelled();
    fn::future f = slow(ctx, value());
    {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return started; });
    }
    saw.first_cancel = f.cancel();
    saw.second_cancel = f.cancel();
    saw.cancelled = f.cancelled();
    saw.done = f.done();
    try {
      f.result();
    } catch (const error& e) {
      saw.result_error = e;
    }
    {
      std::lock_guard lock(m);
      cancelled = true;
    }
    cv.notify_all();
    return value("out");
  });
  const value config = thread("cancel-drop");
  auto events = collect(*graph, value(0), config);
  BOOST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].to_json() == R"({"quick":1})");
  BOOST_TEST(events[1].to_json() == R"({"graph":"out"})");
  BOOST_TEST(saw.done_result == value(1));
  BOOST_TEST(!saw.done_cancel);
  BOOST_TEST(!saw.done_cancelled);
  BOOST_TEST(saw.first_cancel);
  BOOST_TEST(!saw.second_cancel);
  BOOST_TEST(saw.cancelled);
  BOOST_TEST(saw.done);
  BOOST_REQUIRE(saw.result_error.has_value());
  BOOST_TEST(saw.result_error->code() == error_code::cancelled);
  BOOST_TEST(std::string(saw.result_error->what()).find("task call 'slow'") == 0u);
  BOOST_TEST(body_saw_stop);
  // Only the finished call left its result among the step's saved writes.
  std::size_t returns = 0;
  checkpoint_saver& cp = *graph->checkpointer();
  for (const auto& listed : cp.list(checkpoint_config{"cancel-drop", "", ""}, {})) {
    const auto tuple = cp.get_tuple(listed.config);
    BOOST_REQUIRE(tuple.has_value());
    for (const auto& w : tuple->pending_writes)
      if (w.channel == fn::RETURN) {
        ++returns;
        BOOST_TEST(w.v == value(1));
      }
  }
  BOOST_TEST(returns == 1u);
  BOOST_TEST(runs == 1);
}

BOOST_AUTO_TEST_SUITE_END()
