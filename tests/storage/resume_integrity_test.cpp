// Resuming must never lose or overwrite saved data: a resumed fork leaves the branch it left
// alone, and a Command's update survives a resumed node that interrupts again. Runs against
// both savers and both execution modes (tests/CMakeLists.txt).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/coordinator/send.hpp"
#include "superstep/coordinator/state_graph.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

value at(const char* id, const std::string& checkpoint_id) {
  return object{{"configurable", object{{"thread_id", id}, {"checkpoint_id", checkpoint_id}}}};
}

value resume(value v, value update = value()) {
  command c;
  c.resume = std::move(v);
  c.update = std::move(update);
  return make_command(c);
}

compile_options with_saver(std::shared_ptr<checkpoint_saver> saver) {
  compile_options o = test::opts();
  o.checkpointer = std::move(saver);
  return o;
}

// a → ask (interrupt) → b, each appending to `trail`; ask writes the answer to `human`.
std::shared_ptr<pregel> ask_graph(std::shared_ptr<checkpoint_saver> saver) {
  state_graph b;
  b.add_key("trail", "append").add_key("human");
  b.add_node("a", [](const value&, node_context&) -> value {
    return object{{"trail", value::array({"a"})}};
  });
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    value answer = ctx.interrupt("who?");
    return object{{"human", "human:" + answer.as_string()}, {"trail", value::array({"ask"})}};
  });
  b.add_node("b", [](const value&, node_context&) -> value {
    return object{{"trail", value::array({"b"})}};
  });
  b.add_edge("__start__", "a").add_edge("a", "ask").add_edge("ask", "b");
  return b.compile(with_saver(std::move(saver)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(resuming_a_replayed_fork_leaves_every_checkpoint_of_the_old_branch_as_it_was) {
  auto graph = ask_graph(test::make_saver());
  graph->invoke(object{{"trail", list{}}}, thread("t"));
  BOOST_TEST_REQUIRE(graph->invoke(resume("old"), thread("t")).to_json() ==
                     R"({"trail":["a","ask","b"],"human":"human:old"})");
  std::vector<state_snapshot> old_branch = graph->get_state_history(thread("t"));
  std::vector<std::string> old_values;
  for (const auto& s : old_branch) old_values.push_back(s.values.to_json());

  // Replay from the checkpoint before `ask`: it interrupts again, on a new branch.
  std::string before_ask;
  for (const auto& s : old_branch)
    if (s.next == std::vector<std::string>{"ask"}) before_ask = s.config.checkpoint_id;
  BOOST_TEST_REQUIRE(!before_ask.empty());
  value replay = graph->invoke(value(), at("t", before_ask));
  BOOST_TEST(replay.get("__interrupt__").is_list());
  BOOST_TEST(graph->invoke(resume("new"), thread("t")).to_json() ==
             R"({"trail":["a","ask","b"],"human":"human:new"})");

  // Each checkpoint of the old branch reads as before, by id and in the history.
  for (std::size_t i = 0; i < old_branch.size(); ++i) {
    const std::string& id = old_branch[i].config.checkpoint_id;
    BOOST_TEST(graph->get_state(at("t", id)).values.to_json() == old_values[i], "checkpoint " << i);
  }
  BOOST_TEST(
      graph->get_state(at("t", old_branch.front().config.checkpoint_id)).values.get("human") ==
      value("human:old"));
  std::vector<state_snapshot> all = graph->get_state_history(thread("t"));
  BOOST_TEST(all.size() == old_branch.size() + 3u);  // the fork, after ask, after b
  for (const auto& s : all)
    for (std::size_t i = 0; i < old_branch.size(); ++i)
      if (s.config.checkpoint_id == old_branch[i].config.checkpoint_id)
        BOOST_TEST(s.values.to_json() == old_values[i]);
  BOOST_TEST(all.front().values.get("human") == value("human:new"));
}

BOOST_AUTO_TEST_CASE(an_update_to_a_replayed_fork_leaves_the_old_branch_as_it_was) {
  auto graph = ask_graph(test::make_saver());
  graph->invoke(object{{"trail", list{}}}, thread("t"));
  graph->invoke(resume("old"), thread("t"));
  std::vector<state_snapshot> old_branch = graph->get_state_history(thread("t"));
  std::string before_ask;
  for (const auto& s : old_branch)
    if (s.next == std::vector<std::string>{"ask"}) before_ask = s.config.checkpoint_id;
  BOOST_TEST_REQUIRE(!before_ask.empty());
  graph->invoke(value(), at("t", before_ask));
  // The update goes to the fork's head (no checkpoint id): new versions, not the old branch's.
  graph->update_state(thread("t"), object{{"human", "human:patched"}, {"trail", list{"x"}}},
                      std::string("a"));
  for (const auto& s : old_branch)
    BOOST_TEST(graph->get_state(at("t", s.config.checkpoint_id)).values.to_json() ==
               s.values.to_json());
}

