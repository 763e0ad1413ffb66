// LangGraph's libs/langgraph/tests/test_algo.py: the pure superstep algorithm
// (superstep/pregel/algo.hpp, LangGraph's _algo.py); see conformance.hpp.
#include "superstep/pregel/algo.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/last_value.hpp"

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

namespace {

// A graph of one channel, "a", and three PUSH tasks of node "n" writing 0, 10 and 20 to it.
pregel_graph one_channel_graph() {
  pregel_graph g;
  g.channels["a"] = std::make_shared<channels::last_value>("a");
  return g;
}

std::vector<pregel_task> three_sends() {
  std::vector<pregel_task> tasks(3);
  for (std::uint64_t i = 0; i < tasks.size(); ++i) {
    tasks[i].push = true;
    tasks[i].push_index = i;
    tasks[i].name = "n";
    tasks[i].writes.emplace_back("a", value(static_cast<std::int64_t>(10 * i)));
  }
  return tasks;
}

}  // namespace

// Not a port: staging a step for channels owned elsewhere collects the writes of the tasks
// whose writes did not go to their owners from where they ran; `sent` is by position in
// task-path order, each collected write numbered by that position.
BOOST_AUTO_TEST_CASE(stage_writes_collects_only_what_was_not_sent) {
  const pregel_graph g = one_channel_graph();
  algo::run_state state = algo::restore(g, checkpoint{});
  std::vector<pregel_task> tasks = three_sends();
  std::vector<pregel_task*> batch{&tasks[0], &tasks[1], &tasks[2]};
  algo::applied out;
  const auto w = algo::stage_writes(state, batch, out, {true, false});
  BOOST_TEST_REQUIRE(w.writes.size() == 2u);
  BOOST_TEST(w.writes[0].order == 1u);
  BOOST_TEST(w.writes[0].v.as_int() == 10);
  BOOST_TEST(w.writes[1].order == 2u);  // past the flags: not sent
  BOOST_TEST(w.writes[1].v.as_int() == 20);
  BOOST_TEST(w.bump_step);
}

// Not a port: the flags are by position in the tasks as given; a batch out of task-path order
// is sorted, and its flags with it.
BOOST_AUTO_TEST_CASE(stage_writes_keeps_sent_flags_with_their_tasks_when_it_sorts) {
  const pregel_graph g = one_channel_graph();
  algo::run_state state = algo::restore(g, checkpoint{});
  std::vector<pregel_task> tasks = three_sends();
  // Given as indices 2, 0, 1; the task of index 2 was sent.
  std::vector<pregel_task*> batch{&tasks[2], &tasks[0], &tasks[1]};
  algo::applied out;
  const auto w = algo::stage_writes(state, batch, out, {true});
  BOOST_TEST_REQUIRE(w.writes.size() == 2u);
  BOOST_TEST(w.writes[0].order == 0u);
  BOOST_TEST(w.writes[0].v.as_int() == 0);
  BOOST_TEST(w.writes[1].order == 1u);
  BOOST_TEST(w.writes[1].v.as_int() == 10);
  BOOST_TEST(batch[0] == &tasks[0]);
}
