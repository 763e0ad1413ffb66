// LangGraph's libs/langgraph/tests/test_algo.py: the pure superstep algorithm
// (superstep/coordinator/algo.hpp, LangGraph's _algo.py); see conformance.hpp.
#include "superstep/coordinator/algo.hpp"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_algo.py::test_prepare_next_tasks
// An empty graph from an empty checkpoint plans no task, whether every node is a candidate
// (LangGraph for_execution=False/True: ours plans the same tasks for both) or only the nodes
// of no updated channel.
BOOST_AUTO_TEST_CASE(test_prepare_next_tasks) {
  pregel_graph g;
  const auto index = algo::graph_index::build(g);
  const algo::run_state state = algo::restore(g, checkpoint{});
  BOOST_TEST(algo::prepare_next_tasks(g, index, state, nullptr, 0, "").empty());
  const std::unordered_set<std::string> none;
  BOOST_TEST(algo::prepare_next_tasks(g, index, state, &none, 0, "").empty());
}

// libs/langgraph/tests/test_algo.py::test_tuple_str
// The order task paths sort in: PULL tasks before PUSH tasks, PUSH tasks by index. LangGraph's
// nested PUSH paths (a PUSH task scheduled by a PUSH task) have no superstep counterpart.
BOOST_AUTO_TEST_CASE(test_tuple_str) {
  const auto push = [](std::uint64_t i) {
    pregel_task t;
    t.push = true;
    t.push_index = i;
    t.name = "n";
    return t;
  };
  pregel_task pull_abc;
  pull_abc.name = "abc";
  std::vector<pregel_task> tasks{push(2), pull_abc, push(10), push(1)};
  std::sort(tasks.begin(), tasks.end(), task_path_less);
  std::vector<std::string> order;
  for (const auto& t : tasks)
    order.push_back(t.push ? "push " + std::to_string(t.push_index) : "pull " + t.name);
  BOOST_TEST((order == std::vector<std::string>{"pull abc", "push 1", "push 2", "push 10"}));
}
