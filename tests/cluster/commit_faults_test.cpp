// Failures at exact phases of the two-phase step commit (issue 14 item 6), with real
// processes: a worker owning channels (a participant) or the head (the coordinator) dies the
// first time it reaches a fault point (SUPERSTEP_FAULT, docs/channel_actors.md) at one step of
// a run. A lost participant's channels are placed again on another worker and the run ends as
// an uninterrupted one does. Otherwise the thread keeps its last committed checkpoint, the
// failed run's stream never showed a value the thread does not hold, and resuming it ends as
// an uninterrupted run does: no step lost, none applied twice.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <thread>

#include "cluster/cluster_support.hpp"

using namespace superstep;
using namespace std::chrono_literals;
using superstep::test::child;
using superstep::test::cli_result;
using superstep::test::scratch;

namespace {

using cluster = test::test_cluster;

const std::string input = R"({"trace": []})";

// The step the fault is armed at: the commit that writes the checkpoint of step 3, mid-run
// (slow_steps' last is step 14).
constexpr std::int64_t fault_step = 3;
// Each of slow_steps' first checkpoints holds two more trace entries than the one before.
constexpr std::size_t trace_at(std::int64_t step) { return 2 * std::size_t(step); }

// The first `n` entries of the uninterrupted run's trace (all of it when shorter).
value first_entries(const list& all, std::size_t n) {
  return value(list(all.begin(), all.begin() + std::ptrdiff_t(std::min(n, all.size()))));
}

// The names in entries [from, to) of a trace, sorted.
std::vector<std::string> names_in(const list& trace, std::size_t from, std::size_t to) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < std::min(to, trace.size()); ++i)
    out.push_back(trace[i].as_string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> sorted_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

test::environment armed(const std::string& point) {
  return {"SUPERSTEP_FAULT=" + point + "@" + std::to_string(fault_step)};
}

// The trace of every `values` event in a run's output.
std::vector<list> streamed_traces(const cli_result& run) {
  std::vector<list> out;
  for (const value& line : run.lines())
    if (line.get("type") == value("values")) out.push_back(line.get("data").get("trace").as_list());
  return out;
}

// The thread's last checkpoint is that of step `committed` of the uninterrupted run, whose
// trace is `all`; get_state is at that checkpoint too.
void check_checkpoint(cluster& c, const list& all, std::int64_t committed) {
  // History shows checkpoints as saved, without pending writes.
  cli_result history = c.client({"history", "--thread", "t", "--limit", "1"});
  BOOST_REQUIRE_MESSAGE(history.status == 0, history.err);
  const value last = history.last();
  BOOST_TEST(last.get("metadata").get("step").as_int() == committed);
  BOOST_TEST(last.get("values").get("trace") == first_entries(all, trace_at(committed)));
  // As LangGraph's, get_state's values add the pending writes of the next step's tasks that
  // finished (durable before any commit): each applied once.
  cli_result state = c.client({"state", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  const value snapshot = state.last();
  BOOST_TEST(snapshot.get("config") == last.get("config"));
  const list& now = snapshot.get("values").get("trace").as_list();
  BOOST_TEST(now.size() <= trace_at(committed + 1));
  BOOST_TEST(first_entries(all, now.size()) == value(now));
}

// The failed run's `values` stream never went past step `committed`; when `exact`, its last
// event is that step's (nothing committed went unstreamed).
void check_stream(const cli_result& failed, const list& all, std::int64_t committed, bool exact) {
  std::vector<list> traces = streamed_traces(failed);
  BOOST_REQUIRE(!traces.empty());
  for (const list& t : traces) {
    BOOST_TEST(t.size() <= trace_at(committed));
    BOOST_TEST(first_entries(all, t.size()) == value(t));
  }
  if (exact) BOOST_TEST(value(traces.back()) == first_entries(all, trace_at(committed)));
}

// The nodes a run's `updates` stream reported, sorted; with `restored`, those it reported as
// restored from saved writes.
std::vector<std::string> reported_names(const cli_result& run,
                                        std::vector<std::string>* restored = nullptr) {
  std::vector<std::string> reported;
  for (const value& line : run.lines()) {
    if (line.get("type") != value("updates")) continue;
    const value& update = line.get("data");
    for (const auto& [name, _] : update.as_object()) {
      if (name == "__metadata__") continue;
      reported.push_back(name);
      if (restored && update.get("__metadata__").get("cached") == value(true))
        restored->push_back(name);
    }
  }
  return sorted_names(std::move(reported));
}

// Resuming the thread (last checkpoint: step `committed`) ends as the uninterrupted run did,
// and each task that run ran after that checkpoint (the trace names them) reports once: none
// lost, none run twice. With `restores`, the tasks of the next step whose writes were saved
// before its commit failed are restored, not run again: all of them, or with `some` those
// whose results reached the coordinator (a worker dying may take results with it).
void check_resume(cluster& c, const value& expected, std::int64_t committed, bool restores,
                  std::vector<std::string> options = {}, bool some = false) {
  const list& all = expected.get("trace").as_list();
  std::vector<std::string> args{"submit", "--thread", "t", "--stream", "updates"};
  args.insert(args.end(), options.begin(), options.end());
  cli_result resumed = c.client(args);
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data") == expected);
  std::vector<std::string> restored;
  const auto reported = reported_names(resumed, &restored);
  BOOST_TEST(reported == names_in(all, trace_at(committed), all.size()));
  const auto step_tasks = names_in(all, trace_at(committed), trace_at(committed + 1));
  if (restores && !some) BOOST_TEST(sorted_names(restored) == step_tasks);
  if (restores && some)
    for (const auto& name : restored)
      BOOST_TEST(std::count(step_tasks.begin(), step_tasks.end(), name) == 1, name);
}

// `dying`, armed at `point`, reached it at `step` and died there (SIGKILL).
void died_at(child& dying, const std::string& point, std::int64_t step) {
  BOOST_REQUIRE_MESSAGE(dying.wait(30s), "the armed process did not die: " + dying.err_text());
  BOOST_TEST(dying.result().status == -1);
  BOOST_TEST(dying.err_text().find("fault point " + point + " at step " + std::to_string(step)) !=
                 std::string::npos,
             dying.err_text());
}

// Starts the run (with `options`; streaming `values` and, with `updates`, `updates`) and
// waits until `dying`, armed at `point`, died there and the run ended; what the run printed.
cli_result run_through_fault(cluster& c, child& dying, const std::string& point,
                             std::vector<std::string> options = {}, bool updates = true) {
  std::vector<std::string> args{
      "submit", test::example_spec("slow_steps"), "--input", input, "--thread", "t", "--stream",
      "values"};
  if (updates) args.push_back("updates");
  args.insert(args.end(), options.begin(), options.end());
  auto run = c.start_client(args);
  died_at(dying, point, fault_step);
  BOOST_REQUIRE_MESSAGE(run->wait(30s), "the run did not end");
  return run->result();
}

cli_result run_until_fault(cluster& c, child& dying, const std::string& point,
                           std::vector<std::string> options = {}, bool updates = true) {
  cli_result failed = run_through_fault(c, dying, point, std::move(options), updates);
  BOOST_TEST(failed.status == 1);
  return failed;
}

// Whether `a` or `b` writes `text` to its stderr within `timeout` (both watched at once).
bool either_says(child& a, child& b, const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    if (a.wait_for_err(text, 50ms) || b.wait_for_err(text, 50ms)) return true;
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

value uninterrupted_run(scratch& s) {
  return test::embedded_run(s, {test::example_spec("slow_steps"), "--input", input});
}

// A run of slow_steps on the cluster (streaming `values`) ends with `expected`.
void ends_as_uninterrupted(cluster& c, const value& expected) {
  cli_result run = c.client({"submit", test::example_spec("slow_steps"), "--input", input,
                             "--thread", "t", "--stream", "values"});
  BOOST_REQUIRE_MESSAGE(run.status == 0, run.err + c.head().err_text());
  BOOST_TEST(run.last().get("data") == expected);
}

// A worker owning one of the run's two channel groups dies at `point`: the head places that
// group's channels again on the other worker, from the last committed values, and the run
// ends as the uninterrupted one did. Every step is checkpointed once, each task reported once
// (a task whose result died with the worker runs again, elsewhere), and the `values` stream
// only ever showed committed states, each once.
// Without `updates` (no stream needs the writes' values), results carry none: the values a
// group placed again needs come back from the saver's pending writes.
void participant_dies_at(const std::string& point, bool updates = true,
                         std::vector<std::string> options = {}) {
  scratch s;
  const value expected = uninterrupted_run(s);
  const list& all = expected.get("trace").as_list();
  cluster c(s, {"--spread-channels"});
  child& stays = c.add_worker("stays");
  child& doomed = c.add_worker("doomed", {}, true, armed(point));
  cli_result run = run_through_fault(c, doomed, point, std::move(options), updates);
  BOOST_REQUIRE_MESSAGE(run.status == 0, run.err);
  BOOST_TEST(run.last().get("data") == expected);
  if (updates) {
    BOOST_TEST(reported_names(run) == names_in(all, 0, all.size()));
  } else {
    // The results came through the head's writes saver.
    BOOST_REQUIRE(c.head().wait_for_err(" ended: ", 5s));
    const std::string log = c.head().err_text();
    const auto at = log.find("pending writes in (", log.rfind(" ended: "));
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, log);
    BOOST_TEST(std::stoull(log.substr(at + 19)) > 0u, log);
  }
  std::vector<list> traces = streamed_traces(run);
  for (std::size_t i = 0; i < traces.size(); ++i) {
    BOOST_TEST(first_entries(all, traces[i].size()) == value(traces[i]));
    if (i > 0) BOOST_TEST(traces[i].size() > traces[i - 1].size());
  }
  BOOST_REQUIRE(!traces.empty());
  BOOST_TEST(value(traces.back()) == expected.get("trace"));
  cli_result history = c.client({"history", "--thread", "t", "--limit", "100"});
  BOOST_REQUIRE_MESSAGE(history.status == 0, history.err);
  std::vector<std::int64_t> steps;
  for (const value& cp : history.lines()) steps.push_back(cp.get("metadata").get("step").as_int());
  std::sort(steps.begin(), steps.end());
  BOOST_REQUIRE(!steps.empty());
  BOOST_TEST(steps.front() == -1);
  for (std::size_t i = 1; i < steps.size(); ++i) BOOST_TEST(steps[i] == steps[i - 1] + 1);
  BOOST_TEST(stays.err_text().find("placed again") != std::string::npos, stays.err_text());
}

// A cluster whose head, armed at `point`, dies with the run's channels on two workers;
// restarted unarmed, the head has them join again.
struct head_dies {
  scratch s;
  cluster c;
  child& w1;
  child& w2;

  explicit head_dies(const std::string& point)
      : c(s, {"--spread-channels"}, 0, armed(point)),
        w1(c.add_worker("w1")),
        w2(c.add_worker("w2")) {}

  void restart_head() {
    c.start_head({"--spread-channels"}, c.port());
    BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker w1 joined", 30s),
                          c.head().err_text() + w1.err_text());
    BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("worker w2 joined", 30s),
                          c.head().err_text() + w2.err_text());
  }
};

// The head dies at `point`; restarted, it resumes the thread on the same workers.
// Without `updates`, the results came through the head's writes saver, which saved their
// writes before the coordinator had them: the resumed run restores the step's tasks as well.
void coordinator_dies_at(const std::string& point, std::int64_t committed, bool updates = true) {
  head_dies h(point);
  const value expected = uninterrupted_run(h.s);
  const list& all = expected.get("trace").as_list();
  cli_result failed = run_until_fault(h.c, h.c.head(), point, {}, updates);
  h.restart_head();
  check_checkpoint(h.c, all, committed);
  // After the commit point the head may die before the step's values event left it.
  check_stream(failed, all, committed, committed < fault_step);
  check_resume(h.c, expected, committed, committed < fault_step);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_participant_killed_before_it_votes_is_placed_again_and_the_run_goes_on) {
  // Its step's writes to it are lost with it: the group placed instead gets them all from the
  // coordinator with the step's prepare.
  participant_dies_at("channel.before_vote");
}

BOOST_AUTO_TEST_CASE(a_participant_killed_before_it_votes_gets_the_writes_from_the_saver) {
  participant_dies_at("channel.before_vote", false);
}

BOOST_AUTO_TEST_CASE(under_async_durability_a_lost_participant_gets_the_writes_from_the_saver) {
  // The step's checkpoint may still be queued when the writes are read back: it is written
  // first.
  participant_dies_at("channel.before_vote", false, {"--durability", "async"});
}

BOOST_AUTO_TEST_CASE(a_participant_killed_after_it_voted_before_it_commits_keeps_the_step) {
  // The coordinator had every vote and wrote the checkpoint: the step committed, though the
  // dead group never applied it; the group placed instead holds it.
  participant_dies_at("channel.after_vote");
}

BOOST_AUTO_TEST_CASE(a_participant_killed_after_it_committed_keeps_the_step) {
  participant_dies_at("channel.after_commit");
}

BOOST_AUTO_TEST_CASE(a_participant_lost_with_no_other_worker_fails_the_run_and_it_resumes) {
  // With nowhere to place its channels the run fails; the thread keeps the step before and
  // resumes on a worker that joins later.
  scratch s;
  const value expected = uninterrupted_run(s);
  const list& all = expected.get("trace").as_list();
  cluster c(s, {"--spread-channels"});
  child& doomed = c.add_worker("doomed", {}, true, armed("channel.before_vote"));
  cli_result failed = run_until_fault(c, doomed, "channel.before_vote");
  BOOST_TEST(failed.err.find("no other worker can own its channels") != std::string::npos,
             failed.err);
  const std::int64_t committed = fault_step - 1;
  check_checkpoint(c, all, committed);
  check_stream(failed, all, committed, true);
  c.add_worker("later");
  // The dead worker may have taken results of its node actors with it: those tasks run again.
  check_resume(c, expected, committed, true, {}, true);
}

BOOST_AUTO_TEST_CASE(a_worker_lost_while_the_channels_are_first_placed_passes_its_group_on) {
  // The head asks each worker to own a group of the run's channels; one dies when asked. Its
  // group goes to the other worker, and the run ends as the uninterrupted one does.
  scratch s;
  const value expected = uninterrupted_run(s);
  cluster c(s, {"--spread-channels"});
  child& stays = c.add_worker("stays");
  child& doomed = c.add_worker("doomed", {}, true, {"SUPERSTEP_FAULT=channel.before_placement@-1"});
  ends_as_uninterrupted(c, expected);
  died_at(doomed, "channel.before_placement", -1);
  // The worker left owns the run's channels (its activity line comes every few seconds).
  BOOST_TEST(stays.wait_for_err("owned channel groups", 10s), stays.err_text());
}

BOOST_AUTO_TEST_CASE(a_worker_lost_after_its_placement_while_others_are_placed_is_replaced) {
  // One worker takes its group of the run's channels and dies a moment later, while another
  // still holds back its answer: the lost group is placed again before the first step, and the
  // run ends as the uninterrupted one does.
  scratch s;
  const value expected = uninterrupted_run(s);
  cluster c(s, {"--spread-channels"});
  child& stays = c.add_worker("stays");
  child& slow =
      c.add_worker("slow", {}, true, {"SUPERSTEP_FAULT=channel.before_placement@-1~1500"});
  child& doomed = c.add_worker("doomed", {}, true, {"SUPERSTEP_FAULT=channel.after_placement@-1"});
  ends_as_uninterrupted(c, expected);
  died_at(doomed, "channel.after_placement", -1);
  BOOST_TEST(slow.err_text().find("pausing 1500 ms") != std::string::npos, slow.err_text());
  // The doomed worker's group was placed again on one of the others before the first step.
  BOOST_TEST(either_says(stays, slow, "owned channel groups of 2", 10s),
             stays.err_text() + slow.err_text());
}

BOOST_AUTO_TEST_CASE(a_worker_lost_in_the_finish_round_of_a_step_is_replaced_from_the_checkpoint) {
  // A deferred node: the step before it runs is tentatively the last, and its commit has a
  // second round (finish) in which the deferred node's trigger becomes available. A worker
  // owning a group dies when that round reaches it: its group is placed again from the last
  // checkpoint, stages the step again from every write, finishes, and the run goes on.
  scratch s;
  const std::string spec = s.write("deferred.json", R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "add"}},
    "nodes": {"a": {"fn": "std.set", "params": {"update": {"log": ["a"]}}},
              "b": {"fn": "std.set", "params": {"update": {"log": ["b"]}}},
              "d": {"fn": "std.set", "params": {"update": {"log": ["d"]}}, "defer": true}},
    "edges": [["__start__", "a"], ["__start__", "b"], ["a", "d"], ["b", "d"],
              ["d", "__end__"]]})");
  const value expected = test::embedded_run(s, {spec, "--input", "{}"});
  BOOST_TEST(expected.get("log") == value(list{"a", "b", "d"}));
  cluster c(s, {"--spread-channels"});
  child& doomed = c.add_worker("doomed", {}, true, {"SUPERSTEP_FAULT=channel.before_finish@1"});
  c.add_worker("w1");
  c.add_worker("w2");
  cli_result run = c.client({"submit", spec, "--input", "{}", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(run.status == 0, run.err + c.head().err_text() + doomed.err_text());
  BOOST_TEST(run.last().get("data") == expected);
  died_at(doomed, "channel.before_finish", 1);
  cli_result state = c.client({"state", "--thread", "t"});
  BOOST_REQUIRE_MESSAGE(state.status == 0, state.err);
  BOOST_TEST(state.last().get("values") == expected);
}

BOOST_AUTO_TEST_CASE(a_coordinator_killed_between_the_votes_and_the_checkpoint_aborts_the_step) {
  coordinator_dies_at("coordinator.after_votes", fault_step - 1);
}

BOOST_AUTO_TEST_CASE(a_coordinator_killed_after_the_votes_keeps_the_writes_its_saver_saved) {
  coordinator_dies_at("coordinator.after_votes", fault_step - 1, false);
}

BOOST_AUTO_TEST_CASE(a_coordinator_killed_after_the_checkpoint_before_the_commits_keeps_it) {
  coordinator_dies_at("coordinator.after_checkpoint", fault_step);
}

BOOST_AUTO_TEST_CASE(under_async_durability_a_lost_checkpoint_still_resumes_the_same) {
  // Under async durability the commit point only queues the checkpoint: the head may die
  // before it is written, and the thread then resumes from the step before, although the
  // values stream may have shown the lost step (async's trade-off, as in LangGraph).
  head_dies h("coordinator.after_checkpoint");
  const value expected = uninterrupted_run(h.s);
  const list& all = expected.get("trace").as_list();
  cli_result failed =
      run_until_fault(h.c, h.c.head(), "coordinator.after_checkpoint", {"--durability", "async"});
  h.restart_head();
  cli_result history = h.c.client({"history", "--thread", "t", "--limit", "1"});
  BOOST_REQUIRE_MESSAGE(history.status == 0, history.err);
  const std::int64_t committed = history.last().get("metadata").get("step").as_int();
  BOOST_TEST((committed == fault_step - 1 || committed == fault_step));
  check_checkpoint(h.c, all, committed);
  check_stream(failed, all, fault_step, false);
  check_resume(h.c, expected, committed, false, {"--durability", "async"});
}

BOOST_AUTO_TEST_CASE(
    a_group_beside_the_coordinator_lost_with_a_result_fails_the_run_and_it_resumes) {
  // A run in one process: its one group is beside the coordinator, and each step's lone
  // batch sends its result with its writes to the group, which hands it on with its vote
  // (docs/channel_actors.md). The group stops when step 3's writes come: the result goes
  // with it. The run fails, naming the loss, instead of waiting for the result forever, and
  // the thread resumes from its last checkpoint to the uninterrupted run's end.
  scratch s;
  const std::string spec = test::example_spec("loop");
  const value expected = test::embedded_run(s, {spec, "--input", "{}"});
  const std::string data = s.path("data");
  child run({"run", spec, "--input", "{}", "--thread", "t", "--data", data}, s,
            {"SUPERSTEP_FAULT=channel.stop_on_writes@3"});
  BOOST_REQUIRE_MESSAGE(run.wait(20s), "the run waited for a result lost with its group");
  const cli_result failed = run.result();
  BOOST_TEST(failed.status != 0);
  BOOST_TEST(failed.err.find("lost a channel actor of the run (it stopped") != std::string::npos,
             failed.err);
  cli_result history = run_to_end({"history", "--thread", "t", "--limit", "1", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(history.status == 0, history.err);
  BOOST_TEST(history.last().get("metadata").get("step").as_int() == 2);
  const cli_result resumed = run_to_end({"run", "--thread", "t", "--data", data}, s);
  BOOST_REQUIRE_MESSAGE(resumed.status == 0, resumed.err);
  BOOST_TEST(resumed.last().get("data") == expected);
}

BOOST_AUTO_TEST_CASE(a_mistyped_fault_point_stops_the_process_at_start) {
  scratch s;
  child head({"head", "--listen", "127.0.0.1:0", "--data", s.path("head-data")}, s,
             {"SUPERSTEP_FAULT=channel.befor_vote@3"});
  BOOST_REQUIRE(head.wait(10s));
  BOOST_TEST(head.result().status == 2);
  BOOST_TEST(head.err_text().find("SUPERSTEP_FAULT: expected POINT@STEP") != std::string::npos,
             head.err_text());
}

BOOST_AUTO_TEST_CASE(a_lost_workers_results_waiting_at_the_writes_saver_are_taken_not_sent_again) {
  // The head's writes saver pauses at its first save of the fan-out step: both workers'
  // results wait behind it, at the head, and the coordinator sends no more batches meanwhile.
  // One worker is killed then. Before it sends that worker's batches again, the coordinator
  // asks the saver, which answers once it has answered every result it held: none of them
  // goes again, so no Send runs twice and the head sends each batch once.
  scratch s;
  const std::string spec = s.write("fanout.json", R"({"spec": "superstep.graph/1",
    "state": {"results": {"reducer": "append"}}, "output": ["results"],
    "nodes": {"work": {"fn": "std.map", "params": {"from": "item", "to": "results", "mul": 3,
                                                   "add": 1, "wrap": "list"}}},
    "edges": [["work", "__end__"]],
    "conditional_edges": [{"from": "__start__", "router": "std.send_each",
                           "params": {"items": 8, "node": "work", "as": "item"}}]})");
  cluster c(s, {"--spread-channels"}, 0, {"SUPERSTEP_FAULT=saver.before_save@1~5000"});
  c.add_worker("stays");
  child& doomed = c.add_worker("doomed");
  auto run = c.start_client({"submit", spec, "--input", "{}", "--thread", "f"});
  BOOST_REQUIRE_MESSAGE(c.head().wait_for_err("pausing 5000 ms", 20s), c.head().err_text());
  // The workers ran what they were sent (one Send per batch, four batches each) and answered;
  // the saver holds their results for 4 s more.
  std::this_thread::sleep_for(1s);
  doomed.kill();
  BOOST_REQUIRE_MESSAGE(run->wait(30s), "the run did not end");
  const cli_result r = run->result();
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err + c.head().err_text());
  BOOST_TEST(r.last().get("data").get("results").to_json() == "[1,4,7,10,13,16,19,22]");
  // The fan-out's eight, each once (the lost worker's four again would make 12). The input
  // task ran on the head: its router is the std library's.
  BOOST_REQUIRE(c.head().wait_for_err(" ended: ", 5s));
  const std::string log = c.head().err_text();
  const auto ended = log.rfind(" ended: ");
  BOOST_REQUIRE(ended != std::string::npos);
  const std::uint64_t batches = std::stoull(log.substr(ended + 8));
  BOOST_TEST(batches == 8u, log.substr(ended));
}
