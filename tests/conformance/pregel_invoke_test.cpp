// libs/langgraph/tests/test_pregel.py: invoke and batch of low-level Pregel graphs (nodes
// subscribed to channels, LangGraph's NodeBuilder().subscribe_only(...).do(...).write_to(...)).
// LangGraph's batch is a loop of invokes here; its thread pools are std::async.
#include <future>

#include "conformance.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;
namespace ch = superstep::channels;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

value add_one(const value& x, node_context&) { return value(x.as_int() + 1); }

std::shared_ptr<const ch::channel> last(std::string key) {
  return std::make_shared<ch::last_value>(std::move(key));
}
std::shared_ptr<const ch::channel> topic(std::string key) {
  return std::make_shared<ch::topic>(std::move(key), false);
}

// A graph with `input` as its one input channel and `output` as its one output channel.
pregel_graph in_out(std::string input = "input", std::string output = "output") {
  pregel_graph g;
  g.input_channels = {std::move(input)};
  g.input_single = true;
  g.output_channels = {std::move(output)};
  g.output_single = true;
  return g;
}

std::shared_ptr<pregel> make(pregel_graph g, std::shared_ptr<checkpoint_saver> saver = nullptr) {
  runtime_options o;
  o.mode = mode();
  o.checkpointer = std::move(saver);
  return std::make_shared<pregel>(std::move(g), o);
}

// Each input invoked on its own thread, as LangGraph's ThreadPoolExecutor.map(app.invoke, ...).
std::vector<value> invoke_concurrently(const pregel& app, const std::vector<value>& inputs,
                                       const value& config = value()) {
  std::vector<std::future<value>> runs;
  for (const auto& in : inputs)
    runs.push_back(
        std::async(std::launch::async, [&app, in, config] { return app.invoke(in, config); }));
  std::vector<value> out;
  for (auto& r : runs) out.push_back(r.get());
  return out;
}

// The chain "-1" -> "0" -> ... -> "<size-3>" -> "last" of `size` nodes adding one each.
pregel_graph many_processes(int size) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("-1", {"input"}, add_one, {"-1"}));
  g.channels.emplace("-1", last("-1"));
  int i = 0;
  for (; i < size - 2; ++i) {
    std::string name = std::to_string(i);
    g.channels.emplace(name, last(name));
    g.nodes.push_back(subscribe_node(name, {std::to_string(i - 1)}, add_one, {name}));
  }
  g.nodes.push_back(subscribe_node("last", {std::to_string(i - 1)}, add_one, {"output"}));
  return g;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_invoke_single_process_in_out
// (`output_keys=["output"]` is the graph with that output channel)
BOOST_AUTO_TEST_CASE(test_invoke_single_process_in_out) {
  auto build = [](bool output_keys) {
    pregel_graph g = in_out();
    g.channels = {{"input", last("input")}, {"output", last("output")}};
    g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
    g.output_single = !output_keys;
    // LastValue(int) channels.
    g.channel_schemas = {{"input", J(R"({"type": "integer"})")},
                         {"output", J(R"({"type": "integer"})")}};
    return make(std::move(g));
  };
  BOOST_TEST(build(false)->input_json_schema() ==
             J(R"({"title": "LangGraphInput", "type": "integer"})"));
  BOOST_TEST(build(false)->output_json_schema() ==
             J(R"({"title": "LangGraphOutput", "type": "integer"})"));
  BOOST_TEST(build(false)->context_json_schema().is_null());
  BOOST_TEST(build(false)->invoke(2) == value(3));
  BOOST_TEST(build(true)->invoke(2) == J(R"({"output":3})"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_single_process_in_write_kwargs
BOOST_AUTO_TEST_CASE(test_invoke_single_process_in_write_kwargs) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")},
                {"output", last("output")},
                {"fixed", last("fixed")},
                {"output_plus_one", last("output_plus_one")}};
  pregel_node one = subscribe_node("one", {"input"}, add_one, {"output"});
  one.writers.push_back([](const value&, write_scope& s) { s.write("fixed", 5); });
  one.writers.push_back(
      [](const value& out, write_scope& s) { s.write("output_plus_one", out.as_int() + 1); });
  g.nodes.push_back(std::move(one));
  g.output_channels = {"output", "fixed", "output_plus_one"};
  g.output_single = false;
  BOOST_TEST(make(std::move(g))->invoke(2) == J(R"({"output":3,"fixed":5,"output_plus_one":4})"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_single_process_in_out_dict
BOOST_AUTO_TEST_CASE(test_invoke_single_process_in_out_dict) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
  g.output_single = false;
  BOOST_TEST(make(std::move(g))->invoke(2) == J(R"({"output":3})"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_single_process_in_dict_out_dict
BOOST_AUTO_TEST_CASE(test_invoke_single_process_in_dict_out_dict) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
  g.input_single = false;
  g.output_single = false;
  BOOST_TEST(make(std::move(g))->invoke(J(R"({"input":2})")) == J(R"({"output":3})"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_in_out
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_in_out) {
  pregel_graph g = in_out();
  g.channels = {{"inbox", last("inbox")}, {"output", last("output")}, {"input", last("input")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"inbox"}));
  g.nodes.push_back(subscribe_node("two", {"inbox"}, add_one, {"output"}));
  auto app = make(std::move(g));
  BOOST_TEST(app->invoke(2) == value(4));
  test::expect_error([&] { app->invoke(2, J(R"({"recursion_limit":1})")); },
                     error_code::graph_recursion, "Recursion limit of 1 reached");
}

// libs/langgraph/tests/test_pregel.py::test_batch_two_processes_in_out (without the sleeps
// that made the runs finish out of order: the order of the results is the inputs')
BOOST_AUTO_TEST_CASE(test_batch_two_processes_in_out) {
  auto build = [](bool output_keys) {
    pregel_graph g = in_out();
    g.channels = {{"one", last("one")}, {"output", last("output")}, {"input", last("input")}};
    g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"one"}));
    g.nodes.push_back(subscribe_node("two", {"one"}, add_one, {"output"}));
    g.output_single = !output_keys;
    return make(std::move(g));
  };
  std::vector<value> inputs = {3, 2, 1, 3, 5};
  BOOST_TEST(value(invoke_concurrently(*build(false), inputs)) == J("[5,4,3,5,7]"));
  BOOST_TEST(value(invoke_concurrently(*build(true), inputs)) ==
             J(R"([{"output":5},{"output":4},{"output":3},{"output":5},{"output":7}])"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_many_processes_in_out
BOOST_AUTO_TEST_CASE(test_invoke_many_processes_in_out) {
  const int test_size = 100;
  auto app = make(many_processes(test_size));
  value config = object{{"recursion_limit", test_size}};
  for (int i = 0; i < 10; ++i) BOOST_TEST(app->invoke(2, config) == value(2 + test_size));
  BOOST_TEST(value(invoke_concurrently(*app, std::vector<value>(10, value(2)), config)) ==
             value(list(10, value(2 + test_size))));
}

// libs/langgraph/tests/test_pregel.py::test_batch_many_processes_in_out
BOOST_AUTO_TEST_CASE(test_batch_many_processes_in_out) {
  const int test_size = 100;
  auto app = make(many_processes(test_size));
  value config = object{{"recursion_limit", test_size}};
  std::vector<value> inputs = {2, 1, 3, 4, 5};
  list expected;
  for (const auto& in : inputs) expected.emplace_back(in.as_int() + test_size);
  for (int i = 0; i < 3; ++i)
    BOOST_TEST(value(invoke_concurrently(*app, inputs, config)) == value(expected));
  std::vector<std::future<std::vector<value>>> batches;
  for (int i = 0; i < 3; ++i)
    batches.push_back(
        std::async(std::launch::async, [&] { return invoke_concurrently(*app, inputs, config); }));
  for (auto& b : batches) BOOST_TEST(value(b.get()) == value(expected));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_two_in_two_out_invalid
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_two_in_two_out_invalid) {
  pregel_graph g = in_out();
  g.channels = {{"output", last("output")}, {"input", last("input")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
  g.nodes.push_back(subscribe_node("two", {"input"}, add_one, {"output"}));
  // LastValue channels can only be updated once per iteration
  test::expect_error([&] { make(std::move(g))->invoke(2); }, error_code::invalid_update, "output");

  state_graph builder;
  builder.add_key("hello");
  auto my_node = [](const value&, node_context&) -> value { return J(R"({"hello":"world"})"); };
  builder.add_node("one", my_node).add_node("two", my_node);
  builder.add_conditional_edges(std::string(START), [](const value&, node_context&) -> value {
    return J(R"(["one","two"])");
  });
  auto graph = builder.compile(opts());
  test::expect_error([&] { graph->invoke(J(R"({"hello":"there"})")); }, error_code::invalid_update,
                     "At key 'hello'");
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_two_in_two_out_valid
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_two_in_two_out_valid) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"output", topic("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
  g.nodes.push_back(subscribe_node("two", {"input"}, add_one, {"output"}));
  // An Inbox channel accumulates updates into a sequence
  BOOST_TEST(make(std::move(g))->invoke(2) == J("[3,3]"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_two_in_join_two_out
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_two_in_join_two_out) {
  auto add_10_each = [](const value& x, node_context&) -> value {
    std::vector<std::int64_t> v;
    for (const auto& y : x.as_list()) v.push_back(y.as_int() + 10);
    std::sort(v.begin(), v.end());
    list out(v.begin(), v.end());
    return value(std::move(out));
  };
  pregel_graph g = in_out();
  g.channels = {{"inbox", topic("inbox")}, {"output", last("output")}, {"input", last("input")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"inbox"}));
  g.nodes.push_back(subscribe_node("chain_three", {"input"}, add_one, {"inbox"}));
  g.nodes.push_back(subscribe_node("chain_four", {"inbox"}, add_10_each, {"output"}));
  auto app = make(std::move(g));
  // chain_four waits for all publishers to finish before reading the topic as a list
  for (int i = 0; i < 100; ++i) BOOST_TEST(app->invoke(2) == J("[13,13]"));
  BOOST_TEST(value(invoke_concurrently(*app, std::vector<value>(100, value(2)))) ==
             value(list(100, J("[13,13]"))));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_join_then_call_other_pregel (the inner
// graph's `.map()`: the node invokes it once per item)
BOOST_AUTO_TEST_CASE(test_invoke_join_then_call_other_pregel) {
  pregel_graph inner = in_out();
  inner.channels = {{"output", last("output")}, {"input", last("input")}};
  inner.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output"}));
  std::shared_ptr<pregel> inner_app = make(std::move(inner));

  auto add_10_each = [](const value& x, node_context&) -> value {
    list out;
    for (const auto& y : x.as_list()) out.emplace_back(y.as_int() + 10);
    return value(std::move(out));
  };
  auto map_inner = [inner_app](const value& xs, node_context&) -> value {
    list out;
    for (const auto& x : xs.as_list()) out.push_back(inner_app->invoke(x));
    return value(std::move(out));
  };
  auto sum = [](const value& xs, node_context&) -> value {
    std::int64_t s = 0;
    for (const auto& x : xs.as_list()) s += x.as_int();
    return value(s);
  };
  auto build = [&](std::shared_ptr<checkpoint_saver> saver) {
    pregel_graph g = in_out();
    g.channels = {{"inbox_one", topic("inbox_one")},
                  {"outbox_one", last("outbox_one")},
                  {"output", last("output")},
                  {"input", last("input")}};
    g.nodes.push_back(subscribe_node("one", {"input"}, add_10_each, {"inbox_one"}));
    g.nodes.push_back(subscribe_node("two", {"inbox_one"}, map_inner, {"outbox_one"}));
    g.nodes.push_back(subscribe_node("chain_three", {"outbox_one"}, sum, {"output"}));
    return make(std::move(g), std::move(saver));
  };
  auto app = build(nullptr);
  for (int i = 0; i < 10; ++i) BOOST_TEST(app->invoke(J("[2,3]")) == value(27));
  BOOST_TEST(value(invoke_concurrently(*app, std::vector<value>(10, J("[2,3]")))) ==
             value(list(10, value(27))));
  // with a checkpointer: the inner graph is called twice in the same node, but that works
  app = build(saver());
  BOOST_TEST(app->invoke(J("[2,3]"), thread("1")) == value(27));
  BOOST_TEST(app->invoke(J("[2,3]"), thread("1")) == value(27));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_one_in_two_out
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_one_in_two_out) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"between", last("between")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"output", "between"}));
  g.nodes.push_back(subscribe_node("two", {"between"}, add_one, {"output"}));
  g.state_channels = {"output", "between"};
  auto app = make(std::move(g));
  auto stream = [&](stream_mode m) {
    std::vector<value> events;
    app->stream(value(2), value(), stream_options{{m}, false},
                [&](const stream_event& e) { events.push_back(e.data); });
    return value(list(events.begin(), events.end()));
  };
  BOOST_TEST(stream(stream_mode::updates) ==
             J(R"([{"one":{"between":3,"output":3}},{"two":{"output":4}}])"));
  BOOST_TEST(stream(stream_mode::values) ==
             J(R"([{"between":3,"output":3},{"between":3,"output":4}])"));
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_no_out
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_no_out) {
  pregel_graph g = in_out();
  g.channels = {{"input", last("input")}, {"between", last("between")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("one", {"input"}, add_one, {"between"}));
  g.nodes.push_back(subscribe_node("two", {"between"}, add_one, {}));
  // It finishes executing (once no more messages are published) but returns nothing, as
  // nothing was published to the output channel
  BOOST_TEST(make(std::move(g))->invoke(2).is_null());
}

// libs/langgraph/tests/test_pregel.py::test_invoke_two_processes_no_in
BOOST_AUTO_TEST_CASE(test_invoke_two_processes_no_in) {
  pregel_graph g;
  g.channels = {{"between", last("between")}, {"output", last("output")}};
  g.nodes.push_back(subscribe_node("one", {"between"}, add_one, {"output"}));
  g.nodes.push_back(subscribe_node("two", {"between"}, add_one, {}));
  test::expect_error([&] { make(std::move(g)); }, error_code::invalid_graph,
                     "graph has no input channels");
}
