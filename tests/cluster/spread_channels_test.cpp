// Channels spread over the workers (`superstep head --spread-channels`, issue 14): each run's
// channels live in channel actors on the workers, one group per worker, and every step
// commits over them in two phases. Real processes on loopback, bounded in time, killed.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <thread>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::scratch;

namespace {

std::string spec(const std::string& name) { return test::example_spec(name); }

using cluster = test::test_cluster;

}  // namespace

BOOST_AUTO_TEST_CASE(runs_with_channels_on_the_workers_equal_the_embedded_runs) {
  scratch s;
  cluster c(s, {"--spread-channels"});
  child& w1 = c.add_worker("w1");
  child& w2 = c.add_worker("w2");
  // The cluster suite's example runs, and one of 14 steps with joins (many channels to split).
  auto cases = test::example_runs();
  cases.emplace_back("slow_steps", R"({"trace": []})");
  int thread = 0;
  for (const auto& [name, input] : cases) {
    BOOST_TEST_CONTEXT(name) {
      value expected = test::embedded_run(s, {spec(name), "--input", input});
      cli_result r = c.client({"submit", spec(name), "--input", input, "--stream", "updates"});
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("type").as_string() == "output");
      BOOST_TEST(r.last().get("data") == expected);
      // On a thread with no stream needing the writes' values, results come through the
      // head's writes saver without them.
      r = c.client(
          {"submit", spec(name), "--input", input, "--thread", "saved" + std::to_string(++thread)});
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("data") == expected);
    }
  }
  // Both workers owned groups of the runs' channels (their activity report says so).
  BOOST_TEST(w1.wait_for_err("owned channel groups of", 10s), w1.err_text());
  BOOST_TEST(w2.wait_for_err("owned channel groups of", 10s), w2.err_text());
  // The thread's state and history come from the head's checkpoints, as without spreading.
  cli_result run =
      c.client({"submit", spec("jokes"), "--input", R"({"subjects": ["a"]})", "--thread", "t1"});
  BOOST_REQUIRE_MESSAGE(run.status == 0, run.err);
  cli_result state = c.client({"state", "--thread", "t1"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values").get("best").as_string() == "joke about a");
}

BOOST_AUTO_TEST_CASE(node_actors_read_a_replica_the_channel_actors_push_to_not_the_head) {
  scratch s;
  // 20 steps of a node on a worker over a 100 KB key it never changes: its tasks' inputs come
  // from the worker's replica of the run, which the channel actors push changes to, so the
  // head's batches carry versions, not the key (nor the counter).
  const test::loop_over_doc loop(s);
  cluster c(s, {"--spread-channels"});
  child& w1 = c.add_worker("w1");
  child& w2 = c.add_worker("w2");
  const std::uint64_t bytes_out = test::head_batch_bytes(c, loop);
  BOOST_TEST(bytes_out < loop.doc.size() / 2, c.head().err_text());
  // The worker that ran the node kept a replica of the run.
  BOOST_TEST((w1.wait_for_err("kept channel replicas of", 10s) ||
              w2.wait_for_err("kept channel replicas of", 10s)),
             w1.err_text() + w2.err_text());
}

// What the head's log says of a run's traffic (its last "ended:" line): the bytes of `what`
// ("results in", "pending writes in", ...).
std::uint64_t logged_bytes(test::test_cluster& c, const std::string& what) {
  BOOST_REQUIRE(c.head().wait_for_err(" ended: ", 5s));
  const std::string log = c.head().err_text();
  const auto at = log.find(what + " (", log.rfind(" ended: "));
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, log);
  return std::stoull(log.substr(at + what.size() + 2));
}

// A node copies a 100 KB key on a cluster whose head runs with `head_flags`: its write goes to
// the channel actor owning the copy and, as a pending write, to the head's writes saver; the
// result the coordinator gets names the channel written without the value. With an `updates`
// stream the coordinator needs the value, and the result carries it.
void a_copy_bypasses_the_coordinator(const std::vector<std::string>& head_flags) {
  scratch s;
  const std::string doc(100000, 'd');
  const std::string spec = s.write("dup.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "copy": {}},
    "nodes": {"dup": {"fn": "std.copy", "params": {"from": "doc", "to": "copy"}}},
    "edges": [["__start__", "dup"], ["dup", "__end__"]]})");
  const std::string input = s.write("doc.json", value(object{{"doc", doc}}).to_json());
  cluster c(s, head_flags);
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result r = c.client({"submit", spec, "--input", "@" + input, "--thread", "quiet"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("copy").as_string() == doc);
  BOOST_TEST(logged_bytes(c, "results in") < doc.size() / 10);
  BOOST_TEST(logged_bytes(c, "pending writes in") > doc.size());
  // The write was saved before the step committed: the thread's checkpoint holds it.
  cli_result state = c.client({"state", "--thread", "quiet"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values").get("copy").as_string() == doc);

  r = c.client({"submit", spec, "--input", "@" + input, "--thread", "loud", "--stream", "updates"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(logged_bytes(c, "results in") > doc.size());
  BOOST_TEST(logged_bytes(c, "pending writes in") == 0u);
}

BOOST_AUTO_TEST_CASE(task_writes_go_to_their_owners_and_the_saver_not_through_the_coordinator) {
  a_copy_bypasses_the_coordinator({"--spread-channels"});
}

BOOST_AUTO_TEST_CASE(beside_the_coordinator_results_go_through_the_saver_too) {
  // The channel actor beside the coordinator gets a worker's writes from the saver, which
  // took the result: the coordinator sees no value there either.
  a_copy_bypasses_the_coordinator({});
}

BOOST_AUTO_TEST_CASE(the_path_without_channel_actors_takes_results_whole_and_gives_the_same_run) {
  // --coordinator-channels (kept to compare against): the coordinator applies the writes
  // itself, so the results carry their values, and the run ends as embedded.
  scratch s;
  const std::string doc(100000, 'd');
  const std::string spec = s.write("dup.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "copy": {}, "n": {"reducer": "add"}},
    "nodes": {"dup": {"fn": "std.copy", "params": {"from": "doc", "to": "copy"}},
              "count": {"fn": "std.set", "params": {"update": {"n": 1}}}},
    "edges": [["__start__", "dup"], ["__start__", "count"], ["dup", "__end__"],
              ["count", "__end__"]]})");
  const std::string input = s.write("doc.json", value(object{{"doc", doc}}).to_json());
  cluster c(s, {"--coordinator-channels"});
  c.add_worker("w1");
  cli_result r = c.client({"submit", spec, "--input", "@" + input, "--thread", "old"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == test::embedded_run(s, {spec, "--input", "@" + input}));
  BOOST_TEST(logged_bytes(c, "results in") > doc.size());
  BOOST_TEST(logged_bytes(c, "pending writes in") == 0u);
  BOOST_TEST(logged_bytes(c, "channel messages in") == 0u);
}

BOOST_AUTO_TEST_CASE(a_result_too_big_for_one_message_comes_in_parts) {
  // A 6 MB copy: the worker's result is bigger than one message may be
  // (actors::result_part_bytes), so it goes in parts, put back together by the writes saver
  // (a checkpoint per step) or the coordinator (exit durability), in either placement.
  scratch s;
  const std::string doc(6 << 20, 'p');
  const std::string spec = s.write("big.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "copy": {}},
    "nodes": {"dup": {"fn": "std.copy", "params": {"from": "doc", "to": "copy"}}},
    "edges": [["__start__", "dup"], ["dup", "__end__"]]})");
  const std::string input = s.write("big_doc.json", value(object{{"doc", doc}}).to_json());
  for (const char* flag : {"--spread-channels", ""}) {
    cluster c(s, flag[0] ? std::vector<std::string>{flag} : std::vector<std::string>{});
    c.add_worker("w1");
    for (const char* durability : {"sync", "exit"}) {
      const std::string thread = std::string("big-") + durability + (flag[0] ? "-spread" : "");
      cli_result r = c.client(
          {"submit", spec, "--input", "@" + input, "--thread", thread, "--durability", durability});
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("data").get("copy").as_string() == doc, thread);
      BOOST_TEST(logged_bytes(c, std::string(durability) == "sync" ? "pending writes in"
                                                                   : "results in") > doc.size(),
                 thread);
    }
    BOOST_TEST(c.head().err_text().find("refused") == std::string::npos, c.head().err_text());
  }
}

// What the head's log says of the last run: how many channels its coordinator held as
// versions, their values left to the channel actors owning them.
std::uint64_t logged_held(test::test_cluster& c) {
  BOOST_REQUIRE(c.head().wait_for_err(" ended: ", 5s));
  const std::string log = c.head().err_text();
  const auto end = log.find(" channels held as versions", log.rfind(" ended: "));
  BOOST_REQUIRE_MESSAGE(end != std::string::npos, log);
  const auto begin = log.rfind(", ", end);
  return std::stoull(log.substr(begin + 2, end - begin - 2));
}

BOOST_AUTO_TEST_CASE(the_coordinator_holds_versions_of_what_the_workers_own_not_values) {
  // With the channels on the workers, the coordinator keeps their versions: a vote's changed
  // values go into the step's checkpoint and are dropped once it is saved. The run's output
  // is read back from the owners when it ends; a lost owner would be placed again from the
  // checkpoint. A debug stream shows every value each step: then it keeps them all.
  scratch s;
  const std::string doc(100000, 'd');
  const std::string spec = s.write("dup2.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "copy": {}, "n": {"reducer": "add"}},
    "nodes": {"dup": {"fn": "std.copy", "params": {"from": "doc", "to": "copy"}},
              "count": {"fn": "std.set", "params": {"update": {"n": 1}}}},
    "edges": [["__start__", "dup"], ["dup", "count"], ["count", "__end__"]]})");
  const std::string input = s.write("doc2.json", value(object{{"doc", doc}}).to_json());
  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result r = c.client({"submit", spec, "--input", "@" + input, "--thread", "versions"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  const value expected = test::embedded_run(s, {spec, "--input", "@" + input});
  BOOST_TEST(r.last().get("data") == expected);
  BOOST_TEST(r.last().get("data").get("copy").as_string() == doc);
  // doc, copy, n and the channels of the edges: all but the tasks topic are the workers'.
  BOOST_TEST(logged_held(c) >= 3u, c.head().err_text());
  cli_result state = c.client({"state", "--thread", "versions"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values") == expected);
  // A values stream reads the state keys each step: those stay with the coordinator too.
  r = c.client(
      {"submit", spec, "--input", "@" + input, "--thread", "streamed", "--stream", "values"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == expected);
  const auto held_streaming = logged_held(c);
  r = c.client(
      {"submit", spec, "--input", "@" + input, "--thread", "debugged", "--stream", "debug"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == expected);
  BOOST_TEST(logged_held(c) == 0u);
  BOOST_TEST(held_streaming > 0u);  // the edges' channels
}

BOOST_AUTO_TEST_CASE(a_command_resuming_a_thread_updates_a_channel_the_workers_own_durably) {
  // Command(resume=..., update=...) changes `note` before the resumed step; only that step's
  // checkpoint saves its value, so the coordinator keeps it until then rather than leaving it
  // to its owner, and the thread's state shows it (no values stream: the coordinator reads no
  // state key itself).
  scratch s;
  const std::string spec = s.write("note.json", R"({"spec": "superstep.graph/1",
    "state": {"note": {}, "answer": {}},
    "nodes": {"ask": {"fn": "std.interrupt", "params": {"value": "why?", "to": "answer"}}},
    "edges": [["__start__", "ask"], ["ask", "__end__"]]})");
  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result paused =
      c.client({"submit", spec, "--input", R"({"note": "first"})", "--thread", "n"});
  BOOST_REQUIRE_MESSAGE(paused.status == 3, paused.err);
  cli_result resumed = c.client({"submit", "--thread", "n", "--resume", R"("because")", "--update",
                                 R"({"note": "from the command"})"});
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  const value expected = object{{"note", "from the command"}, {"answer", "because"}};
  BOOST_TEST(resumed.last().get("data") == expected);
  BOOST_TEST(logged_held(c) >= 2u, c.head().err_text());  // note and answer, at least
  cli_result state = c.client({"state", "--thread", "n"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values") == expected);
}

BOOST_AUTO_TEST_CASE(a_node_on_a_worker_reads_a_delta_key_from_its_replica_whole) {
  // A delta key's checkpoint holds its writes, not its value: the channel actors push
  // replicas what a run reads (channel::transfer), so `copy` gets the whole list.
  scratch s;
  const std::string spec = s.write("delta.json", R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "add", "delta": true, "default": []}, "copy": {}},
    "nodes": {"a": {"fn": "std.set", "params": {"update": {"log": ["x"]}}},
              "b": {"fn": "std.set", "params": {"update": {"log": ["y"]}}},
              "c": {"fn": "std.copy", "params": {"from": "log", "to": "copy"}}},
    "edges": [["__start__", "a"], ["a", "b"], ["b", "c"], ["c", "__end__"]]})");
  const value expected = test::embedded_run(s, {spec, "--input", R"({"log": ["w"]})"});
  BOOST_TEST(expected.get("copy") == value(list{"w", "x", "y"}));
  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result r = c.client({"submit", spec, "--input", R"({"log": ["w"]})", "--thread", "d"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == expected);
}

BOOST_AUTO_TEST_CASE(sends_reach_the_head_once_and_no_vote_carries_them) {
  // A fan-out of 20,000 Sends: the tasks topic is owned beside the coordinator, which plans
  // the PUSH tasks from it, and the Sends reach the head once, in the result of the task that
  // sent them, whose writes the writes saver saves and hands on to that group. So the channel
  // messages the head decodes (votes, writes to its group) stay small, while the pending
  // writes hold every Send.
  scratch s;
  const std::string spec = s.write("hits.json", R"({"spec": "superstep.graph/1",
    "state": {"hits": {"reducer": "add"}}, "output": ["hits"],
    "nodes": {"hit": {"fn": "std.set", "params": {"update": {"hits": 1}}}},
    "edges": [["hit", "__end__"]],
    "conditional_edges": [{"from": "__start__", "router": "std.send_each",
                           "params": {"items": 20000, "node": "hit", "as": "item"}}]})");
  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result r = c.client({"submit", spec, "--input", "{}", "--thread", "fan"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("hits").as_int() == 20000);
  const auto pending = logged_bytes(c, "pending writes in");
  const auto channel = logged_bytes(c, "channel messages in");
  BOOST_TEST(pending > 20000u * 40);
  BOOST_TEST(channel < pending / 20, channel << " bytes of channel messages in");
  // Under `exit` durability nothing is saved as tasks finish: the results come to the
  // coordinator, writes and all, and it hands the Sends on to the group itself.
  r = c.client({"submit", spec, "--input", "{}", "--thread", "fan-exit", "--durability", "exit"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("hits").as_int() == 20000);
  BOOST_REQUIRE(c.head().wait_for_err("run of thread fan-exit ended", 5s));
  const auto results = logged_bytes(c, "results in");
  BOOST_TEST(results > 20000u * 40);
  BOOST_TEST(logged_bytes(c, "channel messages in") < results / 20);
}

BOOST_AUTO_TEST_CASE(an_interrupted_step_shows_writes_saved_apart_and_resumes_as_embedded) {
  // Two tasks in one step: one writes, the other interrupts. The step stops there; the run's
  // output shows the finished task's write (its value comes back from the saver, since the
  // result carried none), and the resumed run ends as the embedded one does.
  scratch s;
  const std::string spec = s.write("pause.json", R"({"spec": "superstep.graph/1",
    "state": {"x": {}, "answer": {}},
    "nodes": {"write": {"fn": "std.set", "params": {"update": {"x": "written"}}},
              "ask": {"fn": "std.interrupt", "params": {"value": "why?", "to": "answer"}}},
    "edges": [["__start__", "write"], ["__start__", "ask"], ["write", "__end__"],
              ["ask", "__end__"]]})");
  const std::string data = s.path("embedded-pause");
  cli_result first =
      test::run_to_end({"run", spec, "--input", "{}", "--thread", "p", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(first.status == 3, first.err);  // stopped at an interrupt
  BOOST_TEST(first.last().get("type").as_string() == "interrupt");
  cli_result second = test::run_to_end(
      {"run", spec, "--thread", "p", "--resume", R"("because")", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(second.status == 0, second.err);
  BOOST_TEST(first.last().get("data").get("x").as_string() == "written");

  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result paused = c.client({"submit", spec, "--input", "{}", "--thread", "p"});
  BOOST_REQUIRE_MESSAGE(paused.status == 3, paused.err);
  BOOST_TEST(paused.last().get("data") == first.last().get("data"));
  BOOST_TEST(paused.last().get("next") == first.last().get("next"));
  BOOST_TEST(logged_bytes(c, "pending writes in") > 0u);
  cli_result resumed = c.client({"submit", "--thread", "p", "--resume", R"("because")"});
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data") == second.last().get("data"));
}

BOOST_AUTO_TEST_CASE(sends_finished_beside_an_interrupt_are_saved_under_their_ids_and_not_rerun) {
  // A step of three Sends' tasks (one batch of them, their results naming no task) and a task
  // that interrupts. The writes saver names each Send's saved writes from the batch it was
  // told of; the paused state shows them, and the resumed run takes them from there rather
  // than running the Sends again: each result once, as embedded.
  scratch s;
  const std::string spec = s.write("sends_pause.json", R"({"spec": "superstep.graph/1",
    "state": {"results": {"reducer": "append"}, "answer": {}},
    "nodes": {"work": {"fn": "std.map", "params": {"from": "item", "to": "results", "mul": 3,
                                                   "add": 1, "wrap": "list"}},
              "ask": {"fn": "std.interrupt", "params": {"value": "why?", "to": "answer"}}},
    "edges": [["__start__", "ask"], ["work", "__end__"], ["ask", "__end__"]],
    "conditional_edges": [{"from": "__start__", "router": "std.send_each",
                           "params": {"items": 3, "node": "work", "as": "item"}}]})");
  const std::string data = s.path("embedded-sends-pause");
  cli_result first =
      test::run_to_end({"run", spec, "--input", "{}", "--thread", "q", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(first.status == 3, first.err);
  cli_result second = test::run_to_end(
      {"run", spec, "--thread", "q", "--resume", R"("because")", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(second.status == 0, second.err);
  BOOST_TEST(second.last().get("data").get("results").to_json() == "[1,4,7]");

  cluster c(s, {"--spread-channels"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result paused = c.client({"submit", spec, "--input", "{}", "--thread", "q"});
  BOOST_REQUIRE_MESSAGE(paused.status == 3, paused.err);
  BOOST_TEST(paused.last().get("data") == first.last().get("data"));
  BOOST_TEST(logged_bytes(c, "pending writes in") > 0u);
  cli_result resumed = c.client({"submit", "--thread", "q", "--resume", R"("because")"});
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data") == second.last().get("data"));
}

BOOST_AUTO_TEST_CASE(a_worker_owning_channels_killed_mid_run_is_replaced_and_repeats_nothing) {
  scratch s;
  const std::string input = R"({"trace": []})";
  value expected = test::embedded_run(s, {spec("slow_steps"), "--input", input});
  cluster c(s, {"--spread-channels"});
  c.add_worker("stays");
  // Killed at different points of a step (while its tasks run, while the groups prepare, vote
  // or commit): wherever the kill lands, the head places the channels the worker owned again
  // on the other worker, from the last committed values, and the run goes on.
  // The last round under async durability: the group's values the coordinator held as
  // versions come back from a checkpoint the background writer may still be writing.
  int round = 0;
  for (auto delay : {5ms, 60ms, 150ms, 60ms}) {
    const std::string n = std::to_string(++round);
    const std::string durability = round == 4 ? "async" : "sync";
    BOOST_TEST_CONTEXT("killed " << delay.count() << " ms after a step, " << durability) {
      child& doomed = c.add_worker("doomed" + n);
      auto client = c.start_client({"submit", spec("slow_steps"), "--input", input, "--thread",
                                    "t" + n, "--stream", "updates", "--durability", durability});
      BOOST_REQUIRE_MESSAGE(client->wait_for_out("\"updates\"", 60s), client->err_text());
      std::this_thread::sleep_for(delay);
      doomed.kill();
      BOOST_REQUIRE_MESSAGE(client->wait(30s), "the run did not end");
      // The trace is the uninterrupted run's, no step missing and none applied twice, and each
      // task reported once.
      cli_result r = client->result();
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("data") == expected);
      std::vector<std::string> reported, traced;
      for (const value& line : r.lines())
        if (line.get("type") == value("updates"))
          for (const auto& [name, _] : line.get("data").as_object()) reported.push_back(name);
      for (const value& name : expected.get("trace").as_list()) traced.push_back(name.as_string());
      std::sort(reported.begin(), reported.end());
      std::sort(traced.begin(), traced.end());
      BOOST_TEST(reported == traced, r.out);
    }
  }
}

BOOST_AUTO_TEST_CASE(two_workers_owning_channels_killed_one_after_the_other_the_run_goes_on) {
  // Three workers, three groups: two die a little apart, the second maybe while the first's
  // group is being placed again (never on a worker that died). Results come through the
  // head's writes saver (no stream), so groups placed mid-step get the step's writes from it.
  scratch s;
  const std::string input = R"({"trace": []})";
  value expected = test::embedded_run(s, {spec("slow_steps"), "--input", input});
  cluster c(s, {"--spread-channels"});
  child& stays = c.add_worker("stays");
  child& first = c.add_worker("first");
  child& second = c.add_worker("second");
  auto client = c.start_client(
      {"submit", spec("slow_steps"), "--input", input, "--thread", "twice", "--stream", "values"});
  BOOST_REQUIRE_MESSAGE(client->wait_for_out("\"values\"", 60s), client->err_text());
  std::this_thread::sleep_for(30ms);
  first.kill();
  std::this_thread::sleep_for(120ms);
  second.kill();
  BOOST_REQUIRE_MESSAGE(client->wait(60s), "the run did not end");
  cli_result r = client->result();
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err + c.head().err_text());
  BOOST_TEST(r.last().get("data") == expected);
  BOOST_TEST(stays.err_text().find("placed again") != std::string::npos, stays.err_text());
}

BOOST_AUTO_TEST_CASE(a_head_killed_mid_run_resumes_with_the_same_result) {
  scratch s;
  const std::string input = R"({"trace": []})";
  value expected = test::embedded_run(s, {spec("slow_steps"), "--input", input});
  cluster c(s, {"--spread-channels"});
  child& w1 = c.add_worker("w1");
  child& w2 = c.add_worker("w2");
  auto client = c.start_client(
      {"submit", spec("slow_steps"), "--input", input, "--thread", "t", "--stream", "updates"});
  // The coordinator's process dies with steps staged on the workers: they drop them (their
  // coordinator is gone) and the restarted head resumes from the last checkpoint.
  BOOST_REQUIRE_MESSAGE(client->wait_for_out("\"updates\"", 60s), client->err_text());
  std::this_thread::sleep_for(60ms);
  c.head().kill();
  BOOST_REQUIRE(client->wait(20s));
  BOOST_TEST(client->result().status == 1);
  c.start_head({"--spread-channels"}, c.port());
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker w1 joined", 30s),
                        c.head().err_text() + w1.err_text());
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker w2 joined", 30s),
                        c.head().err_text() + w2.err_text());
  cli_result r = c.client({"submit", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data") == expected);
}

namespace {

// A spec of `n` nodes that all run in one step, each triggered by a channel of its own (an
// edge from START), each appending to one key.
std::string wide_spec(scratch& s, int n) {
  std::string nodes, edges;
  for (int i = 0; i < n; ++i) {
    const std::string name = "n" + std::to_string(i);
    nodes += (i ? "," : "") + std::string("\"") + name +
             R"(": {"fn": "std.set", "params": {"update": {"k": [)" + std::to_string(i) + "]}}}";
    edges += (i ? "," : "") + std::string(R"(["__start__", ")") + name + R"("], [")" + name +
             R"(", "__end__"])";
  }
  return s.write("wide.json",
                 R"({"spec": "superstep.graph/1", "state": {"k": {"reducer": "append"}},
    "nodes": {)" + nodes +
                     "}, \"edges\": [" + edges + "]}");
}

}  // namespace

// One step of 4,000 parallel nodes: the step's prepare names the 4,000 channels it consumes,
// once per step, not once per batch (which would be 16 million names). The head stays small in
// every placement of the channels.
BOOST_AUTO_TEST_CASE(a_wide_step_costs_the_head_o_tasks_in_every_placement) {
  for (const std::string placement : {"", "--spread-channels", "--coordinator-channels"}) {
    BOOST_TEST_CONTEXT(placement) {
      scratch s;
      cluster c(
          s, placement.empty() ? std::vector<std::string>{} : std::vector<std::string>{placement});
      c.add_worker("w1");
      c.add_worker("w2");
      const int n = 4000;
      cli_result r = c.client({"submit", wide_spec(s, n), "--input", "{}"});
      BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
      BOOST_TEST(r.last().get("data").get("k").as_list().size() == std::size_t(n));
      const std::uint64_t peak = test::peak_mib(c.head().pid());
      BOOST_TEST_MESSAGE(placement << ": head peak " << peak << " MiB");
      BOOST_TEST(peak < 250u, "head peak " << peak << " MiB");
    }
  }
}
