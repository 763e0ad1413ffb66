// A breakpoint inside a subgraph running beside another node
// (libs/langgraph/tests/test_pregel.py::test_nested_graph_interrupts_parallel).
#include "stream_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using texts = std::vector<std::string>;

value with_durability(const char* id, const char* durability) {
  object o = thread(id).as_object();
  o.set("durability", durability);
  return value(std::move(o));
}

// The graph of the test: inner (inner_1, then a breakpoint before inner_2) beside outer_1,
// joined into outer_2. inner_1 ends once `outer_1_seen` opened (LangGraph: it sleeps 0.1 s).
std::shared_ptr<pregel> build(std::shared_ptr<gate> outer_1_seen,
                              std::vector<std::string> interrupt_before = {},
                              std::vector<std::string> interrupt_after = {}) {
  state_graph ib;
  ib.add_key("my_key", "add").add_key("my_other_key");
  ib.add_node("inner_1", [outer_1_seen](const value& st, node_context&) -> value {
    outer_1_seen->wait();
    return object{{"my_key", "got here"}, {"my_other_key", st.get("my_key")}};
  });
  ib.add_node("inner_2", [](const value& st, node_context&) -> value {
    return object{{"my_key", " and there"}, {"my_other_key", st.get("my_key")}};
  });
  ib.add_edge("inner_1", "inner_2").set_entry_point("inner_1").set_finish_point("inner_2");
  compile_options io = opts();
  io.interrupt_before = {"inner_2"};

  state_graph g;
  g.add_key("my_key", "add");
  g.add_node("inner", ib.compile(io));
  g.add_node("outer_1", [](const value&, node_context&) -> value {
    return object{{"my_key", " and parallel"}};
  });
  g.add_node("outer_2", [](const value&, node_context&) -> value {
    return object{{"my_key", " and back again"}};
  });
  g.add_edge("__start__", "inner").add_edge("__start__", "outer_1");
  g.add_edge(std::vector<std::string>{"inner", "outer_1"}, "outer_2");
  g.set_finish_point("outer_2");
  compile_options o = opts_with_saver();
  o.interrupt_before = std::move(interrupt_before);
  o.interrupt_after = std::move(interrupt_after);
  return g.compile(o);
}

std::vector<std::string> values_of(const pregel& app, const value& input, const value& config) {
  return stream_texts(app, input, config, {stream_mode::values});
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_nested_graph_interrupts_parallel
BOOST_AUTO_TEST_CASE(test_nested_graph_interrupts_parallel) {
  for (const char* d : {"sync", "async", "exit"}) {
    BOOST_TEST_CONTEXT("durability " << d) {
      auto open = std::make_shared<gate>();
      open->open();
      auto app = build(open);
      // The breakpoint pauses the parent with no interrupt value; outer_1's writes of the
      // paused step show in the output.
      BOOST_TEST(app->invoke(object{{"my_key", ""}}, with_durability("1", d)).to_json() ==
                 R"({"my_key":" and parallel"})");
      BOOST_TEST(app->invoke(value(), with_durability("1", d)).to_json() ==
                 R"({"my_key":"got here and there and parallel and back again"})");

      // outer_1 finishes before inner pauses, and its saved writes are reused on resume
      // (streamed as cached), not run again.
      auto outer_1_seen = std::make_shared<gate>();
      app = build(outer_1_seen);
      recorder r;
      r.on_event = [&](const stream_event& e) {
        if (e.data.find("outer_1")) outer_1_seen->open();
      };
      stream_options so;
      so.modes = {stream_mode::updates};
      so.subgraphs = true;
      app->stream(object{{"my_key", ""}}, with_durability("2", d), so, r.sink());
      BOOST_TEST(
          r.take() == (texts{R"(() {"outer_1":{"my_key":" and parallel"}})",
                             R"((inner:) {"inner_1":{"my_key":"got here","my_other_key":""}})",
                             R"(() {"__interrupt__":[]})"}),
          boost::test_tools::per_element());
      BOOST_TEST(
          stream_texts(*app, value(), with_durability("2", d), {stream_mode::updates}) ==
              (texts{R"(() {"outer_1":{"my_key":" and parallel"},"__metadata__":{"cached":true}})",
                     R"(() {"inner":{"my_key":"got here and there"}})",
                     R"(() {"outer_2":{"my_key":" and back again"}})"}),
          boost::test_tools::per_element());

      BOOST_TEST(values_of(*app, object{{"my_key", ""}}, with_durability("3", d)) ==
                     (texts{R"(() {"my_key":""})", R"(() {"my_key":" and parallel"})"}),
                 boost::test_tools::per_element());
      BOOST_TEST(
          values_of(*app, value(), with_durability("3", d)) ==
              (texts{R"(() {"my_key":""})", R"(() {"my_key":"got here and there and parallel"})",
                     R"(() {"my_key":"got here and there and parallel and back again"})"}),
          boost::test_tools::per_element());

      // A breakpoint before the parallel node.
      app = build(open, {"outer_1"});
      BOOST_TEST(values_of(*app, object{{"my_key", ""}}, with_durability("4", d)) ==
                     (texts{R"(() {"my_key":""})"}),
                 boost::test_tools::per_element());
      BOOST_TEST(values_of(*app, value(), with_durability("4", d)) ==
                     (texts{R"(() {"my_key":""})", R"(() {"my_key":" and parallel"})"}),
                 boost::test_tools::per_element());
      BOOST_TEST(
          values_of(*app, value(), with_durability("4", d)) ==
              (texts{R"(() {"my_key":""})", R"(() {"my_key":"got here and there and parallel"})",
                     R"(() {"my_key":"got here and there and parallel and back again"})"}),
          boost::test_tools::per_element());

      // A breakpoint after the parallel node.
      app = build(open, {}, {"outer_1"});
      BOOST_TEST(values_of(*app, object{{"my_key", ""}}, with_durability("5", d)) ==
                     (texts{R"(() {"my_key":""})", R"(() {"my_key":" and parallel"})"}),
                 boost::test_tools::per_element());
      BOOST_TEST(
          values_of(*app, value(), with_durability("5", d)) ==
              (texts{R"(() {"my_key":""})", R"(() {"my_key":"got here and there and parallel"})"}),
          boost::test_tools::per_element());
      BOOST_TEST(values_of(*app, value(), with_durability("5", d)) ==
                     (texts{R"(() {"my_key":"got here and there and parallel"})",
                            R"(() {"my_key":"got here and there and parallel and back again"})"}),
                 boost::test_tools::per_element());
    }
  }
}
