// Resuming must never lose or overwrite saved data: a resumed fork leaves the branch it left
// alone, and a Command's update survives a resumed node that interrupts again. Runs against
// both savers and both execution modes (tests/CMakeLists.txt).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
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

namespace {

// `id` an hour later: the first eight hex digits are the time in units of 2^28 * 100 ns.
std::string an_hour_later(const std::string& id) {
  const unsigned long high = std::stoul(id.substr(0, 8), nullptr, 16) + 0x86;  // 3,600 s
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08lx", high);
  return buf + id.substr(8);
}

}  // namespace

// A thread whose latest checkpoint a machine with a clock an hour ahead made (or made before
// this machine's clock was set back an hour): a run here still makes the thread's latest
// checkpoints, and the next run builds on them.
BOOST_AUTO_TEST_CASE(runs_continue_after_the_latest_checkpoint_whatever_the_clock) {
  auto saver = test::make_saver();
  state_graph g;
  g.add_key("trail", "append");
  g.add_node("a", [](const value& s, node_context&) {
    return object{{"trail", value::array({"a" + std::to_string(s.get("trail").as_list().size())})}};
  });
  g.add_edge("__start__", "a");
  g.add_edge("a", "__end__");
  auto graph = g.compile(with_saver(saver));
  graph->invoke(object{{"trail", value::array({"in"})}}, thread("t"));
  // The latest checkpoint again, as the child of itself, with an id an hour ahead.
  auto latest = saver->get_tuple({"t", "", ""});
  BOOST_TEST_REQUIRE(latest.has_value());
  checkpoint ahead = latest->checkpoint;
  ahead.id = an_hour_later(latest->config.checkpoint_id);
  std::map<std::string, channel_version> versions;
  for (const auto& [channel, version] : ahead.channel_versions) versions.emplace(channel, version);
  saver->put(latest->config, ahead, latest->metadata, versions);
  BOOST_TEST_REQUIRE(saver->get_tuple({"t", "", ""})->config.checkpoint_id == ahead.id);

  const value second = graph->invoke(object{{"trail", value::array({"again"})}}, thread("t"));
  BOOST_TEST(second.get("trail") == value::array({"in", "a1", "again", "a3"}));
  const state_snapshot now = graph->get_state(thread("t"));
  BOOST_TEST(now.values.get("trail") == second.get("trail"));
  BOOST_TEST(now.config.checkpoint_id > ahead.id);
  // An update made here sorts after them too.
  graph->update_state(thread("t"), object{{"trail", value::array({"u"})}});
  BOOST_TEST(graph->get_state(thread("t")).values.get("trail").as_list().size() == 5u);
}
