// libs/langgraph/tests/test_messages_state.py: the add_messages reducer and a messages state.
// LangChain messages are objects {"type", "content", "id"}; RemoveMessage(id) is
// {"type": "remove", "id": id}.
#include "conformance.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value message(std::string type, std::string content, std::optional<std::string> id) {
  object o{{"type", std::move(type)}, {"content", std::move(content)}};
  if (id) o.set("id", *id);
  return value(std::move(o));
}
value human(std::string content, std::optional<std::string> id = std::nullopt) {
  return message("human", std::move(content), std::move(id));
}
value ai(std::string content, std::optional<std::string> id = std::nullopt) {
  return message("ai", std::move(content), std::move(id));
}
value system(std::string content, std::optional<std::string> id = std::nullopt) {
  return message("system", std::move(content), std::move(id));
}
value remove_message(std::string id) { return object{{"type", "remove"}, {"id", std::move(id)}}; }
value msgs(std::initializer_list<value> items) { return value(list(items)); }

value add_messages(const value& left, const value& right) {
  return channels::builtin_reducer("add_messages")->apply(left, std::span<const value>(&right, 1));
}

bool is_uuid(const value& id) {
  if (!id.is_string() || id.as_string().size() != 36) return false;
  const std::string& s = id.as_string();
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// `m` is a human message with `content` and any id (LangGraph's _AnyIdHumanMessage).
bool any_id_human(const value& m, std::string_view content) {
  return m.get("type") == value("human") && m.get("content") == value(content) &&
         m.get("id").is_string();
}

}  // namespace

// libs/langgraph/tests/test_messages_state.py::test_add_single_message
BOOST_AUTO_TEST_CASE(test_add_single_message) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1")}), ai("Hi there!", "2")) ==
             msgs({human("Hello", "1"), ai("Hi there!", "2")}));
}

// libs/langgraph/tests/test_messages_state.py::test_add_multiple_messages
BOOST_AUTO_TEST_CASE(test_add_multiple_messages) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1")}),
                          msgs({ai("Hi there!", "2"), system("System message", "3")})) ==
             msgs({human("Hello", "1"), ai("Hi there!", "2"), system("System message", "3")}));
}

// libs/langgraph/tests/test_messages_state.py::test_update_existing_message
BOOST_AUTO_TEST_CASE(test_update_existing_message) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1")}), human("Hello again", "1")) ==
             msgs({human("Hello again", "1")}));
}

// libs/langgraph/tests/test_messages_state.py::test_missing_ids
BOOST_AUTO_TEST_CASE(test_missing_ids) {
  value result = add_messages(msgs({human("Hello")}), msgs({ai("Hi there!")}));
  BOOST_TEST_REQUIRE(result.as_list().size() == 2u);
  for (const auto& m : result.as_list()) BOOST_TEST(is_uuid(m.get("id")), m.to_json());
}

// libs/langgraph/tests/test_messages_state.py::test_duplicates_in_input
BOOST_AUTO_TEST_CASE(test_duplicates_in_input) {
  value result = add_messages(msgs({}), msgs({ai("Hi there!", "1"), ai("Hi there again!", "1")}));
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  BOOST_TEST(result.as_list()[0].get("id") == value("1"));
  BOOST_TEST(result.as_list()[0].get("content") == value("Hi there again!"));
}

// libs/langgraph/tests/test_messages_state.py::test_duplicates_in_input_with_remove
BOOST_AUTO_TEST_CASE(test_duplicates_in_input_with_remove) {
  value result =
      add_messages(msgs({ai("Hello!", "1")}),
                   msgs({remove_message("1"), ai("Hi there!", "1"), ai("Hi there again!", "1")}));
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  BOOST_TEST(result.as_list()[0].get("id") == value("1"));
  BOOST_TEST(result.as_list()[0].get("content") == value("Hi there again!"));
}

// libs/langgraph/tests/test_messages_state.py::test_remove_message
BOOST_AUTO_TEST_CASE(test_remove_message) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1"), ai("Hi there!", "2")}), remove_message("2")) ==
             msgs({human("Hello", "1")}));
}

// libs/langgraph/tests/test_messages_state.py::test_duplicate_remove_message
BOOST_AUTO_TEST_CASE(test_duplicate_remove_message) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1"), ai("Hi there!", "2")}),
                          msgs({remove_message("2"), remove_message("2")})) ==
             msgs({human("Hello", "1")}));
}

// libs/langgraph/tests/test_messages_state.py::test_remove_nonexistent_message
BOOST_AUTO_TEST_CASE(test_remove_nonexistent_message) {
  test::expect_error([] { (void)add_messages(msgs({human("Hello", "1")}), remove_message("2")); },
                     error_code::invalid_update, "cannot remove message with id '2'");
}

// libs/langgraph/tests/test_messages_state.py::test_mixed_operations
BOOST_AUTO_TEST_CASE(test_mixed_operations) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1"), ai("Hi there!", "2")}),
                          msgs({human("Updated hello", "1"), remove_message("2"),
                                system("New message", "3")})) ==
             msgs({human("Updated hello", "1"), system("New message", "3")}));
}

// libs/langgraph/tests/test_messages_state.py::test_empty_inputs
BOOST_AUTO_TEST_CASE(test_empty_inputs) {
  BOOST_TEST(add_messages(msgs({}), msgs({})) == msgs({}));
  BOOST_TEST(add_messages(msgs({}), msgs({human("Hello", "1")})) == msgs({human("Hello", "1")}));
  BOOST_TEST(add_messages(msgs({human("Hello", "1")}), msgs({})) == msgs({human("Hello", "1")}));
}

// libs/langgraph/tests/test_messages_state.py::test_non_list_inputs
BOOST_AUTO_TEST_CASE(test_non_list_inputs) {
  BOOST_TEST(add_messages(human("Hello", "1"), ai("Hi there!", "2")) ==
             msgs({human("Hello", "1"), ai("Hi there!", "2")}));
}

// libs/langgraph/tests/test_messages_state.py::test_delete_all
BOOST_AUTO_TEST_CASE(test_delete_all) {
  BOOST_TEST(add_messages(msgs({human("Hello", "1"), ai("Hi there!", "2")}),
                          msgs({remove_message("1"), remove_message("2")})) == msgs({}));
}

// libs/langgraph/tests/test_messages_state.py::test_messages_state (MessagesState and its
// pydantic twin are the same state here; a ("user", text) tuple is a two-item list)
BOOST_AUTO_TEST_CASE(test_messages_state) {
  state_graph graph;
  graph.add_key("messages", "add_messages");
  graph.add_edge(std::string(START), "foo");
  graph.add_edge("foo", std::string(END));
  graph.add_node("foo", [](const value&, node_context&) -> value {
    return object{{"messages", msgs({human("foo")})}};
  });
  auto app = graph.compile(opts());
  value out = app->invoke(object{{"messages", msgs({value::array({"user", "meow"})})}});
  BOOST_TEST_REQUIRE(out.as_object().size() == 1u, out.to_json());
  const value& messages = out.get("messages");
  BOOST_TEST_REQUIRE(messages.as_list().size() == 2u, out.to_json());
  BOOST_TEST(any_id_human(messages.as_list()[0], "meow"), out.to_json());
  BOOST_TEST(any_id_human(messages.as_list()[1], "foo"), out.to_json());
}

// libs/langgraph/tests/test_messages_state.py::test_remove_all_messages
BOOST_AUTO_TEST_CASE(test_remove_all_messages) {
  const std::string all = "__remove_all__";  // LangGraph REMOVE_ALL_MESSAGES
  BOOST_TEST(add_messages(msgs({human("Hello"), ai("Hi there!")}), msgs({remove_message(all)})) ==
             msgs({}));
  value result = add_messages(msgs({human("Hello"), ai("Hi there!")}),
                              msgs({remove_message(all), human("Updated hello")}));
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  BOOST_TEST(any_id_human(result.as_list()[0], "Updated hello"), result.to_json());
  result =
      add_messages(msgs({human("Hello"), ai("Hi there!")}),
                   msgs({human("Updated hello"), remove_message(all), human("Updated hi there")}));
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  BOOST_TEST(any_id_human(result.as_list()[0], "Updated hi there"), result.to_json());
}

// libs/langgraph/tests/test_messages_state.py::test_push_messages_in_graph
BOOST_AUTO_TEST_CASE(test_push_messages_in_graph) {
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node("chat", [](const value&, node_context& ctx) -> value {
    test::expect_error([&] { ctx.push_message(ai("No ID")); }, error_code::invalid_argument,
                       "Message ID is required");
    ctx.push_message(ai("First", "1"));
    ctx.push_message(human("Second", "2"));
    ctx.push_message(ai("Third", "3"));
    return value();
  });
  builder.add_edge(std::string(START), "chat");
  auto graph = builder.compile(opts());
  list messages;
  value values;
  graph->stream(object{{"messages", list{}}}, value(),
                stream_options{{stream_mode::messages, stream_mode::values}, false},
                [&](const stream_event& e) {
                  if (e.mode == stream_mode::values) values = e.data;
                  if (e.mode == stream_mode::messages) messages.push_back(e.data.as_list()[0]);
                });
  BOOST_TEST(values.get("messages") == value(messages), values.to_json());
  BOOST_TEST(value(messages) == msgs({ai("First", "1"), human("Second", "2"), ai("Third", "3")}));
}
