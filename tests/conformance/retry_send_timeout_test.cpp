// LangGraph's per-Send timeout (libs/langgraph/tests/test_retry.py), ported: a Send may give
// the PUSH task it starts time limits of its own (LangGraph `Send(node, arg, timeout=...)`),
// which replace the target node's. As in retry_timeout_test.cpp, a "slow" C++ node stops at
// its next node_context::check_timeout(), so it waits in small steps, checking.

#include <chrono>
#include <thread>

#include "conformance.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/send.hpp"
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

// LangGraph's `serde.loads_typed(serde.dumps_typed(packet))`: the Send saved by the backend
// under test as a task's pending write (to the tasks channel) and read back.
std::optional<send> saved_and_loaded(const value& packet) {
  auto cp_saver = saver();
  checkpoint cp;
  cp.id = checkpoint_id_generator().next();
  cp.ts = now_iso8601();
  checkpoint_metadata meta;
  meta.source = "loop";
  checkpoint_config at = cp_saver->put(checkpoint_config{"serde", "", ""}, cp, meta, {});
  cp_saver->put_writes(at, {{std::string(TASKS), packet}}, "task-1", "~__pregel_push,0");
  auto tuple = cp_saver->get_tuple(at);
  BOOST_REQUIRE(tuple.has_value());
  BOOST_REQUIRE(tuple->pending_writes.size() == 1u);
  return as_send(tuple->pending_writes[0].v);
}

}  // namespace

// libs/langgraph/tests/test_retry.py::test_send_timeout_round_trips_through_msgpack_serde
BOOST_AUTO_TEST_CASE(test_send_timeout_round_trips_through_msgpack_serde) {
  const value packet = make_send("worker", object{{"x", 1}},
                                 timeout_policy{.run_timeout_ms = 1000, .idle_timeout_ms = 2000});
  auto back = saved_and_loaded(packet);
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST(back->node == "worker");
  BOOST_TEST(back->arg == value(object{{"x", 1}}));
  BOOST_REQUIRE(back->timeout.has_value());
  BOOST_TEST(back->timeout->run_timeout_ms.value_or(0) == 1000.0);
  BOOST_TEST(back->timeout->idle_timeout_ms.value_or(0) == 2000.0);
  BOOST_TEST(!back->timeout->refresh_on_heartbeat_only);
}

// libs/langgraph/tests/test_retry.py::test_send_without_timeout_round_trips_through_msgpack_serde
BOOST_AUTO_TEST_CASE(test_send_without_timeout_round_trips_through_msgpack_serde) {
  auto back = saved_and_loaded(make_send("worker", object{{"x", 1}}));
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST(back->node == "worker");
  BOOST_TEST(back->arg == value(object{{"x", 1}}));
  BOOST_TEST(!back->timeout.has_value());
}

// libs/langgraph/tests/test_retry.py::test_send_timeout_overrides_target_node_timeout
BOOST_AUTO_TEST_CASE(test_send_timeout_overrides_target_node_timeout) {
  state_graph b;
  b.add_key("x");
  b.add_node("slow",
             [](const value& s, node_context& ctx) -> value {
               sleep_checking(ctx, std::chrono::milliseconds(200));
               return object{{"x", s.get("x").as_int() + 1}};
             },
             {.timeout = timeout_policy{.idle_timeout_ms = 1000}});
  b.add_conditional_edges(std::string(START), [](const value& s, node_context&) -> value {
    return value::array({make_send("slow", s, timeout_policy{.idle_timeout_ms = 50})});
  });
  b.add_edge("slow", std::string(END));
  auto g = b.compile(opts());
  // LangGraph: NodeTimeoutError with node "slow", kind "idle", idle_timeout 0.05.
  test::expect_error(
      [&] {
        g->invoke(object{{"x", 1}});
      },
      error_code::node_timeout,
      "Node 'slow' exceeded its idle timeout of 0.050s without making progress");
}

// The Send's timeout travels with it: saved in the checkpoint's tasks channel, a resumed run
// still runs the Send's task under it.
BOOST_AUTO_TEST_CASE(send_timeout_survives_a_checkpoint_and_rejects_an_invalid_policy) {
  test::expect_error([] { make_send("slow", value(), timeout_policy{.idle_timeout_ms = 0}); },
                     error_code::invalid_argument,
                     "the timeout of a Send to 'slow': idle_timeout must be greater than 0");
  state_graph b;
  b.add_key("x");
  b.add_node("fan", [](const value&, node_context&) -> value { return object{}; });
  b.add_node("slow",
             [](const value& s, node_context& ctx) -> value {
               sleep_checking(ctx, std::chrono::milliseconds(200));
               return object{{"x", s.get("x").as_int() + 1}};
             },
             {.timeout = timeout_policy{.idle_timeout_ms = 1000}});
  b.add_edge(std::string(START), "fan");
  b.add_conditional_edges("fan", [](const value& s, node_context&) -> value {
    return value::array({make_send("slow", s, timeout_policy{.run_timeout_ms = 50})});
  });
  compile_options o = opts_with_saver();
  o.interrupt_before = {"slow"};
  auto g = b.compile(o);
  const value config = object{{"configurable", object{{"thread_id", "send-timeout"}}}};
  g->invoke(object{{"x", 1}}, config);
  BOOST_TEST(g->get_state(config).next == std::vector<std::string>{"slow"});
  test::expect_error([&] { g->invoke(value(), config); }, error_code::node_timeout,
                     "Node 'slow' exceeded its run timeout of 0.050s");
}
