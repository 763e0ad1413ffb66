// One run per thread: concurrent runs on one thread follow their multitask strategy (reject,
// enqueue, interrupt, rollback) and leave the thread readable and consistent. Runs once per
// saver (`-- --saver=rocksdb`) and execution mode.
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "coordinator/test_execution.hpp"
#include "superstep/checkpoint/thread_runs.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "test_saver.hpp"

using namespace superstep;
using namespace std::chrono_literals;

namespace {

constexpr auto bound = 20s;  // no wait of these tests takes near this

// A gate the node "first" waits at when the input asks it to: the test decides when a run
// moves on, so which run holds the thread when is not left to timing.
struct gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  int arrived = 0;

  void pass() {
    std::unique_lock lock(m);
    ++arrived;
    cv.notify_all();
    if (!cv.wait_for(lock, bound, [&] { return open; }))
      throw error(error_code::internal, "the test never opened the gate");
  }
  void wait_arrived(int n) {
    std::unique_lock lock(m);
    BOOST_TEST_REQUIRE(cv.wait_for(lock, bound, [&] { return arrived >= n; }));
  }
  void release() {
    std::lock_guard lock(m);
    open = true;
    cv.notify_all();
  }
};

value config(const std::string& thread, const std::string& run,
             const std::string& strategy = "reject") {
  return object{{"configurable", object{{"thread_id", thread}}},
                {"run_id", run},
                {"multitask_strategy", strategy}};
}

value input(const std::string& tag, bool block = false) {
  return object{{"tag", tag}, {"block", block}};
}

// START -> first -> second: each appends "<node>:<tag>" to the trail; first waits at the gate
// when the input's "block" is set.
std::shared_ptr<pregel> make_graph(std::shared_ptr<checkpoint_saver> saver, gate& g) {
  state_graph b;
  b.add_key("tag").add_key("block").add_key("trail", "append");
  b.add_node("first", [&g](const value& st, node_context&) -> value {
    if (st.get("block").is_bool() && st.get("block").as_bool()) g.pass();
    return object{{"trail", value::array({"first:" + st.get("tag").as_string()})},
                  {"block", false}};
  });
  b.add_node("second", [](const value& st, node_context&) -> value {
    return object{{"trail", value::array({"second:" + st.get("tag").as_string()})}};
  });
  b.add_edge("__start__", "first").add_edge("first", "second");
  compile_options o = test::opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
}

std::vector<std::string> trail(const value& v) {
  std::vector<std::string> out;
  for (const value& x : v.get("trail").as_list()) out.push_back(x.as_string());
  return out;
}

// Every checkpoint of the thread reads back, and the latest one's trail.
std::vector<std::string> check_readable(const pregel& graph, const std::string& thread) {
  value cfg = object{{"configurable", object{{"thread_id", thread}}}};
  auto history = graph.get_state_history(cfg);
  BOOST_TEST_REQUIRE(!history.empty());
  for (const auto& s : history) BOOST_TEST((s.values.is_object() || s.values.is_null()));
  return trail(graph.get_state(cfg).values);
}

std::set<std::string> checkpoint_ids(const pregel& graph, const std::string& thread) {
  std::set<std::string> ids;
  for (const auto& s :
       graph.get_state_history(object{{"configurable", object{{"thread_id", thread}}}}))
    ids.insert(s.config.checkpoint_id);
  return ids;
}

// Runs `graph` on another thread of the process; the future holds its output or error.
std::future<value> start(const std::shared_ptr<pregel>& graph, value in, value cfg) {
  return std::async(std::launch::async, [graph, in = std::move(in), cfg = std::move(cfg)] {
    return graph->invoke(in, cfg);
  });
}

template <class F>
std::string error_of(F&& f, error_code expected) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST(e.code() == expected);
    return e.what();
  }
  BOOST_FAIL("no error");
  return "";
}

bool wait_status(checkpoint_saver& saver, const std::string& thread,
                 const std::function<bool(const thread_runs::thread_status&)>& ready) {
  return saver.runs().wait_until(thread, ready,
                                 std::chrono::duration_cast<std::chrono::milliseconds>(bound));
}

using strings = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(a_second_run_on_a_busy_thread_is_rejected_naming_the_thread_and_the_run) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  std::string why =
      error_of([&] { graph->invoke(input("b"), config("t", "run-b")); }, error_code::thread_busy);
  BOOST_TEST(why.find("thread 't'") != std::string::npos);
  BOOST_TEST(why.find("run-a") != std::string::npos);
  BOOST_TEST(why.find("run-b") != std::string::npos);
  // Without a strategy in the config the default is reject too, and another graph on the same
  // checkpointer is held off as well.
  gate other;
  auto graph2 = make_graph(saver, other);
  error_of(
      [&] {
        graph2->invoke(input("c"), object{{"configurable", object{{"thread_id", "t"}}}});
      },
      error_code::thread_busy);
  g.release();
  BOOST_TEST(trail(a.get()) == (strings{"first:a", "second:a"}));
  BOOST_TEST(check_readable(*graph, "t") == (strings{"first:a", "second:a"}));
  BOOST_TEST(saver->runs().status("t").running.empty());
}

BOOST_AUTO_TEST_CASE(runs_on_other_threads_go_on_while_one_thread_is_busy) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  auto a = start(graph, input("a", true), config("t1", "run-a"));
  g.wait_arrived(1);
  // Another graph on the same checkpointer (this one's node actor is busy with run-a).
  gate other;
  auto graph2 = make_graph(saver, other);
  BOOST_TEST(trail(graph2->invoke(input("b"), config("t2", "run-b"))) ==
             (strings{"first:b", "second:b"}));
  g.release();
  BOOST_TEST(trail(a.get()) == (strings{"first:a", "second:a"}));
}

BOOST_AUTO_TEST_CASE(an_enqueued_run_waits_for_the_running_one_then_runs_on_its_state) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  auto b = start(graph, input("b"), config("t", "run-b", "enqueue"));
  BOOST_TEST_REQUIRE(wait_status(*saver, "t", [](const auto& s) {
    return s.running == "run-a" && s.waiting == strings{"run-b"};
  }));
  BOOST_TEST((b.wait_for(0s) == std::future_status::timeout));  // still waiting
  g.release();
  BOOST_TEST(trail(a.get()) == (strings{"first:a", "second:a"}));
  BOOST_TEST(trail(b.get()) == (strings{"first:a", "second:a", "first:b", "second:b"}));
  BOOST_TEST(check_readable(*graph, "t") ==
             (strings{"first:a", "second:a", "first:b", "second:b"}));
}

BOOST_AUTO_TEST_CASE(interrupt_stops_the_running_run_at_its_next_step_and_keeps_its_checkpoints) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  auto b = start(graph, input("b"), config("t", "run-b", "interrupt"));
  BOOST_TEST_REQUIRE(wait_status(*saver, "t", [](const auto& s) {
    return s.running == "run-a" && s.stop == multitask_strategy::interrupt;
  }));
  g.release();
  std::string why = error_of([&] { a.get(); }, error_code::run_cancelled);
  BOOST_TEST(why.find("run-a") != std::string::npos);
  BOOST_TEST(why.find("run-b") != std::string::npos);
  BOOST_TEST(why.find("interrupt") != std::string::npos);
  // run-a's first step stays; its second never ran; run-b ran on top of it.
  BOOST_TEST(trail(b.get()) == (strings{"first:a", "first:b", "second:b"}));
  BOOST_TEST(check_readable(*graph, "t") == (strings{"first:a", "first:b", "second:b"}));
}

BOOST_AUTO_TEST_CASE(rollback_removes_what_the_stopped_run_saved_and_keeps_earlier_runs) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  graph->invoke(input("0"), config("t", "run-0"));
  const std::set<std::string> before = checkpoint_ids(*graph, "t");
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  auto b = start(graph, input("b"), config("t", "run-b", "rollback"));
  BOOST_TEST_REQUIRE(wait_status(*saver, "t", [](const auto& s) {
    return s.running == "run-a" && s.stop == multitask_strategy::rollback;
  }));
  g.release();
  std::string why = error_of([&] { a.get(); }, error_code::run_cancelled);
  BOOST_TEST(why.find("rolled back") != std::string::npos);
  BOOST_TEST(why.find("run-b") != std::string::npos);
  BOOST_TEST(trail(b.get()) == (strings{"first:0", "second:0", "first:b", "second:b"}));
  BOOST_TEST(check_readable(*graph, "t") ==
             (strings{"first:0", "second:0", "first:b", "second:b"}));
  // Every checkpoint of run-0 is still there; none of run-a's is.
  const std::set<std::string> after = checkpoint_ids(*graph, "t");
  for (const auto& id : before) BOOST_TEST(after.count(id) == 1u, "checkpoint " << id << " lost");
  for (const auto& s :
       graph->get_state_history(object{{"configurable", object{{"thread_id", "t"}}}})) {
    BOOST_TEST(s.values.get("tag") != value("a"));
    if (s.values.get("trail").is_list())
      for (const auto& step : trail(s.values)) BOOST_TEST(step != "first:a");
  }
}

BOOST_AUTO_TEST_CASE(rollback_of_a_resumed_run_puts_back_the_pending_writes_it_found) {
  // run-0 stops before "second" (interrupt_before); run-a resumes it and is rolled back: the
  // thread is again where run-0 left it, and resuming it once more runs "second".
  auto saver = test::make_saver();
  gate g;
  state_graph b;
  b.add_key("tag").add_key("trail", "append");
  b.add_node("first", [](const value&, node_context&) -> value {
    return object{{"trail", value::array({"first"})}};
  });
  b.add_node("second", [&g](const value&, node_context&) -> value {
    g.pass();
    return object{{"trail", value::array({"second"})}};
  });
  b.add_node("third", [](const value&, node_context&) -> value {
    return object{{"trail", value::array({"third"})}};
  });
  b.add_edge("__start__", "first").add_edge("first", "second").add_edge("second", "third");
  compile_options o = test::opts();
  o.checkpointer = saver;
  o.interrupt_before = {"second"};
  auto graph = b.compile(o);
  graph->invoke(object{{"tag", "x"}}, config("t", "run-0"));
  const std::set<std::string> before = checkpoint_ids(*graph, "t");
  const std::string resumed = graph->get_state(config("t", "")).config.checkpoint_id;
  auto a = start(graph, value(), config("t", "run-a"));
  g.wait_arrived(1);
  auto r = start(graph, object{{"tag", "y"}}, config("t", "run-r", "rollback"));
  BOOST_TEST_REQUIRE(wait_status(*saver, "t", [](const auto& s) {
    return s.running == "run-a" && s.stop == multitask_strategy::rollback;
  }));
  g.release();
  error_of([&] { a.get(); }, error_code::run_cancelled);
  BOOST_TEST(trail(r.get()) == (strings{"first", "first"}));
  // run-0's checkpoints all stay; run-a's checkpoint after "second" is gone.
  const std::set<std::string> after = checkpoint_ids(*graph, "t");
  for (const auto& id : before) BOOST_TEST(after.count(id) == 1u, "checkpoint " << id << " lost");
  for (const auto& s :
       graph->get_state_history(object{{"configurable", object{{"thread_id", "t"}}}}))
    if (s.values.get("trail").is_list())
      for (const auto& step : trail(s.values)) BOOST_TEST(step != "second");
  // The checkpoint run-a resumed holds no write of run-a's "second" any more.
  auto tuple = saver->get_tuple(checkpoint_config{"t", "", resumed});
  BOOST_TEST_REQUIRE(tuple.has_value());
  BOOST_TEST(tuple->pending_writes.empty());
}

BOOST_AUTO_TEST_CASE(interrupt_cancels_the_runs_waiting_in_the_queue) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  auto b = start(graph, input("b"), config("t", "run-b", "enqueue"));
  BOOST_TEST_REQUIRE(
      wait_status(*saver, "t", [](const auto& s) { return s.waiting == strings{"run-b"}; }));
  auto c = start(graph, input("c"), config("t", "run-c", "interrupt"));
  std::string why = error_of([&] { b.get(); }, error_code::run_cancelled);
  BOOST_TEST(why.find("run-c") != std::string::npos);
  g.release();
  error_of([&] { a.get(); }, error_code::run_cancelled);
  BOOST_TEST(trail(c.get()) == (strings{"first:a", "first:c", "second:c"}));
}

BOOST_AUTO_TEST_CASE(many_concurrent_enqueued_runs_on_one_thread_leave_it_readable) {
  // The attack on a head: many clients submit to one thread at once. Each run appends two
  // entries; none is lost and every checkpoint reads back.
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  constexpr int clients = 8, runs_each = 4;
  std::vector<std::future<void>> all;
  for (int c = 0; c < clients; ++c)
    all.push_back(std::async(std::launch::async, [&, c] {
      for (int i = 0; i < runs_each; ++i) {
        std::string tag = std::to_string(c) + "." + std::to_string(i);
        graph->invoke(input(tag), config("t", "run-" + tag, "enqueue"));
      }
    }));
  for (auto& f : all) f.get();
  BOOST_TEST(check_readable(*graph, "t").size() == std::size_t{2 * clients * runs_each});
}

BOOST_AUTO_TEST_CASE(an_unknown_strategy_is_an_error_naming_it) {
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  std::string why = error_of([&] { graph->invoke(input("a"), config("t", "run-a", "later")); },
                             error_code::invalid_argument);
  BOOST_TEST(why.find("'later'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rollback_removes_the_checkpoints_of_the_stopped_runs_subgraphs_too) {
  auto saver = test::make_saver();
  gate g;
  state_graph sb;
  sb.add_key("tag").add_key("trail", "append");
  sb.add_node("inner", [](const value& st, node_context&) -> value {
    return object{{"trail", value::array({"inner:" + st.get("tag").as_string()})}};
  });
  sb.add_edge("__start__", "inner");
  auto sub = sb.compile(test::opts());
  state_graph b;
  b.add_key("tag").add_key("block").add_key("trail", "append");
  b.add_node("child", sub);
  b.add_node("wait", [&g](const value& st, node_context&) -> value {
    if (st.get("block").is_bool() && st.get("block").as_bool()) g.pass();
    return object{{"block", false}};
  });
  b.add_edge("__start__", "child").add_edge("child", "wait");
  compile_options o = test::opts();
  o.checkpointer = saver;
  auto graph = b.compile(o);
  // The namespace of the subgraph run of the run tagged `tag`.
  auto child_ns = [&](const std::string& tag) {
    for (const auto& s :
         graph->get_state_history(object{{"configurable", object{{"thread_id", "t"}}}}))
      if (s.next == strings{"child"} && s.values.get("tag") == value(tag))
        return "child:" + s.tasks.at(0).id;
    BOOST_FAIL("no child task of run " << tag);
    return std::string();
  };

  graph->invoke(input("0"), config("t", "run-0"));
  const std::string ns0 = child_ns("0");
  BOOST_TEST(!saver->list({"t", ns0, ""}, {}).empty());
  auto a = start(graph, input("a", true), config("t", "run-a"));
  g.wait_arrived(1);
  const std::string ns_a = child_ns("a");
  BOOST_TEST_REQUIRE(!saver->list({"t", ns_a, ""}, {}).empty());
  auto r = start(graph, input("r"), config("t", "run-r", "rollback"));
  BOOST_TEST_REQUIRE(wait_status(*saver, "t", [](const auto& s) {
    return s.running == "run-a" && s.stop == multitask_strategy::rollback;
  }));
  g.release();
  error_of([&] { a.get(); }, error_code::run_cancelled);
  value r_out = r.get();
  // The subgraph returns the trail it was given too (both append to it): run-0's entry twice.
  BOOST_TEST(trail(r_out) == (strings{"inner:0", "inner:0", "inner:r"}), r_out.to_json());
  BOOST_TEST(saver->list({"t", ns_a, ""}, {}).empty());
  BOOST_TEST(!saver->list({"t", ns0, ""}, {}).empty());
}

BOOST_AUTO_TEST_CASE(a_run_reads_its_own_end_state_before_an_enqueued_run_begins) {
  // `superstep run` prints the thread's state after its run: read once the next run began,
  // it showed that run's first checkpoint ("interrupted" before __start__, with no interrupt).
  auto saver = test::make_saver();
  gate g;
  auto graph = make_graph(saver, g);
  std::string holder;
  state_snapshot end;
  stream_options options;
  options.finished = [&] {
    holder = saver->runs().status("t").running;
    end = graph->get_state(object{{"configurable", object{{"thread_id", "t"}}}});
  };
  auto a = std::async(std::launch::async, [&] {
    return graph->stream(input("a", true), config("t", "run-a"), options, nullptr);
  });
  g.wait_arrived(1);
  auto b = start(graph, input("b"), config("t", "run-b", "enqueue"));
  BOOST_TEST_REQUIRE(
      wait_status(*saver, "t", [](const auto& s) { return s.waiting == strings{"run-b"}; }));
  g.release();
  a.get();
  b.get();
  BOOST_TEST(holder == "run-a");
  BOOST_TEST(end.next.empty());
  BOOST_TEST(trail(end.values) == (strings{"first:a", "second:a"}));
}
