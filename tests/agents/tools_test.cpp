// Tools by name, and how the tool node checks a model's arguments against a tool's schema.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <thread>

#include "superstep/agents/messages.hpp"
#include "superstep/agents/tool.hpp"
#include "superstep/agents/tool_node.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::agents;

namespace {

tool echo(std::string name,
          value parameters = value(object{{"type", "object"}, {"properties", object{}}})) {
  tool t;
  t.name = std::move(name);
  t.parameters = std::move(parameters);
  t.function = [](const value& args, tool_runtime&) { return args; };
  return t;
}

template <class F>
void check_error(F f, error_code code, std::string_view part) {
  try {
    f();
    BOOST_FAIL("expected an error containing " << part);
  } catch (const error& e) {
    BOOST_TEST(e.code() == code);
    BOOST_TEST(std::string(e.what()).find(part) != std::string::npos, e.what());
  }
}

// The content the tool node answers a call of `t` with `args`.
std::string answer(const tool& t, value args) {
  const value result =
      tool_node({t}).invoke(list{tool_call{t.name, std::move(args), "c"}.to_value()});
  return result.get("messages").as_list().at(0).get("content").is_string()
             ? result.get("messages").as_list().at(0).get("content").as_string()
             : result.get("messages").as_list().at(0).get("content").to_json();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_registry_finds_tools_by_name_and_refuses_duplicates) {
  tool_registry r;
  r.add(echo("b"));
  r.add(echo("a"));
  BOOST_TEST(r.has("a"));
  BOOST_TEST(!r.has("c"));
  BOOST_TEST((r.names() == std::vector<std::string>{"a", "b"}));
  const auto tools = r.get_all({"b", "a"});
  BOOST_TEST_REQUIRE(tools.size() == 2u);
  BOOST_TEST(tools[0].name == "b");
  check_error([&] { r.add(echo("a")); }, error_code::invalid_argument, "'a' is already registered");
  check_error([&] { r.add(echo("")); }, error_code::invalid_argument, "needs a name");
  tool no_function;
  no_function.name = "x";
  check_error([&] { r.add(no_function); }, error_code::invalid_argument,
              "tool 'x' has no function");
  check_error([&] { r.get("c"); }, error_code::unknown_function,
              "unknown tool 'c' (registered: a, b)");
  check_error(
      [&] {
        tool_node({echo("a"), echo("a")});
      },
      error_code::invalid_argument, "two tools are named 'a'");
}

BOOST_AUTO_TEST_CASE(checks_arguments_with_pydantics_words) {
  const tool t = echo("t", value::parse_json(R"({"type": "object", "properties": {
      "n": {"type": "integer"}, "s": {"type": "string"}, "unit": {"enum": ["c", "f"]},
      "days": {"type": "array", "items": {"type": "string"}},
      "opt": {"type": ["string", "null"]}},
    "required": ["n"], "additionalProperties": false})"));
  BOOST_TEST(answer(t, object{{"n", 1}, {"opt", value()}}) == R"({"n": 1, "opt": null})");
  const std::string bad =
      answer(t, object{{"n", "one"}, {"s", 2}, {"unit", "k"}, {"days", list{"mon", 3}}, {"x", 1}});
  BOOST_TEST(bad.starts_with("Error invoking tool 't' with kwargs {'n': 'one', 's': 2, 'unit': "
                             "'k', 'days': ['mon', 3], "
                             "'x': 1} with error:\n"),
             bad);
  for (const char* line :
       {"n: Input should be a valid integer", "s: Input should be a valid string",
        "unit: Input should be 'c' or 'f'", "days.1: Input should be a valid string",
        "x: Extra inputs are not permitted"})
    BOOST_TEST(bad.find(line) != std::string::npos, line << " not in " << bad);
  BOOST_TEST(answer(t, object{}).find("n: Field required") != std::string::npos);
  // A whole number written as a real is an integer, as pydantic takes it.
  BOOST_TEST(answer(t, object{{"n", 2.0}}) == R"({"n": 2.0})");
}

BOOST_AUTO_TEST_CASE(writes_answers_as_python_would) {
  const tool t = echo("t");
  BOOST_TEST(answer(t, object{{"q", "it's \"quoted\""}, {"b", true}, {"z", value()}}) ==
             R"({"q": "it's \"quoted\"", "b": true, "z": null})");
  tool text = echo("text");
  text.function = [](const value&, tool_runtime&) -> value { return "plain"; };
  BOOST_TEST(answer(text, object{}) == "plain");
  // The kwargs of an error show Python's repr: quotes chosen as Python chooses them.
  const tool strict = echo(
      "strict", value::parse_json(R"({"type":"object","properties":{"a":{"type":"integer"}}})"));
  BOOST_TEST(answer(strict, object{{"a", "it's"}}).find(R"({'a': "it's"})") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tools_condition_routes_on_the_last_ai_message) {
  const value with_calls = ai_message("", {tool_call{"t", object{}, "c"}});
  BOOST_TEST(tools_condition(object{{"messages", list{human_message("q"), with_calls}}}) ==
             "tools");
  BOOST_TEST(tools_condition(list{human_message("q"), ai_message("done")}) == "__end__");
  BOOST_TEST(tools_condition(object{{"chat", list{with_calls}}}, "chat") == "tools");
  check_error(
      [] {
        tools_condition(object{{"messages", list{}}});
      },
      error_code::invalid_argument, "no messages found in input state under 'messages'");
}

BOOST_AUTO_TEST_CASE(thousands_of_parallel_calls_share_a_few_threads) {
  // One thread per call was 3,000 threads ("Resource temporarily unavailable"); a few threads
  // take the calls in turn, and every answer comes back in the calls' order.
  std::atomic<int> running{0}, most{0};
  tool slow = echo("slow");
  slow.function = [&](const value& args, tool_runtime&) {
    const int now = ++running;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    --running;
    return args;
  };
  list calls;
  for (int i = 0; i < 3000; ++i)
    calls.push_back(tool_call{"slow", object{{"i", i}}, "c" + std::to_string(i)}.to_value());
  const value result = tool_node({slow}).invoke(std::move(calls));
  const list& messages = result.get("messages").as_list();
  BOOST_TEST_REQUIRE(messages.size() == 3000u);
  for (int i = 0; i < 3000; i += 999)
    BOOST_TEST(messages.at(std::size_t(i)).get("tool_call_id").as_string() ==
               "c" + std::to_string(i));
  BOOST_TEST(most.load() > 1);
  BOOST_TEST(most.load() <= 16);
}
