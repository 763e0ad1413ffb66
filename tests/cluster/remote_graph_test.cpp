// superstep::remote_graph's errors and security: a head that cannot be reached, a graph it
// does not serve, a key it refuses, options that do not make sense (LangGraph's RemoteGraph
// semantics are in tests/conformance/remote_graph*_test.cpp).
#include "superstep/cluster/remote_graph.hpp"

#include "cluster/cluster_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/trace_context.hpp"
#include "support/loopback_port.hpp"

using namespace superstep;
using namespace superstep::test;

namespace {

const char* const spec = R"({"spec": "superstep.graph/1", "name": "one",
  "state": {"x": {}},
  "nodes": {"set": {"fn": "std.set", "params": {"update": {"x": 1}}}},
  "edges": [["__start__", "set"], ["set", "__end__"]]})";

// Goes on for a million steps unless cancelled.
const char* const loop_spec = R"({"spec": "superstep.graph/1", "name": "loop",
  "state": {"n": {}},
  "nodes": {"tick": {"fn": "std.increment", "params": {"key": "n"}}},
  "edges": [["__start__", "tick"]],
  "conditional_edges": [{"from": "tick", "router": "std.route",
    "params": {"key": "n", "less_than": 1000000, "then": "tick", "else": "__end__"}}],
  "recursion_limit": 2000000})";

value config(const std::string& t) { return object{{"configurable", object{{"thread_id", t}}}}; }

template <class F>
std::string error_of(F&& f, error_code code) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST(e.code() == code, e.what());
    return e.what();
  }
  BOOST_ERROR("no error");
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(names_a_head_it_cannot_reach) {
  remote_graph_options o;
  o.head = "127.0.0.1:" + std::to_string(test::free_loopback_port());
  o.connect_timeout = std::chrono::milliseconds(2000);
  remote_graph g("one", o);
  std::string why =
      error_of([&] { (void)g.invoke(object{}, config("t")); }, error_code::unavailable);
  BOOST_TEST(why.find("cannot reach the head at " + o.head) != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(rejects_options_that_do_not_make_sense) {
  remote_graph_options o;
  o.head = "nowhere";
  std::string why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("'nowhere'") != std::string::npos, why);
  o.head = "127.0.0.1:1";
  error_of([&] { remote_graph("", o); }, error_code::invalid_argument);
  o.tls_cert = "cert.pem";
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("tls_cert, tls_key and tls_ca go together") != std::string::npos, why);
  o.tls_cert.clear();
  o.headers = {{"", "x"}};
  why = error_of([&] { remote_graph("one", o); }, error_code::invalid_argument);
  BOOST_TEST(why.find("a header without a name") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(a_remote_node_sends_its_runs_trace_under_which_the_served_run_runs) {
  scratch s;
  const std::string file = s.write("traced.json", R"({"spec": "superstep.graph/1",
    "name": "traced", "state": {"trace": {}},
    "nodes": {"read": {"fn": "std.config", "params": {"from": "trace", "to": "trace"}}},
    "edges": [["__start__", "read"], ["read", "__end__"]]})");
  test_cluster c(s, {"--serve", "traced=" + file});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  o.distributed_tracing = true;
  state_graph parent;
  parent.add_key("trace");
  parent.add_node("remote", remote_graph("traced", o).as_node());
  parent.add_edge(std::string(START), "remote");
  auto app = parent.compile();
  const trace_context caller = trace_context::start();
  value config = caller.in(object{{"run_id", "local-run"}});
  // The served run runs under the local run (the node's), in the caller's trace.
  const value served = app->invoke(object{{"trace", value()}}, config).get("trace");
  BOOST_TEST(served.get("trace_id") == value(caller.trace_id));
  BOOST_TEST(served.get("parent_run_id") == value("local-run"));
  const std::string order = served.get("dotted_order").as_string();
  BOOST_TEST(order.starts_with(caller.dotted_order + "."), order);
  BOOST_TEST(order.find("Zlocal-run.") != std::string::npos, order);
}

BOOST_AUTO_TEST_CASE(a_head_names_a_malformed_tracing_header) {
  scratch s;
  const std::string file = s.write("one.json", spec);
  test_cluster c(s, {"--serve", "one=" + file});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  o.headers = {{"langsmith-trace", "not-a-dotted-order"}};
  std::string why = error_of([&] { (void)remote_graph("one", o).invoke(object{}, config("t")); },
                             error_code::invalid_argument);
  BOOST_TEST(why.find("header langsmith-trace 'not-a-dotted-order'") != std::string::npos, why);
}

BOOST_AUTO_TEST_CASE(names_a_graph_the_head_does_not_serve_and_a_missing_thread) {
  scratch s;
  const std::string file = s.write("one.json", spec);
  test_cluster c(s, {"--serve", "one=" + file});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  std::string why = error_of([&] { (void)remote_graph("two", o).invoke(object{}, config("t")); },
                             error_code::not_found);
  BOOST_TEST(why.find("serves no graph 'two' (it serves one)") != std::string::npos, why);
  remote_graph one("one", o);
  BOOST_TEST(one.invoke(object{}, config("t")) == value(object{{"x", 1}}));
  // A thread the head does not have; a call that needs a thread and has none.
  error_of([&] { (void)one.get_state(config("missing")); }, error_code::not_found);
  error_of([&] { (void)one.get_state(value()); }, error_code::invalid_argument);
  // The same remote_graph goes on after errors.
  BOOST_TEST(one.get_state(config("t")).values == value(object{{"x", 1}}));
}

BOOST_AUTO_TEST_CASE(is_let_in_only_with_the_clusters_key) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  const std::string wrong = s.write("wrong", "fedcba9876543210fedcba9876543210\n");
  const std::string file = s.write("one.json", spec);
  test_cluster c(s, {"--key-file", key, "--serve", "one=" + file});
  c.add_worker("keyed", {"--key-file", key});
  remote_graph_options o;
  o.head = c.address();
  o.connect_timeout = std::chrono::milliseconds(3000);
  error_of([&] { (void)remote_graph("one", o).get_graph(); }, error_code::unauthorized);
  error_of([&] { remote_graph("one", o).cancel("keyed", "some-run"); }, error_code::unauthorized);
  o.key_file = wrong;
  error_of([&] { (void)remote_graph("one", o).get_graph(); }, error_code::unauthorized);
  o.key_file = key;
  remote_graph g("one", o);
  BOOST_TEST(g.invoke(object{}, config("keyed")) == value(object{{"x", 1}}));
  BOOST_TEST(g.get_graph().nodes.size() == 3u);
}

BOOST_AUTO_TEST_CASE(a_head_refuses_to_serve_a_spec_that_does_not_load) {
  scratch s;
  const std::string bad = s.write("bad.json", R"({"spec": "superstep.graph/1", "nodes": 3})");
  cli_result r = run_to_end(
      {"head", "--listen", "127.0.0.1:0", "--data", s.path("d"), "--serve", "bad=" + bad}, s);
  BOOST_TEST(r.status != 0);
  BOOST_TEST(r.err.find("--serve bad=" + bad) != std::string::npos, r.err);
  cli_result usage = run_to_end({"head", "--listen", "127.0.0.1:0", "--serve", "nameonly"}, s);
  BOOST_TEST(usage.status == 2);
  BOOST_TEST(usage.err.find("expected NAME=GRAPH.json") != std::string::npos, usage.err);
}

BOOST_AUTO_TEST_CASE(a_client_cancels_a_run_it_names_by_thread_and_run_id) {
  scratch s;
  test_cluster c(s, {"--serve", "loop=" + s.write("loop.json", loop_spec)});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  remote_graph g("loop", o);
  remote_run_options values;
  values.modes = {stream_mode::values};
  remote_run_stream run = g.stream_events(object{{"n", 0}}, config("t"), values);
  run.enter();
  BOOST_REQUIRE(run.next());
  const std::string id = run.run_id();
  // Its run id on another thread, another run id on its thread: no such run; it goes on.
  std::string why = error_of([&] { g.cancel("other", id); }, error_code::not_found);
  BOOST_TEST(why.find("thread 'other' has no run '" + id + "' in progress") != std::string::npos,
             why);
  error_of([&] { g.cancel("t", "not-its-id"); }, error_code::not_found);
  error_of([&] { g.cancel("t", ""); }, error_code::invalid_argument);
  error_of([&] { g.cancel("", id); }, error_code::invalid_argument);
  BOOST_REQUIRE(run.next());
  g.cancel("t", id);
  // Whoever reads the run sees it fail as cancelled.
  why = error_of(
      [&] {
        while (run.next()) {
        }
      },
      error_code::cancelled);
  BOOST_TEST(why.find("run cancelled") != std::string::npos, why);
  // It has ended: a second cancel finds nothing.
  error_of([&] { g.cancel("t", id); }, error_code::not_found);
  BOOST_TEST(c.head().err_text().find("run " + id + " of thread t cancelled by a client") !=
             std::string::npos);
  // The thread stays at the checkpoint of its last step, with that step to finish; the
  // head runs on (a new run on the thread is taken).
  state_snapshot st = g.get_state(config("t"));
  BOOST_TEST(st.tasks.size() == 1u);
  BOOST_TEST(st.values.get("n").as_int() < 1000000);
  cli_result threads = run_to_end({"threads", "--head", c.address()}, s);
  BOOST_REQUIRE_MESSAGE(threads.status == 0, threads.err);
  BOOST_TEST(threads.last().get("status").as_string() == "pending", threads.out);
  (void)g.update_state(config("t"), object{{"n", 999999}}, std::string("tick"));
  BOOST_TEST(g.invoke(value(), config("t")) == value(object{{"n", 1000000}}));
}

BOOST_AUTO_TEST_CASE(a_closed_stream_leaves_its_run_going_and_reads_nothing_more) {
  scratch s;
  test_cluster c(s, {"--serve", "loop=" + s.write("loop.json", loop_spec)});
  c.add_worker("w");
  remote_graph_options o;
  o.head = c.address();
  remote_graph g("loop", o);
  remote_run_stream run = g.stream_events(object{{"n", 0}}, config("t"));
  // Not entered: nothing to read.
  error_of([&] { (void)run.next(); }, error_code::invalid_argument);
  run.enter();
  BOOST_REQUIRE(run.next());
  run.close();
  error_of([&] { (void)run.next(); }, error_code::invalid_argument);
  // Moved, the stream is still the same one; destroyed, it closes (again) without a word.
  remote_run_stream moved = std::move(run);
  BOOST_TEST(moved.closed());
  g.cancel("t", moved.run_id(), /*wait=*/true);  // it was still going
  error_of([&] { g.cancel("t", moved.run_id()); }, error_code::not_found);
}
