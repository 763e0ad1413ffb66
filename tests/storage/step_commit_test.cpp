// A step commits in two phases (issue 14): on actors a channel actor owns the run's channels
// and applies each step's writes, and the coordinator makes the checkpoint the commit point.
// These cases hold the two paths to one behaviour: a run over channel actors leaves the same
// checkpoints, versions and results as the coordinator applying writes itself (and as the
// thread pool), and nothing of a step that did not commit is ever streamed. Runs against both
// savers (tests/CMakeLists.txt).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "support/expect_error.hpp"
#include "support/throwing_saver.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

value update(std::initializer_list<std::pair<const std::string, value>> entries) {
  object o;
  for (const auto& [k, v] : entries) o.set(k, v);
  return value(std::move(o));
}

// Every kind of channel a state graph makes: reducers, a delta key, an untracked key, the
// Sends' topic, a join's barrier, a deferred node's after-finish trigger, ephemeral branches.
state_graph every_channel_kind() {
  state_graph b;
  b.add_key("items", "append");
  b.add_key("count", "add");
  b.add_key("last");
  b.add_untracked_key("secret");
  b.add_delta_key("log", "append");
  b.add_node("fan", [](const value&, node_context&) {
    return update({{"items", list{"fan"}}, {"count", 1}, {"secret", "s1"}, {"log", list{"fan"}}});
  });
  b.add_node("work", [](const value& in, node_context&) {
    const std::string w = "w" + std::to_string(in.get("i").as_int());
    // Not the delta key: parallel writes to one come back from a saver in task-id order
    // (pregel_delta_channel_test's disabled case), which differs from run to run.
    return update({{"items", list{w}}, {"count", 1}});
  });
  b.add_node("a", [](const value&, node_context&) { return update({{"items", list{"a"}}}); });
  b.add_node("b", [](const value&, node_context&) { return update({{"count", 10}}); });
  b.add_node("join", [](const value& s, node_context&) {
    return update({{"last", "join after " + std::to_string(s.get("count").as_int())}});
  });
  node_options deferred;
  deferred.defer = true;
  b.add_node(
      "late",
      [](const value& s, node_context&) {
        const value* secret = s.find("secret");
        return update({{"last", "late saw " + (secret ? secret->as_string() : std::string("-"))},
                       {"log", list{"late"}}});
      },
      deferred);
  b.add_edge("__start__", "fan");
  b.add_edge("__start__", "a");
  b.add_edge("__start__", "b");
  b.add_conditional_edges("fan", [](const value&, node_context&) {
    list sends;
    for (int i = 0; i < 3; ++i) sends.push_back(make_send("work", object{{"i", i}}));
    return value(std::move(sends));
  });
  b.add_edge(std::vector<std::string>{"a", "b"}, "join");
  b.add_edge("work", "late");
  b.add_edge("join", "late");
  b.add_edge("late", "__end__");
  return b;
}

struct run_record {
  std::string output;
  std::vector<std::string> values;       // each `values` event
  std::vector<std::string> checkpoints;  // oldest first: values, next, metadata, versions
};

std::string versions_of(const checkpoint& cp) {
  std::map<std::string, channel_version> versions(cp.channel_versions.begin(),
                                                  cp.channel_versions.end());
  std::string out;
  for (const auto& [ch, v] : versions) out += ch + "=" + std::to_string(v) + " ";
  std::map<std::string, std::map<std::string, channel_version>> seen;
  for (const auto& [node, m] : cp.versions_seen) seen[node].insert(m.begin(), m.end());
  for (const auto& [node, m] : seen) {
    out += "| " + node + ":";
    for (const auto& [ch, v] : m) out += " " + ch + "=" + std::to_string(v);
  }
  return out;
}

run_record run(execution mode, bool channel_actors) {
  auto saver = test::make_saver();
  compile_options o;
  o.mode = mode;
  o.driver = make_actor_driver({.channel_actors = channel_actors});
  o.checkpointer = saver;
  auto graph = every_channel_kind().compile(o);
  run_record r;
  stream_options so;
  so.modes = {stream_mode::values};
  r.output = graph
                 ->stream(object{{"items", list{"in"}}}, thread("t"), so,
                          [&](const stream_event& e) { r.values.push_back(e.data.to_json()); })
                 .to_json();
  auto history = graph->get_state_history(thread("t"));
  auto tuples = saver->list(checkpoint_config{"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), tuples.size());
  for (std::size_t i = history.size(); i-- > 0;) {
    const auto& s = history[i];
    std::string next;
    for (const auto& n : s.next) next += n + ",";
    r.checkpoints.push_back(s.values.to_json() + " next=" + next + " " + s.metadata.to_json() +
                            " " + versions_of(tuples[i].checkpoint));
  }
  return r;
}

void expect_same(const run_record& a, const run_record& b) {
  BOOST_TEST(a.output == b.output);
  BOOST_TEST(a.values == b.values, boost::test_tools::per_element());
  BOOST_TEST(a.checkpoints == b.checkpoints, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_run_over_a_channel_actor_leaves_what_the_coordinators_own_channels_leave) {
  const run_record owned = run(execution::actors, true);
  // The graph ran through every channel kind: Sends, the join, the deferred node, the
  // untracked value (read in the run, never saved) and the delta key.
  const value out = value::parse_json(owned.output);
  BOOST_TEST(out.get("items").to_json() == R"(["in","a","fan","w0","w1","w2"])");
  BOOST_TEST(out.get("count").to_json() == "14");
  BOOST_TEST(out.get("last").to_json() == R"("late saw s1")");
  BOOST_TEST(out.get("log").to_json() == R"(["fan","late"])");
  BOOST_TEST(owned.checkpoints.size() == 5u);
  expect_same(owned, run(execution::actors, false));
  expect_same(owned, run(execution::threads, false));
}

BOOST_AUTO_TEST_CASE(a_run_over_a_channel_actor_stopped_mid_way_resumes_as_the_coordinators_own) {
  // A run stopped before "join" (its barrier, the branches and the deferred trigger are saved
  // mid-way) resumes from its checkpoints as a run whose coordinator applies the writes itself
  // does, under every durability.
  for (const char* durability : {"sync", "async", "exit"}) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      value cfg = object{{"configurable", object{{"thread_id", "t"}}}, {"durability", durability}};
      std::string outputs[2];
      std::vector<state_snapshot> histories[2];
      for (bool channel_actors : {true, false}) {
        compile_options o;
        o.driver = make_actor_driver({.channel_actors = channel_actors});
        o.checkpointer = test::make_saver();
        o.interrupt_before = {"join"};
        auto graph = every_channel_kind().compile(o);
        graph->invoke(object{{"items", list{"in"}}}, cfg);
        const auto next = graph->get_state(cfg).next;
        BOOST_TEST(std::count(next.begin(), next.end(), "join") == 1);
        outputs[channel_actors] = graph->invoke(value(), cfg).to_json();
        histories[channel_actors] = graph->get_state_history(cfg);
      }
      // The untracked key is not saved: after the resume "late" no longer sees it.
      BOOST_TEST(outputs[1].find(R"("last":"late saw -")") != std::string::npos);
      BOOST_TEST(outputs[1] == outputs[0]);
      BOOST_REQUIRE_EQUAL(histories[1].size(), histories[0].size());
      for (std::size_t i = 0; i < histories[1].size(); ++i) {
        BOOST_TEST(histories[1][i].values.to_json() == histories[0][i].values.to_json());
        BOOST_TEST(histories[1][i].next == histories[0][i].next, boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_write_the_owner_refuses_fails_the_run_with_the_channels_error) {
  // Two nodes write a last-value key in one step: LangGraph's InvalidUpdateError, raised by the
  // channel wherever it lives.
  state_graph b;
  b.add_key("x");
  b.add_node("p", [](const value&, node_context&) { return update({{"x", 1}}); });
  b.add_node("q", [](const value&, node_context&) { return update({{"x", 2}}); });
  b.add_edge("__start__", "p");
  b.add_edge("__start__", "q");
  std::string messages[2];
  for (bool channel_actors : {true, false}) {
    compile_options o;
    o.driver = make_actor_driver({.channel_actors = channel_actors});
    o.checkpointer = test::make_saver();
    auto graph = b.compile(o);
    try {
      graph->invoke(object{}, thread("t"));
      BOOST_FAIL("the run did not fail");
    } catch (const error& e) {
      BOOST_TEST(static_cast<int>(e.code()) == static_cast<int>(error_code::invalid_update));
      messages[channel_actors] = e.what();
    }
    // Nothing of the step was saved: the thread still shows the tasks to run.
    auto s = graph->get_state(thread("t"));
    BOOST_TEST(s.values.to_json() == "{}");
    BOOST_TEST(s.next.size() == 2u);
  }
  BOOST_TEST(messages[1] == messages[0]);
  BOOST_TEST(messages[1].find("'x'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_step_whose_checkpoint_fails_is_never_streamed) {
  // The checkpoint of step 2 cannot be written: the step aborts, and no `values` event shows
  // its writes (the stream shows what committed, never what was staged).
  for (execution mode : {execution::actors, execution::threads}) {
    auto saver = std::make_shared<test::throwing_saver>(test::make_saver());
    state_graph b;
    b.add_key("steps", "append");
    b.add_node("one", [](const value&, node_context&) { return update({{"steps", list{1}}}); });
    b.add_node("two", [saver](const value&, node_context&) {
      saver->fail_put = true;  // the checkpoint this step would make fails
      return update({{"steps", list{2}}});
    });
    b.add_edge("__start__", "one");
    b.add_edge("one", "two");
    compile_options o;
    o.mode = mode;
    o.checkpointer = saver;
    auto graph = b.compile(o);
    std::vector<std::string> seen;
    stream_options so;
    so.modes = {stream_mode::values};
    test::expect_error(
        [&] {
          graph->stream(object{{"steps", list{0}}}, thread("t"), so,
                        [&](const stream_event& e) { seen.push_back(e.data.to_json()); });
        },
        error_code::storage_error, "put: the disk is on fire");
    const std::vector<std::string> committed{R"({"steps":[0]})", R"({"steps":[0,1]})"};
    BOOST_TEST(seen == committed, boost::test_tools::per_element());
    saver->fail_put = false;
    // The last checkpoint is step 1's; "two"'s writes are kept as its pending writes (which
    // get_state shows applied, as LangGraph's).
    auto history = graph->get_state_history(thread("t"));
    BOOST_REQUIRE(!history.empty());
    BOOST_TEST(history.front().values.to_json() == R"({"steps":[0,1]})");
    BOOST_TEST(graph->get_state(thread("t")).values.to_json() == R"({"steps":[0,1,2]})");
  }
}
