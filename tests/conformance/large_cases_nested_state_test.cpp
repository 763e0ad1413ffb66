// libs/langgraph/tests/test_large_cases.py: the state of nested graphs (get_state with
// subgraphs, a subgraph's history, update_state of a subgraph's checkpoint).

#include <algorithm>
#include <string>
#include <vector>

#include "stream_support.hpp"

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
    object o{{"name", t.name},
             {"error", t.error ? value(*t.error) : value()},
             {"interrupts", value(t.interrupts)}};
    if (t.state)
      o.set("state", shape(*t.state));
    else if (t.state_config)
      o.set("state", "config " + t.state_config->checkpoint_ns);
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

// A checkpoint_config as a run's config (LangGraph passes PregelTask.state so).
value config_value(const checkpoint_config& c) {
  object conf{{"thread_id", c.thread_id}, {"checkpoint_ns", c.checkpoint_ns}};
  if (!c.checkpoint_id.empty()) conf.set("checkpoint_id", c.checkpoint_id);
  return object{{"configurable", std::move(conf)}};
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
    return object{{"my_key", str(s, "my_key") + " and there"}, {"my_other_key", s.get("my_key")}};
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

  // Right after the interrupt, without the subgraph's state: the task has its config.
  state_snapshot state = app->get_state(config);
  BOOST_TEST_REQUIRE(state.tasks.size() == 1u);
  const std::string inner_ns = "inner:" + state.tasks[0].id;
  const value expected = object{{"values", object{{"my_key", "hi my value"}}},
                                {"next", list{"inner"}},
                                {"ns", ""},
                                {"metadata", object{{"source", "loop"}, {"step", 1}}},
                                {"has_parent", false},
                                {"tasks", list{task("inner", "config " + inner_ns)}}};
  BOOST_TEST(shape(state).to_json() == expected.to_json());
  BOOST_TEST(state.metadata.get("parents").to_json() == "{}");
  std::vector<state_snapshot> history = app->get_state_history(config);
  BOOST_TEST_REQUIRE(history.size() == 1u);
  BOOST_TEST(shape(history[0]).to_json() == expected.to_json());

  // With the subgraph's state.
  state_snapshot with_sub = app->get_state(config, true);
  const value expected_child =
      object{{"values", object{{"my_key", "hi my value here"}, {"my_other_key", "hi my value"}}},
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
  std::vector<state_snapshot> child_history =
      app->get_state_history(config_value(*state.tasks[0].state_config));
  BOOST_TEST_REQUIRE(child_history.size() == 1u);
  BOOST_TEST(shape(child_history[0]).to_json() == expected_child.to_json());
  BOOST_TEST(child_history[0].metadata.get("parents").to_json() ==
             child.metadata.get("parents").to_json());

  // Resume.
  app->invoke(value(), config);
  const value expected_end =
      object{{"values", object{{"my_key", "hi my value here and there and back again"}}},
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

// libs/langgraph/tests/test_large_cases.py::test_doubly_nested_graph_state
BOOST_AUTO_TEST_CASE(test_doubly_nested_graph_state) {
  state_graph grandchild;
  grandchild.add_key("my_key");
  grandchild.add_node("grandchild_1", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " here"}};
  });
  grandchild.add_node("grandchild_2", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " and there"}};
  });
  grandchild.add_edge("grandchild_1", "grandchild_2").set_entry_point("grandchild_1");
  grandchild.set_finish_point("grandchild_2");
  compile_options grandchild_opts = opts();
  grandchild_opts.interrupt_before = {"grandchild_2"};

  state_graph child;
  child.add_key("my_key");
  child.add_node("child_1", grandchild.compile(grandchild_opts));
  child.set_entry_point("child_1").set_finish_point("child_1");

  state_graph graph;
  graph.add_key("my_key");
  graph.add_node("parent_1", [](const value& s, node_context&) -> value {
    return object{{"my_key", "hi " + str(s, "my_key")}};
  });
  graph.add_node("child", child.compile(opts()));
  graph.add_node("parent_2", [](const value& s, node_context&) -> value {
    return object{{"my_key", str(s, "my_key") + " and back again"}};
  });
  graph.set_entry_point("parent_1").add_edge("parent_1", "child").add_edge("child", "parent_2");
  graph.set_finish_point("parent_2");
  std::shared_ptr<pregel> app = graph.compile(opts_with_saver());

  // An interrupt two levels down.
  const value config = with_durability("1", "exit");
  BOOST_TEST(
      stream_texts(*app, object{{"my_key", "my value"}}, config, {stream_mode::updates}, true) ==
          (std::vector<std::string>{
              R"(() {"parent_1":{"my_key":"hi my value"}})",
              R"((child:|child_1:) {"grandchild_1":{"my_key":"hi my value here"}})",
              R"(() {"__interrupt__":[]})"}),
      boost::test_tools::per_element());

  // Each level read on its own, through the namespaces of the tasks.
  const value grandchild_shape = object{{"values", object{{"my_key", "hi my value here"}}},
                                        {"next", list{"grandchild_2"}},
                                        {"ns", ""},
                                        {"metadata", object{{"source", "loop"}, {"step", 1}}},
                                        {"has_parent", false},
                                        {"tasks", list{task("grandchild_2")}}};
  // `shape` at namespace `ns`, its task's state `task_state` (a shape, or "config <ns>").
  auto at = [](const value& shape, const std::string& ns, value task_state = value()) {
    object o = shape.as_object();
    o.set("ns", ns);
    if (!task_state.is_null()) {
      object t = o.find("tasks")->as_list().at(0).as_object();
      t.set("state", std::move(task_state));
      o.set("tasks", list{value(std::move(t))});
    }
    return value(std::move(o));
  };
  const value child_shape = object{{"values", object{{"my_key", "hi my value"}}},
                                   {"next", list{"child_1"}},
                                   {"ns", ""},
                                   {"metadata", object{{"source", "loop"}, {"step", 0}}},
                                   {"has_parent", false},
                                   {"tasks", list{task("child_1")}}};
  const value outer_shape = object{{"values", object{{"my_key", "hi my value"}}},
                                   {"next", list{"child"}},
                                   {"ns", ""},
                                   {"metadata", object{{"source", "loop"}, {"step", 1}}},
                                   {"has_parent", false},
                                   {"tasks", list{task("child")}}};
  state_snapshot outer = app->get_state(config);
  BOOST_TEST_REQUIRE(outer.tasks.size() == 1u);
  BOOST_TEST_REQUIRE(outer.tasks[0].state_config.has_value());
  const std::string child_ns = "child:" + outer.tasks[0].id;
  state_snapshot child_state = app->get_state(config_value(*outer.tasks[0].state_config));
  BOOST_TEST_REQUIRE(child_state.tasks.size() == 1u);
  BOOST_TEST_REQUIRE(child_state.tasks[0].state_config.has_value());
  const std::string grandchild_ns = child_ns + "|child_1:" + child_state.tasks[0].id;
  BOOST_TEST(shape(outer).to_json() == at(outer_shape, "", "config " + child_ns).to_json());
  BOOST_TEST(outer.metadata.get("parents").to_json() == "{}");
  BOOST_TEST(shape(child_state).to_json() ==
             at(child_shape, child_ns, "config " + grandchild_ns).to_json());
  BOOST_TEST(child_state.metadata.get("parents").to_json() ==
             value(object{{"", outer.config.checkpoint_id}}).to_json());
  state_snapshot grandchild_state =
      app->get_state(config_value(*child_state.tasks[0].state_config));
  BOOST_TEST(shape(grandchild_state).to_json() == at(grandchild_shape, grandchild_ns).to_json());
  BOOST_TEST(
      grandchild_state.metadata.get("parents").to_json() ==
      value(object{{"", outer.config.checkpoint_id}, {child_ns, child_state.config.checkpoint_id}})
          .to_json());

  // All levels at once.
  BOOST_TEST(shape(app->get_state(config, true)).to_json() ==
             at(outer_shape, "", at(child_shape, child_ns, at(grandchild_shape, grandchild_ns)))
                 .to_json());

  // Resume.
  BOOST_TEST(
      stream_texts(*app, value(), config, {stream_mode::updates}, true) ==
          (std::vector<std::string>{
              R"((child:|child_1:) {"grandchild_2":{"my_key":"hi my value here and there"}})",
              R"((child:) {"child_1":{"my_key":"hi my value here and there"}})",
              R"(() {"child":{"my_key":"hi my value here and there"}})",
              R"(() {"parent_2":{"my_key":"hi my value here and there and back again"}})"}),
      boost::test_tools::per_element());
  const value end_shape =
      object{{"values", object{{"my_key", "hi my value here and there and back again"}}},
             {"next", list{}},
             {"ns", ""},
             {"metadata", object{{"source", "loop"}, {"step", 3}}},
             {"has_parent", true},
             {"tasks", list{}}};
  BOOST_TEST(shape(app->get_state(config)).to_json() == end_shape.to_json());
  BOOST_TEST(shape(app->get_state(config, true)).to_json() == end_shape.to_json());

  // The history of each level.
  std::vector<state_snapshot> outer_history = app->get_state_history(config);
  BOOST_TEST_REQUIRE(outer_history.size() == 2u);
  BOOST_TEST(shape(outer_history[0]).to_json() == end_shape.to_json());
  BOOST_TEST(shape(outer_history[1]).to_json() ==
             at(outer_shape, "", "config " + child_ns).to_json());
  std::vector<state_snapshot> child_history =
      app->get_state_history(config_value(*outer_history[1].tasks.at(0).state_config));
  BOOST_TEST_REQUIRE(child_history.size() == 1u);
  BOOST_TEST(shape(child_history[0]).to_json() ==
             at(child_shape, child_ns, "config " + grandchild_ns).to_json());
  std::vector<state_snapshot> grandchild_history =
      app->get_state_history(config_value(*child_history[0].tasks.at(0).state_config));
  BOOST_TEST_REQUIRE(grandchild_history.size() == 1u);
  BOOST_TEST(shape(grandchild_history[0]).to_json() ==
             at(grandchild_shape, grandchild_ns).to_json());
}

// libs/langgraph/tests/test_large_cases.py::test_send_to_nested_graphs
// (LangGraph's tracer callback, which counts root runs, needs Python and is left out.)
BOOST_AUTO_TEST_CASE(test_send_to_nested_graphs) {
  state_graph subgraph;
  subgraph.add_key("subject").add_key("subjects").add_key("jokes", "add", value(list{}));
  subgraph.set_input_keys({"subject"}).set_output_keys({"subjects", "jokes"});
  subgraph.add_node("edit", [](const value& s, node_context&) -> value {
    return object{{"subject", str(s, "subject") + " - hohoho"}};
  });
  subgraph.add_node("generate", [](const value& s, node_context&) -> value {
    return object{{"jokes", list{"Joke about " + str(s, "subject")}}};
  });
  subgraph.set_entry_point("edit").add_edge("edit", "generate").set_finish_point("generate");
  compile_options sub_opts = opts();
  sub_opts.interrupt_before = {"generate"};

  state_graph builder;
  builder.add_key("subjects").add_key("jokes", "add", value(list{}));
  builder.add_node("generate_joke", subgraph.compile(sub_opts));
  builder.add_conditional_edges("__start__", [](const value& s, node_context&) -> value {
    list sends;
    for (const value& subject : s.get("subjects").as_list())
      sends.push_back(make_send("generate_joke", object{{"subject", subject}}));
    return value(std::move(sends));
  });
  builder.add_edge("generate_joke", "__end__");
  std::shared_ptr<pregel> graph = builder.compile(opts_with_saver());
  const value config = thread("1");

  // Paused at the interrupt inside each Send's subgraph.
  BOOST_TEST(graph->invoke(object{{"subjects", list{"cats", "dogs"}}}, config).to_json() ==
             R"({"subjects":["cats","dogs"],"jokes":[]})");

  // Update the state of the dogs' subgraph, through its task's state config.
  state_snapshot outer = graph->get_state(config);
  BOOST_TEST_REQUIRE(outer.tasks.size() == 2u);
  BOOST_TEST_REQUIRE(outer.tasks[1].state_config.has_value());
  BOOST_TEST(outer.tasks[1].state_config->checkpoint_ns == "generate_joke:" + outer.tasks[1].id);
  graph->update_state(config_value(*outer.tasks[1].state_config),
                      object{{"subject", "turtles - hohoho"}});

  // Continue past the interrupts.
  std::vector<std::string> events = stream_texts(*graph, value(), config, {stream_mode::updates});
  std::sort(events.begin(), events.end());
  BOOST_TEST(events == (std::vector<std::string>{
                           R"(() {"generate_joke":{"jokes":["Joke about cats - hohoho"]}})",
                           R"(() {"generate_joke":{"jokes":["Joke about turtles - hohoho"]}})"}),
             boost::test_tools::per_element());
}
