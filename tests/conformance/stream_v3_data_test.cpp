// LangGraph's v3 event streaming: the opt-in projections of one stream mode each
// (libs/langgraph/tests/test_stream_data_transformers.py): custom, checkpoints, debug, tasks
// and updates transformers on hand-made events through a mux, then on real runs.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;
using values = std::vector<value>;

/// A mux of one transformer T (scoped as given), with its projection and the main log
/// subscribed (LangGraph's `_arm`).
template <class T>
struct single {
  explicit single(strs scope = {})
      : t(std::make_shared<T>(std::move(scope))),
        mux(std::vector<std::shared_ptr<stream_transformer>>{t}),
        log(t->log().cursor()),
        events(mux.events().cursor()) {}
  void push(std::string method, strs ns, value data) {
    mux.push(pevent(std::move(method), std::move(data), std::move(ns)));
  }
  /// `_drain`: the projection's items so far.
  values drained() { return drain(log); }
  strs methods() {
    strs out;
    for (const auto& e : drain(events)) out.push_back(e.method);
    return out;
  }

  std::shared_ptr<T> t;
  stream_mux mux;
  stream_cursor<value> log;
  stream_cursor<protocol_event> events;
};

/// The items as a JSON array (compared as text).
std::string json(const values& items) { return value(list(items)).to_json(); }

bool contains(const strs& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_captures_root_scope_events
BOOST_AUTO_TEST_CASE(test_custom_captures_root_scope_events) {
  single<custom_transformer> m;
  m.push("custom", {}, object{{"status", "processing"}});
  m.push("custom", {}, object{{"status", "done"}});
  BOOST_TEST(json(m.drained()) == R"([{"status":"processing"},{"status":"done"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_ignores_subgraph_scope_events
BOOST_AUTO_TEST_CASE(test_custom_ignores_subgraph_scope_events) {
  single<custom_transformer> m;
  m.push("custom", {"subgraph:abc"}, object{{"from", "child"}});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_scoped_transformer_captures_own_scope
BOOST_AUTO_TEST_CASE(test_custom_scoped_transformer_captures_own_scope) {
  single<custom_transformer> m({"agent:abc"});
  m.push("custom", {}, object{{"from", "root"}});
  m.push("custom", {"agent:abc"}, object{{"from", "self"}});
  m.push("custom", {"agent:abc", "deep:def"}, object{{"from", "child"}});
  BOOST_TEST(json(m.drained()) == R"([{"from":"self"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_preserves_any_payload_type
BOOST_AUTO_TEST_CASE(test_custom_preserves_any_payload_type) {
  single<custom_transformer> m;
  m.push("custom", {}, "string_payload");
  m.push("custom", {}, 42);
  m.push("custom", {}, value::array({1, 2, 3}));
  BOOST_TEST(json(m.drained()) == R"(["string_payload",42,[1,2,3]])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_does_not_suppress_from_main_log
BOOST_AUTO_TEST_CASE(test_custom_does_not_suppress_from_main_log) {
  single<custom_transformer> m;
  m.push("custom", {}, "data");
  BOOST_TEST(contains(m.methods(), "custom"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_ignores_other_methods
BOOST_AUTO_TEST_CASE(test_custom_ignores_other_methods) {
  single<custom_transformer> m;
  m.push("values", {}, object{});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_required_stream_modes
BOOST_AUTO_TEST_CASE(test_custom_required_stream_modes) {
  BOOST_TEST((custom_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::custom}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_is_native
BOOST_AUTO_TEST_CASE(test_custom_is_native) { BOOST_TEST(custom_transformer().native()); }

// libs/langgraph/tests/test_stream_data_transformers.py::test_custom_init_returns_correct_key
BOOST_AUTO_TEST_CASE(test_custom_init_returns_correct_key) {
  custom_transformer t;
  const stream_projections projection = t.init();
  BOOST_REQUIRE(projection.count("custom") == 1u);
  BOOST_TEST(dynamic_cast<stream_channel<value>*>(projection.at("custom").get()) != nullptr);
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_captures_root_scope_events
BOOST_AUTO_TEST_CASE(test_checkpoints_captures_root_scope_events) {
  single<checkpoints_transformer> m;
  const value checkpoint = object{{"values", object{{"x", 1}}}, {"next", value::array({"node_b"})}};
  m.push("checkpoints", {}, checkpoint);
  BOOST_TEST(m.drained() == (values{checkpoint}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_ignores_subgraph_events
BOOST_AUTO_TEST_CASE(test_checkpoints_ignores_subgraph_events) {
  single<checkpoints_transformer> m;
  m.push("checkpoints", {"child:abc"}, object{{"values", object{{"x", 1}}}});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_scoped_transformer
BOOST_AUTO_TEST_CASE(test_checkpoints_scoped_transformer) {
  single<checkpoints_transformer> m({"sub:abc"});
  m.push("checkpoints", {}, object{{"from", "root"}});
  m.push("checkpoints", {"sub:abc"}, object{{"from", "self"}});
  BOOST_TEST(json(m.drained()) == R"([{"from":"self"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_does_not_suppress_from_main_log
BOOST_AUTO_TEST_CASE(test_checkpoints_does_not_suppress_from_main_log) {
  single<checkpoints_transformer> m;
  m.push("checkpoints", {}, object{{"values", object{}}});
  BOOST_TEST(contains(m.methods(), "checkpoints"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_required_stream_modes
BOOST_AUTO_TEST_CASE(test_checkpoints_required_stream_modes) {
  BOOST_TEST((checkpoints_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::checkpoints}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_checkpoints_is_native
BOOST_AUTO_TEST_CASE(test_checkpoints_is_native) { BOOST_TEST(checkpoints_transformer().native()); }

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_captures_root_scope_events
BOOST_AUTO_TEST_CASE(test_debug_captures_root_scope_events) {
  single<debug_transformer> m;
  const value debug = object{{"step", 0},
                             {"type", "checkpoint"},
                             {"timestamp", "2026-01-01T00:00:00Z"},
                             {"payload", object{{"values", object{{"x", 1}}}}}};
  m.push("debug", {}, debug);
  BOOST_TEST(m.drained() == (values{debug}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_ignores_subgraph_events
BOOST_AUTO_TEST_CASE(test_debug_ignores_subgraph_events) {
  single<debug_transformer> m;
  m.push("debug", {"child:abc"}, object{{"step", 0}, {"type", "task"}});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_captures_multiple_event_types
BOOST_AUTO_TEST_CASE(test_debug_captures_multiple_event_types) {
  single<debug_transformer> m;
  m.push("debug", {}, object{{"step", 0}, {"type", "checkpoint"}, {"payload", object{}}});
  m.push("debug", {}, object{{"step", 1}, {"type", "task"}, {"payload", object{}}});
  m.push("debug", {}, object{{"step", 1}, {"type", "task_result"}, {"payload", object{}}});
  strs types;
  for (const auto& d : m.drained()) types.push_back(d.get("type").as_string());
  BOOST_TEST(types == (strs{"checkpoint", "task", "task_result"}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_does_not_suppress_from_main_log
BOOST_AUTO_TEST_CASE(test_debug_does_not_suppress_from_main_log) {
  single<debug_transformer> m;
  m.push("debug", {}, object{{"step", 0}});
  BOOST_TEST(contains(m.methods(), "debug"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_required_stream_modes
BOOST_AUTO_TEST_CASE(test_debug_required_stream_modes) {
  BOOST_TEST((debug_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::debug}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_debug_is_native
BOOST_AUTO_TEST_CASE(test_debug_is_native) { BOOST_TEST(debug_transformer().native()); }

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_captures_root_scope_events
BOOST_AUTO_TEST_CASE(test_tasks_captures_root_scope_events) {
  single<tasks_transformer> m;
  const value start =
      object{{"id", "t1"}, {"name", "my_node"}, {"input", value()}, {"triggers", list{}}};
  m.push("tasks", {}, start);
  BOOST_TEST(m.drained() == (values{start}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_captures_start_and_result
BOOST_AUTO_TEST_CASE(test_tasks_captures_start_and_result) {
  single<tasks_transformer> m;
  const value start = object{{"id", "t1"}, {"name", "a"}, {"input", value()}, {"triggers", list{}}};
  const value result =
      object{{"id", "t1"}, {"name", "a"}, {"result", object{{"output", 42}}}, {"error", value()}};
  m.push("tasks", {}, start);
  m.push("tasks", {}, result);
  BOOST_TEST(m.drained() == (values{start, result}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_ignores_subgraph_events
BOOST_AUTO_TEST_CASE(test_tasks_ignores_subgraph_events) {
  single<tasks_transformer> m;
  m.push("tasks", {"child:abc"}, object{{"id", "t1"}, {"name", "x"}});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_scoped_transformer
BOOST_AUTO_TEST_CASE(test_tasks_scoped_transformer) {
  single<tasks_transformer> m({"agent:abc"});
  m.push("tasks", {}, object{{"id", "t1"}});
  m.push("tasks", {"agent:abc"}, object{{"id", "t2"}});
  m.push("tasks", {"agent:abc", "deep:def"}, object{{"id", "t3"}});
  BOOST_TEST(json(m.drained()) == R"([{"id":"t2"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_does_not_suppress_from_main_log
BOOST_AUTO_TEST_CASE(test_tasks_does_not_suppress_from_main_log) {
  single<tasks_transformer> m;
  m.push("tasks", {}, object{{"id", "t1"}});
  BOOST_TEST(contains(m.methods(), "tasks"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_required_stream_modes
BOOST_AUTO_TEST_CASE(test_tasks_required_stream_modes) {
  BOOST_TEST((tasks_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::tasks}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_is_native
BOOST_AUTO_TEST_CASE(test_tasks_is_native) { BOOST_TEST(tasks_transformer().native()); }

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_captures_root_scope_events
BOOST_AUTO_TEST_CASE(test_updates_captures_root_scope_events) {
  single<updates_transformer> m;
  const value update = object{{"my_node", object{{"value", "hello!"}}}};
  m.push("updates", {}, update);
  BOOST_TEST(m.drained() == (values{update}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_captures_multiple_steps
BOOST_AUTO_TEST_CASE(test_updates_captures_multiple_steps) {
  single<updates_transformer> m;
  m.push("updates", {}, object{{"node_a", object{{"x", 1}}}});
  m.push("updates", {}, object{{"node_b", object{{"x", 2}}}});
  BOOST_TEST(json(m.drained()) == std::string(R"([{"node_a":{"x":1}},{"node_b":{"x":2}}])"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_ignores_subgraph_events
BOOST_AUTO_TEST_CASE(test_updates_ignores_subgraph_events) {
  single<updates_transformer> m;
  m.push("updates", {"child:abc"}, object{{"inner_node", object{{"v", 1}}}});
  BOOST_TEST(m.drained().empty());
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_scoped_transformer
BOOST_AUTO_TEST_CASE(test_updates_scoped_transformer) {
  single<updates_transformer> m({"agent:abc"});
  m.push("updates", {}, object{{"from", "root"}});
  m.push("updates", {"agent:abc"}, object{{"from", "self"}});
  BOOST_TEST(json(m.drained()) == R"([{"from":"self"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_does_not_suppress_from_main_log
BOOST_AUTO_TEST_CASE(test_updates_does_not_suppress_from_main_log) {
  single<updates_transformer> m;
  m.push("updates", {}, object{{"n", object{}}});
  BOOST_TEST(contains(m.methods(), "updates"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_required_stream_modes
BOOST_AUTO_TEST_CASE(test_updates_required_stream_modes) {
  BOOST_TEST((updates_transformer().required_stream_modes() ==
              std::vector<stream_mode>{stream_mode::updates}));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_updates_is_native
BOOST_AUTO_TEST_CASE(test_updates_is_native) { BOOST_TEST(updates_transformer().native()); }

// libs/langgraph/tests/test_stream_data_transformers.py::test_unrelated_events_ignored_by_all
BOOST_AUTO_TEST_CASE(test_unrelated_events_ignored_by_all) {
  std::vector<std::shared_ptr<mode_projection_transformer>> ts{
      std::make_shared<custom_transformer>(), std::make_shared<updates_transformer>(),
      std::make_shared<checkpoints_transformer>(), std::make_shared<debug_transformer>(),
      std::make_shared<tasks_transformer>()};
  stream_mux mux(std::vector<std::shared_ptr<stream_transformer>>(ts.begin(), ts.end()));
  mux.events().subscribe();
  std::vector<stream_cursor<value>> logs;
  for (auto& t : ts) logs.push_back(t->log().cursor());
  mux.push(pevent("values", object{{"x", 1}}));
  for (auto& log : logs) BOOST_TEST(drain(log).empty());
}

namespace {

/// `_make_simple_graph`: my_node writes {"status": "working", "node": "my_node"} to the custom
/// stream and appends "!" / ["done"].
std::shared_ptr<pregel> data_graph(bool with_saver = false) {
  state_graph g = simple_state();
  g.add_node("my_node", [](const value& st, node_context& ctx) -> value {
    ctx.emit_custom(object{{"status", "working"}, {"node", "my_node"}});
    return object{{"value", st.get("value").as_string() + "!"}, {"items", value::array({"done"})}};
  });
  g.add_edge("__start__", "my_node");
  g.add_edge("my_node", "__end__");
  return g.compile(with_saver ? opts_with_saver() : opts());
}

std::vector<transformer_factory> all_data_transformers() {
  return {factory_of<custom_transformer>(), factory_of<updates_transformer>(),
          factory_of<checkpoints_transformer>(), factory_of<debug_transformer>(),
          factory_of<tasks_transformer>()};
}

stream_channel<value>& projection(graph_run_stream& run, const std::string& key) {
  return run.native<stream_channel<value>>(key);
}

bool has_node_update(const values& updates, const std::string& node) {
  for (const auto& u : updates)
    if (u.find(node)) return true;
  return false;
}

bool has_debug_type(const values& debug) {
  for (const auto& d : debug) {
    const value& t = d.get("type");
    if (t == value("checkpoint") || t == value("task") || t == value("task_result")) return true;
  }
  return false;
}

}  // namespace

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_custom_projection_opt_in
BOOST_AUTO_TEST_CASE(test_stream_events_v3_custom_projection_opt_in) {
  auto run = data_graph()->stream_events(object{{"value", "hello"}, {"items", list{}}}, value(), {},
                                         {factory_of<custom_transformer>()});
  const auto custom = drain(projection(*run, "custom"));
  BOOST_TEST(json(custom) == R"([{"status":"working","node":"my_node"}])");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_custom_and_values_coexist
BOOST_AUTO_TEST_CASE(test_stream_events_v3_custom_and_values_coexist) {
  auto run = data_graph()->stream_events(object{{"value", "hello"}, {"items", list{}}}, value(), {},
                                         {factory_of<custom_transformer>()});
  const auto custom = drain(projection(*run, "custom"));
  BOOST_TEST(run->output().get("value") == value("hello!"));
  BOOST_TEST(custom.size() == 1u);
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_tasks_projection_opt_in
BOOST_AUTO_TEST_CASE(test_stream_events_v3_tasks_projection_opt_in) {
  auto run =
      data_graph()->stream_events(simple_input(), value(), {}, {factory_of<tasks_transformer>()});
  const auto tasks = drain(projection(*run, "tasks"));
  BOOST_TEST(tasks.size() == 2u);  // my_node's start and result
  for (const auto& t : tasks) BOOST_TEST(t.get("name") == value("my_node"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_debug_projection_opt_in
BOOST_AUTO_TEST_CASE(test_stream_events_v3_debug_projection_opt_in) {
  auto run =
      data_graph()->stream_events(simple_input(), value(), {}, {factory_of<debug_transformer>()});
  const auto debug = drain(projection(*run, "debug"));
  BOOST_TEST(!debug.empty());
  BOOST_TEST(has_debug_type(debug));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_updates_projection_opt_in
BOOST_AUTO_TEST_CASE(test_stream_events_v3_updates_projection_opt_in) {
  auto run =
      data_graph()->stream_events(simple_input(), value(), {}, {factory_of<updates_transformer>()});
  const auto updates = drain(projection(*run, "updates"));
  BOOST_TEST(has_node_update(updates, "my_node"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_all_transformers_interleaved
BOOST_AUTO_TEST_CASE(test_stream_events_v3_all_transformers_interleaved) {
  auto run = data_graph()->stream_events(simple_input(), value(), {}, all_data_transformers());
  std::map<std::string, values> collected;
  for (auto& [name, item] : run->interleave({"custom", "updates", "debug", "tasks"}))
    collected[name].push_back(item);
  BOOST_TEST(collected["custom"].size() == 1u);
  BOOST_TEST(collected["tasks"].size() == 2u);
  BOOST_TEST(!collected["debug"].empty());
  BOOST_TEST(has_debug_type(collected["debug"]));
  BOOST_TEST(has_node_update(collected["updates"], "my_node"));
  BOOST_TEST(run->output().get("value") == value("x!"));
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_all_transformers_with_checkpointer
BOOST_AUTO_TEST_CASE(test_stream_events_v3_all_transformers_with_checkpointer) {
  auto run = data_graph(true)->stream_events(simple_input(), thread("test-all"), {},
                                             all_data_transformers());
  std::map<std::string, values> collected;
  for (auto& [name, item] : run->interleave({"custom", "updates", "checkpoints", "debug", "tasks"}))
    collected[name].push_back(item);
  BOOST_TEST(!collected["checkpoints"].empty());
  BOOST_TEST(collected["custom"].size() == 1u);
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_stream_events_v3_checkpoints_projection_opt_in
BOOST_AUTO_TEST_CASE(test_stream_events_v3_checkpoints_projection_opt_in) {
  auto run = data_graph(true)->stream_events(simple_input(), thread("test-ckpt-standalone"), {},
                                             {factory_of<checkpoints_transformer>()});
  const auto checkpoints = drain(projection(*run, "checkpoints"));
  // The input's, my_node's step's and the last one, as get_state shows them.
  BOOST_TEST(checkpoints.size() == 3u);
  for (const auto& c : checkpoints) BOOST_TEST(c.find("values") != nullptr);
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_and_lifecycle_coregistration
BOOST_AUTO_TEST_CASE(test_tasks_and_lifecycle_coregistration) {
  auto lifecycle = std::make_shared<lifecycle_transformer>();
  auto tasks = std::make_shared<tasks_transformer>();
  stream_mux mux(std::vector<std::shared_ptr<stream_transformer>>{lifecycle, tasks});
  auto events = mux.events().cursor();
  auto log = tasks->log().cursor();
  const value task =
      object{{"id", "t1"}, {"name", "my_node"}, {"input", value()}, {"triggers", list{}}};
  mux.push(pevent("tasks", task));
  BOOST_TEST(drain(log) == (values{task}));
  for (const auto& e : drain(events)) BOOST_TEST(e.method != "tasks");
}

// libs/langgraph/tests/test_stream_data_transformers.py::test_tasks_and_lifecycle_coregistration_e2e
BOOST_AUTO_TEST_CASE(test_tasks_and_lifecycle_coregistration_e2e) {
  auto run =
      data_graph()->stream_events(simple_input(), value(), {}, {factory_of<tasks_transformer>()});
  const auto tasks = drain(projection(*run, "tasks"));
  BOOST_REQUIRE(!tasks.empty());
  BOOST_TEST(tasks[0].get("name") == value("my_node"));
}
