// LangGraph's pydantic tests (libs/langgraph/tests/test_pydantic.py) whose behaviour does not
// depend on pydantic: the model is incidental and ported as a plain object.
#include <atomic>
#include <memory>

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_pydantic.py::test_interrupt_functional_pydantic (the
// FunctionalState model as an object {"a", "b"}; foo, started before the interrupt, is not
// run again on resume)
BOOST_AUTO_TEST_CASE(test_interrupt_functional_pydantic) {
  auto called_count = std::make_shared<std::atomic<int>>(0);
  fn::task foo("foo", [called_count](const value& state, fn::call_context&) {
    ++*called_count;
    return value(object{{"a", state.get("a").as_string() + "foo"}});
  });
  fn::task bar("bar", [](const value& state, fn::call_context&) {
    return value(object{{"a", state.get("a").as_string() + "bar"}, {"b", state.get("b")}});
  });
  auto graph =
      fn::entrypoint(ep("graph", saver()), [&](const value& inputs, fn::call_context& ctx) {
        auto fut_foo = foo(ctx, inputs);
        value answer = ctx.interrupt("Provide value for bar:");
        value foo_res = fut_foo.result();
        auto fut_bar = bar(ctx, value(object{{"a", foo_res.get("a")}, {"b", answer}}));
        return fut_bar.result();
      });
  const value config = thread("1");
  value first = graph->invoke(object{{"a", ""}}, config);
  BOOST_TEST(first.as_object().size() == 1u, first.to_json());
  BOOST_TEST(interrupt_values(first) == std::vector<value>{value("Provide value for bar:")});
  BOOST_TEST(first.get(INTERRUPT).as_list()[0].get("id").is_string());
  BOOST_TEST(graph->invoke(resume("bar"), config) == value(object{{"a", "foobar"}, {"b", "bar"}}));
  BOOST_TEST(called_count->load() == 1);
}
