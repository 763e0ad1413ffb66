// libs/langgraph/tests/test_pregel.py: node input schemas, UntrackedValue keys and a state of
// one value (a root channel), the state_graph API of issue 13 item 3.
#include "conformance.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

// The updates stream of a run, as LangGraph's `graph.stream(input)` yields it.
std::vector<value> updates(const pregel& g, const value& input, const value& config = value()) {
  std::vector<value> out;
  g.stream(input, config, stream_options{{stream_mode::updates}, false},
           [&](const stream_event& e) { out.push_back(e.data); });
  return out;
}

// A human message "hello" as add_messages stores it, whatever id it got.
bool is_human_hello(const value& messages) {
  return messages.is_list() && messages.as_list().size() == 1 &&
         messages.as_list()[0].get("type") == value("human") &&
         messages.as_list()[0].get("content") == value("hello") &&
         messages.as_list()[0].get("id").is_string();
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_node_schemas_custom_output
BOOST_AUTO_TEST_CASE(test_node_schemas_custom_output) {
  auto build = [] {
    state_graph b;
    b.add_key("hello").add_key("bye").add_key("messages", "add_messages");
    b.set_output_keys({"messages"});
    node_options for_a, for_b, for_c;
    for_a.input_keys = {"hello", "messages"};
    for_b.input_keys = {"bye", "now"};
    for_c.input_keys = {"hello", "now"};
    b.add_node(
        "a",
        [](const value& s, node_context&) -> value {
          if (s.as_object().size() != 2 || s.get("hello") != value("there") ||
              !is_human_hello(s.get("messages")))
            throw std::runtime_error("a got " + s.to_json());
          return value();
        },
        for_a);
    b.add_node(
        "b",
        [](const value& s, node_context&) -> value {
          if (s != J(R"({"bye":"world"})")) throw std::runtime_error("b got " + s.to_json());
          return J(R"({"now":123,"hello":"again"})");
        },
        for_b);
    b.add_node(
        "c",
        [](const value& s, node_context&) -> value {
          if (s != J(R"({"hello":"again","now":123})"))
            throw std::runtime_error("c got " + s.to_json());
          return value();
        },
        for_c);
    b.add_edge(std::string(START), "a").add_edge("a", "b").add_edge("b", "c");
    return b.compile(opts());
  };
  auto g = build();
  value out = g->invoke(J(R"({"hello":"there","bye":"world","messages":"hello"})"));
  BOOST_TEST(out.as_object().size() == 1u, out.to_json());
  BOOST_TEST(is_human_hello(out.get("messages")), out.to_json());

  // "now" is no key of the input schema: ignored
  g = build();
  value in = J(R"({"hello":"there","bye":"world","messages":"hello","now":345})");
  out = g->invoke(in);
  BOOST_TEST(out.as_object().size() == 1u, out.to_json());
  BOOST_TEST(is_human_hello(out.get("messages")), out.to_json());
  auto events = updates(*g, in);
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[0] == J(R"({"a":null})"), events[0].to_json());
  BOOST_TEST(events[1] == J(R"({"b":{"hello":"again","now":123}})"), events[1].to_json());
  BOOST_TEST(events[2] == J(R"({"c":null})"), events[2].to_json());
}

// libs/langgraph/tests/test_pregel.py::test_reducer_before_first_node (the three State
// classes differ only in Python types: one case)
BOOST_AUTO_TEST_CASE(test_reducer_before_first_node) {
  state_graph b;
  b.add_key("hello").add_key("messages", "add_messages");
  b.add_node("a", [](const value& s, node_context&) -> value {
    if (s.get("hello") != value("there") || !is_human_hello(s.get("messages")))
      throw std::runtime_error("a got " + s.to_json());
    return value();
  });
  b.set_entry_point("a").set_finish_point("a");
  value out = b.compile(opts())->invoke(J(R"({"hello":"there","messages":"hello"})"));
  BOOST_TEST(out.get("hello") == value("there"));
  BOOST_TEST(is_human_hello(out.get("messages")), out.to_json());
}

// libs/langgraph/tests/test_pregel.py::test_send_with_untracked_value (the resource: an object
// the checkpoint must not hold)
BOOST_AUTO_TEST_CASE(test_send_with_untracked_value) {
  state_graph b;
  b.add_key("messages", "add").add_untracked_key("session_resource");
  b.add_node("setup", [](const value&, node_context&) -> value {
    return J(R"({"messages":["setup complete"],"session_resource":{"name":"test_session"}})");
  });
  b.add_node("tool_node", [](const value& s, node_context&) -> value {
    const value& resource = s.get("session_resource");
    if (resource.get("name") != value("test_session"))
      throw std::runtime_error("tool_node got " + s.to_json());
    return object{{"messages", value::array({"tool used resource: test_session"})},
                  {"session_resource", object{{"name", "new_session"}}}};
  });
  b.add_edge(std::string(START), "setup");
  b.add_conditional_edges("setup", [](const value& s, node_context&) -> value {
    return value::array({make_send("tool_node", s)});
  });
  auto app = b.compile(opts_with_saver());
  value config = thread("1");
  value result = app->invoke(object{}, config);
  BOOST_TEST(
      result.get("messages") == J(R"(["setup complete","tool used resource: test_session"])"),
      result.to_json());
  BOOST_TEST(result.get("session_resource").get("name") == value("new_session"));
  state_snapshot state = app->get_state(config);
  BOOST_TEST(!state.values.find("session_resource"), state.values.to_json());
}

// libs/langgraph/tests/test_pregel.py::test_send_with_untracked_value_overlapping_keys
BOOST_AUTO_TEST_CASE(test_send_with_untracked_value_overlapping_keys) {
  state_graph b;
  b.add_key("dictionary").add_untracked_key("session_resource");
  b.add_node("setup", [](const value&, node_context&) -> value { return object{}; });
  b.add_node("tool_node", [](const value& s, node_context&) -> value {
    if (s.get("dictionary") != J(R"({"session_resource":"legal_value"})") ||
        s.get("session_resource") != value("illegal_value"))
      throw std::runtime_error("tool_node got " + s.to_json());
    return object{{"dictionary", s.get("dictionary")}, {"session_resource", "new_illegal_value"}};
  });
  b.add_edge(std::string(START), "setup");
  b.add_conditional_edges("setup", [](const value&, node_context&) -> value {
    return value::array(
        {make_send("tool_node", J(R"({"dictionary":{"session_resource":"legal_value"},
                                      "session_resource":"illegal_value"})"))});
  });
  auto app = b.compile(opts_with_saver());
  value config = thread("1");
  value result = app->invoke(object{}, config);
  BOOST_TEST(result.get("session_resource") == value("new_illegal_value"), result.to_json());
  state_snapshot state = app->get_state(config);
  BOOST_TEST(!state.values.find("session_resource"), state.values.to_json());
  BOOST_TEST(state.values.get("dictionary") == J(R"({"session_resource":"legal_value"})"));
}

// libs/langgraph/tests/test_pregel.py::test_root_mixed_return
BOOST_AUTO_TEST_CASE(test_root_mixed_return) {
  state_graph b;
  b.add_key(std::string(ROOT), "add");
  b.add_node("my_node", [](const value&, node_context&) -> value {
    command c;
    c.update = value::array({"a"});
    return value::array({make_command(c), value::array({"b"})});
  });
  b.add_edge(std::string(START), "my_node");
  BOOST_TEST(b.compile(opts())->invoke(value(list{})) == J(R"(["a","b"])"));
}

// libs/langgraph/tests/test_pregel.py::test_dict_mixed_return
BOOST_AUTO_TEST_CASE(test_dict_mixed_return) {
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("my_node", [](const value&, node_context&) -> value {
    command c;
    c.update = object{{"foo", "a"}};
    return value::array({make_command(c), object{{"foo", "b"}}});
  });
  b.add_edge(std::string(START), "my_node");
  BOOST_TEST(b.compile(opts())->invoke(object{{"foo", ""}}) == J(R"({"foo":"ab"})"));
}

// libs/langgraph/tests/test_state.py::test_input_schema_conditional_edge lives in
// state_test.cpp; here: the API's own errors for a root state. Beside other keys, ROOT is an
// ordinary key (LangGraph's test_large_cases.py::test_root_graph, MoreState).
BOOST_AUTO_TEST_CASE(root_state_takes_no_schemas) {
  state_graph b;
  b.add_key(std::string(ROOT), "add").add_key("x");
  b.add_node("n", [](const value&, node_context&) -> value { return object{{"x", 1}}; });
  b.add_edge(std::string(START), "n");
  BOOST_TEST(b.compile(opts())->invoke(object{{std::string(ROOT), list{1}}}) ==
             J(R"({"__root__":[1],"x":1})"));
  state_graph c;
  c.add_key(std::string(ROOT), "add");
  node_options o;
  o.input_keys = {"x"};
  c.add_node(
      "n", [](const value& v, node_context&) { return v; }, o);
  c.add_edge(std::string(START), "n");
  test::expect_error([&] { c.compile(opts()); }, error_code::invalid_graph,
                     "node 'n' has an input schema, but the state is one value");
}

// Not a LangGraph test: what the root-state API promises beside the runs above. Snapshots and
// `values` events show the value itself (LangGraph's single stream channel), and a router
// reads it too.
BOOST_AUTO_TEST_CASE(root_state_snapshots_values_and_routers_see_the_value_itself) {
  state_graph b;
  b.add_key(std::string(ROOT), "add");
  b.add_node("a", [](const value& s, node_context&) -> value {
    return value::array({"a" + std::to_string(s.as_list().size())});
  });
  b.add_edge(std::string(START), "a");
  b.add_conditional_edges("a", [](const value& s, node_context&) -> value {
    return value(s.as_list().size() < 3 ? "a" : std::string(END));
  });
  auto app = b.compile(opts_with_saver());
  std::vector<value> values;
  value out = app->stream(J(R"(["x"])"), thread("1"), stream_options{{stream_mode::values}, false},
                          [&](const stream_event& e) { values.push_back(e.data); });
  BOOST_TEST(out == J(R"(["x","a1","a2"])"));
  BOOST_TEST(value(list(values.begin(), values.end())) ==
             J(R"([["x"],["x","a1"],["x","a1","a2"]])"));
  BOOST_TEST(app->get_state(thread("1")).values == J(R"(["x","a1","a2"])"));
}
