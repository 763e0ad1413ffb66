// LangGraph's node timeout tests (libs/langgraph/tests/test_retry.py), ported: a node's run and
// idle timeouts (LangGraph TimeoutPolicy), the NodeTimeoutError they raise (error_code::
// node_timeout, LangGraph's message), retries on it, and what refreshes the idle timeout.
// LangGraph's async nodes stop at their next await (asyncio.sleep); a C++ node stops at its
// next node_context::check_timeout(), so a "slow" node here waits in small steps, checking.
// Many LangGraph tests drive the private runner (arun_with_retry) with a hand-built task; the
// same behaviour is asserted here through a one-node graph. Times are scaled down (50 ms), with
// a wide margin where a test must not time out (a loaded machine may pause a thread).

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string start{START};

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
timeout_policy run(double ms) { return {.run_timeout_ms = ms}; }

// A one-node graph: {"x"} in, node `name` with `options`.
std::shared_ptr<pregel> one_node(const std::string& name, node_function fn, node_options options,
                                 compile_options o = opts()) {
  state_graph b;
  b.add_key("x");
  b.add_node(name, std::move(fn), std::move(options));
  b.add_edge(start, name);
  return b.compile(o);
}

retry_policy on_timeout(std::int64_t max_attempts) {
  retry_policy p;
  p.max_attempts = max_attempts;
  p.initial_interval_ms = 0;
  p.jitter = false;
  p.retry_on = [](const error& e) { return e.code() == error_code::node_timeout; };
  return p;
}

}  // namespace

// libs/langgraph/tests/test_retry.py::test_coerce_timeout_policy_scalar_is_run_timeout
// (the validation part; Python's timedelta and Send(timeout=...) have no counterpart)
BOOST_AUTO_TEST_CASE(test_coerce_timeout_policy_scalar_is_run_timeout) {
  auto fn = [](const value&, node_context&) -> value { return object{}; };
  test::expect_error([&] { one_node("n", fn, {.timeout = run(0)}); }, error_code::invalid_graph,
                     "run_timeout must be greater than 0");
  test::expect_error([&] { one_node("n", fn, {.timeout = idle(-1)}); }, error_code::invalid_graph,
                     "idle_timeout must be greater than 0");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_ok_when_fast
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_ok_when_fast) {
  auto g = one_node("fast",
                    [](const value&, node_context&) -> value {
                      return object{{"x", "ok"}};
                    },
                    {.timeout = idle(1000)});
  BOOST_TEST(g->invoke(object{{"x", ""}}).get("x").as_string() == "ok");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_retries_when_retry_on_timeout
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_retries_when_retry_on_timeout) {
  std::atomic<int> calls = 0;
  auto g = one_node("flaky",
                    [&](const value&, node_context& ctx) -> value {
                      if (++calls < 2) {
                        sleep_checking(ctx, std::chrono::milliseconds(500));
                        return object{{"x", "late"}};
                      }
                      return object{{"x", "ok"}};
                    },
                    {.retry = {on_timeout(3)}, .timeout = idle(50)});
  BOOST_TEST(g->invoke(object{{"x", ""}}).get("x").as_string() == "ok");
  BOOST_TEST(calls == 2);
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_fires_async
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_fires_async) {
  auto g = one_node("aslow",
                    [](const value&, node_context& ctx) -> value {
                      sleep_checking(ctx, std::chrono::milliseconds(1000));
                      return object{};
                    },
                    {.timeout = idle(50)});
  test::expect_error(
      [&] {
        g->invoke(object{{"x", ""}});
      },
      error_code::node_timeout,
      "Node 'aslow' exceeded its idle timeout of 0.050s without making progress");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_run_timeout_is_not_refreshed_by_heartbeat
BOOST_AUTO_TEST_CASE(test_arun_with_retry_run_timeout_is_not_refreshed_by_heartbeat) {
  auto g = one_node("run-timeout",
                    [](const value&, node_context& ctx) -> value {
                      for (int i = 0; i < 1000; ++i) {
                        ctx.heartbeat();
                        sleep_checking(ctx, std::chrono::milliseconds(2));
                      }
                      return object{};
                    },
                    {.timeout = run(50)});
  test::expect_error(
      [&] {
        g->invoke(object{{"x", ""}});
      },
      error_code::node_timeout, "Node 'run-timeout' exceeded its run timeout of 0.050s");
}

// libs/langgraph/tests/test_retry.py::test_node_timeout_error_carries_both_configured_timeouts
// (the run timeout fires first and is the one named; the error is a message here, not an
// object with both fields)
BOOST_AUTO_TEST_CASE(test_node_timeout_error_carries_both_configured_timeouts) {
  auto g = one_node("both",
                    [](const value&, node_context& ctx) -> value {
                      for (int i = 0; i < 1000; ++i) {
                        ctx.heartbeat();
                        sleep_checking(ctx, std::chrono::milliseconds(2));
                      }
                      return object{};
                    },
                    {.timeout = timeout_policy{.run_timeout_ms = 50, .idle_timeout_ms = 500}});
  test::expect_error(
      [&] {
        g->invoke(object{{"x", ""}});
      },
      error_code::node_timeout, "Node 'both' exceeded its run timeout of 0.050s");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_does_not_swallow_proc_asyncio_timeout
BOOST_AUTO_TEST_CASE(test_arun_with_retry_does_not_swallow_proc_asyncio_timeout) {
  std::atomic<int> calls = 0;
  auto g = one_node(
      "parent",
      [&](const value&, node_context&) -> value {
        ++calls;
        throw std::runtime_error("inner");  // the node's own timeout error, not the node's timeout
      },
      {.retry = {on_timeout(2)}, .timeout = idle(1000)});
  test::expect_error([&] { g->invoke(object{{"x", ""}}); }, error_code::node_error, "inner");
  BOOST_TEST(calls == 1);
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_does_not_swallow_proc_node_timeout
BOOST_AUTO_TEST_CASE(test_arun_with_retry_does_not_swallow_proc_node_timeout) {
  const std::string child =
      "Node 'child' exceeded its idle timeout of 0.100s without making progress "
      "(elapsed: 0.200s).";
  auto g = one_node(
      "parent",
      [&](const value&, node_context&) -> value { throw error(error_code::node_timeout, child); },
      {.timeout = idle(1000)});
  try {
    g->invoke(object{{"x", ""}});
    BOOST_FAIL("no error");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::node_timeout);
    BOOST_TEST(std::string(e.what()) == child);  // the child's own, unchanged
  }
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_idle_timeout_resets_on_stream_event
// (LangGraph's stream protocol event: a `messages` event here)
BOOST_AUTO_TEST_CASE(test_arun_with_retry_idle_timeout_resets_on_stream_event) {
  auto g = one_node("streaming",
                    [](const value&, node_context& ctx) -> value {
                      for (int i = 0; i < 3; ++i) {
                        sleep_checking(ctx, std::chrono::milliseconds(45));
                        ctx.emit_message("tick");
                      }
                      return object{{"x", "ok"}};
                    },
                    {.timeout = idle(100)});
  std::vector<value> events;
  value out = g->stream(object{{"x", ""}}, value(), {.modes = {stream_mode::messages}},
                        [&](const stream_event& e) { events.push_back(e.data); });
  BOOST_TEST(out.get("x").as_string() == "ok");
  BOOST_TEST(events.size() == 3u);
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_idle_timeout_resets_on_runtime_stream_writer
BOOST_AUTO_TEST_CASE(test_arun_with_retry_idle_timeout_resets_on_runtime_stream_writer) {
  auto g = one_node("writer",
                    [](const value&, node_context& ctx) -> value {
                      for (int i = 0; i < 3; ++i) {
                        sleep_checking(ctx, std::chrono::milliseconds(45));
                        ctx.emit_custom("tick");
                      }
                      return object{{"x", "ok"}};
                    },
                    {.timeout = idle(100)});
  std::vector<value> events;
  value out = g->stream(object{{"x", ""}}, value(), {.modes = {stream_mode::custom}},
                        [&](const stream_event& e) { events.push_back(e.data); });
  BOOST_TEST(out.get("x").as_string() == "ok");
  BOOST_TEST(value(list(events.begin(), events.end())) == value(list{"tick", "tick", "tick"}));
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_idle_timeout_resets_on_runtime_heartbeat
BOOST_AUTO_TEST_CASE(test_arun_with_retry_idle_timeout_resets_on_runtime_heartbeat) {
  auto g = one_node("heartbeat",
                    [](const value&, node_context& ctx) -> value {
                      for (int i = 0; i < 3; ++i) {
                        sleep_checking(ctx, std::chrono::milliseconds(45));
                        ctx.heartbeat();
                      }
                      return object{{"x", "ok"}};
                    },
                    {.timeout = idle(100)});
  BOOST_TEST(g->invoke(object{{"x", ""}}).get("x").as_string() == "ok");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_heartbeat_refresh_mode_ignores_stream_events
BOOST_AUTO_TEST_CASE(test_arun_with_retry_heartbeat_refresh_mode_ignores_stream_events) {
  auto g = one_node(
      "heartbeat-only",
      [](const value&, node_context& ctx) -> value {
        for (int i = 0; i < 1000; ++i) {
          sleep_checking(ctx, std::chrono::milliseconds(10));
          ctx.emit_custom("tick");
        }
        return object{};
      },
      {.timeout = timeout_policy{.idle_timeout_ms = 50, .refresh_on_heartbeat_only = true}});
  std::vector<value> events;
  test::expect_error(
      [&] {
        g->stream(object{{"x", ""}}, value(), {.modes = {stream_mode::custom}},
                  [&](const stream_event& e) { events.push_back(e.data); });
      },
      error_code::node_timeout, "exceeded its idle timeout of 0.050s");
  BOOST_TEST(!events.empty());
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_heartbeat_refresh_mode_accepts_heartbeat
BOOST_AUTO_TEST_CASE(test_arun_with_retry_heartbeat_refresh_mode_accepts_heartbeat) {
  auto g = one_node(
      "heartbeat-only",
      [](const value&, node_context& ctx) -> value {
        for (int i = 0; i < 3; ++i) {
          sleep_checking(ctx, std::chrono::milliseconds(45));
          ctx.heartbeat();
        }
        return object{{"x", "ok"}};
      },
      {.timeout = timeout_policy{.idle_timeout_ms = 100, .refresh_on_heartbeat_only = true}});
  BOOST_TEST(g->invoke(object{{"x", ""}}).get("x").as_string() == "ok");
}

// libs/langgraph/tests/test_retry.py::test_runtime_heartbeat_outside_idle_attempt_is_no_op
BOOST_AUTO_TEST_CASE(test_runtime_heartbeat_outside_idle_attempt_is_no_op) {
  auto g = one_node("n",
                    [](const value&, node_context& ctx) -> value {
                      ctx.heartbeat();
                      ctx.check_timeout();
                      return object{{"x", "ok"}};
                    },
                    {});
  BOOST_TEST(g->invoke(object{{"x", ""}}).get("x").as_string() == "ok");
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_cannot_be_swallowed
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_cannot_be_swallowed) {
  auto g = one_node("stubborn",
                    [](const value&, node_context& ctx) -> value {
                      try {
                        sleep_checking(ctx, std::chrono::milliseconds(1000));
                      } catch (const error&) {
                        return object{{"x", "late"}};  // catches its timeout and answers anyway
                      }
                      return object{{"x", "ok"}};
                    },
                    {.timeout = idle(50)});
  test::expect_error(
      [&] {
        g->invoke(object{{"x", ""}});
      },
      error_code::node_timeout, "Node 'stubborn' exceeded its idle timeout");
}

namespace {

// A graph of a messages key whose node `name` runs `fn` with an idle timeout of 50 ms and
// `retry`, checkpointed in `saver`.
std::shared_ptr<pregel> message_writer(const std::string& name, node_function fn,
                                       std::vector<retry_policy> retry,
                                       std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("messages", "add_messages");
  b.add_node(name, std::move(fn), {.retry = std::move(retry), .timeout = idle(50)});
  b.add_edge(start, name);
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
}

value ai(const char* id, const char* content) {
  return object{{"type", "ai"}, {"id", id}, {"content", content}};
}

}  // namespace

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_discards_pre_timeout_writes
// (the node writes mid-run with push_message, LangGraph's CONFIG_KEY_SEND)
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_discards_pre_timeout_writes) {
  std::shared_ptr<checkpoint_saver> s = saver();
  auto g = message_writer(
      "aslow-writer",
      [](const value&, node_context& ctx) -> value {
        ctx.push_message(ai("m1", "stale-before-idle-timeout"));
        sleep_checking(ctx, std::chrono::milliseconds(200));
        return object{{"messages", value::array({ai("m2", "late")})}};
      },
      {}, s);
  test::expect_error(
      [&] {
        g->invoke(object{{"messages", list{}}}, thread("pre_timeout"));
      },
      error_code::node_timeout, "Node 'aslow-writer' exceeded its idle timeout");
  // The task's writes are gone: none saved for the thread, none applied.
  auto tuple = s->get_tuple(checkpoint_config{"pre_timeout", "", ""});
  BOOST_REQUIRE(tuple);
  for (const auto& w : tuple->pending_writes) BOOST_TEST(w.channel != "messages");
  BOOST_TEST(g->get_state(thread("pre_timeout")).values.get("messages") == value(list{}));
}

// libs/langgraph/tests/test_retry.py::test_arun_with_retry_timeout_discards_stale_executor_writes
// (the first attempt writes with push_message, then times out; the retry writes afresh)
BOOST_AUTO_TEST_CASE(test_arun_with_retry_timeout_discards_stale_executor_writes) {
  std::atomic<int> calls = 0;
  auto g = message_writer(
      "flaky",
      [&](const value&, node_context& ctx) -> value {
        if (++calls == 1) {
          ctx.push_message(ai("stale", "stale"));
          sleep_checking(ctx, std::chrono::milliseconds(200));
          return object{{"messages", value::array({ai("late", "late")})}};
        }
        ctx.push_message(ai("fresh", "fresh"));
        return value();
      },
      {on_timeout(2)}, saver());
  const value out = g->invoke(object{{"messages", list{}}}, thread("stale_writes"));
  BOOST_TEST(calls == 2);
  const list& messages = out.get("messages").as_list();
  BOOST_REQUIRE_EQUAL(messages.size(), 1u);
  BOOST_TEST(messages[0].get("id") == value("fresh"));
}

// libs/langgraph/tests/test_retry.py::test_state_graph_add_node_timeout_e2e
BOOST_AUTO_TEST_CASE(test_state_graph_add_node_timeout_e2e) {
  auto g = one_node("slow",
                    [](const value& s, node_context& ctx) -> value {
                      sleep_checking(ctx, std::chrono::milliseconds(1000));
                      return object{{"x", s.get("x").as_int() + 1}};
                    },
                    {.timeout = idle(50)});
  test::expect_error([&] { g->invoke(object{{"x", 1}}); }, error_code::node_timeout, "Node 'slow'");
}

// libs/langgraph/tests/test_retry.py::test_state_graph_add_node_timeout_composes_with_retry
BOOST_AUTO_TEST_CASE(test_state_graph_add_node_timeout_composes_with_retry) {
  std::atomic<int> attempts = 0;
  auto g = one_node("flaky",
                    [&](const value& s, node_context& ctx) -> value {
                      if (++attempts < 2) sleep_checking(ctx, std::chrono::milliseconds(1000));
                      return object{{"x", s.get("x").as_int() + 1}};
                    },
                    {.retry = {on_timeout(3)}, .timeout = idle(50)});
  BOOST_TEST(g->invoke(object{{"x", 0}}) == value(object{{"x", 1}}));
  BOOST_TEST(attempts == 2);
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_timeout
BOOST_AUTO_TEST_CASE(test_set_node_defaults_timeout) {
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.timeout = run(50)});
  b.add_node("slow", [](const value&, node_context& ctx) -> value {
    sleep_checking(ctx, std::chrono::milliseconds(10000));
    return object{{"foo", "should-not-happen"}};
  });
  b.add_edge(start, "slow");
  auto g = b.compile(opts());
  test::expect_error(
      [&] {
        g->invoke(object{{"foo", ""}});
      },
      error_code::node_timeout, "Node 'slow' exceeded its run timeout");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_timeout_per_node_wins
BOOST_AUTO_TEST_CASE(test_set_node_defaults_timeout_per_node_wins) {
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.timeout = run(10)});
  b.add_node("quick",
             [](const value&, node_context& ctx) -> value {
               sleep_checking(ctx, std::chrono::milliseconds(50));
               return object{{"foo", "done"}};
             },
             {.timeout = run(5000)});
  b.add_edge(start, "quick");
  BOOST_TEST(b.compile(opts())->invoke(object{{"foo", ""}}).get("foo").as_string() == "done");
}

// libs/langgraph/tests/test_retry.py::test_timeout_validation_is_eager_across_apis
// (the StateGraph and PregelNode parts; @task, @entrypoint and Send are other APIs)
BOOST_AUTO_TEST_CASE(test_timeout_validation_is_eager_across_apis) {
  state_graph b;
  b.add_key("x");
  test::expect_error(
      [&] {
        b.add_node("slow", [](const value& s, node_context&) { return s; }, {.timeout = run(0)});
      },
      error_code::invalid_graph, "greater than 0");

  pregel_graph g;
  g.channels["x"] = std::make_shared<channels::last_value>("x");
  pregel_node n =
      subscribe_node("n", {"x"}, [](const value& v, node_context&) { return v; }, {"x"});
  n.timeout = run(0);
  g.nodes.push_back(std::move(n));
  g.input_channels = {"x"};
  g.input_single = true;
  g.output_channels = {"x"};
  g.output_single = true;
  test::expect_error([&] { std::make_shared<pregel>(std::move(g)); }, error_code::invalid_graph,
                     "greater than 0");
}

// libs/langgraph/tests/test_retry.py::test_node_builder_timeout_e2e
BOOST_AUTO_TEST_CASE(test_node_builder_timeout_e2e) {
  pregel_graph g;
  g.channels["input"] = std::make_shared<channels::ephemeral_value>("input");
  g.channels["output"] = std::make_shared<channels::last_value>("output");
  pregel_node slow = subscribe_node("slow", {"input"},
                                    [](const value& v, node_context& ctx) -> value {
                                      sleep_checking(ctx, std::chrono::milliseconds(200));
                                      return v.as_int() + 1;
                                    },
                                    {"output"});
  slow.timeout = idle(50);
  g.nodes.push_back(std::move(slow));
  g.input_channels = {"input"};
  g.input_single = true;
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options o;
  o.mode = mode();
  auto graph = std::make_shared<pregel>(std::move(g), o);
  test::expect_error([&] { graph->invoke(1); }, error_code::node_timeout, "Node 'slow'");
}
