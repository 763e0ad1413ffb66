// LangGraph's functional API, ported: entrypoints with and without a checkpointer,
// `previous`, `entrypoint.final`, update_state on an entrypoint's thread, and the debug stream
// of task calls.

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

BOOST_AUTO_TEST_SUITE(functional_entrypoint)

// libs/langgraph/tests/test_pregel.py::test_entrypoint_without_checkpointer
BOOST_AUTO_TEST_CASE(test_entrypoint_without_checkpointer) {
  std::vector<value> states;
  const value config = thread("1");

  // Test without previous
  auto foo = fn::entrypoint(ep("foo", nullptr), [&](const value& inputs, fn::call_context&) {
    states.push_back(inputs);
    return inputs;
  });
  BOOST_TEST(foo->invoke(object{{"a", "1"}}, config) == value(object{{"a", "1"}}));

  auto foo2 = fn::entrypoint(ep("foo", nullptr), [&](const value& inputs, fn::call_context& ctx) {
    states.push_back(ctx.previous());
    return value(object{{"previous", ctx.previous()}, {"current", inputs}});
  });
  const value expected = object{{"current", object{{"a", "1"}}}, {"previous", value()}};
  BOOST_TEST(foo2->invoke(object{{"a", "1"}}, config) == expected);
  BOOST_TEST(foo2->invoke(object{{"a", "1"}}, config) == expected);
}

// libs/langgraph/tests/test_pregel.py::test_entrypoint_stateful
BOOST_AUTO_TEST_CASE(test_entrypoint_stateful) {
  auto checkpointer = saver();
  // Test invoke
  std::vector<value> states;
  auto foo =
      fn::entrypoint(ep("foo", checkpointer), [&](const value& inputs, fn::call_context& ctx) {
        states.push_back(ctx.previous());
        return value(object{{"previous", ctx.previous()}, {"current", inputs}});
      });
  value config = thread("1");

  const value one = object{{"current", object{{"a", "1"}}}, {"previous", value()}};
  const value two = object{{"current", object{{"a", "2"}}}, {"previous", one}};
  const value three = object{{"current", object{{"a", "3"}}}, {"previous", two}};
  BOOST_TEST(foo->invoke(object{{"a", "1"}}, config) == one);
  BOOST_TEST(foo->invoke(object{{"a", "2"}}, config) == two);
  BOOST_TEST(foo->invoke(object{{"a", "3"}}, config) == three);
  BOOST_TEST(states == (std::vector<value>{value(), one, two}), boost::test_tools::per_element());

  // Test stream
  auto foo2 =
      fn::entrypoint(ep("foo", checkpointer), [&](const value& inputs, fn::call_context& ctx) {
        return value(object{{"previous", ctx.previous()}, {"current", inputs}});
      });
  config = thread("2");
  BOOST_TEST(
      collect(*foo2, object{{"a", "1"}}, config) == (std::vector<value>{object{{"foo", one}}}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_entrypoint_stateful_update_state
BOOST_AUTO_TEST_CASE(test_entrypoint_stateful_update_state) {
  // Test invoke
  std::vector<value> states;
  auto foo = fn::entrypoint(ep("foo", saver()), [&](const value& inputs, fn::call_context& ctx) {
    states.push_back(ctx.previous());
    return value(object{{"previous", ctx.previous()}, {"current", inputs}});
  });
  const value config = thread("1");

  foo->update_state(config, object{{"a", "-1"}});
  const value one = object{{"current", object{{"a", "1"}}}, {"previous", object{{"a", "-1"}}}};
  const value two = object{{"current", object{{"a", "2"}}}, {"previous", one}};
  const value three = object{{"current", object{{"a", "3"}}}, {"previous", two}};
  BOOST_TEST(foo->invoke(object{{"a", "1"}}, config) == one);
  BOOST_TEST(foo->invoke(object{{"a", "2"}}, config) == two);
  BOOST_TEST(foo->invoke(object{{"a", "3"}}, config) == three);

  // update state
  foo->update_state(config, object{{"a", "3"}});

  // Test stream
  BOOST_TEST(collect(*foo, object{{"a", "1"}}, config) ==
                 (std::vector<value>{object{{"foo", object{{"current", object{{"a", "1"}}},
                                                           {"previous", object{{"a", "3"}}}}}}}),
             boost::test_tools::per_element());
  BOOST_TEST(states == (std::vector<value>{object{{"a", "-1"}}, one, two, object{{"a", "3"}}}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_entrypoint_with_return_and_save
BOOST_AUTO_TEST_CASE(test_entrypoint_with_return_and_save) {
  value previous_;
  // foo(msg: str, *, previous: Any) -> entrypoint.final[int, list[str]]
  fn::entrypoint_options options = ep("foo", saver());
  options.output_schema = value::parse_json(R"({"type": "integer"})");
  auto foo = fn::entrypoint(options, [&](const value& msg, fn::call_context& ctx) {
    previous_ = ctx.previous();
    list previous = ctx.previous().is_list() ? ctx.previous().as_list() : list{};
    const auto n = static_cast<std::int64_t>(previous.size());
    previous.push_back(msg);
    return fn::final(n, value(std::move(previous)));
  });
  BOOST_TEST(foo->output_json_schema() ==
             value::parse_json(R"({"title": "LangGraphOutput", "type": "integer"})"));
  const value config = thread("1");
  BOOST_TEST(foo->invoke("hello", config) == value(0));
  BOOST_TEST(previous_.is_null());
  BOOST_TEST(foo->invoke("goodbye", config) == value(1));
  BOOST_TEST(previous_ == value::array({"hello"}));
  BOOST_TEST(foo->invoke("definitely", config) == value(2));
  BOOST_TEST(previous_ == value::array({"hello", "goodbye"}));
}

namespace {

// `v` with every string under an id, timestamp or thread key replaced by "*": the fields
// LangGraph's test compares to AnyStr().
value mask_any_str(const value& v) {
  if (v.is_list()) {
    list out;
    for (const auto& item : v.as_list()) out.push_back(mask_any_str(item));
    return out;
  }
  if (!v.is_object()) return v;
  object out;
  for (const auto& [key, item] : v.as_object()) {
    const bool any_str =
        key == "id" || key == "timestamp" || key == "checkpoint_id" || key == "thread_id";
    out.set(key, any_str && item.is_string() ? value("*") : mask_any_str(item));
  }
  return out;
}

std::vector<value> masked(const std::vector<value>& events) {
  std::vector<value> out;
  for (const auto& e : events) out.push_back(mask_any_str(e));
  return out;
}

std::vector<value> parsed(const std::vector<const char*>& texts) {
  std::vector<value> out;
  for (const char* t : texts) out.push_back(value::parse_json(t));
  return out;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_falsy_return_from_task
// A task call's input is the value it is called with: null here, where Python shows the call's
// arguments, ((), {}).
BOOST_AUTO_TEST_CASE(test_falsy_return_from_task) {
  fn::task falsy_task("falsy_task", [](const value&, fn::call_context&) { return value(false); });
  auto graph = fn::entrypoint(ep("graph", saver()), [&](const value&, fn::call_context& ctx) {
    falsy_task(ctx, value()).result();
    ctx.interrupt("test");
    return value();
  });
  const value configurable = with_durability(thread("falsy"), "exit");
  // Both runs start the entrypoint and call the task (the second restores its saved result).
  const char* graph_task = R"({"payload": {"id": "*", "input": {"a": 5}, "name": "graph",
      "triggers": ["__start__"]}, "step": 0, "timestamp": "*", "type": "task"})";
  const char* falsy_task_task = R"({"payload": {"id": "*", "input": null, "name": "falsy_task",
      "triggers": ["__pregel_push"]}, "step": 0, "timestamp": "*", "type": "task"})";
  BOOST_TEST(
      masked(collect(*graph, object{{"a", 5}}, configurable, {stream_mode::debug})) ==
          parsed({
              R"({"payload": {"config": {"configurable": {"checkpoint_id": "*", "checkpoint_ns": "",
                  "thread_id": "*"}}, "metadata": {"parents": {}, "source": "input", "step": -1},
                  "next": ["graph"], "parent_config": null,
                  "tasks": [{"id": "*", "interrupts": [], "name": "graph", "state": null}],
                  "values": null},
                 "step": -1, "timestamp": "*", "type": "checkpoint"})",
              graph_task,
              falsy_task_task,
              R"({"payload": {"error": null, "id": "*", "interrupts": [], "name": "falsy_task",
                  "result": {"__return__": false}},
                 "step": 0, "timestamp": "*", "type": "task_result"})",
              R"({"payload": {"error": null, "id": "*",
                  "interrupts": [{"id": "*", "value": "test"}], "name": "graph", "result": {}},
                 "step": 0, "timestamp": "*", "type": "task_result"})",
          }),
      boost::test_tools::per_element());
  BOOST_TEST(
      masked(collect(*graph, resume("123"), configurable, {stream_mode::debug})) ==
          parsed({
              R"({"payload": {"config": {"configurable": {"checkpoint_id": "*", "checkpoint_ns": "",
                  "thread_id": "*"}}, "metadata": {"parents": {}, "source": "input", "step": -1},
                  "next": ["graph"], "parent_config": null,
                  "tasks": [{"id": "*", "interrupts": [{"id": "*", "value": "test"}],
                             "name": "graph", "state": null}],
                  "values": null},
                 "step": -1, "timestamp": "*", "type": "checkpoint"})",
              graph_task,
              falsy_task_task,
              R"({"payload": {"error": null, "id": "*", "interrupts": [], "name": "graph",
                  "result": {"__end__": null}},
                 "step": 0, "timestamp": "*", "type": "task_result"})",
              R"({"payload": {"config": {"configurable": {"checkpoint_id": "*", "checkpoint_ns": "",
                  "thread_id": "*"}}, "metadata": {"parents": {}, "source": "loop", "step": 0},
                  "next": [], "parent_config": null, "tasks": [], "values": null},
                 "step": 0, "timestamp": "*", "type": "checkpoint"})",
          }),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
