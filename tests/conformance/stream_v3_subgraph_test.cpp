// LangGraph's v3 event streaming: the subgraph transformer and its handles
// (libs/langgraph/tests/test_stream_subgraph_transformer.py): handles made from `tasks`
// events with child muxes, then real nested graphs read through `run.subgraphs()`.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

protocol_event tasks_start(strs ns, std::string task_id, std::string name) {
  return pevent("tasks",
                object{{"id", std::move(task_id)},
                       {"name", std::move(name)},
                       {"input", value()},
                       {"triggers", list{}}},
                std::move(ns));
}

protocol_event tasks_result(strs ns, std::string task_id, std::string name,
                            std::optional<std::string> error = std::nullopt, list interrupts = {}) {
  return pevent("tasks",
                object{{"id", std::move(task_id)},
                       {"name", std::move(name)},
                       {"error", error ? value(*error) : value()},
                       {"interrupts", value(std::move(interrupts))},
                       {"result", object{}}},
                std::move(ns));
}

/// `_native_factories`: what stream_events registers.
std::vector<transformer_factory> native_factories() {
  return {factory_of<values_transformer>(), factory_of<messages_transformer>(),
          factory_of<lifecycle_transformer>(), factory_of<subgraph_transformer>()};
}

using handle_ptr = std::shared_ptr<subgraph_run_stream>;

/// `_build_root_mux` and `_arm`: the native transformers, their subgraphs and lifecycle
/// channels and the main log subscribed.
struct root_mux {
  explicit root_mux(std::vector<transformer_factory> extra = {})
      : mux(with(native_factories(), std::move(extra))),
        subgraphs(
            dynamic_cast<stream_channel<handle_ptr>&>(*mux.extensions().at("subgraphs")).cursor()),
        lifecycle(dynamic_cast<stream_channel<value>&>(*mux.extensions().at("lifecycle")).cursor()),
        events(mux.events().cursor()) {}
  static std::vector<transformer_factory> with(std::vector<transformer_factory> a,
                                               std::vector<transformer_factory> b) {
    for (auto& f : b) a.push_back(std::move(f));
    return a;
  }
  void push(protocol_event e) { mux.push(std::move(e)); }

  stream_mux mux;
  stream_cursor<handle_ptr> subgraphs;
  stream_cursor<value> lifecycle;
  stream_cursor<protocol_event> events;
};

list pause_interrupts() {
  list l;
  l.push_back(value(object{{"value", "pause"}}));
  return l;
}

/// A stream of ready-made events through the native transformers and `extra`.
std::unique_ptr<graph_run_stream> run_over(std::vector<stream_event> events,
                                           std::vector<transformer_factory> extra) {
  return std::make_unique<graph_run_stream>(
      std::make_unique<stream_mux>(root_mux::with(native_factories(), std::move(extra))),
      std::make_unique<vector_source>(std::move(events)));
}

stream_event task_start_part(strs ns) {
  return {std::move(ns), stream_mode::tasks,
          object{{"id", "t1"}, {"name", "tool"}, {"input", value()}, {"triggers", list{}}}};
}

}  // namespace

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_handle_created_on_first_direct_child_task
BOOST_AUTO_TEST_CASE(test_handle_created_on_first_direct_child_task) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->path() == (strs{"agent:abc"}));
  BOOST_TEST(handles[0]->graph_name().value_or("") == "agent");
  BOOST_TEST(handles[0]->trigger_call_id().value_or("") == "abc");
  BOOST_TEST(handles[0]->status() == subgraph_status::started);
  BOOST_TEST(handles[0]->mux().scope() == (strs{"agent:abc"}));  // backed by a child mux
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_handle_status_completes_on_parent_result
BOOST_AUTO_TEST_CASE(test_handle_status_completes_on_parent_result) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent"));
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->status() == subgraph_status::completed);
  BOOST_TEST(!handles[0]->error().has_value());
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_handle_status_failed_with_error
BOOST_AUTO_TEST_CASE(test_handle_status_failed_with_error) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", "boom"));
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->status() == subgraph_status::failed);
  BOOST_TEST(handles[0]->error().value_or("") == "boom");
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_handle_status_interrupted
BOOST_AUTO_TEST_CASE(test_handle_status_interrupted) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", std::nullopt, pause_interrupts()));
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->status() == subgraph_status::interrupted);
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_grandchild_discovered_via_child_mini_mux
BOOST_AUTO_TEST_CASE(test_grandchild_discovered_via_child_mini_mux) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->path() == (strs{"agent:abc"}));
  // Subscribed to the child's subgraphs before the grandchild's first event comes.
  auto grandchildren = handles[0]->subgraphs().cursor();
  m.push(tasks_start({"agent:abc", "tool:def"}, "t2", "deep"));
  BOOST_TEST(drain(m.subgraphs).empty());   // not on the root's projection...
  const auto found = drain(grandchildren);  // ...but on the child's
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0]->path() == (strs{"agent:abc", "tool:def"}));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_finalize_completes_open_handles
BOOST_AUTO_TEST_CASE(test_finalize_completes_open_handles) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.mux.close();
  const auto handles = drain(m.subgraphs);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_TEST(handles[0]->status() == subgraph_status::completed);
  BOOST_TEST(handles[0]->mux().events().closed());
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_fail_marks_open_handles_interrupted_for_graph_interrupt
BOOST_AUTO_TEST_CASE(test_fail_marks_open_handles_interrupted_for_graph_interrupt) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  auto handle = m.subgraphs.next();
  BOOST_REQUIRE(handle.has_value());
  m.mux.fail(std::make_exception_ptr(error(error_code::interrupted, "interrupted")));
  BOOST_TEST((*handle)->status() == subgraph_status::interrupted);
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_fail_marks_open_handles_failed_for_other_errors
BOOST_AUTO_TEST_CASE(test_fail_marks_open_handles_failed_for_other_errors) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  auto handle = m.subgraphs.next();
  BOOST_REQUIRE(handle.has_value());
  m.mux.fail(failure("boom"));
  BOOST_TEST((*handle)->status() == subgraph_status::failed);
  BOOST_TEST((*handle)->error().value_or("") == "boom");
  BOOST_TEST(throws_with([&] { (void)(*handle)->output(); }, "boom"));  // its mux failed too
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_child_mux_requires_factories
BOOST_AUTO_TEST_CASE(test_child_mux_requires_factories) {
  stream_mux mux(
      std::vector<std::shared_ptr<stream_transformer>>{std::make_shared<subgraph_transformer>()});
  BOOST_TEST(throws_with([&] { (void)mux.make_child({"anything"}); }, "factories"));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_subgraph_and_lifecycle_agree_on_terminal_status
BOOST_AUTO_TEST_CASE(test_subgraph_and_lifecycle_agree_on_terminal_status) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", "boom"));
  const auto handles = drain(m.subgraphs);
  const auto payloads = drain(m.lifecycle);
  BOOST_REQUIRE(handles.size() == 1u);
  BOOST_REQUIRE(!payloads.empty());
  BOOST_TEST(handles[0]->status() == subgraph_status::failed);
  BOOST_TEST(payloads.back().get("event") == value("failed"));
  BOOST_TEST(value(handles[0]->error().value_or("")) == payloads.back().get("error"));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_required_stream_modes_declared
BOOST_AUTO_TEST_CASE(test_required_stream_modes_declared) {
  BOOST_TEST((subgraph_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::tasks}));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_tasks_events_suppressed_from_main_log
BOOST_AUTO_TEST_CASE(test_tasks_events_suppressed_from_main_log) {
  root_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent"));
  for (const auto& e : drain(m.events)) BOOST_TEST(e.method != "tasks");
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_child_forwarding_reuses_event_without_assigning_seq
// Python checks the child gets the very event object (id()); a C++ child mux gets a copy of
// the event. What is observable is asserted: the child sees it without a seq, the root's log
// has it numbered.
BOOST_AUTO_TEST_CASE(test_child_forwarding_reuses_event_without_assigning_seq) {
  struct record {
    strs scope;
    value data;
    bool has_seq;
  };
  auto records = std::make_shared<std::vector<record>>();
  class child_event_observer : public plain_transformer {
   public:
    child_event_observer(strs scope, std::shared_ptr<std::vector<record>> out)
        : plain_transformer(std::move(scope)), out_(std::move(out)) {}
    bool process(protocol_event& e) override {
      if (!scope().empty() && e.method == "values")
        out_->push_back({scope(), e.params.data, e.seq.has_value()});
      return true;
    }

   private:
    std::shared_ptr<std::vector<record>> out_;
  };
  root_mux m({[records](const strs& scope) {
    return std::make_shared<child_event_observer>(scope, records);
  }});
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  const value data = object{{"x", 1}};
  m.push(pevent("values", data, {"agent:abc"}));
  BOOST_REQUIRE(records->size() == 1u);
  BOOST_TEST((*records)[0].scope == (strs{"agent:abc"}));
  BOOST_TEST((*records)[0].data.same_instance(data));  // the payload is shared, not copied
  BOOST_TEST(!(*records)[0].has_seq);
  std::vector<protocol_event> root_values;
  for (auto& e : drain(m.events))
    if (e.method == "values") root_values.push_back(e);
  BOOST_REQUIRE(root_values.size() == 1u);
  BOOST_TEST(root_values[0].seq.has_value());
}

namespace {

/// Transformers built through the scoped factories.
class standard_ctor_transformer : public plain_transformer {
 public:
  using plain_transformer::plain_transformer;
  stream_projections init() override { return {}; }
};

class configurable_factory_transformer : public plain_transformer {
 public:
  configurable_factory_transformer(strs scope, std::string label)
      : plain_transformer(std::move(scope)), label(std::move(label)) {}
  std::string label;
};

}  // namespace

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_normalize_transformer_factories_supports_scoped_classes
BOOST_AUTO_TEST_CASE(test_normalize_transformer_factories_supports_scoped_classes) {
  const auto built = factory_of<standard_ctor_transformer>()({"child"});
  BOOST_REQUIRE(dynamic_cast<standard_ctor_transformer*>(built.get()));
  BOOST_TEST(built->scope() == (strs{"child"}));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_normalize_transformer_factories_supports_configured_factories
BOOST_AUTO_TEST_CASE(test_normalize_transformer_factories_supports_configured_factories) {
  const transformer_factory f = [](const strs& scope) {
    return std::make_shared<configurable_factory_transformer>(scope, "configured");
  };
  const auto built = f({"child"});
  auto* t = dynamic_cast<configurable_factory_transformer*>(built.get());
  BOOST_REQUIRE(t);
  BOOST_TEST(t->label == "configured");
  BOOST_TEST(t->scope() == (strs{"child"}));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_normalize_transformer_factories_rejects_instances
// A C++ caller gives factories by type; the one that cannot make a transformer per scope, an
// empty factory, is refused.
BOOST_AUTO_TEST_CASE(test_normalize_transformer_factories_rejects_instances) {
  BOOST_TEST(throws_with([] { stream_mux mux(std::vector<transformer_factory>{{}}); },
                         "factory #0 is empty"));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_child_forwarding_errors_fail_sync_run
BOOST_AUTO_TEST_CASE(test_child_forwarding_errors_fail_sync_run) {
  class child_exploder : public plain_transformer {
   public:
    using plain_transformer::plain_transformer;
    bool process(protocol_event& e) override {
      if (!scope().empty() && e.method == "values") throw std::runtime_error("child boom");
      return true;
    }
  };
  auto run = run_over(
      {task_start_part({"agent:abc"}), {{"agent:abc"}, stream_mode::values, object{{"x", 1}}}},
      {factory_of<child_exploder>()});
  auto handle = run->subgraphs().cursor().next();
  BOOST_REQUIRE(handle.has_value());
  BOOST_TEST((*handle)->path() == (strs{"agent:abc"}));
  BOOST_TEST(throws_with([&] { (void)run->output(); }, "child boom"));
  BOOST_TEST(static_cast<bool>(run->mux().events().error()));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_child_finalize_errors_propagate_to_sync_run
BOOST_AUTO_TEST_CASE(test_child_finalize_errors_propagate_to_sync_run) {
  class child_finalize_exploder : public plain_transformer {
   public:
    using plain_transformer::plain_transformer;
    void finalize() override {
      if (!scope().empty()) throw std::runtime_error("child finalize boom");
    }
  };
  auto run = run_over({task_start_part({"agent:abc"})}, {factory_of<child_finalize_exploder>()});
  BOOST_TEST(throws_with([&] { (void)run->output(); }, "child finalize boom"));
}

namespace {

/// `_make_two_level_nested`: outer -> middle -> inner.
std::shared_ptr<pregel> two_level_nested() {
  const auto passthrough = [](const value& st, node_context&) -> value {
    return object{{"value", st.get("value").as_string() + "!"}, {"items", value::array({"x"})}};
  };
  state_graph inner = simple_state();
  inner.add_node("inner_node", passthrough);
  inner.add_edge("__start__", "inner_node");
  inner.add_edge("inner_node", "__end__");
  state_graph middle = simple_state();
  middle.add_node("inner", inner.compile(opts()));
  middle.add_edge("__start__", "inner");
  middle.add_edge("inner", "__end__");
  state_graph outer = simple_state();
  outer.add_node("middle", middle.compile(opts()));
  outer.add_edge("__start__", "middle");
  outer.add_edge("middle", "__end__");
  return outer.compile(opts());
}

/// `_make_two_sibling_subgraphs`: outer -> one -> two, each a subgraph adding its name.
std::shared_ptr<pregel> two_sibling_subgraphs() {
  const auto sub = [](const std::string& item) {
    state_graph g = simple_state();
    g.add_node("add_" + item, [item](const value&, node_context&) -> value {
      return object{{"items", value::array({item})}};
    });
    g.add_edge("__start__", "add_" + item);
    g.add_edge("add_" + item, "__end__");
    return g.compile(opts());
  };
  state_graph outer = simple_state();
  outer.add_node("one", sub("one"));
  outer.add_node("two", sub("two"));
  outer.add_edge("__start__", "one");
  outer.add_edge("one", "two");
  outer.add_edge("two", "__end__");
  return outer.compile(opts());
}

/// `_make_failing_nested`: outer -> inner, whose node raises "child boom".
std::shared_ptr<pregel> failing_nested() {
  state_graph inner = simple_state();
  inner.add_node("fail", [](const value&, node_context&) -> value {
    throw std::invalid_argument("child boom");
  });
  inner.add_edge("__start__", "fail");
  inner.add_edge("fail", "__end__");
  state_graph outer = simple_state();
  outer.add_node("inner", inner.compile(opts()));
  outer.add_edge("__start__", "inner");
  outer.add_edge("inner", "__end__");
  return outer.compile(opts());
}

}  // namespace

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_stream_events_v3_real_graph_yields_subgraph_handles
BOOST_AUTO_TEST_CASE(test_stream_events_v3_real_graph_yields_subgraph_handles) {
  auto run = two_level_nested()->stream_events(simple_input());
  std::vector<strs> paths;
  std::vector<subgraph_status> statuses;
  for (auto& handle : run->subgraphs()) {
    // Read the handle's projections inside the loop, before the run is pumped on.
    const auto values = drain(handle->values());
    BOOST_TEST(!values.empty());
    paths.push_back(handle->path());
    statuses.push_back(handle->status());
  }
  BOOST_REQUIRE(paths.size() == 1u);
  BOOST_TEST(paths[0].at(0).rfind("middle:", 0) == 0u);
  BOOST_TEST(statuses[0] == subgraph_status::completed);
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_stream_events_v3_grandchild_visible_on_child_handle
BOOST_AUTO_TEST_CASE(test_stream_events_v3_grandchild_visible_on_child_handle) {
  auto run = two_level_nested()->stream_events(simple_input());
  std::vector<strs> grandchild_paths;
  std::optional<strs> middle_path;
  for (auto& middle : run->subgraphs()) {
    for (auto& inner : middle->subgraphs()) {
      (void)drain(inner->values());
      grandchild_paths.push_back(inner->path());
    }
    middle_path = middle->path();
  }
  BOOST_REQUIRE(middle_path.has_value());
  BOOST_REQUIRE(grandchild_paths.size() == 1u);
  const strs& inner_path = grandchild_paths[0];
  BOOST_REQUIRE(inner_path.size() == 2u);
  BOOST_TEST(inner_path[1].rfind("inner:", 0) == 0u);
  BOOST_TEST(inner_path[0] == middle_path->at(0));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_subgraph_output_stops_at_own_terminal_without_draining_siblings
BOOST_AUTO_TEST_CASE(test_subgraph_output_stops_at_own_terminal_without_draining_siblings) {
  auto run = two_sibling_subgraphs()->stream_events(simple_input());
  strs names;
  std::vector<value> second_values;
  for (auto& handle : run->subgraphs()) {
    names.push_back(handle->path().at(0).substr(0, handle->path().at(0).find(':')));
    if (handle->graph_name() == "one") {
      BOOST_TEST(!handle->output().is_null());
      BOOST_TEST(handle->status() == subgraph_status::completed);
    } else if (handle->graph_name() == "two") {
      second_values = drain(handle->values());
    }
  }
  BOOST_TEST(names == (strs{"one", "two"}));
  BOOST_REQUIRE(!second_values.empty());
  BOOST_TEST(second_values.back().get("items") == value::array({"one", "two"}));
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_aborted_subgraph_handle_does_not_fail_parent_forwarding
BOOST_AUTO_TEST_CASE(test_aborted_subgraph_handle_does_not_fail_parent_forwarding) {
  auto run = two_sibling_subgraphs()->stream_events(simple_input());
  strs seen;
  for (auto& handle : run->subgraphs()) {
    seen.push_back(handle->graph_name().value_or("?"));
    if (handle->graph_name() == "one") {
      // Subscribed, then aborted: forwarding into its closed mux must not fail the run.
      (void)handle->values().cursor();
      handle->abort();
      BOOST_TEST(handle->exhausted());
    } else if (handle->graph_name() == "two") {
      BOOST_TEST(!drain(handle->values()).empty());
    }
  }
  BOOST_TEST(seen == (strs{"one", "two"}));
  BOOST_CHECK_NO_THROW((void)run->output());  // the run was not failed by the closed handle
}

// libs/langgraph/tests/test_stream_subgraph_transformer.py::test_failed_subgraph_output_raises_terminal_error
BOOST_AUTO_TEST_CASE(test_failed_subgraph_output_raises_terminal_error) {
  auto run = failing_nested()->stream_events(simple_input());
  auto handle = run->subgraphs().cursor().next();
  BOOST_REQUIRE(handle.has_value());
  BOOST_TEST(throws_with([&] { (void)(*handle)->output(); }, "child boom"));
  BOOST_TEST((*handle)->status() == subgraph_status::failed);
  BOOST_TEST((*handle)->error().value_or("") == "child boom");
}
