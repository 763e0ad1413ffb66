// Fault tolerance through the program: `superstep run` killed with SIGKILL at random moments
// reopens its database and resumes each thread to the same final state as an uninterrupted
// run, never re-running a task whose writes were saved.
//
// The spec (examples/specs/slow_steps.json) runs 14 steps. In each, a fast `logNN` task
// (std.emit: it prints {"ran": "logNN"} on the custom stream) runs beside a slow `workNN`
// task (std.sleep, 20 ms); step 7 fans out to four sleepers. Every task appends its name to
// `trace`. A kill during a step usually lands after logNN's writes were saved and before
// the step's checkpoint: the resumed process must then not run logNN again (it would print
// it), and the final trace must hold each name exactly once.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cli_support.hpp"
#include "cluster/process_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

const std::string spec = std::string(SUPERSTEP_EXAMPLE_SPECS) + "/slow_steps.json";
const std::string input = R"({"trace": []})";

std::uint32_t seed() {
  if (const char* s = std::getenv("SUPERSTEP_KILL_SEED")) return std::uint32_t(std::stoul(s));
  return 20261121u;
}

}  // namespace

BOOST_AUTO_TEST_CASE(killed_runs_resume_to_the_uninterrupted_result_without_rerunning_saved_tasks) {
  scratch s;
  const std::string data = s.path("data");

  const auto base_start = std::chrono::steady_clock::now();
  cli_result base =
      run_to_end({"run", spec, "--input", input, "--thread", "base", "--data", data}, s);
  // Kills land within the span of an uninterrupted run, however fast this build is (a
  // sanitizer build runs several times slower).
  const auto base_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - base_start)
                           .count();
  const long window = std::max<long>(60, static_cast<long>(base_ms));
  BOOST_TEST_REQUIRE(base.status == 0, base.err);
  const value expected = base.last().get("data");
  const list& trace = expected.get("trace").as_list();
  BOOST_TEST_REQUIRE(trace.size() == 31u);  // 14 logs, 13 single sleepers, 4 fanned out
  std::set<std::string> names;
  for (const value& name : trace) names.insert(name.as_string());
  BOOST_TEST(names.size() == trace.size());  // each once

  std::mt19937 rng(seed());
  BOOST_TEST_MESSAGE("SUPERSTEP_KILL_SEED=" << seed());
  int skipped_saved_logs = 0;  // resumes that started with a finished log task: the check bites
  for (int round = 0; round < 8; ++round) {
    const std::string thread = "t" + std::to_string(round);
    const std::string durability = round % 2 ? "async" : "sync";
    int kills = 1 + int(rng() % 2);  // the first run, and sometimes the first resume too
    std::optional<cli_result> done;
    BOOST_TEST_CONTEXT("round " << round << ", durability " << durability) {
      for (int attempt = 0; attempt < 30 && !done; ++attempt) {
        // What the database holds now: tasks of the unfinished step whose writes were saved.
        std::set<std::string> saved;
        std::vector<std::string> args{"run",          "--thread", thread,     "--data", data,
                                      "--durability", durability, "--stream", "custom"};
        cli_result state = run_to_end({"state", "--thread", thread, "--data", data}, s);
        if (state.status == 0) {
          const value snapshot = state.last();
          for (const value& t : snapshot.get("tasks").as_list())
            if (!t.get("result").is_null()) saved.insert(t.get("name").as_string());
        } else {
          // Killed before the first checkpoint: start again.
          BOOST_TEST_REQUIRE(state.err.find("has no checkpoints") != std::string::npos, state.err);
          args.insert(args.begin() + 1, {spec, "--input", input});
        }
        for (const auto& name : saved) skipped_saved_logs += name.rfind("log", 0) == 0;

        child c(args, s);
        if (kills > 0) {
          --kills;
          std::this_thread::sleep_for(std::chrono::milliseconds(
              window / 10 + static_cast<long>(rng() % (window * 8 / 10))));
          c.kill();
        } else {
          BOOST_REQUIRE_MESSAGE(c.wait(20s), "superstep did not finish in 20 s");
        }
        cli_result r = c.result();
        BOOST_TEST_REQUIRE((r.status == 0 || r.status == -1), r.err);  // done, or killed
        std::vector<value> lines;
        try {
          lines = r.lines();
        } catch (const std::exception&) {  // a line cut by the kill
          BOOST_TEST_REQUIRE(r.status == -1, r.out);
          lines.clear();
        }
        for (const value& l : lines) {
          if (l.get("type") != value("custom")) continue;
          const std::string ran = l.get("data").get("ran").as_string();
          BOOST_TEST(!saved.count(ran), ran << " ran again although its writes were saved");
        }
        if (r.status == 0) done = r;
      }
      BOOST_TEST_REQUIRE(done.has_value(), "no run finished in 30 attempts");
      BOOST_TEST(done->last().get("type") == value("output"));
      BOOST_TEST(done->last().get("data").to_json() == expected.to_json());
      cli_result state = run_to_end({"state", "--thread", thread, "--data", data}, s);
      BOOST_TEST_REQUIRE(state.status == 0, state.err);
      BOOST_TEST(state.last().get("values").to_json() == expected.to_json());
      BOOST_TEST(state.last().get("next").as_list().empty());
    }
  }
  // Most kills land in the middle of a step, after its fast log task saved its writes.
  BOOST_TEST(skipped_saved_logs > 0);
}
