// Several clients submitting to one thread of a head at once, through real processes on
// loopback: one run per thread (--multitask), the thread readable afterwards.
#include <boost/test/unit_test.hpp>

#include "cluster/cli_support.hpp"
#include "cluster/cluster_support.hpp"
#include "cluster/process_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

// A head with one worker, started in a scratch folder; both are killed when it goes.
class head_with_worker : public test::test_cluster {
 public:
  explicit head_with_worker(scratch& s) : test::test_cluster(s) { add_worker("w"); }
  std::vector<std::string> against(std::vector<std::string> args) const { return with_head(args); }
};

// Each run appends "a" to the log (and, with a sleep, then sleeps `ms`).
std::string log_spec(scratch& s, int sleep_ms = 0) {
  std::string nodes = R"("a": {"fn": "std.set", "params": {"update": {"log": ["a"]}}})";
  std::string edges = R"(["__start__", "a"])";
  if (sleep_ms > 0) {
    nodes += R"(, "slow": {"fn": "std.sleep", "params": {"ms": )" + std::to_string(sleep_ms) + "}}";
    edges += R"(, ["a", "slow"])";
  }
  return s.write("log" + std::to_string(sleep_ms) + ".json",
                 R"({"spec": "superstep.graph/1", "name": "log",
                     "state": {"log": {"reducer": "append"}},
                     "nodes": {)" +
                     nodes + R"(},
                     "edges": [)" +
                     edges + "]}");
}

}  // namespace

BOOST_AUTO_TEST_CASE(concurrent_submits_to_one_thread_all_run_when_enqueued) {
  // Before one run per thread, some of these failed writing graphs/<hex>.json, ended
  // "interrupted" or left the thread unreadable.
  scratch s;
  head_with_worker c(s);
  const std::string spec = log_spec(s);
  constexpr int clients = 8;
  std::vector<std::unique_ptr<child>> submits;
  for (int i = 0; i < clients; ++i)
    submits.push_back(
        std::make_unique<child>(c.against({"submit", spec, "--input", R"({"log": []})", "--thread",
                                           "t", "--multitask", "enqueue"}),
                                s));
  for (auto& p : submits) {
    BOOST_REQUIRE_MESSAGE(p->wait(20s), "a submit did not finish in 20 s");
    cli_result r = p->result();
    BOOST_TEST(r.status == 0, "status " << r.status << ": " << r.err << r.out);
  }
  cli_result state = c.client({"state", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values").get("log").as_list().size() == std::size_t{clients});
  cli_result history = c.client({"history", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(history.status == 0, history.err);
  BOOST_TEST(history.lines().size() == std::size_t{3 * clients});  // input, a, per run
}

BOOST_AUTO_TEST_CASE(a_submit_to_a_busy_thread_is_rejected_naming_the_running_run) {
  scratch s;
  head_with_worker c(s);
  // The first run sleeps in its second step for far longer than the test lasts; the head is
  // killed at the end with it still running.
  child slow(c.against({"submit", log_spec(s, 60000), "--input", R"({"log": []})", "--thread", "t",
                        "--stream", "updates", "--config", R"({"run_id": "slow-run"})"}),
             s);
  BOOST_REQUIRE_MESSAGE(slow.wait_for_out(R"("a")", 20s),
                        "the first run did not start: " + slow.err_text());
  cli_result second = c.client({"submit", "--input", R"({"log": []})", "--thread", "t"});
  BOOST_TEST(second.status == 1);
  BOOST_TEST(second.err.find("thread 't' is busy with run slow-run") != std::string::npos,
             second.err);
  // Nor do update and delete change the thread under the run.
  for (auto args :
       {std::vector<std::string>{"update", "--thread", "t", "--values", R"({"log": ["u"]})"},
        std::vector<std::string>{"delete", "--thread", "t"}}) {
    cli_result r = c.client(args);
    BOOST_TEST(r.status == 1, args[0]);
    BOOST_TEST(r.err.find("thread 't' is busy with run slow-run") != std::string::npos, r.err);
  }
  cli_result bad = c.client({"submit", "--input", "{}", "--thread", "t", "--multitask", "later"});
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(bad.err.find("--multitask: expected reject, enqueue, interrupt or rollback, not "
                          "'later'") != std::string::npos,
             bad.err);
}
