// LangGraph's functional API, ported: graphs invoked from entrypoints and tasks, and
// entrypoints invoked from StateGraph nodes.

#include "functional_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A two-key StateGraph (State: a, b; Output: result) whose one node computes `result`.
std::shared_ptr<pregel> arithmetic_subgraph(const std::string& node,
                                            std::int64_t (*op)(std::int64_t, std::int64_t)) {
  state_graph builder;
  builder.add_key("a").add_key("b").add_key("result");
  builder.set_output_keys({"result"});
  builder.add_node(node, [op](const value& state, node_context&) {
    return value(object{{"result", op(state.get("a").as_int(), state.get("b").as_int())}});
  });
  builder.add_edge(std::string(START), node);
  return builder.compile(opts());
}

std::int64_t plus(std::int64_t a, std::int64_t b) { return a + b; }
std::int64_t times(std::int64_t a, std::int64_t b) { return a * b; }

}  // namespace

BOOST_AUTO_TEST_SUITE(functional_subgraph)

// libs/langgraph/tests/test_pregel.py::test_multiple_subgraphs_functional
BOOST_AUTO_TEST_CASE(test_multiple_subgraphs_functional) {
  auto checkpointer = saver();
  // Define addition subgraph
  auto add = fn::entrypoint(ep("add", nullptr), [](const value& inputs, fn::call_context&) {
    return value(inputs.as_list()[0].as_int() + inputs.as_list()[1].as_int());
  });
  // Define multiplication subgraph using tasks
  fn::task multiply_task("multiply_task", [](const value& args, fn::call_context&) {
    return value(args.as_list()[0].as_int() * args.as_list()[1].as_int());
  });
  auto multiply =
      fn::entrypoint(ep("multiply", nullptr), [&](const value& inputs, fn::call_context& ctx) {
        return multiply_task(ctx, inputs).result();
      });

  // Test calling the same subgraph multiple times
  fn::task call_same_subgraph("call_same_subgraph", [&](const value& args, fn::call_context& ctx) {
    value result = ctx.invoke(*add, args);
    value another_result = ctx.invoke(*add, value::array({result, 10}));
    return another_result;
  });
  auto parent_call_same_subgraph = fn::entrypoint(ep("parent_call_same_subgraph", checkpointer),
                                                  [&](const value& inputs, fn::call_context& ctx) {
                                                    return call_same_subgraph(ctx, inputs).result();
                                                  });
  BOOST_TEST(parent_call_same_subgraph->invoke(value::array({2, 3}), thread("1")) == value(15));

  // Test calling multiple subgraphs
  fn::task call_multiple_subgraphs("call_multiple_subgraphs",
                                   [&](const value& args, fn::call_context& ctx) {
                                     value add_result = ctx.invoke(*add, args);
                                     value multiply_result = ctx.invoke(*multiply, args);
                                     return value::array({add_result, multiply_result});
                                   });
  auto parent_call_multiple_subgraphs =
      fn::entrypoint(ep("parent_call_multiple_subgraphs", checkpointer),
                     [&](const value& inputs, fn::call_context& ctx) {
                       return call_multiple_subgraphs(ctx, inputs).result();
                     });
  BOOST_TEST(parent_call_multiple_subgraphs->invoke(value::array({2, 3}), thread("2")) ==
             value::array({5, 6}));
}

// libs/langgraph/tests/test_pregel.py::test_multiple_subgraphs_mixed_entrypoint
BOOST_AUTO_TEST_CASE(test_multiple_subgraphs_mixed_entrypoint) {
  auto checkpointer = saver();
  auto add_subgraph = arithmetic_subgraph("add", plus);
  auto multiply_subgraph = arithmetic_subgraph("multiply", times);
  auto ab = [](const value& a, const value& b) { return value(object{{"a", a}, {"b", b}}); };

  // Test calling the same subgraph multiple times
  fn::task call_same_subgraph("call_same_subgraph", [&](const value& args, fn::call_context& ctx) {
    const auto& a = args.as_list();
    value result = ctx.invoke(*add_subgraph, ab(a[0], a[1])).get("result");
    value another_result = ctx.invoke(*add_subgraph, ab(result, 10)).get("result");
    return another_result;
  });
  auto parent_call_same_subgraph = fn::entrypoint(ep("parent_call_same_subgraph", checkpointer),
                                                  [&](const value& inputs, fn::call_context& ctx) {
                                                    return call_same_subgraph(ctx, inputs).result();
                                                  });
  BOOST_TEST(parent_call_same_subgraph->invoke(value::array({2, 3}), thread("1")) == value(15));

  // Test calling multiple subgraphs
  fn::task call_multiple_subgraphs(
      "call_multiple_subgraphs", [&](const value& args, fn::call_context& ctx) {
        const auto& a = args.as_list();
        value add_result = ctx.invoke(*add_subgraph, ab(a[0], a[1])).get("result");
        value multiply_result = ctx.invoke(*multiply_subgraph, ab(a[0], a[1])).get("result");
        return value::array({add_result, multiply_result});
      });
  auto parent_call_multiple_subgraphs =
      fn::entrypoint(ep("parent_call_multiple_subgraphs", checkpointer),
                     [&](const value& inputs, fn::call_context& ctx) {
                       return call_multiple_subgraphs(ctx, inputs).result();
                     });
  BOOST_TEST(parent_call_multiple_subgraphs->invoke(value::array({2, 3}), thread("2")) ==
             value::array({5, 6}));
}

// libs/langgraph/tests/test_pregel.py::test_multiple_subgraphs_mixed_state_graph
BOOST_AUTO_TEST_CASE(test_multiple_subgraphs_mixed_state_graph) {
  auto checkpointer = saver();
  // Define addition subgraph
  auto add = fn::entrypoint(ep("add", nullptr), [](const value& inputs, fn::call_context&) {
    return value(inputs.as_list()[0].as_int() + inputs.as_list()[1].as_int());
  });
  // Define multiplication subgraph using tasks
  fn::task multiply_task("multiply_task", [](const value& args, fn::call_context&) {
    return value(args.as_list()[0].as_int() * args.as_list()[1].as_int());
  });
  auto multiply =
      fn::entrypoint(ep("multiply", nullptr), [&](const value& inputs, fn::call_context& ctx) {
        return multiply_task(ctx, inputs).result();
      });
  compile_options o = opts();
  o.checkpointer = checkpointer;

  // Test calling the same subgraph multiple times
  state_graph same;
  same.add_key("a").add_key("b").add_key("result");
  same.set_output_keys({"result"});
  same.add_node("call_same_subgraph", [&](const value& state, node_context& ctx) {
    value result = add->run_nested(value::array({state.get("a"), state.get("b")}), ctx);
    value another_result = add->run_nested(value::array({result, 10}), ctx);
    return value(object{{"result", another_result}});
  });
  same.add_edge(std::string(START), "call_same_subgraph");
  auto parent_call_same_subgraph = same.compile(o);
  BOOST_TEST(parent_call_same_subgraph->invoke(object{{"a", 2}, {"b", 3}}, thread("1")) ==
             value(object{{"result", 15}}));

  // Test calling multiple subgraphs
  state_graph multiple;
  multiple.add_key("a").add_key("b").add_key("add_result").add_key("multiply_result");
  multiple.set_output_keys({"add_result", "multiply_result"});
  multiple.add_node("call_multiple_subgraphs", [&](const value& state, node_context& ctx) {
    const value args = value::array({state.get("a"), state.get("b")});
    value add_result = add->run_nested(args, ctx);
    value multiply_result = multiply->run_nested(args, ctx);
    return value(object{{"add_result", add_result}, {"multiply_result", multiply_result}});
  });
  multiple.add_edge(std::string(START), "call_multiple_subgraphs");
  auto parent_call_multiple_subgraphs = multiple.compile(o);
  BOOST_TEST(parent_call_multiple_subgraphs->invoke(object{{"a", 2}, {"b", 3}}, thread("2")) ==
             value(object{{"add_result", 5}, {"multiply_result", 6}}));
}

BOOST_AUTO_TEST_SUITE_END()
