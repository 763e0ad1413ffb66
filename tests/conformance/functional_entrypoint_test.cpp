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

// libs/langgraph/tests/test_pregel.py::test_falsy_return_from_task
// (the debug events compared in part, field by field: NOT_PORTED.md says what is left out)
BOOST_AUTO_TEST_CASE(test_falsy_return_from_task) {
  fn::task falsy_task("falsy_task", [](const value&, fn::call_context&) { return value(false); });
  auto graph = fn::entrypoint(ep("graph", saver()), [&](const value&, fn::call_context& ctx) {
    falsy_task(ctx, value()).result();
    ctx.interrupt("test");
    return value();
  });
  const value configurable = with_durability(thread("falsy"), "exit");
  // The parts of the debug stream LangGraph asserts, in order: (type, name or source, details).
  auto shape = [](const std::vector<value>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) {
      const std::string type = e.get("type").as_string();
      const value& p = e.get("payload");
      if (type == "checkpoint")
        out.push_back(type + " " + p.get("metadata").get("source").as_string() + " " +
                      std::to_string(e.get("step").as_int()) +
                      " values=" + p.get("values").to_json() + " next=" + p.get("next").to_json());
      else if (type == "task")
        out.push_back(type + " " + p.get("name").as_string() +
                      " triggers=" + p.get("triggers").to_json());
      else
        out.push_back(type + " " + p.get("name").as_string() +
                      " result=" + p.get("result").to_json() +
                      " interrupts=" + std::to_string(p.get("interrupts").as_list().size()));
    }
    return out;
  };
  BOOST_TEST(shape(collect(*graph, object{{"a", 5}}, configurable, {stream_mode::debug})) ==
                 (std::vector<std::string>{
                     R"(checkpoint input -1 values=null next=["graph"])",
                     R"(task graph triggers=["__start__"])",
                     R"(task falsy_task triggers=["__pregel_push"])",
                     R"(task_result falsy_task result={"__return__":false} interrupts=0)",
                     R"(task_result graph result={} interrupts=1)",
                 }),
             boost::test_tools::per_element());
  BOOST_TEST(shape(collect(*graph, resume("123"), configurable, {stream_mode::debug})) ==
                 (std::vector<std::string>{
                     R"(checkpoint input -1 values=null next=["graph"])",
                     R"(task graph triggers=["__start__"])",
                     R"(task falsy_task triggers=["__pregel_push"])",
                     R"(task_result graph result={"__end__":null} interrupts=0)",
                     R"(checkpoint loop 0 values=null next=[])",
                 }),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
