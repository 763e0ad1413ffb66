// Two processes on one data folder: while a `superstep run` writes to it (blocked in a slow
// node), `state`, `history` and `store get/search/namespaces` from another process read it
// (read-only, without its lock), and a second writer is told which process holds the folder
// and what to do.
#include <boost/test/unit_test.hpp>
#include <string>

#include "cluster/cli_support.hpp"
#include "cluster/process_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::run_to_end;
using superstep::test::scratch;

namespace {

// Emits {"ran": "first"} on the custom stream, then sleeps a minute: the run holds the
// folder from the event until the test stops it.
const char* const slow_spec = R"({
  "spec": "superstep.graph/1",
  "name": "holds_the_folder",
  "state": {"trace": {"reducer": "append"}},
  "nodes": {
    "first": {"fn": "std.emit", "params": {"data": {"ran": "first"}, "update": {"trace": ["first"]}}},
    "wait": {"fn": "std.sleep", "params": {"ms": 60000, "update": {"trace": ["wait"]}}}
  },
  "edges": [["__start__", "first"], ["first", "wait"], ["wait", "__end__"]]
})";

}  // namespace

BOOST_AUTO_TEST_CASE(readers_work_beside_a_running_writer_and_a_second_writer_is_told_what_to_do) {
  scratch s;
  const std::string data = s.path("data");
  const std::string spec = s.write("slow.json", slow_spec);
  const std::string pregel =
      std::string(SUPERSTEP_EXAMPLE_SPECS) + "/pregel_single_node.json";
  cli_result done =
      run_to_end({"run", pregel, "--input", R"({"a": "foo"})", "--thread", "done", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(done.status == 0, done.err);
  cli_result put = run_to_end({"store", "put", "--data", data, "--ns", "u.m", "--key", "k",
                               "--value", R"({"text": "kept"})"},
                              s);
  BOOST_REQUIRE_MESSAGE(put.status == 0, put.err);
  // What the readers print with nobody writing, to compare with what they print beside the
  // writer.
  cli_result state_alone = run_to_end({"state", "--thread", "done", "--data", data}, s);
  cli_result history_alone = run_to_end({"history", "--thread", "done", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(state_alone.status == 0, state_alone.err);

  child writer({"run", spec, "--input", R"({"trace": []})", "--thread", "slow", "--data", data,
                "--stream", "custom"},
               s);
  BOOST_REQUIRE_MESSAGE(writer.wait_for_out("first", 20s),
                        "the writer did not start: " << writer.err_text());
  BOOST_REQUIRE(writer.running());

  cli_result state = run_to_end({"state", "--thread", "done", "--data", data}, s);
  BOOST_TEST(state.status == 0, state.err);
  BOOST_TEST(state.out == state_alone.out);
  cli_result history = run_to_end({"history", "--thread", "done", "--data", data}, s);
  BOOST_TEST(history.status == 0, history.err);
  BOOST_TEST(history.out == history_alone.out);
  cli_result get = run_to_end({"store", "get", "--data", data, "--ns", "u.m", "--key", "k"}, s);
  BOOST_TEST(get.status == 0, get.err);
  BOOST_TEST(get.out.find("kept") != std::string::npos, get.out);
  cli_result search = run_to_end({"store", "search", "--data", data, "--query", "kept"}, s);
  BOOST_TEST(search.status == 0, search.err);
  BOOST_TEST(search.out.find("kept") != std::string::npos, search.out);

  const std::string holder = "in use by another process (pid " + std::to_string(writer.pid()) + ")";
  for (const std::vector<std::string>& second :
       {std::vector<std::string>{"run", "--thread", "done", "--data", data},
        std::vector<std::string>{"update", "--thread", "done", "--values", R"({"a": "x"})",
                                 "--data", data},
        std::vector<std::string>{"store", "put", "--data", data, "--ns", "u.m", "--key", "k2",
                                 "--value", "{}"}}) {
    cli_result r = run_to_end(second, s);
    BOOST_TEST(r.status == 1, second[0] << ": " << r.err);
    BOOST_TEST(r.err.find(data) != std::string::npos, r.err);
    BOOST_TEST(r.err.find(holder) != std::string::npos, r.err);
    BOOST_TEST(r.err.find("another --data") != std::string::npos, r.err);
  }
  BOOST_TEST(writer.running());
  writer.kill();
  // Killed, the writer's thread continues in the next writer.
  cli_result after = run_to_end({"state", "--thread", "done", "--data", data}, s);
  BOOST_TEST(after.out == state_alone.out);
}
