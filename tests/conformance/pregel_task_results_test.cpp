// libs/langgraph/tests/test_pregel.py: the result of each task of a snapshot (LangGraph
// `PregelTask.result`), as runs and bulk_update_state save it.
#include <atomic>

#include "functional_support.hpp"
#include "stream_support.hpp"
#include "superstep/coordinator/send.hpp"
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

// The reducer joining two strings with `sep`, skipping an empty side.
channels::reducer joined(std::string sep, bool skip_empty_update) {
  channels::reducer r;
  r.name = "joined";
  r.binary = [sep, skip_empty_update](const value& a, const value& b) -> value {
    const std::string& x = a.as_string();
    const std::string& y = b.as_string();
    if (x.empty()) return value(y);
    if (skip_empty_update && y.empty()) return value(x);
    return value(x + sep + y);
  };
  return r;
}

// Each task of a snapshot as "name=result".
strings task_results(const state_snapshot& s) {
  strings out;
  for (const auto& t : s.tasks) out.push_back(t.name + "=" + t.result.to_json());
  return out;
}

// The result of the first task named `node` in `history` (null: none).
value first_task_result(const std::vector<state_snapshot>& history, const std::string& node) {
  for (const auto& s : history)
    for (const auto& t : s.tasks)
      if (t.name == node) return t.result;
  return value();
}

// A stream event as "<mode> <data>", without the task id a `tasks` event carries.
std::string without_id(const stream_event& e) {
  value data = e.data;
  if (e.mode == stream_mode::tasks && data.is_object()) {
    object o;
    for (const auto& [k, v] : data.as_object())
      if (k != "id") o.set(k, v);
    data = value(std::move(o));
  }
  return std::string(stream_mode_name(e.mode)) + " " + data.to_json();
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_multiple_writes_same_channel_from_same_node
// (Command(update=[("foo", "one.0"), ("foo", "one.1")]) as a Command whose update is the list
// of the two updates, which LangGraph's list of pairs amounts to)
BOOST_AUTO_TEST_CASE(test_multiple_writes_same_channel_from_same_node) {
  state_graph b;
  b.add_key("foo", joined(", ", true), value(""));
  b.add_node("one", [](const value&, node_context&) -> value {
    command c;
    c.update = value::array({object{{"foo", "one.0"}}, object{{"foo", "one.1"}}});
    return make_command(c);
  });
  b.add_node("two", [](const value&, node_context&) -> value { return object{{"foo", "two"}}; });
  b.add_edge("__start__", "one").add_edge("one", "two").add_edge("two", "__end__");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("1");

  recorder r;
  stream_options so;
  so.modes = {stream_mode::updates, stream_mode::tasks};
  graph->stream(object{{"foo", "input"}}, config, so, r.sink());
  strings events;
  for (const auto& e : r.events) events.push_back(without_id(e));
  const strings expected{
      R"(tasks {"name":"one","input":{"foo":"input"},"triggers":["branch:to:one"]})",
      R"(updates {"one":[{"foo":"one.0"},{"foo":"one.1"}]})",
      R"(tasks {"name":"one","error":null,"result":{"foo":{"$writes":["one.0","one.1"]}},"interrupts":[]})",
      R"(tasks {"name":"two","input":{"foo":"input, one.0, one.1"},"triggers":["branch:to:two"]})",
      R"(updates {"two":{"foo":"two"}})",
      R"(tasks {"name":"two","error":null,"result":{"foo":"two"},"interrupts":[]})"};
  BOOST_TEST(events == expected, boost::test_tools::per_element());

  strings history;
  for (const auto& s : graph->get_state_history(config)) {
    std::string line = s.values.to_json();
    for (const auto& t : task_results(s)) line += " " + t;
    history.push_back(line);
  }
  const strings expected_history{
      R"({"foo":"input, one.0, one.1, two"})",
      R"({"foo":"input, one.0, one.1"} two={"foo":"two"})",
      R"({"foo":"input"} one={"foo":{"$writes":["one.0","one.1"]}})",
      R"({"foo":""} __start__={"foo":"input"})"};
  BOOST_TEST(history == expected_history, boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_supersteps_populate_task_results
BOOST_AUTO_TEST_CASE(test_supersteps_populate_task_results) {
  state_graph b;
  b.add_key("num").add_key("text");
  b.add_node("double", [](const value& s, node_context&) -> value {
    return object{{"num", s.get("num").as_int() * 2},
                  {"text", s.get("text").as_string() + s.get("text").as_string()}};
  });
  b.add_edge("__start__", "double").add_edge("double", "__end__");
  auto graph = b.compile(opts_with_saver());

  // reference run with invoke
  const value ref_cfg = thread("ref");
  graph->invoke(object{{"num", 1}, {"text", "one"}}, ref_cfg);
  const auto ref_history = graph->get_state_history(ref_cfg);
  const value ref_start_result = first_task_result(ref_history, "__start__");
  const value ref_double_result = first_task_result(ref_history, "double");
  BOOST_TEST(ref_start_result.to_json() == R"({"num":1,"text":"one"})");
  BOOST_TEST(ref_double_result.to_json() == R"({"num":2,"text":"oneone"})");

  // using supersteps
  const value bulk_cfg = thread("bulk");
  graph->bulk_update_state(bulk_cfg,
                           {{state_update{object{}, "__input__"}},
                            {state_update{object{{"num", 1}, {"text", "one"}}, "__start__"}},
                            {state_update{object{{"num", 2}, {"text", "oneone"}}, "double"}}});
  const auto bulk_history = graph->get_state_history(bulk_cfg);
  BOOST_TEST(first_task_result(bulk_history, "__start__") == ref_start_result);
  BOOST_TEST(first_task_result(bulk_history, "double") == ref_double_result);
}

// libs/langgraph/tests/test_pregel.py::test_update_as_input
BOOST_AUTO_TEST_CASE(test_update_as_input) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      state_graph b;
      b.add_key("foo");
      b.add_node("agent", [](const value&, node_context&) -> value {
        return object{{"foo", "agent"}};
      });
      b.add_node("tool", [](const value&, node_context&) -> value {
        return object{{"foo", "tool"}};
      });
      b.add_edge("__start__", "agent").add_edge("agent", "tool");
      auto graph = b.compile(opts_with_saver());

      const value run_config = with_durability(thread("1"), durability);
      BOOST_TEST(graph->invoke(object{{"foo", "input"}}, run_config).to_json() ==
                 R"({"foo":"tool"})");
      BOOST_TEST(graph->invoke(object{{"foo", "input"}}, run_config).to_json() ==
                 R"({"foo":"tool"})");

      auto map_history = [&](const value& config) {
        strings out;
        for (const auto& s : graph->get_state_history(config)) {
          std::string next;
          for (const auto& n : s.next) next += (next.empty() ? "" : ",") + n;
          out.push_back(s.values.to_json() + " next=" + next +
                        " step=" + s.metadata.get("step").to_json());
        }
        return out;
      };
      const strings history = map_history(thread("1"));

      std::vector<std::vector<state_update>> turns;
      for (int turn = 0; turn < 2; ++turn) {
        turns.push_back({state_update{object{{"foo", "input"}}, "__input__"}});
        turns.push_back({state_update{object{{"foo", "input"}}, "__start__"}});
        turns.push_back({state_update{object{{"foo", "agent"}}, "agent"}});
        turns.push_back({state_update{object{{"foo", "tool"}}, "tool"}});
      }
      graph->bulk_update_state(thread("2"), turns);
      BOOST_TEST(graph->get_state(thread("2")).values.to_json() == R"({"foo":"tool"})");

      const strings new_history = map_history(thread("2"));
      if (durability != "exit") {
        BOOST_TEST(new_history == history, boost::test_tools::per_element());
      } else {
        BOOST_TEST_REQUIRE(new_history.size() >= 5u);
        BOOST_TEST((strings{new_history[0], new_history[4]}) == history,
                   boost::test_tools::per_element());
      }
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_multiple_updates_root
BOOST_AUTO_TEST_CASE(test_multiple_updates_root) {
  state_graph b;
  b.add_key(std::string(ROOT), "add");
  b.add_sequence(
      {{"node_a",
        [](const value&, node_context&) -> value {
          command a1, a2;
          a1.update = value("a1");
          a2.update = value("a2");
          return value::array({make_command(a1), make_command(a2)});
        }},
       {"node_b", [](const value&, node_context&) -> value { return value("b"); }}});
  b.add_edge("__start__", "node_a");
  auto graph = b.compile(opts());

  BOOST_TEST(graph->invoke(value(""), value(object{})).to_json() == R"("a1a2b")");
  // only streams the last update from node_a
  BOOST_TEST(stream_texts(*graph, value(""), value(object{}), {stream_mode::updates}) ==
                 (strings{R"(() {"node_a":["a1","a2"]})", R"(() {"node_b":"b"})"}),
             boost::test_tools::per_element());
}
