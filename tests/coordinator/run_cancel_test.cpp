// Cancelling a run and capping its concurrency reach what a run runs besides its own tasks:
// the nodes of its subgraphs and the functional API's task calls (LangGraph cancels them with
// the task that runs them; config["max_concurrency"] reaches them through the config). Each
// case runs in both execution modes.
#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "superstep/actors/runtime.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/func/functional.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/pregel/task_executor.hpp"

using namespace superstep;
using namespace std::chrono_literals;
namespace fn = superstep::functional;

namespace {

constexpr execution modes[] = {execution::actors, execution::threads};

compile_options opts(execution mode) {
  compile_options o;
  o.mode = mode;
  actors::runtime_options ro;
  ro.threads = 8;
  o.driver = make_actor_driver({.runtime = std::make_shared<actors::runtime>(ro)});
  o.executor = make_thread_pool_executor(8);
  return o;
}

// Counts the calls running at once; each waits until `target` run at once (2 s at most).
class probe {
 public:
  explicit probe(std::size_t target) : target_(target) {}
  void enter() {
    std::unique_lock lock(m_);
    max_seen = std::max(max_seen, ++now_);
    cv_.notify_all();
    cv_.wait_for(lock, 2s, [&] { return max_seen >= target_; });
    lock.unlock();
    std::this_thread::sleep_for(1ms);  // overlaps a call the cap would let in too early
    lock.lock();
    --now_;
  }
  std::size_t max_seen = 0;

 private:
  std::size_t target_;
  std::size_t now_ = 0;
  std::mutex m_;
  std::condition_variable cv_;
};

// Set once; another thread waits for it.
class flag {
 public:
  void set() {
    {
      std::lock_guard lock(m_);
      set_ = true;
    }
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(m_);
    cv_.wait_for(lock, 5s, [&] { return set_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool set_ = false;
};

// Waits (much longer than a case runs) until cancelled; notes that it was.
value wait_for_cancel(node_context& ctx, flag& started, std::atomic<bool>& cancelled) {
  started.set();
  try {
    ctx.sleep_for(10s);
  } catch (const error& e) {
    if (e.code() == error_code::cancelled) cancelled = true;
    throw;
  }
  return value();
}

// Cancels `control` once `started` is set (after 5 s at most).
std::thread cancel_when(flag& started, run_control& control) {
  return std::thread([&] {
    started.wait();
    control.request_cancel("test");
  });
}

}  // namespace

BOOST_AUTO_TEST_CASE(cancelling_a_run_cancels_the_nodes_of_its_subgraphs) {
  for (execution mode : modes) {
    BOOST_TEST_CONTEXT("mode " << static_cast<int>(mode)) {
      flag started;
      std::atomic<bool> cancelled{false};
      state_graph inner;
      inner.add_key("x");
      inner.add_node("wait", [&](const value&, node_context& ctx) {
        return wait_for_cancel(ctx, started, cancelled);
      });
      inner.set_entry_point("wait").set_finish_point("wait");
      auto sub = inner.compile(opts(mode));
      state_graph outer;
      outer.add_key("x");
      outer.add_node("sub", sub);
      outer.set_entry_point("sub").set_finish_point("sub");
      auto graph = outer.compile(opts(mode));

      stream_options so;
      so.control = std::make_shared<run_control>();
      std::thread canceller = cancel_when(started, *so.control);
      try {
        graph->stream(object{{"x", 1}}, value(), so, nullptr);
        BOOST_FAIL("the run must be cancelled");
      } catch (const error& e) {
        BOOST_TEST((e.code() == error_code::cancelled), e.what());
        BOOST_TEST(std::string(e.what()) == "run cancelled: test");
      }
      canceller.join();
      BOOST_TEST(cancelled.load());
    }
  }
}

BOOST_AUTO_TEST_CASE(cancelling_a_run_cancels_its_task_calls_and_the_futures_waited_on) {
  for (execution mode : modes) {
    BOOST_TEST_CONTEXT("mode " << static_cast<int>(mode)) {
      flag started;
      std::atomic<bool> cancelled{false}, result_cancelled{false};
      fn::task slow("slow", [&](const value&, fn::call_context& ctx) {
        return wait_for_cancel(ctx, started, cancelled);
      });
      fn::entrypoint_options o;
      o.name = "graph";
      o.runtime.mode = mode;
      auto graph = fn::entrypoint(o, [&](const value& x, fn::call_context& ctx) {
        try {
          return slow(ctx, x).result();
        } catch (const error& e) {
          result_cancelled = e.code() == error_code::cancelled;
          throw;
        }
      });
      stream_options so;
      so.control = std::make_shared<run_control>();
      std::thread canceller = cancel_when(started, *so.control);
      try {
        graph->stream(value(1), value(), so, nullptr);
        BOOST_FAIL("the run must be cancelled");
      } catch (const error& e) {
        BOOST_TEST((e.code() == error_code::cancelled), e.what());
      }
      canceller.join();
      BOOST_TEST(cancelled.load());
      BOOST_TEST(result_cancelled.load());
    }
  }
}

BOOST_AUTO_TEST_CASE(max_concurrency_holds_inside_subgraphs) {
  for (execution mode : modes) {
    BOOST_TEST_CONTEXT("mode " << static_cast<int>(mode)) {
      probe p(3);
      state_graph inner;
      inner.add_key("n", "add");
      inner.add_node("fan", [](const value&, node_context&) { return value(object{}); });
      inner.add_node("work", [&](const value&, node_context&) {
        p.enter();
        return value(object{{"n", 1}});
      });
      inner.set_entry_point("fan");
      inner.add_conditional_edges("fan", [](const value&, node_context&) {
        list sends;
        for (int i = 0; i < 12; ++i) sends.push_back(make_send("work", i));
        return value(std::move(sends));
      });
      auto sub = inner.compile(opts(mode));
      state_graph outer;
      outer.add_key("n", "add");
      outer.add_node("sub", sub);
      outer.set_entry_point("sub").set_finish_point("sub");
      auto graph = outer.compile(opts(mode));
      const value out = graph->invoke(object{{"n", 0}}, object{{"max_concurrency", 3}});
      BOOST_TEST(out.get("n") == value(12));
      BOOST_TEST(p.max_seen == 3u);
    }
  }
}

BOOST_AUTO_TEST_CASE(max_concurrency_holds_for_task_calls) {
  for (execution mode : modes) {
    BOOST_TEST_CONTEXT("mode " << static_cast<int>(mode)) {
      probe p(3);
      fn::task work("work", [&](const value& x, fn::call_context&) {
        p.enter();
        return x;
      });
      fn::entrypoint_options o;
      o.name = "graph";
      o.runtime.mode = mode;
      auto graph = fn::entrypoint(o, [&](const value&, fn::call_context& ctx) {
        std::vector<fn::future> calls;
        for (int i = 0; i < 12; ++i) calls.push_back(work(ctx, i));
        std::int64_t sum = 0;
        for (auto& f : calls) sum += f.result().as_int();
        return value(sum);
      });
      BOOST_TEST(graph->invoke(value(0), object{{"max_concurrency", 3}}) == value(66));
      BOOST_TEST(p.max_seen == 3u);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_max_concurrency_or_step_timeout) {
  state_graph b;
  b.add_key("x");
  b.add_node("n", [](const value& s, node_context&) { return s; });
  b.set_entry_point("n").set_finish_point("n");
  auto graph = b.compile(opts(execution::threads));
  try {
    graph->invoke(object{{"x", 1}}, object{{"max_concurrency", -1}});
    BOOST_FAIL("a negative max_concurrency must be refused");
  } catch (const error& e) {
    BOOST_TEST((e.code() == error_code::invalid_argument));
    BOOST_TEST(std::string(e.what()) == "max_concurrency must be a positive integer, not -1");
  }
  compile_options o = opts(execution::threads);
  o.step_timeout_ms = 0;
  try {
    (void)b.compile(o);
    BOOST_FAIL("a step_timeout of 0 must be refused");
  } catch (const error& e) {
    BOOST_TEST((e.code() == error_code::invalid_graph));
    BOOST_TEST(std::string(e.what()) == "step_timeout must be greater than 0");
  }
}
