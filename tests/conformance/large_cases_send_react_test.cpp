// LangGraph's large cases of a ReAct loop whose tool calls are Sends
// (libs/langgraph/tests/test_large_cases.py): paused before the tool, resumed, and the tool
// call removed or replaced with update_state; see conformance.hpp.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

// Python's repr() of JSON-like data, as str() of a tool call's args: {'hi': [1, 2, 3]}.
std::string py_repr(const value& v) {
  if (v.is_string()) return "'" + v.as_string() + "'";
  if (v.is_list()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.as_list().size(); ++i)
      out += (i ? ", " : "") + py_repr(v.as_list()[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, item] : v.as_object()) {
      out += (first ? "" : ", ") + py_repr(value(k)) + ": " + py_repr(item);
      first = false;
    }
    return out + "}";
  }
  return v.to_json();
}

value tool_call(value args, const char* id = "") {
  return object{{"name", "foo"}, {"args", std::move(args)}, {"id", id}, {"type", "tool_call"}};
}

value ai_message(const char* content, list tool_calls) {
  return object{{"type", "ai"}, {"content", content}, {"id", "ai1"}, {"tool_calls", tool_calls}};
}

const value& first_ai_message() {
  static const value m = ai_message("", list{tool_call(object{{"hi", list{1, 2, 3}}})});
  return m;
}

// The tool: answers a call with a tool message of its args.
node_function foo(std::shared_ptr<std::atomic<int>> called) {
  return [called](const value& call, node_context&) -> value {
    ++*called;
    return object{{"messages", object{{"type", "tool"},
                                      {"content", py_repr(call.get("args"))},
                                      {"tool_call_id", call.get("id")}}}};
  };
}

// The messages of an output without the ids the reducer gave them (LangGraph's _AnyId*).
std::string without_ids(const value& state) {
  list out;
  for (const auto& m : state.get("messages").as_list()) {
    object o = m.as_object();
    o.erase("id");
    out.push_back(value(std::move(o)));
  }
  return value(std::move(out)).to_json();
}

const std::string hello = R"({"type":"human","content":"hello"})";
const std::string asked =
    R"({"type":"ai","content":"","tool_calls":[{"name":"foo","args":{"hi":[1,2,3]},"id":"","type":"tool_call"}]})";
const std::string answered = R"({"type":"tool","content":"{'hi': [1, 2, 3]}","tool_call_id":""})";
const value hello_input = object{{"messages", list{"hello"}}};

value with_durability(const value& cfg, const char* durability) {
  object o = cfg.as_object();
  o.set("durability", durability);
  return o;
}

compile_options before_foo() {
  compile_options o = opts_with_saver();
  o.interrupt_before = {"foo"};
  return o;
}

// The flows both tests share: run to the end without a checkpointer; pause before foo and
// resume; pause, then remove the tool call with update_state, so foo never runs.
void run_shared_flows(const state_graph& builder, std::atomic<int>& called) {
  auto graph = builder.compile(opts());
  BOOST_TEST(without_ids(graph->invoke(hello_input)) ==
             "[" + hello + "," + asked + "," + answered + "]");
  BOOST_TEST(called.load() == 1);

  // Simple interrupt-resume flow.
  called = 0;
  graph = builder.compile(before_foo());
  const value thread1 = thread("1");
  BOOST_TEST(without_ids(graph->invoke(hello_input, thread1)) == "[" + hello + "," + asked + "]");
  BOOST_TEST(called.load() == 0);
  BOOST_TEST(without_ids(graph->invoke(value(), thread1)) ==
             "[" + hello + "," + asked + "," + answered + "]");
  BOOST_TEST(called.load() == 1);

  // Interrupt-update-resume flow.
  called = 0;
  graph = builder.compile(before_foo());
  const value thread2 = thread("2");
  BOOST_TEST(without_ids(graph->invoke(hello_input, with_durability(thread2, "exit"))) ==
             "[" + hello + "," + asked + "]");
  BOOST_TEST(called.load() == 0);
  state_snapshot pending = graph->get_state(thread2);
  BOOST_TEST(without_ids(pending.values) == "[" + hello + "," + asked + "]");
  BOOST_TEST(pending.next == strings{"foo"}, boost::test_tools::per_element());
  BOOST_TEST(pending.metadata.to_json() == R"({"source":"loop","step":1,"parents":{}})");
  BOOST_TEST(!pending.parent_config.has_value());
  BOOST_TEST_REQUIRE(pending.tasks.size() == 1u);
  BOOST_TEST(pending.tasks[0].name == "foo");
  BOOST_TEST(!pending.tasks[0].error.has_value());
  BOOST_TEST(pending.tasks[0].interrupts.empty());
  BOOST_TEST(pending.tasks[0].result.is_null());
  BOOST_TEST(!pending.tasks[0].state);

  // Removing the tool call clears the pending task.
  graph->update_state(thread2, object{{"messages", ai_message("Bye now", list{})}});
  state_snapshot cleared = graph->get_state(thread2);
  BOOST_TEST(without_ids(cleared.values) ==
             "[" + hello + R"(,{"type":"ai","content":"Bye now","tool_calls":[]}])");
  BOOST_TEST(cleared.next.empty());
  BOOST_TEST(cleared.metadata.to_json() == R"({"source":"update","step":2,"parents":{}})");
  BOOST_TEST_REQUIRE(cleared.parent_config.has_value());
  BOOST_TEST(cleared.parent_config->checkpoint_id == pending.config.checkpoint_id);
  BOOST_TEST(cleared.tasks.empty());
  BOOST_TEST(without_ids(graph->invoke(value(), thread2)) ==
             "[" + hello + R"(,{"type":"ai","content":"Bye now","tool_calls":[]}])");
  BOOST_TEST(called.load() == 0);
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_send_react_interrupt
BOOST_AUTO_TEST_CASE(test_send_react_interrupt) {
  auto called = std::make_shared<std::atomic<int>>(0);
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node("agent", [](const value&, node_context&) -> value {
    return object{{"messages", first_ai_message()}};
  });
  builder.add_node("foo", foo(called));
  builder.add_edge("__start__", "agent");
  builder.add_conditional_edges("agent", [](const value& s, node_context&) -> value {
    const value& last = s.get("messages").as_list().back();
    list sends;
    if (last.get("type") == value("ai"))
      for (const auto& call : last.get("tool_calls").as_list())
        sends.push_back(make_send(call.get("name").as_string(), call));
    return sends;
  });
  run_shared_flows(builder, *called);

  // Interrupt-update-resume flow, the update making a new Send.
  *called = 0;
  auto graph = builder.compile(before_foo());
  const value thread3 = thread("3");
  BOOST_TEST(without_ids(graph->invoke(hello_input, with_durability(thread3, "exit"))) ==
             "[" + hello + "," + asked + "]");
  BOOST_TEST(called->load() == 0);
  state_snapshot pending = graph->get_state(thread3);
  BOOST_TEST(pending.next == strings{"foo"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(pending.tasks.size() == 1u);
  BOOST_TEST(pending.tasks[0].name == "foo");
  BOOST_TEST(value(pending.tasks[0].path).to_json() == R"(["__pregel_push",0,false])");
  BOOST_TEST(pending.tasks[0].interrupts.empty());
  BOOST_TEST(pending.tasks[0].result.is_null());
  BOOST_TEST(!pending.tasks[0].state);

  // Replacing the tool call clears the previous Send and makes a new one.
  const value replaced = ai_message("", list{tool_call(object{{"hi", list{4, 5, 6}}}, "tool1")});
  graph->update_state(thread3, object{{"messages", replaced}});
  state_snapshot updated = graph->get_state(thread3);
  BOOST_TEST(without_ids(updated.values) ==
             "[" + hello +
                 R"(,{"type":"ai","content":"","tool_calls":[{"name":"foo","args":{"hi":[4,5,6]},)"
                 R"("id":"tool1","type":"tool_call"}]}])");
  BOOST_TEST(updated.next == strings{"foo"}, boost::test_tools::per_element());
  BOOST_TEST(updated.metadata.to_json() == R"({"source":"update","step":2,"parents":{}})");
  BOOST_TEST_REQUIRE(updated.parent_config.has_value());
  BOOST_TEST(updated.parent_config->checkpoint_id == pending.config.checkpoint_id);
  BOOST_TEST_REQUIRE(updated.tasks.size() == 1u);
  BOOST_TEST(updated.tasks[0].name == "foo");
  BOOST_TEST(value(updated.tasks[0].path).to_json() == R"(["__pregel_push",0,false])");
  BOOST_TEST(updated.tasks[0].id != pending.tasks[0].id);
  BOOST_TEST(!updated.tasks[0].error.has_value());
  BOOST_TEST(updated.tasks[0].interrupts.empty());
  BOOST_TEST(updated.tasks[0].result.is_null());
  BOOST_TEST(!updated.tasks[0].state);

  value out = graph->invoke(value(), thread3);
  BOOST_TEST(without_ids(out) ==
             "[" + hello +
                 R"(,{"type":"ai","content":"","tool_calls":[{"name":"foo","args":{"hi":[4,5,6]},)"
                 R"("id":"tool1","type":"tool_call"}]})"
                 R"(,{"type":"tool","content":"{'hi': [4, 5, 6]}","tool_call_id":"tool1"}])");
  BOOST_TEST(out.get("messages").as_list().at(1).get("id") == value("ai1"));
  BOOST_TEST(called->load() == 1);
}

// libs/langgraph/tests/test_large_cases.py::test_send_react_interrupt_control
// (the drawing's syrupy snapshot left out; task `path` is not in our snapshots)
BOOST_AUTO_TEST_CASE(test_send_react_interrupt_control) {
  auto called = std::make_shared<std::atomic<int>>(0);
  state_graph builder;
  builder.add_key("messages", "add_messages");
  builder.add_node(
      "agent",
      [](const value&, node_context&) -> value {
        std::vector<value> sends;
        for (const auto& call : first_ai_message().get("tool_calls").as_list())
          sends.push_back(make_send(call.get("name").as_string(), call));
        return make_cmd(object{{"messages", first_ai_message()}}, sends);
      },
      node_options{.destinations = {"foo"}});
  builder.add_node("foo", foo(called));
  builder.add_edge("__start__", "agent");
  run_shared_flows(builder, *called);
}
