// A Pregel graph's retry policies for every node without its own (LangGraph
// `Pregel(retry_policy=...)`); per-node policies are ported in tests/conformance/retry_*.

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "superstep/channels/last_value.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"
#include "support/expect_error.hpp"
#include "test_execution.hpp"

using namespace superstep;

namespace {

retry_policy twice() {
  retry_policy p;
  p.max_attempts = 2;
  p.initial_interval_ms = 0;
  p.jitter = false;
  return p;
}

// "input" -> node `flaky` (failing its first `failures` attempts) -> "output".
std::shared_ptr<pregel> flaky_graph(std::atomic<int>& calls, int failures, retry_policies own,
                                    retry_policies graph_default) {
  pregel_graph g;
  g.channels["input"] = std::make_shared<channels::last_value>("input");
  g.channels["output"] = std::make_shared<channels::last_value>("output");
  pregel_node n = subscribe_node("flaky", {"input"},
                                 [&calls, failures](const value& v, node_context&) -> value {
                                   if (++calls <= failures)
                                     throw std::runtime_error("flaky failed");
                                   return v;
                                 },
                                 {"output"});
  n.retry = std::move(own);
  g.nodes.push_back(std::move(n));
  g.input_channels = {"input"};
  g.input_single = true;
  g.output_channels = {"output"};
  g.output_single = true;
  runtime_options o;
  o.mode = test::opts().mode;
  o.retry = std::move(graph_default);
  return std::make_shared<pregel>(std::move(g), std::move(o));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_graph_retry_policy_applies_to_nodes_without_their_own) {
  std::atomic<int> calls = 0;
  auto g = flaky_graph(calls, 1, {}, {twice()});
  BOOST_TEST(g->invoke(7) == value(7));
  BOOST_TEST(calls == 2);
}

BOOST_AUTO_TEST_CASE(a_node_retry_policy_wins_over_the_graph_one) {
  retry_policy once = twice();
  once.max_attempts = 1;
  std::atomic<int> calls = 0;
  auto g = flaky_graph(calls, 1, {once}, {twice()});
  test::expect_error([&] { g->invoke(7); }, error_code::node_error, "flaky failed");
  BOOST_TEST(calls == 1);
}
