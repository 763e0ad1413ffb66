// The cluster through real processes on loopback: a head, workers and clients started as
// `superstep head|worker|submit`, bounded in time, killed and restarted.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <thread>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

std::string spec(const std::string& name) { return test::example_spec(name); }

using cluster = test::test_cluster;

}  // namespace

BOOST_AUTO_TEST_CASE(runs_on_the_cluster_equal_the_embedded_runs) {
  scratch s;
  cluster c(s);
  c.add_worker("w1");
  c.add_worker("w2");
  for (const auto& [name, input] : test::example_runs()) {
    BOOST_TEST_CONTEXT(name) {
      value expected = test::embedded_run(s, {spec(name), "--input", input});
      cli_result r = c.client({"submit", spec(name), "--input", input, "--stream", "updates"});
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("type").as_string() == "output");
      BOOST_TEST(r.last().get("data") == expected);
      BOOST_TEST(r.lines().size() > 1);  // the updates came too
    }
  }
  // The thread lives on the head: its state and history come from there.
  cli_result run =
      c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})", "--thread", "t1"});
  BOOST_REQUIRE_EQUAL(run.status, 0);
  cli_result state = c.client({"state", "--thread", "t1"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values").get("best").as_string() == "joke about a");
  cli_result history = c.client({"history", "--thread", "t1"});
  BOOST_TEST(history.lines().size() == 4u);
  BOOST_TEST(c.client({"state", "--thread", "nope"}).status == 1);
  cli_result update =
      c.client({"update", "--thread", "t1", "--values", R"({"best": "x"})", "--as-node", "pick"});
  BOOST_REQUIRE_MESSAGE(update.status == 0, update.err);
  BOOST_TEST(c.client({"state", "--thread", "t1"}).last().get("values").get("best").as_string() ==
             "x");
  BOOST_TEST(c.client({"delete", "--thread", "t1"}).status == 0);
  BOOST_TEST(c.client({"state", "--thread", "t1"}).status == 1);
  // Options that only make sense here are refused before anything is sent.
  BOOST_TEST(c.client({"state", "--thread", "t1", "--data", "elsewhere"}).status == 2);
}

BOOST_AUTO_TEST_CASE(nodes_run_where_their_library_is_loaded) {
  scratch s;
  cluster c(s, {"--worker-wait", "1"});
  c.add_worker("plain");
  const std::string input = R"({"words": ["hey", "you"]})";
  // No worker has text.upper: the step waits for one, then the run fails naming the node.
  cli_result missing = c.client({"submit", spec("shout"), "--input", input});
  BOOST_TEST(missing.status == 1);
  BOOST_TEST(missing.err.find("no connected worker can run node 'upper' (it needs text.upper)") !=
                 std::string::npos,
             missing.err);
  c.add_worker("texts", {"--plugin", SUPERSTEP_PLUGIN_LIB});
  cli_result r = c.client({"submit", spec("shout"), "--input", input});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"loud":["HEY","YOU"]})");
  // A library that is not one is refused with its name.
  cli_result bad = run_to_end({"worker", "--join", c.address(), "--plugin", spec("shout")}, s);
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(bad.err.find("cannot load node library") != std::string::npos, bad.err);
}

// A node factory that throws what is not a std::exception fails the run that loads its spec,
// naming it; the worker stays in the cluster serving other runs, and stops when told. A
// library that throws so while registering is refused by the program that loads it.
BOOST_AUTO_TEST_CASE(a_factory_throwing_a_non_std_exception_leaves_the_worker_serving) {
  scratch s;
  cluster c(s, {"--worker-wait", "2"});
  child& w =
      c.add_worker("texts", {"--plugin", SUPERSTEP_PLUGIN_LIB, "--plugin", SUPERSTEP_THROWING_LIB});
  const std::string poisoned = s.write("poisoned.json", R"({"spec": "superstep.graph/1",
    "state": {"x": {}}, "nodes": {"b": {"fn": "bad.factory"}},
    "edges": [["__start__", "b"], ["b", "__end__"]]})");
  for (int i = 0; i < 2; ++i) {
    cli_result bad = c.client({"submit", poisoned, "--input", "{}"});
    BOOST_TEST(bad.status == 1);
    BOOST_TEST(bad.err.find("not a std::exception") != std::string::npos, bad.err);
  }
  const std::string input = R"({"words": ["hey"]})";
  cli_result r = c.client({"submit", spec("shout"), "--input", input});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"loud":["HEY"]})");
  ::kill(w.pid(), SIGTERM);
  BOOST_TEST(w.wait(10s), w.err_text());

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"worker", "--join", c.address(), "--plugin",
                                 SUPERSTEP_THROWING_REGISTRATION_LIB},
        std::vector<std::string>{"run", spec("shout"), "--input", input, "--plugin",
                                 SUPERSTEP_THROWING_REGISTRATION_LIB}}) {
    cli_result refused = run_to_end(args, s);
    BOOST_TEST(refused.status == 1, refused.err);
    BOOST_TEST(refused.err.find("not a std::exception") != std::string::npos, refused.err);
  }
}

// A task that crashes every worker it runs on is quarantined after two (--task-loss-limit):
// the run fails naming its node and task, the third worker stays up, and serves the next run.
// The crashing task runs among others (a fan-out's Sends, in batches): after the first loss
// its batch goes again one task per batch, each alone on a worker, so the next loss names it.
BOOST_AUTO_TEST_CASE(a_task_that_crashes_its_workers_is_quarantined_and_the_cluster_serves_on) {
  scratch s;
  cluster c(s, {"--worker-wait", "5"});
  std::vector<child*> workers;
  for (const char* name : {"w1", "w2", "w3"})
    workers.push_back(&c.add_worker(
        name, {"--plugin", SUPERSTEP_PLUGIN_LIB, "--plugin", SUPERSTEP_THROWING_LIB}));
  // The crashing task is one of 21 in its step: node b, run beside 20 Sends.
  const std::string mixed = s.write("mixed.json", R"({"spec": "superstep.graph/1",
    "state": {"results": {"reducer": "append"}, "item": {}},
    "nodes": {"work": {"fn": "std.map", "params": {"from": "item", "to": "results", "wrap": "list"}},
              "b": {"fn": "bad.crash"}},
    "edges": [["__start__", "b"], ["work", "__end__"], ["b", "__end__"]],
    "conditional_edges": [
      {"from": "__start__", "router": "std.send_each",
       "params": {"items": 20, "node": "work", "as": "item"}}]})");
  const auto started = std::chrono::steady_clock::now();
  cli_result bad = c.client({"submit", mixed, "--input", "{}"});
  BOOST_TEST(bad.status == 1);
  BOOST_TEST(bad.err.find("node 'b'") != std::string::npos, bad.err);
  BOOST_TEST(bad.err.find("task '") != std::string::npos, bad.err);
  BOOST_TEST(bad.err.find("crashes its worker") != std::string::npos, bad.err);
  BOOST_TEST((std::chrono::steady_clock::now() - started < 20s));
  int alive = 0;
  for (child* w : workers) alive += w->running() ? 1 : 0;
  BOOST_TEST(alive >= 1);
  cli_result r = c.client({"submit", spec("shout"), "--input", R"({"words": ["hey"]})"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"loud":["HEY"]})");
}

// A Send's own timeout (LangGraph Send(timeout=...)) travels with its task to the worker that
// runs it: the worker's task stops at it, and the run fails naming the node.
BOOST_AUTO_TEST_CASE(a_sends_timeout_reaches_the_worker_running_its_task) {
  scratch s;
  const std::string spec_path = s.write("send_timeout.json", R"({
    "spec": "superstep.graph/1",
    "name": "send_timeout",
    "state": {"results": {"reducer": "append"}},
    "nodes": {"slow": {"fn": "std.sleep", "params": {"ms": 5000, "update": {"results": [1]}}}},
    "edges": [["slow", "__end__"]],
    "conditional_edges": [
      {"from": "__start__", "router": "std.send_each",
       "params": {"items": 2, "node": "slow", "timeout": {"idle_timeout_ms": 50}}}
    ]
  })");
  cluster c(s);
  child& worker = c.add_worker("w1");
  cli_result r = c.client({"submit", spec_path, "--input", "{}"});
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("Node 'slow' exceeded its idle timeout of 0.050s") != std::string::npos,
             r.err);
  BOOST_TEST(worker.wait_for_err("loaded graph", 5s), worker.err_text());  // it ran there
}

BOOST_AUTO_TEST_CASE(a_worker_killed_mid_fan_out_loses_nothing) {
  scratch s;
  cluster c(s);
  c.add_worker("stays");
  child& doomed = c.add_worker("doomed");
  // 400 Sends of 10 ms each over 4 task threads: about a second.
  child client({"submit", "--head", c.address(), spec("sleepy_map_reduce"), "--input", "{}"}, s);
  // Killed once it has the graph (however slow the build), 300 ms into its tasks.
  BOOST_REQUIRE_MESSAGE(doomed.wait_for_err("loaded graph", 60s), doomed.err_text());
  std::this_thread::sleep_for(300ms);
  doomed.kill();
  BOOST_REQUIRE_MESSAGE(client.wait(90s), "the run did not finish");  // slow sanitizer builds
  cli_result r = client.result();
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("total").as_int() == 400);
  BOOST_TEST(c.head().wait_for_err("worker doomed left", 5s));
}

BOOST_AUTO_TEST_CASE(a_restarted_head_resumes_the_interrupted_thread) {
  scratch s;
  const std::string input = R"({"trace": []})";
  value expected = test::embedded_run(s, {spec("slow_steps"), "--input", input});
  cluster c(s);
  child& worker = c.add_worker("w");
  child client({"submit", "--head", c.address(), spec("slow_steps"), "--input", input, "--thread",
                "t", "--stream", "updates"},
               s);
  // Killed once the first step is committed (however slow the build), before the last.
  BOOST_REQUIRE_MESSAGE(client.wait_for_out("\"updates\"", 60s), client.err_text());
  c.head().kill();
  BOOST_REQUIRE(client.wait(20s));
  BOOST_TEST(client.result().status == 1);
  BOOST_TEST(client.result().err.find("lost the head") != std::string::npos);
  // The same data and port: the worker joins again by itself.
  c.start_head({}, c.port());
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker w joined", 30s),
                        c.head().err_text() + worker.err_text());
  cli_result r = c.client({"submit", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == expected);
}

// Nodes on workers reach the head's store through messages: std.fail counts its attempts
// there, so they add up across runs (and processes), and the count is in the head's database.
BOOST_AUTO_TEST_CASE(nodes_on_workers_use_the_heads_store) {
  scratch s;
  const std::string failing = s.write("fail.json", R"({"spec": "superstep.graph/1",
    "state": {"a": {}},
    "nodes": {"f": {"fn": "std.fail", "params": {"times": 2, "update": {"a": "done"}}}},
    "edges": [["__start__", "f"]]})");
  cluster c(s);
  c.add_worker("w");
  cli_result first = c.client({"submit", failing, "--input", "{}", "--thread", "t"});
  BOOST_TEST(first.status == 1);
  BOOST_TEST(first.err.find("attempt 1 of 2") != std::string::npos, first.err);
  cli_result second = c.client({"submit", "--thread", "t"});
  BOOST_TEST(second.err.find("attempt 2 of 2") != std::string::npos, second.err);
  cli_result third = c.client({"submit", "--thread", "t"});
  BOOST_TEST(third.status == 0, third.err);
  BOOST_TEST(third.last().get("data").to_json() == R"({"a":"done"})");
  // `superstep store --head` reaches the same store.
  cli_result remote = c.client({"store", "get", "--ns", "std.fail.t", "--key", "f"});
  BOOST_TEST(remote.status == 0, remote.err);
  BOOST_TEST(remote.last().get("value").get("attempts").as_int() == 3);
  BOOST_TEST(c.client({"store", "put", "--ns", "1.memories", "--key", "a", "--value",
                       R"({"food_preference": "I like pizza"})"})
                 .status == 0);
  cli_result found = c.client({"store", "search", "--ns", "1", "--query", "pizza"});
  BOOST_TEST(found.last().get("key").as_string() == "a", found.err);
  BOOST_TEST(c.client({"store", "get", "--ns", "1..x", "--key", "a"}).status == 1);
  c.head().stop();  // it holds the database
  cli_result item = run_to_end(
      {"store", "get", "--ns", "std.fail.t", "--key", "f", "--data", s.path("head-data")}, s);
  BOOST_TEST(item.status == 0, item.err);
  BOOST_TEST(item.last().get("value").get("attempts").as_int() == 3);
}

// A store operation of the head runs beside the gate, not on it: one waiting on its embedder
// (an endpoint that takes the connection and never answers, until the 30 s timeout) holds up
// neither other store operations nor workers and clients joining.
BOOST_AUTO_TEST_CASE(a_store_operation_waiting_on_its_embedder_holds_up_no_other) {
  scratch s;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  BOOST_REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  BOOST_REQUIRE(::listen(fd, 16) == 0);
  BOOST_REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string url =
      "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/v1/embeddings";
  {
    cluster c(s, {"--embedder", "openai", "--embedder-url", url, "--embedder-model", "m", "--dims",
                  "8", "--embedder-timeout", "30000"});
    child slow({"store", "put", "--head", c.address(), "--ns", "1.m", "--key", "a", "--value",
                R"({"t": "x"})"},
               s);
    // The put's text has gone to the endpoint when a connection waits there.
    pollfd p{fd, POLLIN, 0};
    BOOST_REQUIRE_MESSAGE(::poll(&p, 1, 60000) == 1, "the put did not reach the endpoint: " +
                                                         slow.err_text() + c.head().err_text());
    const auto start = std::chrono::steady_clock::now();
    cli_result other = c.client(
        {"store", "put", "--ns", "1.m", "--key", "b", "--value", R"({"t": "y"})", "--no-index"});
    BOOST_TEST(other.status == 0, other.err);
    cli_result listed = c.client({"store", "namespaces"});
    BOOST_TEST(listed.status == 0, listed.err);
    c.add_worker("w");  // joins through the gate
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    BOOST_TEST(took.count() < 15000, "took " << took.count() << " ms");  // not the put's 30 s
    BOOST_TEST(slow.running());
  }
  ::close(fd);
}

// A node on a worker builds its input from its replica of the channels it reads, which each
// batch brings up to date with what changed: a loop over a big state key that it never
// changes sends that key once per node actor, not once per step.
BOOST_AUTO_TEST_CASE(a_remote_node_gets_what_changed_not_its_whole_input_each_step) {
  scratch s;
  const test::loop_over_doc loop(s);
  cluster c(s);
  c.add_worker("w");
  const std::uint64_t bytes_out = test::head_batch_bytes(c, loop);
  // 21 batches of `step`'s tasks: the doc at most once for each of the worker's node actors
  // (one per thread), not 21 times.
  BOOST_TEST(bytes_out < 4 * loop.doc.size(), c.head().err_text());
}
