// Reading a thread through the graph state API when a step holds many tasks: `get_state` after
// a crash in the middle of a fan-out of 10^5 Sends with 5x10^4 task writes saved, and the
// `get_state_history` of a finished fan-out of 10^5 Sends. Both read O(records) and must cost
// that: neither looks at every saved write for every task.
#include <algorithm>
#include <string>

#include "bench.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::bench {

namespace {

constexpr std::int64_t sends = 100'000;
constexpr std::int64_t saved_before_crash = 50'000;

// fanout_N's graph (fanout_builder), on the thread pool with `saver`.
std::shared_ptr<pregel> fan_out_graph(const std::shared_ptr<checkpoint_saver>& saver,
                                      bool stop_before_work) {
  state_graph b = fanout_builder();
  compile_options o;
  o.mode = execution::threads;
  o.checkpointer = saver;
  if (stop_before_work) o.interrupt_before = {"work"};
  return b.compile(o);
}

value thread_config(const std::string& thread) {
  return object{{"configurable", object{{"thread_id", thread}}}};
}

// The thread as a process that crashed in the middle of the Sends' step leaves it: the
// checkpoint before the step, and the writes of the first `saved_before_crash` tasks saved
// against it in batches, as the engine saves finished tasks.
measurement state_after_crash(const options& opts, const std::string& mode) {
  scratch_dir dir("state_after_crash");
  auto saver = open_saver(mode, dir);
  auto graph = fan_out_graph(saver, true);
  const value config = thread_config("crashed");
  graph->invoke(object{{"n", sends}, {"results", list{}}}, config);
  const state_snapshot before = graph->get_state(config);
  check(static_cast<std::int64_t>(before.tasks.size()) == sends,
        "state_after_crash: " + std::to_string(before.tasks.size()) + " tasks before the step");
  constexpr std::size_t batch = 1000;
  std::vector<task_writes> writes;
  for (std::int64_t i = 0; i < saved_before_crash; ++i) {
    const snapshot_task& t = before.tasks[static_cast<std::size_t>(i)];
    writes.push_back(task_writes{t.id, "", {{"results", value::array({i})}}});
    if (writes.size() == batch || i + 1 == saved_before_crash) {
      saver->put_writes_many(before.config, writes);
      writes.clear();
    }
  }
  return measure(mode, "read_state_after_crash_5x10^4_writes", "get_state", 1, opts.runs, [&] {
    const state_snapshot s = graph->get_state(config);
    check(static_cast<std::int64_t>(s.tasks.size()) == sends,
          "state_after_crash: " + std::to_string(s.tasks.size()) + " tasks");
    // As LangGraph's snapshot: each task still to run, a node once per Send.
    check(static_cast<std::int64_t>(s.next.size()) == sends - saved_before_crash &&
              std::all_of(s.next.begin(), s.next.end(), [](const auto& n) { return n == "work"; }),
          "state_after_crash: next is not the unfinished work tasks (" +
              std::to_string(s.next.size()) + " names)");
  });
}

// The history of a thread that ran a fan-out of `sends` Sends to its end: the checkpoint of
// the Sends' step has `sends` tasks and `sends` saved writes.
measurement history_of_fan_out(const options& opts, const std::string& mode) {
  scratch_dir dir("history_fan_out");
  auto saver = open_saver(mode, dir);
  auto graph = fan_out_graph(saver, false);
  const value config = thread_config("finished");
  value out = graph->invoke(object{{"n", sends}, {"results", list{}}}, config);
  check(out.get("total") == value(sends * (sends - 1) / 2),
        "history_of_fan_out: total " + out.get("total").to_json());
  return measure(mode, "read_history_fanout_10^5", "history", 1, opts.runs, [&] {
    const auto history = graph->get_state_history(config);
    check(history.size() == 5,
          "history_of_fan_out: " + std::to_string(history.size()) + " checkpoints, want 5");
    check(static_cast<std::int64_t>(history[2].tasks.size()) == sends,
          "history_of_fan_out: the Sends' checkpoint has " +
              std::to_string(history[2].tasks.size()) + " tasks");
  });
}

}  // namespace

std::vector<workload> state_read_workloads() {
  return {
      {"read_state_after_crash_5x10^4_writes", state_after_crash},
      {"read_history_fanout_10^5", history_of_fan_out},
  };
}

}  // namespace superstep::bench
