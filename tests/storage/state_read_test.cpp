// get_state and get_state_history of a step with many tasks and many saved writes (a fan-out
// that crashed mid-step): what they show of each task's writes is what a scan of all writes
// per task shows, and they read the thread once at a cost that follows the records, not
// tasks x writes.
#include <time.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

// Forwards to a saver and counts the reads the state API makes through it.
class counting_saver final : public checkpoint_saver {
 public:
  explicit counting_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  std::size_t get_tuples = 0, lists = 0, writes_read = 0;

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    return inner_->put(config, cp, metadata, new_versions);
  }
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    inner_->put_writes(config, writes, task_id, task_path);
  }
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override {
    inner_->put_writes_many(config, tasks);
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override {
    ++get_tuples;
    auto t = inner_->get_tuple(config);
    if (t) writes_read += t->pending_writes.size();
    return t;
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override {
    ++lists;
    auto out = inner_->list(config, options);
    for (const auto& t : out) writes_read += t.pending_writes.size();
    return out;
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& source, const std::string& target) override {
    inner_->copy_thread(source, target);
  }
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) override {
    inner_->prune(thread_ids, keep_last);
  }
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  std::shared_ptr<checkpoint_saver> inner_;
};

// fan -> `n` x Send("work", {i}) -> sum; stopped before the Sends' step (interrupt_before), so
// that the test saves the step's writes itself, as a process that crashed mid-step left them.
struct fan_out {
  std::shared_ptr<counting_saver> saver;
  std::shared_ptr<pregel> graph;
  value config = object{{"configurable", object{{"thread_id", "crashed"}}}};

  explicit fan_out(std::int64_t n) : saver(std::make_shared<counting_saver>(test::make_saver())) {
    state_graph b;
    b.add_key("n").add_key("results", "append").add_key("total");
    b.add_node("fan", [](const value&, node_context&) -> value { return value(); });
    b.add_node("work", [](const value& in, node_context&) -> value {
      return object{{"results", value::array({in.get("i")})}};
    });
    b.add_node("sum", [](const value&, node_context&) -> value { return object{{"total", 0}}; });
    b.add_edge("__start__", "fan");
    b.add_conditional_edges("fan", [](const value& st, node_context&) -> value {
      list sends;
      for (std::int64_t i = 0; i < st.get("n").as_int(); ++i)
        sends.push_back(make_send("work", object{{"i", i}}));
      return value(std::move(sends));
    });
    b.add_edge("work", "sum").add_edge("sum", "__end__");
    compile_options o;
    o.checkpointer = saver;
    o.interrupt_before = {"work"};
    graph = b.compile(o);
    graph->invoke(object{{"n", n}, {"results", list{}}}, config);
  }
};

// The tasks of `snapshot` with their error and interrupts as a scan of every saved write of
// the checkpoint for each task finds them (what get_state computed before it indexed them).
value tasks_by_scan(const state_snapshot& snapshot, const std::vector<pending_write>& writes) {
  list out;
  for (const auto& t : snapshot.tasks) {
    std::optional<std::string> error;
    list interrupts;
    for (const auto& w : writes) {
      if (w.task_id != t.id) continue;
      if (w.channel == ERROR) error = w.v.is_string() ? w.v.as_string() : w.v.to_json();
      if (w.channel == INTERRUPT) {
        if (w.v.is_list())
          for (const auto& i : w.v.as_list()) interrupts.push_back(i);
        else
          interrupts.push_back(w.v);
      }
    }
    object o{{"id", t.id},
             {"name", t.name},
             {"path", value(t.path)},  // where the task comes from: not in its writes
             {"error", error ? value(*error) : value()},
             {"interrupts", value(std::move(interrupts))}};
    if (!t.result.is_null()) o.set("result", t.result);  // checked by the conformance ports
    out.push_back(value(std::move(o)));
  }
  return value(std::move(out));
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The least CPU time of three get_state calls, each checked to show `tasks` tasks.
double get_state_cpu_seconds(const fan_out& f, std::size_t tasks) {
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    const double t0 = thread_cpu_seconds();
    const state_snapshot s = f.graph->get_state(f.config);
    best = std::min(best, thread_cpu_seconds() - t0);
    BOOST_TEST_REQUIRE(s.tasks.size() == tasks);
  }
  return best;
}

}  // namespace

BOOST_AUTO_TEST_CASE(state_and_history_show_each_tasks_errors_and_interrupts_as_a_scan_does) {
  fan_out f(300);
  const state_snapshot before = f.graph->get_state(f.config);
  BOOST_TEST_REQUIRE(before.tasks.size() == 300u);
  const checkpoint_config& at = before.config;
  auto id = [&](std::size_t i) { return before.tasks[i].id; };

  std::vector<task_writes> normal;
  // (RocksDB reads a task's writes from its own records or from one bundle, not both: the
  // tasks with a special write below have no write in the bundle.)
  for (std::size_t i = 0; i < 100; ++i)
    normal.push_back(task_writes{id(i), "", {{"results", value::array({std::int64_t(i)})}}});
  f.saver->put_writes_many(at, normal);
  const std::string e(ERROR), in(INTERRUPT);
  for (std::size_t i = 100; i < 110; ++i)
    f.saver->put_writes(at, {{e, "boom " + std::to_string(i)}}, id(i), "");
  f.saver->put_writes(at, {{e, object{{"code", 7}}}}, id(130), "");  // not a string
  f.saver->put_writes(at, {{e, "first"}}, id(131), "");
  f.saver->put_writes(at, {{e, "second"}}, id(131), "");  // the latest word
  for (std::size_t i = 140; i < 150; ++i)
    f.saver->put_writes(
        at,
        {{in, value::array({object{{"value", std::int64_t(i)}, {"id", "a" + std::to_string(i)}},
                            object{{"value", "two"}, {"id", "b" + std::to_string(i)}}})}},
        id(i), "");
  f.saver->put_writes(at, {{in, object{{"value", "one"}, {"id", "c"}}}}, id(150), "");
  f.saver->put_writes(at, {{"results", value::array({-1})}, {e, "both"}}, id(160), "");
  f.saver->put_writes(at, {{e, "not a task of this step"}}, "ghost", "");

  const state_snapshot now = f.graph->get_state(f.config);
  auto tuple = f.saver->get_tuple(checkpoint_config{"crashed", "", ""});
  BOOST_TEST_REQUIRE(tuple.has_value());
  BOOST_TEST(now.to_value().get("tasks").to_json() ==
             tasks_by_scan(now, tuple->pending_writes).to_json());
  // The writes above land where a scan finds them (so the comparison is not vacuous).
  BOOST_TEST(!now.tasks[0].error.has_value());
  BOOST_TEST(now.tasks[105].error.value_or("-") == std::string("boom 105"));
  BOOST_TEST(now.tasks[130].error.value_or("-") == std::string(R"({"code":7})"));
  BOOST_TEST(now.tasks[131].error.value_or("-") == std::string("second"));
  BOOST_TEST(now.tasks[145].interrupts.size() == 2u);
  BOOST_TEST(now.tasks[150].interrupts.size() == 1u);
  BOOST_TEST(now.tasks[160].error.value_or("-") == std::string("both"));
  // Each task still to run, once per task (LangGraph's next): all but the 100 with results
  // and task 160, whose results count although it also has an error.
  BOOST_TEST(now.next == std::vector<std::string>(199, "work"), boost::test_tools::per_element());
  BOOST_TEST(f.graph->state_at(*tuple, true).to_value().to_json() == now.to_value().to_json());

  auto history = f.graph->get_state_history(f.config);
  auto tuples = f.saver->list(checkpoint_config{"crashed", "", ""}, {});
  BOOST_TEST_REQUIRE(history.size() == tuples.size());
  BOOST_TEST_REQUIRE(history.size() == 3u);  // input, fan, and the Sends' step
  for (std::size_t i = 0; i < history.size(); ++i) {
    BOOST_TEST_CONTEXT("checkpoint " << i) {
      BOOST_TEST(f.graph->state_at(tuples[i]).to_value().to_json() ==
                 history[i].to_value().to_json());
      BOOST_TEST(history[i].to_value().get("tasks").to_json() ==
                 tasks_by_scan(history[i], tuples[i].pending_writes).to_json());
    }
  }
}

BOOST_AUTO_TEST_CASE(state_and_history_read_the_thread_once) {
  fan_out f(1000);
  const state_snapshot before = f.graph->get_state(f.config);
  std::vector<task_writes> writes;
  for (const auto& t : before.tasks) writes.push_back(task_writes{t.id, "", {{"results", 1}}});
  f.saver->put_writes_many(before.config, writes);

  f.saver->get_tuples = f.saver->lists = f.saver->writes_read = 0;
  BOOST_TEST(f.graph->get_state(f.config).tasks.size() == 1000u);
  BOOST_TEST(f.saver->get_tuples == 1u);
  BOOST_TEST(f.saver->lists == 0u);
  BOOST_TEST(f.saver->writes_read == 1000u);

  // Every checkpoint's writes: the Sends' step's 1000, fan's 1000 Sends and its own, the
  // input's.
  std::size_t stored = 0;
  for (const auto& s : f.graph->get_state_history(f.config))
    stored += f.saver->get_tuple(s.config)->pending_writes.size();
  BOOST_TEST(stored > 2000u);
  f.saver->get_tuples = f.saver->lists = f.saver->writes_read = 0;
  BOOST_TEST(f.graph->get_state_history(f.config).size() == 3u);
  BOOST_TEST(f.saver->get_tuples == 0u);
  BOOST_TEST(f.saver->lists == 1u);
  BOOST_TEST(f.saver->writes_read == stored);
}

// Deterministic counts cannot see the work get_state does with what it read, so this bounds
// it by CPU time against the same read without writes, in this thread: showing 20,000 tasks
// with one saved write each may cost what reading and decoding the writes costs (3-4 times
// the read without them on a 2-core VM), never tasks x writes (a scan of every write per task,
// 4x10^8 string comparisons, cost 90-300 times the read without writes there).
BOOST_AUTO_TEST_CASE(state_of_a_crashed_step_costs_what_its_records_cost_not_tasks_times_writes) {
  constexpr std::size_t n = 20'000;
  fan_out f(n);
  const double without_writes = get_state_cpu_seconds(f, n);
  const state_snapshot before = f.graph->get_state(f.config);
  std::vector<task_writes> writes;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    writes.push_back(
        task_writes{before.tasks[i].id, "", {{"results", value::array({std::int64_t(i)})}}});
    if (writes.size() == 1000 || i + 2 == n) {
      f.saver->put_writes_many(before.config, writes);
      writes.clear();
    }
  }
  f.saver->put_writes(before.config, {{std::string(ERROR), "last"}}, before.tasks[n - 1].id, "");
  const double with_writes = get_state_cpu_seconds(f, n);
  BOOST_TEST_MESSAGE("get_state of " << n << " tasks: " << without_writes << " s CPU, "
                                     << with_writes << " s with a write each");
  BOOST_TEST(with_writes <= 20 * without_writes + 0.05,
             "get_state with " << n << " saved writes took " << with_writes
                               << " s CPU, without them " << without_writes << " s");
  BOOST_TEST(f.graph->get_state(f.config).tasks.back().error.value_or("-") == std::string("last"));
}
