// LangGraph's async Pregel tests of a run's limits and of cancelling it
// (libs/langgraph/tests/test_pregel_async.py): max_concurrency, step_timeout, cancelling a run
// from outside, closing its stream, and a failed node cancelling its siblings.
//
// LangGraph cancels a node's coroutine at its next await. A C++ node cannot be preempted: the
// nodes here wait with `node_context::sleep_for`, which a cancellation ends (LangGraph's
// `await asyncio.sleep`). Where LangGraph orders events by sleeping, the nodes here wait for
// the event itself; the long sleeps LangGraph cancels are 10 s waits here, so a cancellation
// that does not come shows as a slow, failing case.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "conformance.hpp"
#include "fanout.hpp"
#include "superstep/actors/runtime.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/pregel/task_executor.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using namespace std::chrono_literals;
using fanout::J;

namespace {

// Runs with `threads` scheduler and pool threads: the cases need that many nodes at once.
compile_options with_threads(compile_options o, unsigned threads) {
  actors::runtime_options ro;
  ro.threads = threads;
  o.driver = make_actor_driver({.runtime = std::make_shared<actors::runtime>(ro)});
  o.executor = make_thread_pool_executor(threads);
  return o;
}

// A one-shot event another thread waits on.
class event {
 public:
  void set() {
    {
      std::lock_guard lock(m_);
      set_ = true;
    }
    cv_.notify_all();
  }
  bool wait(std::chrono::milliseconds limit = 5s) {
    std::unique_lock lock(m_);
    return cv_.wait_for(lock, limit, [&] { return set_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool set_ = false;
};

// LangGraph's Node of test_max_concurrency: counts the calls running at once. Where LangGraph
// sleeps a random time so that calls overlap, a call here waits until `target` calls have run
// at once (at most 2 s), then stays a millisecond: the calls a cap holds back find the place
// full, the calls no cap holds back pile up past it.
class concurrency_probe {
 public:
  void enter(std::size_t target) {
    std::unique_lock lock(m_);
    max_currently = std::max(max_currently, ++currently);
    cv_.notify_all();
    cv_.wait_for(lock, 2s, [&] { return max_currently >= target; });
    lock.unlock();
    std::this_thread::sleep_for(1ms);
    lock.lock();
    --currently;
  }
  void reset() {
    std::lock_guard lock(m_);
    max_currently = 0;
  }
  std::size_t currently = 0;
  std::size_t max_currently = 0;

 private:
  std::mutex m_;
  std::condition_variable cv_;
};

// ["0", "1", 0, 1, ..., 99, "3"]: what both max_concurrency graphs return.
value fan_out_result() {
  list out{value("0"), value("1")};
  for (int i = 0; i < 100; ++i) out.push_back(value(i));
  out.push_back(value("3"));
  return value(std::move(out));
}

value with_max_concurrency(value config, int n) {
  object o = config.is_object() ? config.as_object() : object{};
  o.set("max_concurrency", n);
  return value(std::move(o));
}

// A saver whose checkpoint puts log their start and end (LangGraph's LongPutCheckpointer).
class logged_put_saver final : public checkpoint_saver {
 public:
  logged_put_saver(std::shared_ptr<checkpoint_saver> inner, std::function<void(std::string)> log)
      : inner_(std::move(inner)), log_(std::move(log)) {}

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    log_("checkpoint.aput.start");
    auto out = inner_->put(config, cp, metadata, new_versions);
    log_("checkpoint.aput.end");
    return out;
  }
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override {
    log_("checkpoint.aput.start");
    auto out = inner_->put_changes(config, cp, metadata, changes);
    log_("checkpoint.aput.end");
    return out;
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
    return inner_->get_tuple(config);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override {
    return inner_->list(config, options);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& source, const std::string& target) override {
    inner_->copy_thread(source, target);
  }
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) override {
    inner_->prune(thread_ids, keep_last);
  }
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override {
    inner_->delete_checkpoints(thread_id, which);
  }
  void delete_writes(const checkpoint_config& config) override { inner_->delete_writes(config); }
  channel_version get_next_version(channel_version current) override {
    return inner_->get_next_version(current);
  }
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  std::shared_ptr<checkpoint_saver> inner_;
  std::function<void(std::string)> log_;
};

// The logs of test_checkpoint_put_after_cancellation, written from several threads.
struct logs {
  std::mutex m;
  std::vector<std::string> lines;
  void add(std::string s) {
    std::lock_guard lock(m);
    lines.push_back(std::move(s));
  }
  std::vector<std::string> sorted() {
    std::lock_guard lock(m);
    auto out = lines;
    std::sort(out.begin(), out.end());
    return out;
  }
};

// LangGraph's awhile of the cancellation tests: waits (far longer than the case runs) until
// the run cancels it, noting that it was.
node_function awhile(std::shared_ptr<event> started, std::shared_ptr<std::atomic<bool>> cancelled,
                     std::shared_ptr<logs> log = nullptr) {
  return [=](const value&, node_context& ctx) -> value {
    if (log) log->add("awhile.start");
    started->set();
    try {
      ctx.sleep_for(10s);
    } catch (const error& e) {
      if (e.code() == error_code::cancelled) cancelled->store(true);
      if (log) log->add("awhile.end");
      throw;
    }
    if (log) log->add("awhile.end");
    return value();
  };
}

// The graph of the put-after-cancellation tests: agent (awhile) alone, with a saver that logs
// its puts, exit durability.
struct put_after_cancellation {
  std::shared_ptr<logs> log = std::make_shared<logs>();
  std::shared_ptr<event> started = std::make_shared<event>();
  std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<pregel> graph;
  std::shared_ptr<run_control> control = std::make_shared<run_control>();
  std::vector<std::string> before_cancel;  // the logs when the run is cancelled

  put_after_cancellation() {
    state_graph builder;
    builder.add_key("hello");
    builder.add_node("agent", awhile(started, cancelled, log));
    builder.set_entry_point("agent");
    builder.set_finish_point("agent");
    compile_options o = with_threads(opts(), 4);
    o.checkpointer =
        std::make_shared<logged_put_saver>(saver(), [l = log](std::string s) { l->add(s); });
    graph = builder.compile(o);
  }
  static value config() {
    return object{{"configurable", object{{"thread_id", "1"}}}, {"durability", "exit"}};
  }
  // Runs `run` while another thread cancels it once agent started (LangGraph's t.cancel()).
  template <class Run>
  void run_and_cancel(Run run) {
    std::thread canceller([&] {
      (void)started->wait();  // a case whose agent never starts fails on the logs
      before_cancel = log->sorted();
      control->request_cancel();
    });
    test::expect_error(run, error_code::cancelled, "run cancelled");
    canceller.join();
    BOOST_TEST(before_cancel == std::vector<std::string>{"awhile.start"},
               "Cancelled before checkpoint put started");
    BOOST_TEST(
        log->sorted() == (std::vector<std::string>{"awhile.end", "awhile.start",
                                                   "checkpoint.aput.end", "checkpoint.aput.start"}),
        "Checkpoint put is not cancelled");
    BOOST_TEST(cancelled->load());
  }
};

}  // namespace

// libs/langgraph/tests/test_pregel_async.py::test_max_concurrency. Without a cap LangGraph runs
// all 100 Sends at once; here as many run at once as the pool has threads (16): more than the
// cap of the next run.
BOOST_AUTO_TEST_CASE(test_max_concurrency) {
  auto node2 = std::make_shared<concurrency_probe>();
  auto target = std::make_shared<std::atomic<std::size_t>>(11);
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  builder.add_node("1", [](const value&, node_context&) { return value::array({"1"}); });
  builder.add_node("2", [node2, target](const value& state, node_context&) {
    node2->enter(target->load());
    return value::array({state});
  });
  builder.add_node("3", [](const value&, node_context&) { return value::array({"3"}); });
  builder.add_edge(std::string(START), "1");
  builder.add_conditional_edges("1", [](const value&, node_context&) {
    list sends;
    for (int i = 0; i < 100; ++i) sends.push_back(make_send("2", i));
    return value(std::move(sends));
  });
  builder.add_conditional_edges("2", [](const value&, node_context&) { return value("3"); });
  auto graph = builder.compile(with_threads(opts(), 16));

  BOOST_TEST(graph->invoke(J(R"(["0"])")) == fan_out_result());
  BOOST_TEST(node2->max_currently > 10u);
  BOOST_TEST(node2->currently == 0u);
  node2->reset();

  target->store(10);
  BOOST_TEST(graph->invoke(J(R"(["0"])"), object{{"max_concurrency", 10}}) == fan_out_result());
  BOOST_TEST(node2->max_currently == 10u);
  BOOST_TEST(node2->currently == 0u);

  compile_options o = with_threads(opts_with_saver(), 16);
  o.interrupt_before = {"2"};
  graph = builder.compile(o);
  const value thread1 = with_max_concurrency(thread("1"), 10);
  BOOST_TEST(graph->invoke(J(R"(["0"])"), thread1) == J(R"(["0","1"])"));
  BOOST_TEST(graph->get_state(thread1).values == J(R"(["0","1"])"));
  BOOST_TEST(graph->invoke(value(), thread1) == fan_out_result());
}

// libs/langgraph/tests/test_pregel_async.py::test_max_concurrency_control (the Sends given by a
// Command's goto; without a cap, as test_max_concurrency)
BOOST_AUTO_TEST_CASE(test_max_concurrency_control) {
  auto node2 = std::make_shared<concurrency_probe>();
  auto target = std::make_shared<std::atomic<std::size_t>>(11);
  state_graph builder;
  builder.add_key(std::string(ROOT), "add");
  node_options to2, to3;
  to2.destinations = {"2"};
  to3.destinations = {"3"};
  builder.add_node(
      "1",
      [](const value&, node_context&) {
        command c;
        c.update = value::array({"1"});
        for (int i = 0; i < 100; ++i) c.go_to.push_back(make_send("2", i));
        return make_command(c);
      },
      to2);
  builder.add_node(
      "2",
      [node2, target](const value& state, node_context&) {
        node2->enter(target->load());
        command c;
        c.update = value::array({state});
        c.go_to = {value("3")};
        return make_command(c);
      },
      to3);
  builder.add_node("3", [](const value&, node_context&) { return value::array({"3"}); });
  builder.add_edge(std::string(START), "1");
  auto graph = builder.compile(with_threads(opts(), 16));

  if (!rocksdb_backend())
    BOOST_TEST(graph->draw_mermaid() == R"(---
config:
  flowchart:
    curve: linear
---
graph TD;
	__start__([<p>__start__</p>]):::first
	1(1)
	2(2)
	3(3)
	__end__([<p>__end__</p>]):::last
	1 -.-> 2;
	2 -.-> 3;
	__start__ --> 1;
	3 --> __end__;
	classDef default fill:#f2f0ff,line-height:1.2
	classDef first fill-opacity:0
	classDef last fill:#bfb6fc
)");

  BOOST_TEST(graph->invoke(J(R"(["0"])")) == fan_out_result());
  BOOST_TEST(node2->max_currently > 10u);
  BOOST_TEST(node2->currently == 0u);
  node2->reset();

  target->store(10);
  BOOST_TEST(graph->invoke(J(R"(["0"])"), object{{"max_concurrency", 10}}) == fan_out_result());
  BOOST_TEST(node2->max_currently == 10u);
  BOOST_TEST(node2->currently == 0u);

  compile_options o = with_threads(opts_with_saver(), 16);
  o.interrupt_before = {"2"};
  graph = builder.compile(o);
  const value thread1 = with_max_concurrency(thread("1"), 10);
  BOOST_TEST(graph->invoke(J(R"(["0"])"), thread1) == J(R"(["0","1"])"));
  BOOST_TEST(graph->invoke(value(), thread1) == fan_out_result());
}

// libs/langgraph/tests/test_pregel_async.py::test_step_timeout_on_stream_hang (both parameters,
// LangGraph's times divided by ten: a 100 ms step timeout, alittlewhile taking 60 ms, the
// consumer hanging 30 or 60 ms on its chunk; the step times out during the hang or after it)
BOOST_AUTO_TEST_CASE(test_step_timeout_on_stream_hang) {
  for (auto stream_hang : {30ms, 60ms}) {
    BOOST_TEST_CONTEXT("stream_hang " << stream_hang.count() << " ms") {
      auto inner_task_cancelled = std::make_shared<std::atomic<bool>>(false);
      state_graph builder;
      builder.add_key("hello");
      builder.add_node("awhile", awhile(std::make_shared<event>(), inner_task_cancelled));
      builder.add_node("alittlewhile", [](const value&, node_context& ctx) {
        ctx.sleep_for(60ms);
        return value(object{{"hello", "1"}});
      });
      builder.add_conditional_edges(std::string(START), [](const value&, node_context&) {
        return value::array({"awhile", "alittlewhile"});
      });
      compile_options o = with_threads(opts(), 4);
      o.step_timeout_ms = 100;
      auto graph = builder.compile(o);

      std::vector<value> chunks;
      test::expect_error(
          [&] {
            graph->stream(object{{"hello", "world"}}, value(),
                          stream_options{{stream_mode::updates}}, [&](const stream_event& e) {
                            chunks.push_back(e.data);
                            std::this_thread::sleep_for(stream_hang);  // the consumer hangs
                          });
          },
          error_code::step_timeout, "Timed out");
      BOOST_TEST(chunks.size() == 1u);
      for (const auto& c : chunks) BOOST_TEST(c == J(R"({"alittlewhile":{"hello":"1"}})"));
      BOOST_TEST(inner_task_cancelled->load());
    }
  }
}

// libs/langgraph/tests/test_pregel_async.py::test_node_cancellation_on_external_cancel (the
// caller's asyncio.wait_for timeout is a run_control's request_cancel once agent runs; the
// caller sees error(cancelled) for asyncio's TimeoutError)
BOOST_AUTO_TEST_CASE(test_node_cancellation_on_external_cancel) {
  auto started = std::make_shared<event>();
  auto inner_task_cancelled = std::make_shared<std::atomic<bool>>(false);
  state_graph builder;
  builder.add_key("hello");
  builder.add_node("agent", awhile(started, inner_task_cancelled));
  builder.set_entry_point("agent");
  builder.set_finish_point("agent");
  auto graph = builder.compile(with_threads(opts(), 4));

  stream_options so;
  so.control = std::make_shared<run_control>();
  std::thread caller_timeout([&] {
    (void)started->wait();  // a case whose agent never starts fails on inner_task_cancelled
    so.control->request_cancel("the caller's timeout passed");
  });
  test::expect_error(
      [&] {
        graph->stream(object{{"hello", "world"}}, value(), so, nullptr);
      },
      error_code::cancelled, "run cancelled: the caller's timeout passed");
  caller_timeout.join();
  BOOST_TEST(inner_task_cancelled->load());
}

// libs/langgraph/tests/test_pregel_async.py::test_node_cancellation_on_other_node_exception (bad
// fails once agent runs, where LangGraph's event loop starts agent first)
BOOST_AUTO_TEST_CASE(test_node_cancellation_on_other_node_exception) {
  auto started = std::make_shared<event>();
  auto inner_task_cancelled = std::make_shared<std::atomic<bool>>(false);
  state_graph builder;
  builder.add_key("hello");
  builder.add_node("agent", awhile(started, inner_task_cancelled));
  builder.add_node("bad", [started](const value&, node_context&) -> value {
    if (!started->wait()) throw std::runtime_error("agent never started");
    throw std::runtime_error("I am bad");
  });
  builder.add_conditional_edges(std::string(START), [](const value&, node_context&) {
    return value::array({"agent", "bad"});
  });
  auto graph = builder.compile(with_threads(opts(), 4));
  // The error is bad's, not agent's cancellation.
  test::expect_error(
      [&] {
        graph->invoke(object{{"hello", "world"}});
      },
      error_code::node_error, "I am bad");
  BOOST_TEST(inner_task_cancelled->load());
}

// libs/langgraph/tests/test_pregel_async.py::test_checkpoint_put_after_cancellation (the run's
// caller cancels it through run_control; the exit durability's put still runs, and the
// cancelled call returns after it)
BOOST_AUTO_TEST_CASE(test_checkpoint_put_after_cancellation) {
  put_after_cancellation c;
  stream_options so;
  so.control = c.control;
  c.run_and_cancel([&] {
    c.graph->stream(object{{"hello", "world"}}, put_after_cancellation::config(), so, {});
  });
}

// libs/langgraph/tests/test_pregel_async.py::test_checkpoint_put_after_cancellation_stream_anext
// (a streaming run cancelled while its consumer waits for the next chunk; none comes)
BOOST_AUTO_TEST_CASE(test_checkpoint_put_after_cancellation_stream_anext) {
  put_after_cancellation c;
  stream_options so{{stream_mode::updates}};
  so.control = c.control;
  std::vector<value> chunks;
  c.run_and_cancel([&] {
    c.graph->stream(object{{"hello", "world"}}, put_after_cancellation::config(), so,
                    [&](const stream_event& e) { chunks.push_back(e.data); });
  });
  BOOST_TEST(chunks.empty());
}

// libs/langgraph/tests/test_pregel_async.py::test_cancel_graph_astream (leaving the stream after
// its first chunk is the sink throwing stream_stop; alittlewhile finishes once aparallelwhile
// runs, where LangGraph sleeps)
BOOST_AUTO_TEST_CASE(test_cancel_graph_astream) {
  struct awhile_maker {
    std::shared_ptr<event> started = std::make_shared<event>();
    std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> ran = std::make_shared<std::atomic<bool>>(false);
    node_function fn() {
      return [ran = ran, inner = awhile(started, cancelled)](const value& in, node_context& ctx) {
        ran->store(true);
        return inner(in, ctx);
      };
    }
  };
  awhile_maker a_while, a_parallel_while;
  state_graph builder;
  builder.add_key("value", "add");
  builder.add_node("awhile", a_while.fn());
  builder.add_node("aparallelwhile", a_parallel_while.fn());
  builder.add_node("alittlewhile",
                   [started = a_parallel_while.started](const value&, node_context&) {
                     if (!started->wait()) throw std::runtime_error("aparallelwhile never started");
                     return value(object{{"value", 2}});
                   });
  builder.add_edge(std::string(START), "alittlewhile");
  builder.add_edge(std::string(START), "aparallelwhile");
  builder.add_edge("alittlewhile", "awhile");
  auto graph = builder.compile(with_threads(opts_with_saver(), 4));

  bool got_event = false;
  const value thread1 = thread("1");
  test::expect_error(
      [&] {
        graph->stream(object{{"value", 1}}, thread1, stream_options{{stream_mode::updates}},
                      [&](const stream_event& e) {
                        BOOST_TEST(e.data == J(R"({"alittlewhile":{"value":2}})"));
                        got_event = true;
                        throw stream_stop{};
                      });
      },
      error_code::cancelled, "its stream was closed by its sink");
  BOOST_TEST(got_event);

  // node aparallelwhile started, and was cancelled; awhile never started
  BOOST_TEST(a_parallel_while.ran->load());
  BOOST_TEST(a_parallel_while.cancelled->load());
  BOOST_TEST(!a_while.ran->load());

  // no checkpoint with alittlewhile's output, but its pending write applied
  const state_snapshot state = graph->get_state(thread1);
  BOOST_TEST(state.values == J(R"({"value":3})"));
  BOOST_TEST(state.next == std::vector<std::string>{"aparallelwhile"});
  BOOST_TEST(state.metadata == J(R"({"parents":{},"source":"loop","step":0})"),
             state.metadata.to_json());
}
