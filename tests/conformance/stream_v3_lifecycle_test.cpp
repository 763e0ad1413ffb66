// LangGraph's v3 event streaming: the lifecycle transformer
// (libs/langgraph/tests/test_stream_lifecycle_transformer.py): subgraphs found from `tasks`
// events, on hand-made events through a mux, then on real nested graphs.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;

/// `_tasks_start`: a task start (TaskPayload) at `ns`.
protocol_event tasks_start(strs ns, std::string task_id, std::string name,
                           std::optional<value> metadata = std::nullopt, value input = value()) {
  object data{{"id", std::move(task_id)},
              {"name", std::move(name)},
              {"input", std::move(input)},
              {"triggers", list{}}};
  if (metadata) data.set("metadata", *metadata);
  return pevent("tasks", value(std::move(data)), std::move(ns));
}

/// `_tasks_result`: a task result (TaskResultPayload) at `ns`.
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

/// `_build_lifecycle_mux` and `_arm`: a mux of one lifecycle transformer, its lifecycle channel
/// and main log subscribed so that what they get is kept.
struct lifecycle_mux {
  explicit lifecycle_mux(strs scope = {})
      : mux(std::vector<std::shared_ptr<stream_transformer>>{
            std::make_shared<lifecycle_transformer>(std::move(scope))}),
        lifecycle(mux.extension_channel()),
        events(mux.events().cursor()) {}
  void push(protocol_event e) { mux.push(std::move(e)); }
  /// `_drain_lifecycle`: the payloads so far.
  std::vector<value> drain_lifecycle() { return drain(lifecycle); }

  struct lifecycle_only_mux : stream_mux {
    using stream_mux::stream_mux;
    stream_cursor<value> extension_channel() {
      return dynamic_cast<stream_channel<value>&>(*extensions().at("lifecycle")).cursor();
    }
  } mux;
  stream_cursor<value> lifecycle;
  stream_cursor<protocol_event> events;
};

/// [{"value": "pause"}], the interrupts of an interrupted task.
list pause_interrupts() {
  list l;
  l.push_back(value(object{{"value", "pause"}}));
  return l;
}

strs events_of(const std::vector<value>& payloads) {
  strs out;
  for (const auto& p : payloads) out.push_back(p.get("event").as_string());
  return out;
}

value ns_of(const strs& ns) {
  list l;
  for (const auto& s : ns) l.emplace_back(s);
  return value(std::move(l));
}

value tool_call_input(std::string name, std::string id) {
  return object{{"__type", "tool_call_with_context"},
                {"tool_call", object{{"name", std::move(name)},
                                     {"args", object{}},
                                     {"id", std::move(id)},
                                     {"type", "tool_call"}}},
                {"state", object{}}};
}

}  // namespace

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_started_emitted_on_first_direct_child_task
BOOST_AUTO_TEST_CASE(test_started_emitted_on_first_direct_child_task) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc123"}, "t1", "tool"));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0] == value(object{{"event", "started"},
                                         {"namespace", ns_of({"agent:abc123"})},
                                         {"graph_name", "agent"},
                                         {"trigger_call_id", "abc123"}}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_started_dedup_on_repeat_namespace
BOOST_AUTO_TEST_CASE(test_started_dedup_on_repeat_namespace) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "a"));
  m.push(tasks_start({"agent:abc"}, "t2", "b"));
  BOOST_TEST(events_of(m.drain_lifecycle()) == (strs{"started"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_grandchild_namespace_discovered
BOOST_AUTO_TEST_CASE(test_grandchild_namespace_discovered) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc", "tool:def"}, "t1", "x"));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("event") == value("started"));
  BOOST_TEST(payloads[0].get("namespace") == ns_of({"agent:abc", "tool:def"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_nested_chain_emits_started_at_each_depth
BOOST_AUTO_TEST_CASE(test_nested_chain_emits_started_at_each_depth) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_start({"agent:abc", "tool:def"}, "t2", "deep"));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 2u);
  BOOST_TEST(payloads[0].get("namespace") == ns_of({"agent:abc"}));
  BOOST_TEST(payloads[1].get("namespace") == ns_of({"agent:abc", "tool:def"}));
  BOOST_TEST(events_of(payloads) == (strs{"started", "started"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_nested_chain_emits_completed_at_each_depth
BOOST_AUTO_TEST_CASE(test_nested_chain_emits_completed_at_each_depth) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_start({"agent:abc", "tool:def"}, "t2", "deep"));
  m.push(tasks_result({"agent:abc"}, "def", "tool"));  // subgraph 2's owning task ends
  m.push(tasks_result({}, "abc", "agent"));            // then subgraph 1's
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 4u);
  BOOST_TEST(events_of(payloads) == (strs{"started", "started", "completed", "completed"}));
  BOOST_TEST(payloads[0].get("namespace") == ns_of({"agent:abc"}));
  BOOST_TEST(payloads[1].get("namespace") == ns_of({"agent:abc", "tool:def"}));
  BOOST_TEST(payloads[2].get("namespace") == ns_of({"agent:abc", "tool:def"}));
  BOOST_TEST(payloads[3].get("namespace") == ns_of({"agent:abc"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_completed_on_parent_task_result
BOOST_AUTO_TEST_CASE(test_completed_on_parent_task_result) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent"));
  BOOST_TEST(events_of(m.drain_lifecycle()) == (strs{"started", "completed"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_failed_on_parent_task_result_with_error
BOOST_AUTO_TEST_CASE(test_failed_on_parent_task_result_with_error) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", "boom"));
  const auto payloads = m.drain_lifecycle();
  BOOST_TEST(events_of(payloads) == (strs{"started", "failed"}));
  BOOST_TEST(payloads.at(1).get("error") == value("boom"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_interrupted_on_parent_task_result_with_interrupts
BOOST_AUTO_TEST_CASE(test_interrupted_on_parent_task_result_with_interrupts) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", std::nullopt, pause_interrupts()));
  BOOST_TEST(events_of(m.drain_lifecycle()) == (strs{"started", "interrupted"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_interrupt_takes_precedence_over_error
BOOST_AUTO_TEST_CASE(test_interrupt_takes_precedence_over_error) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent", "should-be-suppressed", pause_interrupts()));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(!payloads.empty());
  BOOST_TEST(payloads.back().get("event") == value("interrupted"));
  BOOST_TEST(!payloads.back().find("error"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_finalize_completes_open_subgraphs
BOOST_AUTO_TEST_CASE(test_finalize_completes_open_subgraphs) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.mux.close();
  BOOST_TEST(events_of(m.drain_lifecycle()) == (strs{"started", "completed"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_fail_emits_interrupted_for_graph_interrupt
BOOST_AUTO_TEST_CASE(test_fail_emits_interrupted_for_graph_interrupt) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.mux.fail(std::make_exception_ptr(error(error_code::interrupted, "interrupted")));
  // The channel failed with the run's error after the payloads: read them up to it.
  std::vector<value> payloads;
  BOOST_TEST(throws_with(
      [&] {
        while (auto p = m.lifecycle.next()) payloads.push_back(*p);
      },
      "interrupted"));
  BOOST_TEST(events_of(payloads) == (strs{"started", "interrupted"}));
  BOOST_TEST(!payloads.at(1).find("error"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_fail_emits_failed_for_other_exceptions
BOOST_AUTO_TEST_CASE(test_fail_emits_failed_for_other_exceptions) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.mux.fail(failure("boom"));
  std::vector<value> payloads;
  BOOST_TEST(throws_with(
      [&] {
        while (auto p = m.lifecycle.next()) payloads.push_back(*p);
      },
      "boom"));
  BOOST_TEST(events_of(payloads) == (strs{"started", "failed"}));
  BOOST_TEST(payloads.at(1).get("error") == value("boom"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_unrelated_methods_pass_through
BOOST_AUTO_TEST_CASE(test_unrelated_methods_pass_through) {
  lifecycle_mux m;
  m.push(pevent("values", object{}, {"agent:abc"}));
  BOOST_TEST(m.drain_lifecycle().empty());
  const auto events = drain(m.events);
  BOOST_REQUIRE(events.size() == 1u);  // kept in the main log
  BOOST_TEST(events[0].method == "values");
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_scoped_transformer_filters_outside_scope_but_tracks_all_depths
BOOST_AUTO_TEST_CASE(test_scoped_transformer_filters_outside_scope_but_tracks_all_depths) {
  lifecycle_mux m({"agent:abc"});
  m.push(tasks_start({"other:1"}, "t1", "other"));
  m.push(tasks_start({"agent:abc", "tool:def"}, "t2", "tool"));
  m.push(tasks_start({"agent:abc", "tool:def", "deep:ghi"}, "t3", "deep"));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 2u);
  BOOST_TEST(payloads[0].get("namespace") == ns_of({"agent:abc", "tool:def"}));
  BOOST_TEST(payloads[1].get("namespace") == ns_of({"agent:abc", "tool:def", "deep:ghi"}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_required_stream_modes_declared
BOOST_AUTO_TEST_CASE(test_required_stream_modes_declared) {
  BOOST_TEST((lifecycle_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::tasks}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_protocol_event_method_is_native
BOOST_AUTO_TEST_CASE(test_protocol_event_method_is_native) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  std::set<std::string> methods;
  for (const auto& e : drain(m.events)) methods.insert(e.method);
  BOOST_TEST(methods.count("lifecycle") == 1u);
  BOOST_TEST(methods.count("custom:lifecycle") == 0u);
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_tasks_events_suppressed_from_main_log
BOOST_AUTO_TEST_CASE(test_tasks_events_suppressed_from_main_log) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  m.push(tasks_result({}, "abc", "agent"));
  strs methods;
  for (const auto& e : drain(m.events)) methods.push_back(e.method);
  BOOST_TEST(methods == (strs{"lifecycle", "lifecycle"}));
}

namespace {

/// `_make_two_level_nested`: outer -> middle -> inner, each a subgraph node of the one above.
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

}  // namespace

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_stream_events_v3_real_graph_emits_lifecycle_at_each_depth
BOOST_AUTO_TEST_CASE(test_stream_events_v3_real_graph_emits_lifecycle_at_each_depth) {
  auto run = two_level_nested()->stream_events(simple_input());
  const auto payloads = drain(run->lifecycle());
  // Each of the two nested instances starts and completes, the inner one inside the outer.
  BOOST_REQUIRE(payloads.size() == 4u);
  BOOST_TEST(events_of(payloads) == (strs{"started", "started", "completed", "completed"}));
  const list& child = payloads[0].get("namespace").as_list();
  const list& grandchild = payloads[1].get("namespace").as_list();
  BOOST_REQUIRE(child.size() == 1u);
  BOOST_REQUIRE(grandchild.size() == 2u);
  BOOST_TEST(grandchild[0] == child[0]);  // the grandchild's path extends its parent's
  BOOST_TEST(child[0].as_string().rfind("middle:", 0) == 0u);
  BOOST_TEST(grandchild[1].as_string().rfind("inner:", 0) == 0u);
  BOOST_TEST(payloads[0].get("graph_name") == value("middle"));
  BOOST_TEST(payloads[1].get("graph_name") == value("inner"));
  BOOST_TEST(payloads[2].get("namespace") == payloads[1].get("namespace"));
  BOOST_TEST(payloads[3].get("namespace") == payloads[0].get("namespace"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_stream_events_v3_with_nested_parent_ns_scopes_lifecycle
BOOST_AUTO_TEST_CASE(test_stream_events_v3_with_nested_parent_ns_scopes_lifecycle) {
  auto run = two_level_nested()->stream_events(
      simple_input(), object{{"configurable", object{{"checkpoint_ns", "outer:abc"}}}});
  const auto payloads = drain(run->lifecycle());
  BOOST_TEST(payloads.size() == 4u);
  for (const auto& p : payloads) {
    const list& ns = p.get("namespace").as_list();
    BOOST_TEST(ns.size() >= 2u);
    BOOST_TEST(ns.at(0) == value("outer:abc"), p.to_json());
  }
  BOOST_TEST(run->output().get("value") == value("x!"));  // the run's own values, scoped
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_no_metadata_falls_through_to_existing_behavior
BOOST_AUTO_TEST_CASE(test_no_metadata_falls_through_to_existing_behavior) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool"));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("graph_name") == value("agent"));
  BOOST_TEST(payloads[0].get("trigger_call_id") == value("abc"));
  BOOST_TEST(!payloads[0].find("cause"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_empty_metadata_dict_falls_through
BOOST_AUTO_TEST_CASE(test_empty_metadata_dict_falls_through) {
  lifecycle_mux m;
  m.push(tasks_start({"agent:abc"}, "t1", "tool", value(object{})));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("graph_name") == value("agent"));
  BOOST_TEST(!payloads[0].find("cause"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_lifecycle_uses_lc_agent_name_for_subagent
BOOST_AUTO_TEST_CASE(test_lifecycle_uses_lc_agent_name_for_subagent) {
  lifecycle_mux m;
  m.push(tasks_start({}, "tools_task_1", "tools", value(object{{"lc_agent_name", "supervisor"}}),
                     tool_call_input("call_weather", "call_w")));
  m.push(tasks_start({"tools:tools_task_1"}, "inner_model_1", "model",
                     value(object{{"lc_agent_name", "weather_agent"}})));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("namespace") == ns_of({"tools:tools_task_1"}));
  BOOST_TEST(payloads[0].get("graph_name") == value("weather_agent"));
  BOOST_TEST(payloads[0].get("cause") ==
             value(object{{"type", "toolCall"}, {"tool_call_id", "call_w"}}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_lifecycle_subagent_cause_from_legacy_list_input
BOOST_AUTO_TEST_CASE(test_lifecycle_subagent_cause_from_legacy_list_input) {
  lifecycle_mux m;
  list calls;
  calls.push_back(
      value(object{{"name", "call_weather"}, {"args", object{{"city", "SF"}}}, {"id", "call_w"}}));
  m.push(tasks_start({}, "tools_task_1", "tools", value(object{{"lc_agent_name", "supervisor"}}),
                     value(std::move(calls))));
  m.push(tasks_start({"tools:tools_task_1"}, "inner_model_1", "model",
                     value(object{{"lc_agent_name", "weather_agent"}})));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("graph_name") == value("weather_agent"));
  BOOST_TEST(payloads[0].get("cause") ==
             value(object{{"type", "toolCall"}, {"tool_call_id", "call_w"}}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_lifecycle_same_name_nested_run_is_surfaced
BOOST_AUTO_TEST_CASE(test_lifecycle_same_name_nested_run_is_surfaced) {
  lifecycle_mux m;
  m.push(tasks_start({}, "tools_task_1", "tools", value(object{{"lc_agent_name", "weather_agent"}}),
                     tool_call_input("recurse", "call_x")));
  m.push(tasks_start({"tools:tools_task_1"}, "inner_node_1", "model",
                     value(object{{"lc_agent_name", "weather_agent"}})));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("graph_name") == value("weather_agent"));
  BOOST_TEST(payloads[0].get("cause") ==
             value(object{{"type", "toolCall"}, {"tool_call_id", "call_x"}}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_lifecycle_unnamed_nested_agent_is_not_subagent
BOOST_AUTO_TEST_CASE(test_lifecycle_unnamed_nested_agent_is_not_subagent) {
  lifecycle_mux m;
  m.push(tasks_start({}, "tools_task_1", "tools", value(object{{"lc_agent_name", "supervisor"}}),
                     tool_call_input("lookup", "call_x")));
  m.push(tasks_start({"plain:tools_task_1"}, "inner_node_1", "inner_node",
                     value(object{{"lc_agent_name", value()}})));
  const auto payloads = m.drain_lifecycle();
  BOOST_REQUIRE(payloads.size() == 1u);
  BOOST_TEST(payloads[0].get("graph_name") == value("plain"));
  BOOST_TEST(!payloads[0].find("cause"));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_lifecycle_subagent_terminal_roundtrip
BOOST_AUTO_TEST_CASE(test_lifecycle_subagent_terminal_roundtrip) {
  lifecycle_mux m;
  m.push(tasks_start({}, "tools_task_1", "tools", value(object{{"lc_agent_name", "supervisor"}}),
                     tool_call_input("call_weather", "call_w")));
  m.push(tasks_start({"tools:tools_task_1"}, "inner_model_1", "model",
                     value(object{{"lc_agent_name", "weather_agent"}})));
  m.push(tasks_result({}, "tools_task_1", "tools"));
  const auto payloads = m.drain_lifecycle();
  BOOST_TEST(events_of(payloads) == (strs{"started", "completed"}));
  for (const auto& p : payloads) BOOST_TEST(p.get("namespace") == ns_of({"tools:tools_task_1"}));
  BOOST_TEST(payloads.at(0).get("graph_name") == value("weather_agent"));
  BOOST_TEST(payloads.at(0).get("cause") ==
             value(object{{"type", "toolCall"}, {"tool_call_id", "call_w"}}));
}

// libs/langgraph/tests/test_stream_lifecycle_transformer.py::test_on_started_override_without_cause_is_backward_compatible
// A subclass's on_started takes (namespace, graph name, trigger call id); the cause is read
// through cause(), so an override that ignores it works unchanged.
BOOST_AUTO_TEST_CASE(test_on_started_override_without_cause_is_backward_compatible) {
  using seen_t = std::tuple<strs, std::optional<std::string>, std::optional<std::string>>;
  class legacy_transformer : public tasks_lifecycle_transformer {
   public:
    using tasks_lifecycle_transformer::tasks_lifecycle_transformer;
    std::vector<seen_t> seen;
    stream_projections init() override { return {}; }

   protected:
    bool should_track(const strs& ns) const override { return ns.size() == 1; }
    void on_started(const strs& ns, const std::optional<std::string>& graph_name,
                    const std::optional<std::string>& trigger_call_id) override {
      seen.emplace_back(ns, graph_name, trigger_call_id);
    }
    void on_terminal(const strs&, subgraph_status, const std::optional<std::string>&) override {}
  };
  legacy_transformer t;
  protocol_event e = tasks_start({"agent:abc123"}, "abc123", "agent");
  BOOST_TEST(!t.process(e));
  BOOST_REQUIRE(t.seen.size() == 1u);
  BOOST_TEST((t.seen[0] == seen_t{{"agent:abc123"}, "agent", "abc123"}));
}
