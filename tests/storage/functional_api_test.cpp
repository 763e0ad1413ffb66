// The functional API (superstep/func/functional.hpp) beyond LangGraph's own tests
// (those are in tests/conformance/functional_*_test.cpp): an entrypoint as a StateGraph node,
// snapshots and history of an entrypoint's thread, custom streams from tasks, parallel calls,
// retries, errors and bad arguments. Every case runs on both execution modes.

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/func/functional.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
namespace fn = superstep::functional;

namespace {

const execution modes[] = {execution::actors, execution::threads};

fn::entrypoint_options ep(std::string name, execution mode,
                          std::shared_ptr<checkpoint_saver> saver = nullptr) {
  fn::entrypoint_options o;
  o.name = std::move(name);
  o.runtime.mode = mode;
  o.runtime.checkpointer = std::move(saver);
  return o;
}

value thread(const std::string& id) { return object{{"configurable", object{{"thread_id", id}}}}; }

value resume(value v) {
  command c;
  c.resume = std::move(v);
  return make_command(c);
}

const char* mode_name(execution m) { return m == execution::actors ? "actors" : "threads"; }

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_api)

BOOST_AUTO_TEST_CASE(an_entrypoint_runs_as_a_state_graph_node_and_its_interrupt_pauses_the_parent) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      auto saver = std::make_shared<storage::memory_saver>();
      std::atomic<int> doubled{0};
      fn::task twice("twice", [&](const value& x, fn::call_context&) {
        ++doubled;
        return value(2 * x.as_int());
      });
      auto inner = fn::entrypoint(ep("inner", m), [&](const value& state, fn::call_context& ctx) {
        value d = twice(ctx, state.get("x")).result();
        value add = ctx.interrupt("how much to add?");
        return value(object{{"x", d.as_int() + add.as_int()}});
      });
      state_graph builder;
      builder.add_key("x");
      builder.add_node("inner", inner);
      builder.add_edge(std::string(START), "inner");
      compile_options o;
      o.mode = m;
      o.checkpointer = saver;
      auto parent = builder.compile(o);
      const value config = thread("1");
      value out = parent->invoke(object{{"x", 5}}, config);
      BOOST_REQUIRE(out.find(INTERRUPT));
      BOOST_TEST(out.get(INTERRUPT).as_list()[0].get("value") == value("how much to add?"));
      BOOST_TEST(parent->get_state(config).next == std::vector<std::string>{"inner"});
      BOOST_TEST(parent->invoke(resume(1), config) == value(object{{"x", 11}}));
      BOOST_TEST(doubled == 1);  // saved in the subgraph's namespace, not run again
    }
  }
}

BOOST_AUTO_TEST_CASE(get_state_update_state_and_history_of_an_entrypoint_thread) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      auto saver = std::make_shared<storage::memory_saver>();
      auto counter = fn::entrypoint(ep("counter", m, saver), [](const value& in,
                                                                fn::call_context& ctx) {
        if (in == value("ask")) return ctx.interrupt("more?");
        return value(ctx.previous().is_int() ? ctx.previous().as_int() + in.as_int() : in.as_int());
      });
      const value config = thread("t");
      BOOST_TEST(counter->invoke(1, config) == value(1));
      BOOST_TEST(counter->invoke(2, config) == value(3));
      auto state = counter->get_state(config);
      BOOST_TEST(state.values == value(3));  // the return value itself (stream_channels END)
      BOOST_TEST(state.next.empty());
      std::vector<std::string> sources;
      for (const auto& s : counter->get_state_history(config))
        sources.push_back(s.metadata.get("source").as_string());
      BOOST_TEST(sources == (std::vector<std::string>{"loop", "input", "loop", "input"}),
                 boost::test_tools::per_element());

      counter->update_state(config, 10);  // as the only node: both the output and `previous`
      BOOST_TEST(counter->get_state(config).values == value(10));
      BOOST_TEST(counter->invoke(5, config) == value(15));

      value out = counter->invoke("ask", config);
      BOOST_REQUIRE(out.find(INTERRUPT));
      // A thread whose first run stopped before returning has no value yet.
      const value fresh = thread("fresh");
      BOOST_REQUIRE(counter->invoke("ask", fresh).find(INTERRUPT));
      BOOST_TEST(counter->get_state(fresh).values.is_null());
      state = counter->get_state(config);
      BOOST_TEST(state.next == std::vector<std::string>{"counter"});
      BOOST_REQUIRE(state.tasks.size() == 1u);
      BOOST_TEST(state.tasks[0].interrupts.size() == 1u);
      BOOST_TEST(counter->invoke(resume(42), config) == value(42));
      BOOST_TEST(counter->get_state(config).values == value(42));
    }
  }
}

BOOST_AUTO_TEST_CASE(tasks_and_the_entrypoint_write_the_custom_stream) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      fn::task shout("shout", [](const value& x, fn::call_context& ctx) {
        ctx.emit_custom(object{{"from", "shout"}, {"x", x}});
        return value(x.as_string() + "!");
      });
      auto graph = fn::entrypoint(ep("graph", m), [&](const value& in, fn::call_context& ctx) {
        ctx.emit_custom(object{{"from", "graph"}});
        return shout(ctx, in).result();
      });
      std::vector<value> events;
      stream_options o;
      o.modes = {stream_mode::custom, stream_mode::updates};
      graph->stream("hi", value(), o, [&](const stream_event& e) {
        events.push_back(value::array({std::string(stream_mode_name(e.mode)), e.data}));
      });
      BOOST_TEST(events == (std::vector<value>{
                               value::array({"custom", object{{"from", "graph"}}}),
                               value::array({"custom", object{{"from", "shout"}, {"x", "hi"}}}),
                               value::array({"updates", object{{"shout", "hi!"}}}),
                               value::array({"updates", object{{"graph", "hi!"}}}),
                           }),
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(task_calls_run_in_parallel) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      // Each call waits until both have started: only calls running at once both see it.
      std::mutex mu;
      std::condition_variable cv;
      int started = 0;
      fn::task meet("meet", [&](const value&, fn::call_context&) {
        std::unique_lock lock(mu);
        ++started;
        cv.notify_all();
        return value(cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == 2; }));
      });
      auto graph = fn::entrypoint(ep("graph", m), [&](const value&, fn::call_context& ctx) {
        auto a = meet(ctx, 1);
        auto b = meet(ctx, 2);
        return value::array({a.result(), b.result()});
      });
      BOOST_TEST(graph->invoke(0, value()) == value::array({true, true}));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_task_error_not_caught_fails_the_run_and_retries_follow_the_policy) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      fn::task boom("boom", [](const value&, fn::call_context&) -> value {
        throw std::runtime_error("boom in task");
      });
      auto failing = fn::entrypoint(ep("failing", m), [&](const value&, fn::call_context& ctx) {
        return boom(ctx, value()).result();
      });
      test::expect_error([&] { failing->invoke(1, value()); }, error_code::node_error,
                         "boom in task");

      std::atomic<int> attempts{0};
      fn::task_options o;
      o.retry = retry_policy{};
      o.retry->initial_interval_ms = 1;
      o.retry->jitter = false;
      fn::task flaky(
          "flaky",
          [&](const value&, fn::call_context&) -> value {
            if (++attempts < 3) throw std::runtime_error("not yet");
            return value("ok");
          },
          o);
      auto retried = fn::entrypoint(ep("retried", m), [&](const value&, fn::call_context& ctx) {
        return flaky(ctx, value()).result();
      });
      BOOST_TEST(retried->invoke(1, value()) == value("ok"));
      BOOST_TEST(attempts == 3);

      // A call nobody waits on still fails the step, as LangGraph's runner.
      auto unawaited = fn::entrypoint(ep("unawaited", m), [&](const value&, fn::call_context& ctx) {
        boom(ctx, value());
        return value("done");
      });
      test::expect_error([&] { unawaited->invoke(1, value()); }, error_code::node_error,
                         "boom in task");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_retried_entrypoint_does_not_run_its_finished_calls_again) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      auto saver = std::make_shared<storage::memory_saver>();
      std::atomic<int> calls{0}, attempts{0};
      fn::task once("once", [&](const value& x, fn::call_context&) {
        ++calls;
        return x;
      });
      fn::entrypoint_options o = ep("graph", m, saver);
      retry_policy p;
      p.initial_interval_ms = 1;
      p.jitter = false;
      o.retry = {p};  // one policy, whether the slot holds one or several
      auto graph = fn::entrypoint(o, [&](const value& in, fn::call_context& ctx) {
        value v = once(ctx, in).result();
        if (++attempts < 2) throw std::runtime_error("flaky entrypoint");
        return v;
      });
      BOOST_TEST(graph->invoke(7, thread("retry")) == value(7));
      BOOST_TEST(attempts == 2);
      BOOST_TEST(calls == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_task_interrupt_is_answered_by_its_id) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      auto saver = std::make_shared<storage::memory_saver>();
      fn::task ask("ask", [](const value& q, fn::call_context& ctx) { return ctx.interrupt(q); });
      auto graph = fn::entrypoint(ep("graph", m, saver), [&](const value&, fn::call_context& ctx) {
        value first = ask(ctx, "first?").result();
        value second = ask(ctx, "second?").result();
        return value::array({first, second});
      });
      const value config = thread("ids");
      value out = graph->invoke(0, config);
      const std::string id1 = out.get(INTERRUPT).as_list()[0].get("id").as_string();
      out = graph->invoke(resume(object{{id1, "one"}}), config);
      BOOST_REQUIRE(out.find(INTERRUPT));
      BOOST_TEST(out.get(INTERRUPT).as_list()[0].get("value") == value("second?"));
      const std::string id2 = out.get(INTERRUPT).as_list()[0].get("id").as_string();
      BOOST_TEST(id1 != id2);  // each call interrupts under its own id
      BOOST_TEST(graph->invoke(resume(object{{id2, "two"}}), config) ==
                 value::array({"one", "two"}));
    }
  }
}

BOOST_AUTO_TEST_CASE(typed_tasks_convert_their_input_and_result) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT(mode_name(m)) {
      fn::typed_task<std::string, int> mapper(
          "mapper", [](const int& x, fn::call_context&) { return std::to_string(x) + "!"; });
      fn::typed_task<std::vector<std::string>, std::vector<int>> all(
          "all", [&](const std::vector<int>& xs, fn::call_context& ctx) {
            std::vector<fn::typed_future<std::string>> futures;
            for (int x : xs) futures.push_back(mapper(ctx, x));
            std::vector<std::string> out;
            for (const auto& f : futures) out.push_back(f.result());
            return out;
          });
      auto graph = fn::entrypoint(ep("graph", m), [&](const value& in, fn::call_context& ctx) {
        return to_value(all(ctx, from_value<std::vector<int>>(in)).result());
      });
      BOOST_TEST(graph->invoke(value::array({1, 2}), value()) == value::array({"1!", "2!"}));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_example_of_the_header_runs) {
  auto saver = std::make_shared<storage::memory_saver>();
  fn::task mapper("mapper", [](const value& x, fn::call_context&) {
    return value(std::to_string(x.as_int()) + "!");
  });
  fn::entrypoint_options options;
  options.name = "graph";
  options.runtime.checkpointer = saver;
  auto graph = fn::entrypoint(options, [&](const value& in, fn::call_context& ctx) {
    std::vector<fn::future> futures;
    for (const auto& x : in.as_list()) futures.push_back(mapper(ctx, x));
    list out;
    for (auto& f : futures) out.push_back(f.result());
    return value(std::move(out));
  });
  BOOST_TEST(graph->invoke(value::array({1, 2}), thread("example")) == value::array({"1!", "2!"}));
}

BOOST_AUTO_TEST_CASE(an_entrypoint_with_a_cache_policy_is_cached_by_input) {
  for (execution m : modes) {
    BOOST_TEST_CONTEXT("mode " << static_cast<int>(m)) {
      std::atomic<int> runs{0};
      auto o = ep("graph", m);
      o.runtime.cache = std::make_shared<memory_cache>();
      o.cache_policy = cache_policy{};
      auto graph = fn::entrypoint(o, [&](const value& in, fn::call_context&) {
        ++runs;
        return value(in.as_int() * 2);
      });
      auto updates = [&](const value& in) {
        std::vector<value> events;
        stream_options so;
        so.modes = {stream_mode::updates};
        graph->stream(in, value(), so, [&](const stream_event& e) { events.push_back(e.data); });
        return events;
      };
      BOOST_TEST(updates(1) == std::vector<value>{value(object{{"graph", 2}})},
                 boost::test_tools::per_element());
      BOOST_TEST(updates(1) == std::vector<value>{value(object{
                                   {"graph", 2}, {"__metadata__", object{{"cached", true}}}})},
                 boost::test_tools::per_element());
      BOOST_TEST(graph->invoke(2, value()) == value(4));
      BOOST_TEST(runs == 2);
      graph->clear_cache();
      BOOST_TEST(graph->invoke(1, value()) == value(2));
      BOOST_TEST(runs == 3);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_tasks_and_entrypoints_are_rejected_by_name) {
  auto noop = [](const value& v, fn::call_context&) { return v; };
  test::expect_error([&] { fn::task("", noop); }, error_code::invalid_argument, "needs a name");
  test::expect_error([&] { fn::task("__x", noop); }, error_code::invalid_argument,
                     "'__x' is reserved");
  test::expect_error([&] { fn::task("empty", nullptr); }, error_code::invalid_argument,
                     "task 'empty' has no function");
  test::expect_error([&] { fn::entrypoint(ep("__start__", execution::threads), noop); },
                     error_code::invalid_argument, "'__start__' is reserved");
  test::expect_error([&] { fn::entrypoint(ep("graph", execution::threads), nullptr); },
                     error_code::invalid_argument, "entrypoint 'graph' has no function");
  // Timeouts are checked as a node's: positive, and at least one of them.
  fn::task_options o;
  o.timeout = timeout_policy{.run_timeout_ms = 0};
  test::expect_error([&] { fn::task("slow", noop, o); }, error_code::invalid_argument,
                     "task 'slow': run_timeout must be greater than 0");
  o.timeout = timeout_policy{};
  test::expect_error([&] { fn::task("slow", noop, o); }, error_code::invalid_argument,
                     "task 'slow': a timeout needs a run_timeout or an idle_timeout");
  auto e = ep("graph", execution::threads);
  e.timeout = timeout_policy{.idle_timeout_ms = -1};
  test::expect_error([&] { fn::entrypoint(e, noop); }, error_code::invalid_graph,
                     "node 'graph': idle_timeout must be greater than 0");
}

BOOST_AUTO_TEST_SUITE_END()
