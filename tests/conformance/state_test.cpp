// libs/langgraph/tests/test_state.py: what each node and router reads of the state (input
// schemas, private channels). Python's type hints are our `node_options::input_keys` and the
// router's input keys.
#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

node_options reads(std::vector<std::string> keys) {
  node_options o;
  o.input_keys = std::move(keys);
  return o;
}

}  // namespace

// libs/langgraph/tests/test_state.py::test_state_schema_with_type_hint (a node without a hint
// reads the state schema, {"question"}; FooState adds the private key "foo")
BOOST_AUTO_TEST_CASE(test_state_schema_with_type_hint) {
  state_graph graph;
  graph.add_key("question").add_key("input_state");
  graph.set_input_keys({"question"}).set_output_keys({"input_state"});
  auto to_output = [](const value& s, node_context&) -> value {
    return object{{"input_state", s}};
  };
  auto pre = [](const value&, node_context&) -> value { return object{{"foo", "bar"}}; };
  auto pop_foo = [](const value& s, node_context&) -> value {
    if (s.get("foo") != value("bar")) throw std::runtime_error("no foo in " + s.to_json());
    object o = s.as_object();
    o.erase("foo");
    return object{{"input_state", value(std::move(o))}};
  };
  const std::vector<std::string> names = {"complete_hint", "miss_first_hint", "only_return_hint",
                                          "miss_all_hint", "pre_foo",         "Foo",
                                          "pre_bar",       "my_node"};
  graph.add_node("complete_hint", to_output, reads({"question"}));
  graph.add_node("miss_first_hint", to_output, reads({"question"}));
  graph.add_node("only_return_hint", to_output, reads({"question"}));
  graph.add_node("miss_all_hint", to_output, reads({"question"}));
  graph.add_node("pre_foo", pre, reads({"question"}));
  graph.add_node("Foo", pop_foo, reads({"question", "foo"}));
  graph.add_node("pre_bar", pre, reads({"question"}));
  graph.add_node("my_node", pop_foo, reads({"question", "foo"}));
  graph.set_entry_point(names.front());
  for (std::size_t i = 0; i + 1 < names.size(); ++i) graph.add_edge(names[i], names[i + 1]);
  graph.set_finish_point(names.back());
  auto app = graph.compile(opts());

  std::vector<value> chunks;
  app->stream(J(R"({"question":"Hello World!"})"), value(),
              stream_options{{stream_mode::updates}, false},
              [&](const stream_event& e) { chunks.push_back(e.data); });
  BOOST_TEST_REQUIRE(chunks.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    value expected = names[i] == "pre_foo" || names[i] == "pre_bar"
                         ? J(R"({"foo":"bar"})")
                         : J(R"({"input_state":{"question":"Hello World!"}})");
    BOOST_TEST(chunks[i].get(names[i]) == expected, names[i] << ": " << chunks[i].to_json());
  }
}

// libs/langgraph/tests/test_state.py::test_input_schema_conditional_edge
BOOST_AUTO_TEST_CASE(test_input_schema_conditional_edge) {
  state_graph builder;
  builder.add_key("foo", "add").add_key("bar");
  builder.add_node(
      "node_1", [](const value&, node_context&) -> value { return J(R"({"foo":1,"baz":"bar"})"); });
  builder.add_node(
      "node_2",
      [](const value& s, node_context&) -> value {
        return object{{"foo", 1}, {"bar", s.get("baz")}, {"something_else", "meow"}};
      },
      reads({"baz"}));
  builder.add_node("node_3",
                   [](const value&, node_context&) -> value { return J(R"({"foo":1})"); });
  builder.add_conditional_edges(
      "node_2",
      [](const value& s, node_context&) -> value {
        if (s != J(R"({"foo":2,"bar":"bar"})"))
          throw std::runtime_error("router got " + s.to_json());
        return s.get("foo") == value(2) ? value("node_3") : value(std::string(END));
      },
      {}, std::vector<std::string>{"foo", "bar"});
  builder.add_edge("__start__", "node_1");
  builder.add_edge("node_1", "node_2");
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(J(R"({"foo":0})")) == J(R"({"foo":3,"bar":"bar"})"));
}

// libs/langgraph/tests/test_state.py::test_private_input_schema_conditional_edge
BOOST_AUTO_TEST_CASE(test_private_input_schema_conditional_edge) {
  state_graph builder;
  builder.add_key("foo", "add").add_key("bar");
  builder.add_node("node_1", [](const value&, node_context&) -> value {
    return J(R"({"foo":1,"baz":"meow"})");
  });
  builder.add_node(
      "node_2",
      [](const value& s, node_context&) -> value {
        return object{{"foo", 1}, {"bar", s.get("baz")}};
      },
      reads({"foo", "baz"}));
  builder.add_conditional_edges(
      "node_1",
      [](const value& s, node_context&) -> value {
        if (s != J(R"({"baz":"meow"})")) throw std::runtime_error("router got " + s.to_json());
        return s.get("baz") == value("meow") ? value("node_2") : value(std::string(END));
      },
      {}, std::vector<std::string>{"baz"});
  builder.add_edge("__start__", "node_1");
  auto graph = builder.compile(opts());
  BOOST_TEST(graph->invoke(J(R"({"foo":0})")) == J(R"({"foo":2,"bar":"meow"})"));
}
