// Chat messages as values and their OpenAI chat-completions form.
#include "superstep/agents/messages.hpp"

#include <boost/test/unit_test.hpp>

#include "superstep/channels/reducer.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::agents;

namespace {

template <class F>
void check_error(F f, error_code code, std::string_view needle) {
  try {
    f();
    BOOST_FAIL("expected an error containing '" << needle << "'");
  } catch (const error& e) {
    BOOST_TEST(e.code() == code);
    BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos, e.what());
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(builds_messages_as_langchain_dicts) {
  BOOST_TEST(human_message("hi", "1") ==
             value(object{{"type", "human"}, {"content", "hi"}, {"id", "1"}}));
  BOOST_TEST(system_message("be brief") ==
             value(object{{"type", "system"}, {"content", "be brief"}}));
  const value ai =
      ai_message("", {tool_call{"add", object{{"a", 1}}, "call_1"}}, "a1", usage_metadata{3, 4, 7});
  BOOST_TEST(ai.get("type") == value("ai"));
  BOOST_TEST(
      ai.get("tool_calls") ==
      value(list{object{
          {"name", "add"}, {"args", object{{"a", 1}}}, {"id", "call_1"}, {"type", "tool_call"}}}));
  BOOST_TEST(ai.get("usage_metadata") ==
             value(object{{"input_tokens", 3}, {"output_tokens", 4}, {"total_tokens", 7}}));
  BOOST_TEST(ai_message("plain").get("tool_calls") == value(list{}));
  const value tool = tool_message("3", "call_1", "add");
  BOOST_TEST(tool == value(object{{"type", "tool"},
                                  {"content", "3"},
                                  {"tool_call_id", "call_1"},
                                  {"name", "add"},
                                  {"status", "success"}}));
  BOOST_TEST(remove_message("1") == value(object{{"type", "remove"}, {"id", "1"}}));
}

BOOST_AUTO_TEST_CASE(reads_tool_calls_and_text) {
  tool_call call;
  call.name = "f";
  call.id = "x";
  const value ai =
      ai_message(list{object{{"type", "text"}, {"text", "a"}}, object{{"type", "image_url"}},
                      object{{"type", "text"}, {"text", "b"}}},
                 {call});
  BOOST_TEST(message_text(ai) == "ab");
  BOOST_TEST(tool_calls_of(ai).size() == 1u);
  BOOST_TEST(tool_calls_of(ai)[0].name == "f");
  BOOST_TEST(tool_calls_of(human_message("hi")).empty());
  BOOST_TEST(is_ai_message(value(object{{"type", "AIMessageChunk"}, {"content", ""}})));
  check_error(
      [] {
        tool_calls_of(value(object{{"type", "ai"}, {"tool_calls", list{1}}}));
      },
      error_code::invalid_argument, "tool call must be an object");
  check_error(
      [] {
        tool_call::from_value(object{{"args", object{}}});
      },
      error_code::invalid_argument, "no string \"name\"");
}

BOOST_AUTO_TEST_CASE(converts_inputs_as_convert_to_messages) {
  const list one = to_messages("hello");
  BOOST_TEST(value(one) == value(list{object{{"type", "human"}, {"content", "hello"}}}));
  const list pair = to_messages(list{"system", "be brief"});
  BOOST_TEST(value(pair) == value(list{object{{"type", "system"}, {"content", "be brief"}}}));
  const list mixed = to_messages(list{
      list{"user", "a"}, object{{"role", "assistant"}, {"content", "b"}}, human_message("c", "3")});
  BOOST_TEST_REQUIRE(mixed.size() == 3u);
  BOOST_TEST(message_type(mixed[0]) == "human");
  BOOST_TEST(message_type(mixed[1]) == "ai");
  BOOST_TEST(mixed[2].get("id") == value("3"));
  check_error([] { to_messages(list{42}); }, error_code::invalid_argument, "not a message");
  check_error(
      [] {
        to_messages(list{list{"wizard", "x"}});
      },
      error_code::invalid_argument, "unknown message role 'wizard'");
}

BOOST_AUTO_TEST_CASE(writes_the_openai_chat_form) {
  const list messages{system_message("sys"), human_message("q", "h1"),
                      ai_message("", {tool_call{"add", object{{"a", 1}, {"b", 2}}, "c1"}}),
                      tool_message("3", "c1", "add"), ai_message("done")};
  const value openai = to_openai_messages(messages);
  BOOST_TEST(openai ==
             value(list{
                 object{{"role", "system"}, {"content", "sys"}},
                 object{{"role", "user"}, {"content", "q"}},
                 object{{"role", "assistant"},
                        {"content", value()},
                        {"tool_calls",
                         list{object{{"id", "c1"},
                                     {"type", "function"},
                                     {"function", object{{"name", "add"},
                                                         {"arguments", R"({"a":1,"b":2})"}}}}}}},
                 object{{"role", "tool"}, {"content", "3"}, {"tool_call_id", "c1"}},
                 object{{"role", "assistant"}, {"content", "done"}},
             }));
  check_error([] { to_openai_message(remove_message("1")); }, error_code::invalid_argument,
              "type 'remove' has no OpenAI role");
  check_error(
      [] {
        to_openai_message(value(object{{"type", "tool"}, {"content", "x"}}));
      },
      error_code::invalid_argument, "tool_call_id");
}

BOOST_AUTO_TEST_CASE(reads_the_openai_chat_form_back) {
  const list messages{system_message("sys"), human_message("q"),
                      ai_message("", {tool_call{"add", object{{"a", 1}}, "c1"}}),
                      tool_message("3", "c1")};
  for (const value& m : messages) {
    value back = from_openai_message(to_openai_message(m));
    BOOST_TEST(back == m, back << " != " << m);
  }
  const value bad = from_openai_message(object{
      {"role", "assistant"},
      {"content", value()},
      {"tool_calls",
       list{object{{"id", "c1"}, {"function", object{{"name", "f"}, {"arguments", "{oops"}}}},
            object{{"id", "c2"}, {"function", object{{"name", "g"}, {"arguments", "{}"}}}}}}});
  BOOST_TEST(bad.get("content") == value(""));
  BOOST_TEST(tool_calls_of(bad).size() == 1u);
  BOOST_TEST(tool_calls_of(bad)[0].name == "g");
  BOOST_TEST_REQUIRE(bad.get("invalid_tool_calls").is_list());
  BOOST_TEST(bad.get("invalid_tool_calls").as_list()[0].get("args") == value("{oops"));
  check_error(
      [] {
        from_openai_message(object{{"role", "wizard"}, {"content", ""}});
      },
      error_code::invalid_argument, "role 'wizard'");
  check_error(
      [] {
        from_openai_message(object{{"content", ""}});
      },
      error_code::invalid_argument, "no string \"role\"");
}

BOOST_AUTO_TEST_CASE(messages_fold_through_add_messages) {
  const auto& reducer = *channels::builtin_reducer("add_messages");
  value state = list{human_message("q", "1"), ai_message("a", {}, "2")};
  const value update = list{remove_message("1"), tool_message("t", "c", "f", "success", "3")};
  state = reducer.apply(state, std::span<const value>(&update, 1));
  BOOST_TEST_REQUIRE(state.as_list().size() == 2u);
  BOOST_TEST(state.as_list()[0].get("id") == value("2"));
  const value all = list{remove_message(std::string(remove_all_messages_id))};
  state = reducer.apply(state, std::span<const value>(&all, 1));
  BOOST_TEST(state == value(list{}));
}
