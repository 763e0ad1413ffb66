// LangGraph's per-Send timeout (libs/langgraph/tests/test_retry.py), ported: a Send may give
// the PUSH task it starts time limits of its own (LangGraph `Send(node, arg, timeout=...)`),
// which replace the target node's. As in retry_timeout_test.cpp, a "slow" C++ node stops at
// its next node_context::check_timeout(), so it waits in small steps, checking.

#include <chrono>
#include <thread>

#include "conformance.hpp"
#include "superstep/coordinator/send.hpp"
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

}  // namespace

// libs/langgraph/tests/test_retry.py::test_send_timeout_overrides_target_node_timeout
BOOST_AUTO_TEST_CASE(test_send_timeout_overrides_target_node_timeout) {
  state_graph b;
  b.add_key("x");
  b.add_node(
      "slow",
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
  test::expect_error([&] { g->invoke(object{{"x", 1}}); }, error_code::node_timeout,
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
  b.add_node(
      "slow",
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
