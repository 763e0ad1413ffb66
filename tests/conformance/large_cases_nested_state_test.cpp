// libs/langgraph/tests/test_large_cases.py: the state of nested graphs (get_state with
// subgraphs, a subgraph's history, update_state of a subgraph's checkpoint).

#include <string>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A node that sets `key` to `f(state)` for each pair given.
std::string str(const value& s, const char* key) { return s.get(key).as_string(); }

// The shape of a task without error or interrupts, with the subgraph state `state` if any.
value task(const char* name, value state = value()) {
  object o{{"name", name}, {"error", value()}, {"interrupts", list{}}};
  if (!state.is_null()) o.set("state", std::move(state));
  return o;
}

// The snapshot as JSON without what changes from run to run (ids, timestamps).
value shape(const state_snapshot& s) {
  list tasks;
  for (const auto& t : s.tasks) {
    object o{{"name", t.name}, {"error", t.error ? value(*t.error) : value()},
             {"interrupts", value(t.interrupts)}};
    if (t.state) o.set("state", shape(*t.state));
    tasks.push_back(value(std::move(o)));
  }
  object meta;
  if (s.metadata.is_object())
    for (const char* k : {"source", "step"})
      if (const value* v = s.metadata.find(k)) meta.set(k, *v);
  return object{{"values", s.values},
                {"next", value(list(s.next.begin(), s.next.end()))},
                {"ns", s.config.checkpoint_ns},
                {"metadata", value(std::move(meta))},
                {"has_parent", s.parent_config.has_value()},
                {"tasks", value(std::move(tasks))}};
}

value with_durability(const char* thread_id, const char* durability) {
  return object{{"configurable", object{{"thread_id", thread_id}}}, {"durability", durability}};
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_nested_graph_state
BOOST_AUTO_TEST_CASE(test_nested_graph_state) {
  state_graph inner;
  inner.add_key("my_key").add_key("my_other_key");
  inner.add_node("inner_1", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " here"}, {"my_other_key", s.get("my_key")}};
  });
  inner.add_node("inner_2", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " and there"},
                  {"my_other_key", s.get("my_key")}};
  });
  inner.add_edge("inner_1", "inner_2").set_entry_point("inner_1").set_finish_point("inner_2");
  compile_options inner_opts = opts();
  inner_opts.interrupt_before = {"inner_2"};

  state_graph graph;
  graph.add_key("my_key").add_key("other_parent_key");
  graph.add_node("outer_1", [](const value& s, node_context&) -> value {
    return object{{"my_key", "hi " + str(s, "my_key")}};
  });
  graph.add_node("inner", inner.compile(inner_opts));
  graph.add_node("outer_2", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " and back again"}};
  });
  graph.set_entry_point("outer_1").add_edge("outer_1", "inner").add_edge("inner", "outer_2");
  graph.set_finish_point("outer_2");
  std::shared_ptr<pregel> app = graph.compile(opts_with_saver());

  const value config = with_durability("1", "exit");
  app->invoke(object{{"my_key", "my value"}}, config);

  // Right after the interrupt, without the subgraph's state.
  const value expected = object{
      {"values", object{{"my_key", "hi my value"}}},
      {"next", list{"inner"}},
      {"ns", ""},
      {"metadata", object{{"source", "loop"}, {"step", 1}}},
      {"has_parent", false},
      {"tasks", list{task("inner")}}};
  state_snapshot state = app->get_state(config);
  BOOST_TEST(shape(state).to_json() == expected.to_json());
  BOOST_TEST(state.metadata.get("parents").to_json() == "{}");
  std::vector<state_snapshot> history = app->get_state_history(config);
  BOOST_TEST_REQUIRE(history.size() == 1u);
  BOOST_TEST(shape(history[0]).to_json() == expected.to_json());

  // With the subgraph's state.
  state_snapshot with_sub = app->get_state(config, true);
  const std::string inner_ns = "inner:" + with_sub.tasks.at(0).id;
  const value expected_child = object{
      {"values", object{{"my_key", "hi my value here"}, {"my_other_key", "hi my value"}}},
      {"next", list{"inner_2"}},
      {"ns", inner_ns},
      {"metadata", object{{"source", "loop"}, {"step", 1}}},
      {"has_parent", false},
      {"tasks", list{task("inner_2")}}};
  const value expected_with_sub = object{{"values", expected.get("values")},
                                         {"next", expected.get("next")},
                                         {"ns", ""},
                                         {"metadata", expected.get("metadata")},
                                         {"has_parent", false},
                                         {"tasks", list{task("inner", expected_child)}}};
  BOOST_TEST(shape(with_sub).to_json() == expected_with_sub.to_json());
  BOOST_TEST_REQUIRE(with_sub.tasks.at(0).state != nullptr);
  const state_snapshot& child = *with_sub.tasks.at(0).state;
  BOOST_TEST(child.metadata.get("parents").to_json() ==
             value(object{{"", state.config.checkpoint_id}}).to_json());
  BOOST_TEST(!child.config.checkpoint_id.empty());

  // The subgraph's history: its checkpoints only.
  const value child_config =
      object{{"configurable", object{{"thread_id", "1"}, {"checkpoint_ns", inner_ns}}}};
  std::vector<state_snapshot> child_history = app->get_state_history(child_config);
  BOOST_TEST_REQUIRE(child_history.size() == 1u);
  BOOST_TEST(shape(child_history[0]).to_json() == expected_child.to_json());
  BOOST_TEST(child_history[0].metadata.get("parents").to_json() ==
             child.metadata.get("parents").to_json());

  // Resume.
  app->invoke(value(), config);
  const value expected_end = object{
      {"values", object{{"my_key", "hi my value here and there and back again"}}},
      {"next", list{}},
      {"ns", ""},
      {"metadata", object{{"source", "loop"}, {"step", 3}}},
      {"has_parent", true},
      {"tasks", list{}}};
  state_snapshot end = app->get_state(config);
  BOOST_TEST(shape(end).to_json() == expected_end.to_json());
  BOOST_TEST(end.parent_config->checkpoint_id == state.config.checkpoint_id);

  // The full history at the end, and each checkpoint read back by its id.
  history = app->get_state_history(config);
  BOOST_TEST_REQUIRE(history.size() == 2u);
  BOOST_TEST(shape(history[0]).to_json() == expected_end.to_json());
  BOOST_TEST(shape(history[1]).to_json() == expected.to_json());
  for (const state_snapshot& s : history) {
    const value by_id = object{{"configurable", object{{"thread_id", "1"},
                                                       {"checkpoint_ns", ""},
                                                       {"checkpoint_id", s.config.checkpoint_id}}}};
    BOOST_TEST(shape(app->get_state(by_id)).to_json() == shape(s).to_json());
  }
}
