// libs/langgraph/tests/test_pregel.py: the result of each task of a snapshot (LangGraph
// `PregelTask.result`), as runs and bulk_update_state save it.
#include <atomic>

#include "functional_support.hpp"
#include "stream_support.hpp"
#include "superstep/pregel/send.hpp"
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
  const strings expected_history{R"({"foo":"input, one.0, one.1, two"})",
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
  b.add_sequence({{"node_a",
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

namespace {

value tree_checkpoint(const value& values) { return value::array({value("checkpoint"), values}); }
value tree_task(const std::string& name, const value& result) {
  return value::array({value("task"), value(name), result});
}
value named(const char* name) { return object{{"name", name}}; }

// The history as LangGraph's test draws it: from each root, its checkpoint and tasks (name
// and result), then its one child's the same way, or a list of branches for several children.
value history_tree(const std::vector<state_snapshot>& history) {
  std::map<std::string, std::vector<const state_snapshot*>> children;  // parent id -> children
  std::vector<const state_snapshot*> roots;
  for (auto it = history.rbegin(); it != history.rend(); ++it) {
    if (it->parent_config)
      children[it->parent_config->checkpoint_id].push_back(&*it);
    else
      roots.push_back(&*it);
  }
  std::function<list(const state_snapshot&)> node_to_tree = [&](const state_snapshot& s) {
    list out{tree_checkpoint(s.values)};
    for (const auto& t : s.tasks) out.push_back(tree_task(t.name, t.result));
    const auto& kids = children[s.config.checkpoint_id];
    if (kids.size() > 1) {
      list branches;
      for (const auto* k : kids) branches.push_back(value(node_to_tree(*k)));
      out.push_back(value(std::move(branches)));
    } else if (kids.size() == 1) {
      for (auto& v : node_to_tree(*kids.front())) out.push_back(std::move(v));
    }
    return out;
  };
  if (roots.size() == 1) return value(node_to_tree(*roots.front()));
  list branches;
  for (const auto* r : roots) branches.push_back(value(node_to_tree(*r)));
  return value(std::move(branches));
}

value update(const char* as_node, const value& values) {
  return object{{"values", values}, {"as_node", as_node}};
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_fork_and_update_task_results
BOOST_AUTO_TEST_CASE(test_fork_and_update_task_results) {
  using C = value;
  auto cp = [](const char* name) { return tree_checkpoint(named(name)); };
  auto task = [](const char* node, const char* name) { return tree_task(node, named(name)); };
  auto seq = [](std::initializer_list<value> items) { return value(list(items)); };

  state_graph b;
  channels::reducer arrow;
  arrow.name = "arrow";
  arrow.binary = [](const value& a, const value& x) -> value {
    return a.as_string().empty() ? x : value(a.as_string() + " > " + x.as_string());
  };
  b.add_key("name", arrow, value(""));
  b.add_node("one", [](const value&, node_context&) -> value {
    command c;
    c.go_to = {make_send("two", object{})};
    c.update = named("one");
    return make_command(c);
  });
  b.add_node("two", [](const value&, node_context&) -> value { return named("two"); });
  b.add_node("three", [](const value&, node_context&) -> value { return named("three"); });
  b.add_edge("__start__", "one").add_edge("one", "two").add_edge("two", "three");
  auto graph = b.compile(opts_with_saver());

  value config = thread("1");
  // Initial run
  graph->invoke(named("start"), config);
  auto history = graph->get_state_history(config);
  const value first_run =
      seq({cp(""), task("__start__", "start"), cp("start"), task("one", "one"), cp("start > one"),
           task("two", "two"), task("two", "two"), cp("start > one > two > two"),
           task("three", "three"), cp("start > one > two > two > three")});
  BOOST_TEST(history_tree(history) == first_run);

  // Update the start state
  graph->invoke(value(), graph->update_state(config_of(history[4]),
                                             value::array({update("__start__", named("start*"))}),
                                             "__copy__"));
  history = graph->get_state_history(config);
  BOOST_TEST(
      history_tree(history) ==
      seq({first_run, seq({cp(""), task("__start__", "start*"), cp("start*"), task("one", "one"),
                           cp("start* > one"), task("two", "two"), task("two", "two"),
                           cp("start* > one > two > two"), task("three", "three"),
                           cp("start* > one > two > two > three")})}));

  // Fork from task "one"
  BOOST_TEST(history[3].values == named("start*"));
  BOOST_TEST_REQUIRE(history[3].tasks.size() == 1u);
  BOOST_TEST(history[3].tasks[0].name == "one");
  graph->invoke(value(),
                graph->update_state(config_of(history[3]),
                                    value::array({update("one", named("one*"))}), "__copy__"));
  history = graph->get_state_history(config);
  BOOST_TEST(
      history_tree(history) ==
      seq({first_run,
           seq({cp(""), task("__start__", "start*"),
                seq({seq({cp("start*"), task("one", "one"), cp("start* > one"), task("two", "two"),
                          task("two", "two"), cp("start* > one > two > two"),
                          task("three", "three"), cp("start* > one > two > two > three")}),
                     seq({cp("start*"), task("one", "one*"), cp("start* > one*"),
                          task("two", "two"), cp("start* > one* > two"), task("three", "three"),
                          cp("start* > one* > two > three")})})})}));

  config = thread("2");
  // Initialize the thread once again
  graph->invoke(named("start"), config);
  history = graph->get_state_history(config);
  // Fork from task "two"
  BOOST_TEST(history[2].values == named("start > one"));
  graph->invoke(
      value(),
      graph->update_state(config_of(history[2]),
                          value::array({update("two", named("two")), update("two", named("two"))}),
                          "__copy__"));
  history = graph->get_state_history(config);
  const value two_branch =
      seq({cp("start > one"), task("two", "two"), task("two", "two"), cp("start > one > two > two"),
           task("three", "three"), cp("start > one > two > two > three")});
  const value head = seq({cp(""), task("__start__", "start"), cp("start"), task("one", "one")});
  auto with_head = [&](const value& branches) {
    list l = head.as_list();
    l.push_back(branches);
    return value(std::move(l));
  };
  BOOST_TEST(history_tree(history) == with_head(seq({two_branch, two_branch})));

  // Fork task three
  BOOST_TEST(history[1].values == named("start > one > two > two"));
  BOOST_TEST_REQUIRE(history[1].tasks.size() == 1u);
  BOOST_TEST(history[1].tasks[0].name == "three");
  graph->invoke(value(),
                graph->update_state(config_of(history[1]),
                                    value::array({update("three", named("three*"))}), "__copy__"));
  history = graph->get_state_history(config);
  auto three = [&](const char* result, const char* end) {
    return seq({cp("start > one > two > two"), task("three", result), cp(end)});
  };
  auto forked = [&](std::initializer_list<value> threes) {
    return with_head(seq({two_branch, seq({cp("start > one"), task("two", "two"),
                                           task("two", "two"), C(list(threes))})}));
  };
  BOOST_TEST(history_tree(history) ==
             forked({three("three", "start > one > two > two > three"),
                     three("three*", "start > one > two > two > three*")}));

  // Regenerate task three
  BOOST_TEST(history[3].values == named("start > one > two > two"));
  BOOST_TEST_REQUIRE(history[3].tasks.size() == 1u);
  BOOST_TEST(history[3].tasks[0].name == "three");
  graph->invoke(value(), graph->update_state(config_of(history[3]), value(), "__copy__"));
  history = graph->get_state_history(config);
  BOOST_TEST(history_tree(history) == forked({three("three", "start > one > two > two > three"),
                                              three("three*", "start > one > two > two > three*"),
                                              three("three", "start > one > two > two > three")}));
}
