// The data folder through the program. Two processes on one folder: while a `superstep run`
// writes to it (blocked in a slow node), `state`, `history`, `store get/search` and `check`
// from another process read it (read-only, without its lock), and a second writer is told
// which process holds the folder and what to do. A damaged folder: reading it is an error that
// points to `check` and `repair`, which report the damage and salvage the rest.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
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

// Runs thread t of pregel_single_node into `data`.
void run_thread_t(scratch& s, const std::string& data) {
  const std::string pregel = std::string(SUPERSTEP_EXAMPLE_SPECS) + "/pregel_single_node.json";
  cli_result done =
      run_to_end({"run", pregel, "--input", R"({"a": "foo"})", "--thread", "t", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(done.status == 0, done.err);
}

}  // namespace

BOOST_AUTO_TEST_CASE(readers_work_beside_a_running_writer_and_a_second_writer_is_told_what_to_do) {
  scratch s;
  const std::string data = s.path("data");
  const std::string spec = s.write("slow.json", slow_spec);
  const std::string pregel = std::string(SUPERSTEP_EXAMPLE_SPECS) + "/pregel_single_node.json";
  cli_result done = run_to_end(
      {"run", pregel, "--input", R"({"a": "foo"})", "--thread", "done", "--data", data}, s);
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
  cli_result check = run_to_end({"check", "--data", data}, s);
  BOOST_TEST(check.status == 0, check.err << check.out);
  BOOST_TEST(check.last().get("ok") == value(true), check.out);
  cli_result repair = run_to_end({"repair", "--data", data}, s);
  BOOST_TEST(repair.status == 1);
  BOOST_TEST(repair.err.find("in use by another process") != std::string::npos, repair.err);

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

BOOST_AUTO_TEST_CASE(a_damaged_folder_is_an_error_pointing_to_check_and_repair_salvages_the_rest) {
  scratch s;
  const std::string data = s.path("data");
  run_thread_t(s, data);
  // The store item is the last write: it is in the write-ahead log (each open moves what the
  // log held before into tables).
  cli_result put = run_to_end({"store", "put", "--data", data, "--ns", "u.m", "--key", "k",
                               "--value", R"({"text": "kept"})"},
                              s);
  BOOST_REQUIRE_MESSAGE(put.status == 0, put.err);
  cli_result state_before = run_to_end({"state", "--thread", "t", "--data", data}, s);
  cli_result sound = run_to_end({"check", "--data", data}, s);
  BOOST_TEST(sound.status == 0, sound.out << sound.err);
  const value report = sound.last();
  BOOST_TEST(report.get("ok") == value(true));
  BOOST_TEST(report.get("threads") == value(1));
  BOOST_TEST(report.get("store_items") == value(1));
  BOOST_TEST(report.get("checkpoints").as_int() >= 2);

  // One flipped byte in the middle of the write-ahead log.
  std::filesystem::path log;
  for (const auto& f : std::filesystem::directory_iterator(data))
    if (f.path().extension() == ".log" && std::filesystem::file_size(f.path()) > 0) log = f.path();
  BOOST_REQUIRE(!log.empty());
  std::string bytes = test::read_file(log.string());
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
  std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;

  for (const std::vector<std::string>& reader :
       {std::vector<std::string>{"state", "--thread", "t", "--data", data},
        std::vector<std::string>{"history", "--thread", "t", "--data", data},
        std::vector<std::string>{"run", "--thread", "t", "--data", data}}) {
    cli_result r = run_to_end(reader, s);
    BOOST_TEST(r.status == 1, reader[0] << ": " << r.out);
    BOOST_TEST(r.out.empty(), reader[0] << ": " << r.out);
    BOOST_TEST(r.err.find("Corruption") != std::string::npos, r.err);
    BOOST_TEST(r.err.find("superstep repair --data " + data) != std::string::npos, r.err);
  }
  cli_result damaged = run_to_end({"check", "--data", data}, s);
  BOOST_TEST(damaged.status == 1);
  BOOST_TEST(damaged.last().get("ok") == value(false));
  BOOST_TEST(damaged.last().get("problems").as_list().size() >= 1u, damaged.out);

  cli_result repaired = run_to_end({"repair", "--data", data}, s);
  BOOST_TEST(repaired.status == 0, repaired.out << repaired.err);
  BOOST_TEST(repaired.last().get("repaired") == value(true));
  BOOST_TEST(repaired.last().get("lost").as_list().size() >= 1u, repaired.out);
  BOOST_TEST(repaired.last().get("check").get("ok") == value(true), repaired.out);
  // The thread was in the tables: it reads as before. The store item was in the damaged
  // record: lost, as the report said.
  cli_result state_after = run_to_end({"state", "--thread", "t", "--data", data}, s);
  BOOST_TEST(state_after.status == 0, state_after.err);
  BOOST_TEST(state_after.out == state_before.out);
  cli_result check_after = run_to_end({"check", "--data", data}, s);
  BOOST_TEST(check_after.status == 0, check_after.out);
  cli_result missing = run_to_end({"check", "--data", s.path("nothing")}, s);
  BOOST_TEST(missing.status == 1);
  BOOST_TEST(missing.out.find("has no database") != std::string::npos, missing.out);
}

// A thread's saved spec (data/graphs/) truncated or edited breaks state, history and run:
// check reads every saved spec as they do and names the thread and file of one that fails.
BOOST_AUTO_TEST_CASE(check_reads_the_saved_graph_specs) {
  scratch s;
  const std::string data = s.path("data");
  run_thread_t(s, data);
  cli_result sound = run_to_end({"check", "--data", data}, s);
  BOOST_TEST(sound.status == 0, sound.out << sound.err);
  std::filesystem::path saved;
  for (const auto& e : std::filesystem::directory_iterator(data + "/graphs")) saved = e.path();
  BOOST_REQUIRE(!saved.empty());
  for (const std::string& damage : {std::string("half"), std::string("edited")}) {
    BOOST_TEST_CONTEXT(damage) {
      std::string text;
      {
        std::ifstream in(saved);
        text.assign(std::istreambuf_iterator<char>(in), {});
      }
      const std::string kept = text;
      if (damage == "half")
        text.resize(text.size() / 2);
      else
        text.replace(text.find("\"nodes\""), 7, "\"nodez\"");
      {
        std::ofstream out(saved, std::ios::trunc);
        out << text;
      }
      cli_result state = run_to_end({"state", "--thread", "t", "--data", data}, s);
      BOOST_TEST(state.status != 0);
      cli_result check = run_to_end({"check", "--data", data}, s);
      BOOST_TEST(check.status == 1, check.out << check.err);
      const std::string said = check.out + check.err;
      BOOST_TEST(said.find("thread 't'") != std::string::npos, said);
      BOOST_TEST(said.find(saved.filename().string()) != std::string::npos, said);
      std::ofstream(saved, std::ios::trunc) << kept;
    }
  }
  BOOST_TEST(run_to_end({"check", "--data", data}, s).status == 0);
}
