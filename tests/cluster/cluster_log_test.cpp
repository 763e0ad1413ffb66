// The log of a cluster's processes (spdlog, --log-level): the head's lines for each run's
// start, end and failure, and what each level lets through.
#include <boost/test/unit_test.hpp>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

std::string spec(const std::string& name) { return test::example_spec(name); }

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_head_logs_each_runs_start_end_and_failure) {
  scratch s;
  test::test_cluster c(s);
  c.add_worker("w");
  cli_result r = c.client({"submit", spec("loop"), "--input", "{}", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_REQUIRE(c.head().wait_for_err("run of thread t ended: ", 10s));
  const std::string log = c.head().err_text();
  BOOST_TEST(has(log, "head info: run of thread t started (a spec sent by the client)"), log);
  // The input step, then step and log five times each.
  BOOST_TEST(has(log, "; done after 11 steps in "), log);
  // A run that fails: its error, on an error line.
  r = c.client({"submit", spec("jokes"), "--input", "{}", "--thread", "f"});
  BOOST_TEST(r.status == 1);
  BOOST_REQUIRE(c.head().wait_for_err("run of thread f failed", 10s));
  BOOST_TEST(has(c.head().err_text(), "head error: run of thread f failed after 1 step in "),
             c.head().err_text());
  BOOST_TEST(
      has(c.head().err_text(), "s: std.send_each: the state has no value for key 'subjects'"),
      c.head().err_text());
  // Results go to the client's stdout, never into a log.
  BOOST_TEST(!has(c.head().err_text(), "\"type\":\"output\""));
}

BOOST_AUTO_TEST_CASE(log_level_sets_what_the_head_and_workers_log) {
  scratch s;
  test::test_cluster first(s);
  const std::string address = first.address();
  first.head().kill();
  // A head that logs errors only, on the same port: it says nothing of workers or runs that
  // end well, but logs a run that fails.
  child head({"head", "--listen", address, "--data", s.path("quiet"), "--log-level", "error"}, s);
  child worker({"worker", "--join", address, "--name", "w", "--log-level", "debug"}, s);
  BOOST_REQUIRE_MESSAGE(worker.wait_for_err("w info: joined the head at", 20s),
                        worker.err_text() + head.err_text());
  cli_result ok = run_to_end({"submit", "--head", address, spec("loop"), "--input", "{}"}, s);
  BOOST_REQUIRE_MESSAGE(ok.status == 0, ok.err);
  cli_result bad = run_to_end({"submit", "--head", address, spec("jokes"), "--input", "{}"}, s);
  BOOST_TEST(bad.status == 1);
  BOOST_REQUIRE_MESSAGE(head.wait_for_err("failed after", 10s), head.err_text());
  const std::string log = head.err_text();
  BOOST_TEST(!has(log, "listening on"), log);
  BOOST_TEST(!has(log, "joined"), log);
  BOOST_TEST(!has(log, "started"), log);
  BOOST_TEST(!has(log, " ended: "), log);
  // A worker with a key this head does not have gives up; with --log-level off, silently.
  const std::string key = s.write("cluster.key", "0123456789abcdef0123456789abcdef\n");
  cli_result loud = run_to_end({"worker", "--join", address, "--key-file", key}, s);
  BOOST_TEST(loud.status == 1);
  BOOST_TEST(has(loud.err, "the head has no cluster key"), loud.err);
  cli_result quiet =
      run_to_end({"worker", "--join", address, "--key-file", key, "--log-level", "off"}, s);
  BOOST_TEST(quiet.status == 1);
  BOOST_TEST(quiet.err.empty(), quiet.err);
}

BOOST_AUTO_TEST_CASE(an_unknown_log_level_is_a_usage_error) {
  scratch s;
  cli_result r = run_to_end({"worker", "--join", "127.0.0.1:1", "--log-level", "loud"}, s);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "--log-level: expected trace, debug, info, warn, error or off, not 'loud'"),
             r.err);
  r = run_to_end({"history", "--thread", "t", "--log-level"}, s);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(has(r.err, "--log-level needs a value"), r.err);
}
