// LangGraph's functional API (entrypoint, task), ported: task calls, their futures, nesting,
// stream order, errors and names.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

std::vector<std::string> sorted_json(std::vector<value> events, std::size_t drop_last) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + drop_last < events.size(); ++i) out.push_back(events[i].to_json());
  std::sort(out.begin(), out.end());
  return out;
}

std::string twice(const value& x) {
  return std::to_string(x.as_int()) + std::to_string(x.as_int());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_task)

// libs/langgraph/tests/test_pregel.py::test_imp_task
BOOST_AUTO_TEST_CASE(test_imp_task) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      std::atomic<int> mapper_calls{0};
      fn::task mapper("mapper", [&](const value& input, fn::call_context&) {
        ++mapper_calls;
        return value(twice(input));
      });
      // graph(input: list[int]) -> list[str], with context_schema Context(model: str).
      fn::entrypoint_options options = ep("graph", saver());
      options.input_schema =
          value::parse_json(R"({"type": "array", "items": {"type": "integer"}})");
      options.output_schema =
          value::parse_json(R"({"type": "array", "items": {"type": "string"}})");
      options.runtime.context_schema =
          object_schema{"Context", {{"model", {value::parse_json(R"({"type": "string"})"), true}}}};
      auto graph = fn::entrypoint(options, [&](const value& input, fn::call_context& ctx) {
        std::vector<fn::future> futures;
        for (const auto& i : input.as_list()) futures.push_back(mapper(ctx, i));
        std::vector<std::string> mapped;
        for (auto& f : futures) mapped.push_back(f.result().as_string());
        value answer = ctx.interrupt("question");
        list out;
        for (const auto& m : mapped) out.emplace_back(m + answer.as_string());
        return value(std::move(out));
      });
      BOOST_TEST(graph->input_json_schema() ==
                 value::parse_json(R"({"type": "array", "items": {"type": "integer"},
                                       "title": "LangGraphInput"})"));
      BOOST_TEST(graph->output_json_schema() ==
                 value::parse_json(R"({"type": "array", "items": {"type": "string"},
                                       "title": "LangGraphOutput"})"));
      BOOST_TEST(
          graph->context_json_schema() ==
          value::parse_json(R"({"properties": {"model": {"title": "Model", "type": "string"}},
                                       "required": ["model"], "title": "Context",
                                       "type": "object"})"));
      const value thread1 = with_durability(thread("1"), durability);
      auto result = collect(*graph, value::array({0, 1}), thread1);
      // mapper tasks run concurrently so output order is non-deterministic
      BOOST_TEST(sorted_json(result, 1) ==
                     (std::vector<std::string>{R"({"mapper":"00"})", R"({"mapper":"11"})"}),
                 boost::test_tools::per_element());
      BOOST_REQUIRE(!result.empty());
      BOOST_TEST(interrupt_values(result.back()) == std::vector<value>{value("question")});
      BOOST_TEST(result.back().as_object().size() == 1u);
      BOOST_TEST(mapper_calls == 2);

      BOOST_TEST(graph->invoke(resume("answer"), thread1) ==
                 value::array({"00answer", "11answer"}));
      BOOST_TEST(mapper_calls == 2);
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_imp_nested
BOOST_AUTO_TEST_CASE(test_imp_nested) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      // A StateGraph whose state is a list of strings: mynode appends "a" to each.
      state_graph builder;
      builder.add_key("value");
      builder.add_node("mynode", [](const value& state, node_context&) {
        list out;
        for (const auto& it : state.get("value").as_list()) out.emplace_back(it.as_string() + "a");
        return value(object{{"value", value(std::move(out))}});
      });
      builder.add_edge(std::string(START), "mynode");
      auto add_a = builder.compile(opts());

      fn::task submapper("submapper", [](const value& input, fn::call_context&) {
        return value(std::to_string(input.as_int()));
      });
      fn::task mapper("mapper", [&](const value& input, fn::call_context& ctx) {
        auto sub = submapper(ctx, input);
        return value(sub.result().as_string() + sub.result().as_string());
      });
      // graph(input: list[int]) -> list[str]
      fn::entrypoint_options options = ep("graph", saver());
      options.input_schema =
          value::parse_json(R"({"type": "array", "items": {"type": "integer"}})");
      options.output_schema =
          value::parse_json(R"({"type": "array", "items": {"type": "string"}})");
      auto graph = fn::entrypoint(options, [&](const value& input, fn::call_context& ctx) {
        std::vector<fn::future> futures;
        for (const auto& i : input.as_list()) futures.push_back(mapper(ctx, i));
        std::vector<std::string> mapped;
        for (auto& f : futures) mapped.push_back(f.result().as_string());
        value answer = ctx.interrupt("question");
        list final;
        for (const auto& m : mapped) final.emplace_back(m + answer.as_string());
        return ctx.invoke(*add_a, object{{"value", value(std::move(final))}}).get("value");
      });
      BOOST_TEST(graph->input_json_schema() ==
                 value::parse_json(R"({"type": "array", "items": {"type": "integer"},
                                       "title": "LangGraphInput"})"));
      BOOST_TEST(graph->output_json_schema() ==
                 value::parse_json(R"({"type": "array", "items": {"type": "string"},
                                       "title": "LangGraphOutput"})"));
      const value thread1 = with_durability(thread("1"), durability);
      auto result = collect(*graph, value::array({0, 1}), thread1);
      // nested tasks run concurrently so output order is non-deterministic
      BOOST_TEST(sorted_json(result, 1) ==
                     (std::vector<std::string>{R"({"mapper":"00"})", R"({"mapper":"11"})",
                                               R"({"submapper":"0"})", R"({"submapper":"1"})"}),
                 boost::test_tools::per_element());
      BOOST_REQUIRE(!result.empty());
      BOOST_TEST(interrupt_values(result.back()) == std::vector<value>{value("question")});

      BOOST_TEST(graph->invoke(resume("answer"), thread1) ==
                 value::array({"00answera", "11answera"}));
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_imp_stream_order
BOOST_AUTO_TEST_CASE(test_imp_stream_order) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      fn::task foo("foo", [](const value& state, fn::call_context&) {
        return value::array({state.get("a").as_string() + "foo", "bar"});
      });
      // bar(a, b, c=None): its arguments as a list.
      fn::task bar("bar", [](const value& args, fn::call_context&) {
        const auto& a = args.as_list();
        std::string c = a.size() > 2 && a[2].is_string() ? a[2].as_string() : "";
        return value(object{{"a", a[0].as_string() + a[1].as_string()}, {"c", c + "bark"}});
      });
      fn::task baz("baz", [](const value& state, fn::call_context&) {
        return value(object{{"a", state.get("a").as_string() + "baz"}, {"c", "something else"}});
      });
      auto graph =
          fn::entrypoint(ep("graph", saver()), [&](const value& state, fn::call_context& ctx) {
            auto fut_foo = foo(ctx, state);
            auto fut_bar = bar(ctx, fut_foo.result());
            auto fut_baz = baz(ctx, fut_bar.result());
            return fut_baz.result();
          });
      const value thread1 = with_durability(thread("1"), durability);
      const value done = object{{"a", "0foobarbaz"}, {"c", "something else"}};
      BOOST_TEST(collect(*graph, object{{"a", "0"}}, thread1) ==
                     (std::vector<value>{
                         object{{"foo", value::array({"0foo", "bar"})}},
                         object{{"bar", object{{"a", "0foobar"}, {"c", "bark"}}}},
                         object{{"baz", done}},
                         object{{"graph", done}},
                     }),
                 boost::test_tools::per_element());
      BOOST_TEST(graph->get_state(thread1).values == done);
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_imp_exception
BOOST_AUTO_TEST_CASE(test_imp_exception) {
  fn::task my_task("my_task",
                   [](const value& n, fn::call_context&) { return value(n.as_int() * 2); });
  fn::task task_with_exception("task_with_exception", [](const value&, fn::call_context&) -> value {
    throw std::runtime_error("This is a test exception");
  });
  std::vector<std::string> caught;
  auto my_workflow =
      fn::entrypoint(ep("my_workflow", saver()), [&](const value& n, fn::call_context& ctx) {
        my_task(ctx, n).result();
        try {
          task_with_exception(ctx, n).result();
        } catch (const error& e) {
          caught.push_back(e.what());
        }
        my_task(ctx, n).result();
        return value("done");
      });
  const value thread1 = thread("1");
  BOOST_TEST(my_workflow->invoke(1, thread1) == value("done"));
  BOOST_TEST(caught == std::vector<std::string>{"This is a test exception"},
             boost::test_tools::per_element());

  BOOST_TEST(collect(*my_workflow, 1, thread1) ==
                 (std::vector<value>{object{{"my_task", 2}}, object{{"my_task", 2}},
                                     object{{"my_workflow", "done"}}}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_named_tasks_functional
BOOST_AUTO_TEST_CASE(test_named_tasks_functional) {
  // One function behind several tasks, each named apart (a bound method, a partial, a
  // callable object in LangGraph): the name is what the stream shows.
  auto foo_fn = [](const value& v, fn::call_context&) { return value(v.as_string() + "foo"); };
  auto baz_fn = [](std::string update) {
    return
        [update](const value& v, fn::call_context&) { return value(v.as_string() + "|" + update); };
  };
  fn::task foo("custom_foo", foo_fn);
  fn::task other_foo("other_foo", foo_fn);
  fn::task bar("custom_bar",
               [](const value& v, fn::call_context&) { return value(v.as_string() + "|bar"); });
  fn::task baz_task("baz", baz_fn("baz"));
  fn::task custom_baz_task("custom_baz", baz_fn("custom_baz"));
  fn::task qux_task(
      "qux", [](const value& v, fn::call_context&) { return value(v.as_string() + "|qux"); });

  auto workflow =
      fn::entrypoint(ep("workflow", nullptr), [&](const value& inputs, fn::call_context& ctx) {
        value foo_result = foo(ctx, inputs).result();
        other_foo(ctx, inputs).result();
        auto fut_bar = bar(ctx, foo_result);
        auto fut_baz = baz_task(ctx, fut_bar.result());
        auto fut_custom_baz = custom_baz_task(ctx, fut_baz.result());
        auto fut_qux = qux_task(ctx, fut_custom_baz.result());
        return fut_qux.result();
      });
  BOOST_TEST(
      collect(*workflow, "", value()) == (std::vector<value>{
                                             object{{"custom_foo", "foo"}},
                                             object{{"other_foo", "foo"}},
                                             object{{"custom_bar", "foo|bar"}},
                                             object{{"baz", "foo|bar|baz"}},
                                             object{{"custom_baz", "foo|bar|baz|custom_baz"}},
                                             object{{"qux", "foo|bar|baz|custom_baz|qux"}},
                                             object{{"workflow", "foo|bar|baz|custom_baz|qux"}},
                                         }),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_sync_streaming_with_functional_api
BOOST_AUTO_TEST_CASE(test_sync_streaming_with_functional_api) {
  // LangGraph times the two updates of `slow` apart. Here, without sleeps: the second call
  // waits until the first call's update has reached the caller of stream(), which only
  // happens if updates stream as they are made rather than when the graph ends.
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> calls{0};
  std::vector<bool> saw_earlier_update;
  fn::task slow("slow", [&](const value&, fn::call_context&) {
    const int n = calls++;
    std::unique_lock lock(m);
    const bool seen = cv.wait_for(lock, std::chrono::seconds(10), [&] { return arrived >= n; });
    saw_earlier_update.push_back(seen);
    return value(object{{"tic", n}});
  });
  auto graph = fn::entrypoint(ep("graph", nullptr), [&](const value&, fn::call_context& ctx) {
    value first = slow(ctx, value()).result();
    value second = slow(ctx, value()).result();
    return value::array({first, second});
  });
  std::vector<value> slow_updates;
  stream_options o;
  o.modes = {stream_mode::updates};
  graph->stream(object{}, value(), o, [&](const stream_event& e) {
    if (!e.data.find("slow")) return;  // We'll just look at the updates from `slow`
    slow_updates.push_back(e.data);
    std::lock_guard lock(m);
    ++arrived;
    cv.notify_all();
  });
  BOOST_TEST(slow_updates.size() == 2u);
  BOOST_TEST(saw_earlier_update == (std::vector<bool>{true, true}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
