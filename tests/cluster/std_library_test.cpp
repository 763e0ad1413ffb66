// The functions of the `std` library, called directly with a test node context.
#include "superstep/cluster/std_library.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>

#include "superstep/cluster/function_params.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

using namespace superstep;
using namespace superstep::cluster;

namespace {

class test_context final : public node_context {
 public:
  explicit test_context(std::string node = "n", value config = value(object{}))
      : node_(std::move(node)), config_(std::move(config)) {}

  const value& config() const noexcept override { return config_; }
  std::string_view node() const noexcept override { return node_; }
  std::string_view task_id() const noexcept override { return "task"; }
  std::int64_t step() const noexcept override { return 0; }
  std::int64_t remaining_steps() const noexcept override { return 25; }
  std::string_view checkpoint_ns() const noexcept override { return ""; }
  value interrupt(value v) override {
    asked.push_back(v);
    if (answers.empty()) throw error(error_code::interrupted, v.to_json());
    value a = answers.front();
    answers.erase(answers.begin());
    return a;
  }
  void emit_custom(value data) override { custom.push_back(std::move(data)); }
  void emit_message(value) override {}

  std::vector<value> custom;
  std::vector<value> asked;    // what interrupt() was called with
  std::vector<value> answers;  // what it returns, in order; empty: it interrupts

 private:
  std::string node_;
  value config_;
};

value json(const std::string& text) { return value::parse_json(text); }

struct std_fixture {
  std_fixture() { register_std_library(registry); }

  value call(const std::string& fn, const std::string& params, const value& input) {
    return registry.make_node(fn, json(params))(input, ctx);
  }
  value route(const std::string& fn, const std::string& params, const value& state) {
    return registry.make_router(fn, json(params))(state, ctx);
  }
  // The param an invalid_param names when `fn` is made with `params`.
  std::string bad_param(const std::string& fn, const std::string& params) {
    try {
      if (registry.has_router(fn))
        registry.make_router(fn, json(params));
      else
        registry.make_node(fn, json(params));
    } catch (const invalid_param& e) {
      BOOST_TEST(e.code() == error_code::invalid_spec);
      return e.param();
    }
    return "<accepted>";
  }

  function_registry registry;
  test_context ctx;
};

value thread_config(const char* thread) {
  return value(object{{"configurable", object{{"thread_id", thread}}}});
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(std_library, std_fixture)

BOOST_AUTO_TEST_CASE(registers_every_function_of_the_spec) {
  for (const char* n : {"std.set", "std.double", "std.copy", "std.config", "std.template",
                        "std.pick", "std.increment", "std.map", "std.sum", "std.sleep", "std.fail",
                        "std.interrupt", "std.emit", "std.goto"})
    BOOST_TEST(registry.has_node(n), n);
  BOOST_TEST(registry.has_router("std.send_each"));
  BOOST_TEST(registry.has_router("std.route"));
  BOOST_CHECK_THROW(register_std_library(registry), error);
}

BOOST_AUTO_TEST_CASE(set_returns_its_update) {
  BOOST_TEST(call("std.set", R"({"update": {"a": [1]}})", value()).to_json() == R"({"a":[1]})");
  BOOST_TEST(bad_param("std.set", "{}") == "update");
  BOOST_TEST(bad_param("std.set", "[]") == "");
}

BOOST_AUTO_TEST_CASE(double_doubles_strings_numbers_and_lists) {
  BOOST_TEST(call("std.double", "null", "ab") == value("abab"));
  BOOST_TEST(call("std.double", "{}", 21) == value(42));
  BOOST_TEST(call("std.double", "{}", 1.5) == value(3.0));
  BOOST_TEST(call("std.double", "{}", json("[1,2]")).to_json() == "[1,2,1,2]");
  BOOST_CHECK_THROW(call("std.double", "{}", json("{}")), error);
}

BOOST_AUTO_TEST_CASE(double_returns_null_once_the_length_is_reached) {
  BOOST_TEST(call("std.double", R"({"until_len": 4})", "aaa") == value("aaaaaa"));
  BOOST_TEST(call("std.double", R"({"until_len": 4})", "aaaa").is_null());
  BOOST_TEST(call("std.double", R"({"until_len": 2})", json("[1,2]")).is_null());
  BOOST_TEST(call("std.double", R"({"until_len": 2})", 10).is_null());  // "10": length 2
  BOOST_TEST(call("std.double", R"({"until_len": 2})", 9) == value(18));
  BOOST_TEST(bad_param("std.double", R"({"until_len": "4"})") == "until_len");
}

BOOST_AUTO_TEST_CASE(copy_copies_a_key) {
  BOOST_TEST(call("std.copy", R"({"from": "a", "to": "b"})", json(R"({"a": [1]})")).to_json() ==
             R"({"b":[1]})");
  BOOST_CHECK_THROW(call("std.copy", R"({"from": "x", "to": "b"})", json("{}")), error);
}

BOOST_AUTO_TEST_CASE(config_returns_a_key_of_the_run_config) {
  test_context node("n", json(R"({"configurable": {"x-user": "u"}})"));
  value made = json(R"({"from": "configurable", "to": "seen"})");
  BOOST_TEST(registry.make_node("std.config", made)(value(), node).to_json() ==
             R"({"seen":{"x-user":"u"}})");
  BOOST_TEST(
      registry.make_node("std.config", json(R"({"from": "trace", "to": "t"})"))(value(), node)
          .to_json() == R"({"t":null})");
  BOOST_TEST(bad_param("std.config", R"({"from": "trace"})") == "to");
}

BOOST_AUTO_TEST_CASE(template_formats_keys_of_the_input) {
  value input = json(R"({"subject": "cats", "n": 3})");
  BOOST_TEST(
      call("std.template", R"({"text": "{n} jokes about {subject} {{ok}}", "to": "t"})", input)
          .to_json() == R"({"t":"3 jokes about cats {ok}"})");
  BOOST_TEST(call("std.template", R"({"text": "{subject}", "to": "t", "wrap": "list"})", input)
                 .to_json() == R"({"t":["cats"]})");
  BOOST_CHECK_THROW(call("std.template", R"({"text": "{missing}", "to": "t"})", input), error);
  BOOST_TEST(bad_param("std.template", R"({"text": "{open", "to": "t"})") == "text");
  BOOST_TEST(bad_param("std.template", R"({"text": "a}b", "to": "t"})") == "text");
  BOOST_TEST(bad_param("std.template", R"({"text": "{}", "to": "t"})") == "text");
  BOOST_TEST(bad_param("std.template", R"({"text": "x", "to": "t", "wrap": "set"})") == "wrap");
}

BOOST_AUTO_TEST_CASE(pick_takes_an_item_by_index) {
  value state = json(R"({"l": ["x", "y", "z"]})");
  BOOST_TEST(call("std.pick", R"({"from": "l", "index": 1, "to": "b"})", state).to_json() ==
             R"({"b":"y"})");
  BOOST_TEST(call("std.pick", R"({"from": "l", "index": -1, "to": "b"})", state).to_json() ==
             R"({"b":"z"})");
  BOOST_CHECK_THROW(call("std.pick", R"({"from": "l", "index": 3, "to": "b"})", state), error);
  BOOST_TEST(bad_param("std.pick", R"({"from": "l", "index": 1.5, "to": "b"})") == "index");
}

BOOST_AUTO_TEST_CASE(increment_adds_by_or_one) {
  BOOST_TEST(call("std.increment", R"({"key": "c"})", json(R"({"c": 4})")).to_json() ==
             R"({"c":5})");
  BOOST_TEST(call("std.increment", R"({"key": "c", "by": 2.5})", json(R"({"c": 1})")).to_json() ==
             R"({"c":3.5})");
  BOOST_TEST(call("std.increment", R"({"key": "c"})", json("{}")).to_json() == R"({"c":1})");
  BOOST_CHECK_THROW(call("std.increment", R"({"key": "c"})", json(R"({"c": "x"})")), error);
}

BOOST_AUTO_TEST_CASE(map_applies_mul_then_add) {
  value in = json(R"({"item": 4})");
  BOOST_TEST(call("std.map", R"({"from": "item", "to": "r", "mul": 3, "add": 1})", in).to_json() ==
             R"({"r":13})");
  BOOST_TEST(call("std.map", R"({"from": "item", "to": "r", "wrap": "list"})", in).to_json() ==
             R"({"r":[4]})");
  BOOST_TEST(call("std.map", R"({"from": "item", "add": 1})", in).to_json() == R"({"item":5})");
  BOOST_TEST(bad_param("std.map", R"({"from": "item", "mul": "2"})") == "mul");
}

BOOST_AUTO_TEST_CASE(sum_adds_the_items_of_a_list) {
  BOOST_TEST(
      call("std.sum", R"({"from": "l", "to": "t"})", json(R"({"l": [1, 2, 3]})")).to_json() ==
      R"({"t":6})");
  BOOST_TEST(call("std.sum", R"({"from": "l", "to": "t"})", json(R"({"l": []})")).to_json() ==
             R"({"t":0})");
  BOOST_CHECK_THROW(call("std.sum", R"({"from": "l", "to": "t"})", json(R"({"l": ["a"]})")), error);
}

BOOST_AUTO_TEST_CASE(sleep_waits_then_returns_its_update) {
  auto start = std::chrono::steady_clock::now();
  BOOST_TEST(call("std.sleep", R"({"ms": 20, "update": {"a": 1}})", value()).to_json() ==
             R"({"a":1})");
  auto waited = std::chrono::steady_clock::now() - start;
  BOOST_TEST((waited >= std::chrono::milliseconds(20)));
  BOOST_TEST(bad_param("std.sleep", R"({"ms": -1})") == "ms");
}

BOOST_AUTO_TEST_CASE(fail_fails_the_first_attempts_of_each_thread_and_node) {
  node_function fail = registry.make_node("std.fail", json(R"({"times": 2, "update": {"ok": 1}})"));
  test_context t1("n", thread_config("t1")), t2("n", thread_config("t2")),
      other("m", thread_config("t1"));
  try {
    fail(value(), t1);
    BOOST_FAIL("did not fail");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()) == "std.fail: attempt 1 of 2 fails on purpose");
  }
  BOOST_CHECK_THROW(fail(value(), t1), error);
  BOOST_TEST(fail(value(), t1).to_json() == R"({"ok":1})");
  BOOST_TEST(fail(value(), t1).to_json() == R"({"ok":1})");
  BOOST_CHECK_THROW(fail(value(), t2), error);
  BOOST_CHECK_THROW(fail(value(), other), error);

  function_registry fresh;  // another registration counts on its own
  register_std_library(fresh);
  BOOST_CHECK_THROW(fresh.make_node("std.fail", json(R"({"times": 1})"))(value(), t1), error);
}

BOOST_AUTO_TEST_CASE(interrupt_asks_and_writes_the_answer) {
  node_function f =
      registry.make_node("std.interrupt", json(R"({"value": "ok?", "to": "answer"})"));
  try {
    f(value(), ctx);
    BOOST_FAIL("did not interrupt");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::interrupted);
  }
  ctx.answers.push_back(value("yes"));
  BOOST_TEST(f(value(), ctx).to_json() == R"({"answer":"yes"})");
  BOOST_TEST(ctx.asked.size() == 2u);
  BOOST_TEST(ctx.asked.back() == value("ok?"));
  BOOST_TEST(bad_param("std.interrupt", R"({"value": 1})") == "to");
}

BOOST_AUTO_TEST_CASE(emit_writes_to_the_custom_stream) {
  BOOST_TEST(call("std.emit", R"({"data": {"p": 1}, "update": {"a": 2}})", value()).to_json() ==
             R"({"a":2})");
  BOOST_TEST(ctx.custom.size() == 1u);
  BOOST_TEST(ctx.custom.at(0).to_json() == R"({"p":1})");
  BOOST_TEST(bad_param("std.emit", "{}") == "data");
}

BOOST_AUTO_TEST_CASE(goto_returns_a_command) {
  auto cmd = as_command(call("std.goto", R"({"goto": ["a", "b"], "update": {"x": 1}})", value()));
  BOOST_REQUIRE(cmd.has_value());
  BOOST_TEST(cmd->update.to_json() == R"({"x":1})");
  BOOST_TEST(value(list(cmd->go_to)).to_json() == R"(["a","b"])");
  BOOST_TEST(bad_param("std.goto", "{}") == "goto");
}

BOOST_AUTO_TEST_CASE(send_each_sends_each_item_or_each_index) {
  value sends = route("std.send_each", R"({"key": "s", "node": "g", "as": "subject"})",
                      json(R"({"s": ["a", "b"]})"));
  BOOST_REQUIRE(sends.as_list().size() == 2u);
  auto first = as_send(sends.as_list()[0]);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->node == "g");
  BOOST_TEST(first->arg.to_json() == R"({"subject":"a"})");
  sends = route("std.send_each", R"({"items": 3, "node": "w"})", json("{}"));
  BOOST_REQUIRE(sends.as_list().size() == 3u);
  BOOST_TEST(as_send(sends.as_list()[2])->arg.to_json() == R"({"item":2})");
  BOOST_TEST(bad_param("std.send_each", R"({"node": "w"})") == "key");
  BOOST_TEST(bad_param("std.send_each", R"({"node": "w", "key": "s", "items": 2})") == "key");
  // Each Send's own timeout (LangGraph Send(timeout=...)).
  sends = route("std.send_each", R"({"items": 1, "node": "w", "timeout": {"idle_timeout_ms": 50}})",
                json("{}"));
  auto timed = as_send(sends.as_list()[0]);
  BOOST_REQUIRE(timed.has_value());
  BOOST_REQUIRE(timed->timeout.has_value());
  BOOST_TEST(timed->timeout->idle_timeout_ms.value_or(0) == 50.0);
  BOOST_TEST(
      !as_send(route("std.send_each", R"({"items": 1, "node": "w"})", json("{}")).as_list()[0])
           ->timeout.has_value());
  BOOST_TEST(bad_param("std.send_each",
                       R"({"items": 1, "node": "w", "timeout": {"idle_timeout_ms": 0}})") ==
             "timeout");
  BOOST_TEST(bad_param("std.send_each", R"({"items": 1, "node": "w", "timeout": 5})") == "timeout");
}

BOOST_AUTO_TEST_CASE(route_compares_and_returns_then_or_else) {
  std::string lt = R"({"key": "c", "less_than": 5, "then": "again", "else": "__end__"})";
  BOOST_TEST(route("std.route", lt, json(R"({"c": 4})")) == value("again"));
  BOOST_TEST(route("std.route", lt, json(R"({"c": 5})")) == value("__end__"));
  std::string eq = R"({"key": "c", "equals": "yes", "then": "a", "else": "b"})";
  BOOST_TEST(route("std.route", eq, json(R"({"c": "yes"})")) == value("a"));
  BOOST_TEST(route("std.route", eq, json("{}")) == value("b"));
  BOOST_CHECK_THROW(route("std.route", lt, json(R"({"c": "x"})")), error);
  BOOST_TEST(bad_param("std.route", R"({"key": "c", "then": "a", "else": "b"})") == "equals");
}

BOOST_AUTO_TEST_CASE(registry_rejects_duplicates_and_unknown_names) {
  BOOST_CHECK_THROW(registry.add_node("std.set", [](const value&) { return node_function(); }),
                    error);
  BOOST_CHECK_THROW(registry.add_reducer("append", channels::reducer{"append", {}, {}}), error);
  try {
    registry.make_node("std.nope", value());
    BOOST_FAIL("found");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::unknown_function);
    BOOST_TEST(std::string(e.what()).starts_with("unknown node function 'std.nope'"));
  }
  BOOST_CHECK_THROW(registry.reducer("concat"), error);
  BOOST_TEST(registry.reducer("append").name == "append");
}

BOOST_AUTO_TEST_SUITE_END()
