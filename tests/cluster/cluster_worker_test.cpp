// A graph written in C++ runs on a cluster through the program's own worker
// (superstep/cluster/worker.hpp), without a node library: real processes (a head, the
// example program examples/cluster_worker.cpp, clients), and a worker in this process.
#include <boost/test/unit_test.hpp>
#include <mutex>
#include <thread>

#include "cluster/cluster_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/graph_export.hpp"
#include "superstep/cluster/named_function.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/cluster/worker.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::scratch;
using test_cluster = superstep::test::test_cluster;

namespace {

// The spec the example program prints for its graph (`cluster_worker --spec`).
std::string example_spec(scratch& s) {
  child spec(SUPERSTEP_EXAMPLE_WORKER, {"--spec"}, s);
  BOOST_REQUIRE(spec.wait(10s));
  BOOST_REQUIRE_MESSAGE(spec.result().status == 0, spec.err_text());
  return s.write("reverse_words.json", spec.out_text());
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_cpp_programs_node_runs_on_the_cluster_through_its_own_worker) {
  scratch s;
  const std::string spec = example_spec(s);
  BOOST_TEST(value::parse_json(test::read_file(spec)).get("nodes").get("reverse").get("fn") ==
             value("words.reverse"));
  test_cluster c(s, {"--worker-wait", "1"});
  c.add_worker("plain");  // the std library only
  const std::vector<std::string> submit{"submit", spec, "--input",
                                        R"({"words": ["abc", "hello"]})"};
  // Only the program has words.reverse.
  cli_result missing = c.client(submit);
  BOOST_TEST(missing.status == 1);
  BOOST_TEST(missing.err.find("no connected worker can run node 'reverse' (it needs "
                              "words.reverse)") != std::string::npos,
             missing.err);

  child program(SUPERSTEP_EXAMPLE_WORKER, {"--join", c.address(), "--name", "cpp"}, s);
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker cpp joined", 10s),
                        c.head().err_text() + program.err_text());
  cli_result r = c.client(submit);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"reversed":["cba","olleh"]})");
  BOOST_TEST(program.err_text().find("worker cpp: loaded graph") != std::string::npos,
             program.err_text());

  // SIGTERM stops it cleanly: its node actors and link go, the head sees it leave.
  program.stop();
  BOOST_TEST(program.result().status == 0, program.err_text());
  BOOST_TEST(program.err_text().find("cluster_worker: stopped") != std::string::npos);
  BOOST_TEST(c.head().wait_for_err("worker cpp left", 10s), c.head().err_text());
}

BOOST_AUTO_TEST_CASE(the_programs_worker_needs_the_clusters_key) {
  scratch s;
  const std::string key = s.write("key", "0123456789abcdef0123456789abcdef\n");
  const std::string wrong = s.write("wrong", "fedcba9876543210fedcba9876543210\n");
  const std::string spec = example_spec(s);
  test_cluster c(s, {"--key-file", key});
  child refused(SUPERSTEP_EXAMPLE_WORKER, {"--join", c.address(), "--key-file", wrong}, s);
  BOOST_REQUIRE(refused.wait(20s));
  BOOST_TEST(refused.result().status == 1);
  BOOST_TEST(refused.err_text().find("refused the key") != std::string::npos, refused.err_text());

  child keyed(SUPERSTEP_EXAMPLE_WORKER,
              {"--join", c.address(), "--key-file", key, "--name", "keyed"}, s);
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker keyed joined", 10s),
                        c.head().err_text() + keyed.err_text());
  cli_result r = c.client({"submit", spec, "--input", R"({"words": ["ab"]})", "--key-file", key});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").to_json() == R"({"reversed":["ba"]})");
}

// The library in this process: run on a thread, joined, serving a graph built here and
// exported to a spec, stopped.
BOOST_AUTO_TEST_CASE(a_worker_in_this_process_serves_until_stopped) {
  scratch s;
  test_cluster c(s);
  cluster::function_registry r;
  cluster::register_std_library(r);
  r.add_node("here.shout", [](const value&) -> node_function {
    return [](const value& in, node_context&) -> value {
      return object{{"text", value(in.get("text").as_string() + "!")}};
    };
  });
  state_graph g;
  g.add_key("text");
  g.add_node("shout", r.make_node("here.shout", value()));
  g.set_entry_point("shout");
  const std::string spec = s.write("shout.json", cluster::export_graph_spec(g).to_json());

  cluster::worker_options options;
  options.host = "127.0.0.1";
  options.port = static_cast<std::uint16_t>(c.port());
  options.name = "inproc";
  options.threads = 2;
  std::mutex m;
  std::vector<std::string> lines;
  options.log = [&](cluster::worker_log_level, const std::string& line) {
    std::lock_guard lock(m);
    lines.push_back(line);
  };
  cluster::worker w(r, options);
  BOOST_TEST(w.name() == "inproc");
  BOOST_TEST(!w.joined());
  std::exception_ptr failed;
  std::thread serving([&] {
    try {
      w.run();
    } catch (...) {
      failed = std::current_exception();
    }
  });
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker inproc joined", 10s), c.head().err_text());
  cli_result out = c.client({"submit", spec, "--input", R"({"text": "hi"})"});
  BOOST_REQUIRE_MESSAGE(out.status == 0, out.err);
  BOOST_TEST(out.last().get("data").to_json() == R"({"text":"hi!"})");
  BOOST_TEST(w.joined());
  w.stop();
  serving.join();
  BOOST_TEST(!failed);
  BOOST_TEST(!w.joined());
  BOOST_TEST(c.head().wait_for_err("worker inproc left", 10s), c.head().err_text());
  std::lock_guard lock(m);
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(lines.front().find("joined the head at " + c.address()) != std::string::npos,
             lines.front());
}

// The input node routes where the run is coordinated when the head has its routers (the std
// library's: commit_faults_test counts the batches a fan-out sends), and on a worker when a
// router is a program's own: the head runs no user code.
BOOST_AUTO_TEST_CASE(an_input_nodes_router_of_a_program_runs_on_its_worker) {
  scratch s;
  test_cluster c(s, {"--worker-wait", "1", "--spread-channels"});
  c.add_worker("plain");  // the std library only
  cluster::function_registry r;
  cluster::register_std_library(r);
  r.add_router("here.each_word", [](const value&) -> router_function {
    return [](const value& state, node_context&) -> value {
      list sends;
      for (const auto& w : state.get("words").as_list())
        sends.push_back(make_send("upper", object{{"word", w}}));
      return value(std::move(sends));
    };
  });
  state_graph g;
  g.add_key("words").add_key("out", "append");
  g.add_node("upper", r.make_node("std.map", object{{"from", value("word")},
                                                    {"to", value("out")},
                                                    {"mul", value(10)},
                                                    {"wrap", value("list")}}));
  g.add_conditional_edges(std::string(START), r.make_router("here.each_word", value()));
  g.add_edge("upper", std::string(END));
  const std::string spec = s.write("words.json", cluster::export_graph_spec(g).to_json());
  const std::vector<std::string> submit{"submit", spec, "--input", R"({"words": [1, 2]})"};

  cli_result missing = c.client(submit);
  BOOST_TEST(missing.status == 1);
  BOOST_TEST(missing.err.find("no connected worker can run node '__start__' (it needs "
                              "here.each_word)") != std::string::npos,
             missing.err);

  cluster::worker_options options;
  options.host = "127.0.0.1";
  options.port = static_cast<std::uint16_t>(c.port());
  options.name = "inproc";
  cluster::worker w(r, options);
  std::thread serving([&] { w.run(); });
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker inproc joined", 10s), c.head().err_text());
  cli_result out = c.client(submit);
  w.stop();
  serving.join();
  BOOST_REQUIRE_MESSAGE(out.status == 0, out.err);
  BOOST_TEST(out.last().get("data").get("out").to_json() == "[10,20]");
}

BOOST_AUTO_TEST_CASE(a_stopped_worker_returns_at_once_and_an_unreadable_key_file_is_named) {
  cluster::function_registry r;
  cluster::worker_options options;
  options.port = 1;  // nothing listens there: run would wait for a head
  cluster::worker w(r, options);
  w.stop();
  w.run();  // returns: stopped before it began
  BOOST_TEST(!w.joined());
  options.key_file = "/nonexistent/superstep.key";
  try {
    cluster::worker keyed(r, options);
    BOOST_FAIL("a worker took a key file that cannot be read");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("/nonexistent/superstep.key") != std::string::npos,
               e.what());
  }
}
