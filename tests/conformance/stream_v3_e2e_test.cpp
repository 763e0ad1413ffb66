// LangGraph's v3 event streaming, every projection of one run together
// (libs/langgraph/tests/test_stream_events_v3_e2e.py): nested graphs, custom writers and
// transformers, interrupts, errors. The messages cases run on messages a node returns; the
// ones that need a LangChain chat model's token stream are in NOT_PORTED.streamv3.md.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strs = std::vector<std::string>;
using values = std::vector<value>;

bool has_item(const value& state, const std::string& item) {
  for (const auto& i : state.get("items").as_list())
    if (i == value(item)) return true;
  return false;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// `_make_nested_graph`: outer router -> inner (a subgraph whose process_node appends
/// "_processed").
std::shared_ptr<pregel> nested_graph() {
  state_graph inner = simple_state();
  inner.add_node("process_node", append_node("_processed", "processed"));
  inner.add_edge("__start__", "process_node");
  inner.add_edge("process_node", "__end__");
  state_graph outer = simple_state();
  outer.add_node("router", append_node("_routed", "routed"));
  outer.add_node("inner", inner.compile(opts()));
  outer.add_edge("__start__", "router");
  outer.add_edge("router", "inner");
  outer.add_edge("inner", "__end__");
  return outer.compile(opts());
}

/// `_make_custom_writer_graph`: writer_node writes three custom events.
std::shared_ptr<pregel> custom_writer_graph() {
  state_graph g = simple_state();
  g.add_node("writer_node", [](const value& st, node_context& ctx) -> value {
    ctx.emit_custom(object{{"step", "start"}, {"detail", "beginning work"}});
    ctx.emit_custom(object{{"step", "middle"}, {"detail", "processing"}});
    ctx.emit_custom(object{{"step", "end"}, {"detail", "done"}});
    return object{{"value", st.get("value").as_string() + "_custom"},
                  {"items", value::array({"custom"})}};
  });
  g.add_edge("__start__", "writer_node");
  g.add_edge("writer_node", "__end__");
  return g.compile(opts());
}

/// `_make_interrupt_graph`: step_one, then step_two interrupts ("need approval").
std::shared_ptr<pregel> interrupt_graph_e2e() {
  state_graph g = simple_state();
  g.add_node("step_one", append_node("_step1", "step1"));
  g.add_node("step_two", [](const value& st, node_context& ctx) -> value {
    const value answer = ctx.interrupt("need approval");
    return object{{"value", st.get("value").as_string() + "_" + answer.as_string()},
                  {"items", value::array({"step2"})}};
  });
  g.add_edge("__start__", "step_one");
  g.add_edge("step_one", "step_two");
  g.add_edge("step_two", "__end__");
  return g.compile(opts_with_saver());
}

/// `_make_error_subgraph`: outer -> inner, whose node raises "subgraph explosion".
std::shared_ptr<pregel> error_subgraph() {
  state_graph inner = simple_state();
  inner.add_node("fail", [](const value&, node_context&) -> value {
    throw std::invalid_argument("subgraph explosion");
  });
  inner.add_edge("__start__", "fail");
  inner.add_edge("fail", "__end__");
  state_graph outer = simple_state();
  outer.add_node("inner", inner.compile(opts()));
  outer.add_edge("__start__", "inner");
  outer.add_edge("inner", "__end__");
  return outer.compile(opts());
}

/// `_make_messages_subgraph`: pre, then a subgraph whose node returns an AI message
/// ("from subgraph", id sub-msg-1).
std::shared_ptr<pregel> messages_subgraph() {
  state_graph inner;
  inner.add_key("messages", "add_messages");
  inner.add_node("return_message", [](const value&, node_context&) -> value {
    return object{
        {"messages", object{{"type", "ai"}, {"content", "from subgraph"}, {"id", "sub-msg-1"}}}};
  });
  inner.add_edge("__start__", "return_message");
  inner.add_edge("return_message", "__end__");
  state_graph outer;
  outer.add_key("messages", "add");
  outer.add_key("done");
  outer.add_node("pre", [](const value&, node_context&) -> value {
    return object{{"done", false}};
  });
  outer.add_node("inner", inner.compile(opts()));
  outer.add_edge("__start__", "pre");
  outer.add_edge("pre", "inner");
  outer.add_edge("inner", "__end__");
  return outer.compile(opts());
}

value messages_input() {
  return object{{"messages", value::array({object{{"type", "human"}, {"content", "hi"}}})},
                {"done", false}};
}

/// `_CounterTransformer`: a named channel "counter" of the number of values events so far.
class counter_transformer : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  stream_projections init() override { return {{"counter", channel_}}; }
  bool process(protocol_event& e) override {
    if (e.method == "values") channel_->push(++count_);
    return true;
  }

 private:
  std::shared_ptr<stream_channel<value>> channel_ =
      std::make_shared<stream_channel<value>>("counter");
  int count_ = 0;
};

}  // namespace

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_all_projections_nested_graph
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_all_projections_nested_graph) {
  auto run = nested_graph()->stream_events(simple_input());
  values snapshots, lifecycle;
  for (auto& [name, item] : run->interleave({"values", "lifecycle"}))
    (name == "values" ? snapshots : lifecycle).push_back(item);
  BOOST_REQUIRE(!snapshots.empty());
  const value& last = snapshots.back();
  BOOST_TEST(has_item(last, "routed"));
  BOOST_TEST(has_item(last, "processed"));
  BOOST_TEST(contains(last.get("value").as_string(), "_routed"));
  BOOST_TEST(contains(last.get("value").as_string(), "_processed"));
  BOOST_REQUIRE(lifecycle.size() == 2u);
  BOOST_TEST(lifecycle[0].get("event") == value("started"));
  BOOST_TEST(lifecycle[1].get("event") == value("completed"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_subgraph_handles_with_drill_down
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_subgraph_handles_with_drill_down) {
  auto run = nested_graph()->stream_events(simple_input());
  std::vector<std::size_t> counts;
  strs names;
  for (auto& handle : run->subgraphs()) {
    counts.push_back(drain(handle->values()).size());
    names.push_back(handle->graph_name().value_or(""));
  }
  BOOST_REQUIRE(counts.size() == 1u);
  BOOST_TEST(counts[0] >= 1u);
  BOOST_TEST(names[0] == "inner");
  const value out = run->output();
  BOOST_TEST(contains(out.get("value").as_string(), "_routed"));
  BOOST_TEST(contains(out.get("value").as_string(), "_processed"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_raw_events_have_monotonic_seq
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_raw_events_have_monotonic_seq) {
  auto run = nested_graph()->stream_events(simple_input());
  const auto events = drain(run->events());
  BOOST_REQUIRE(!events.empty());
  for (std::size_t i = 0; i < events.size(); ++i) {
    BOOST_REQUIRE(events[i].seq.has_value());
    if (i > 0) BOOST_TEST(*events[i].seq > *events[i - 1].seq);
    BOOST_TEST(!events[i].method.empty());
    BOOST_TEST(events[i].params.timestamp > 0);
  }
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_output_matches_final_values_snapshot
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_output_matches_final_values_snapshot) {
  auto run1 = nested_graph()->stream_events(simple_input());
  const auto snapshots = drain(run1->values());
  BOOST_REQUIRE(!snapshots.empty());
  auto run2 = nested_graph()->stream_events(simple_input());
  BOOST_TEST(snapshots.back() == run2->output());
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_context_manager_and_abort
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_context_manager_and_abort) {
  auto run = nested_graph()->stream_events(simple_input());
  {
    auto first = run->values().cursor().next();
    BOOST_REQUIRE(first.has_value());
    BOOST_TEST(first->is_object());
    run->abort();  // what leaving the `with` block does (the destructor does it too)
  }
  BOOST_TEST(run->exhausted());
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ESync::test_extensions_has_all_native_keys
BOOST_AUTO_TEST_CASE(TestStreamV2E2ESync_test_extensions_has_all_native_keys) {
  auto run = nested_graph()->stream_events(simple_input());
  (void)run->output();
  const auto& ext = run->extensions();
  for (const char* key : {"values", "messages", "lifecycle", "subgraphs"})
    BOOST_TEST(ext.count(key) == 1u, key);
  BOOST_TEST(&run->values() == ext.at("values").get());
  BOOST_TEST(&run->messages() == ext.at("messages").get());
  BOOST_TEST(&run->lifecycle() == ext.at("lifecycle").get());
  BOOST_TEST(&run->subgraphs() == ext.at("subgraphs").get());
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EMessages::test_messages_from_whole_ai_message
BOOST_AUTO_TEST_CASE(TestStreamV2E2EMessages_test_messages_from_whole_ai_message) {
  state_graph g;
  g.add_key("messages", "add_messages");
  g.add_node("return_msg", [](const value&, node_context&) -> value {
    return object{{"messages", object{{"type", "ai"}, {"content", "hardcoded"}, {"id", "msg-1"}}}};
  });
  g.add_edge("__start__", "return_msg");
  g.add_edge("return_msg", "__end__");
  auto run = g.compile(opts())->stream_events(
      object{{"messages", value::array({object{{"type", "human"}, {"content", "hi"}}})}});
  const auto items = drain(run->messages());
  BOOST_REQUIRE(items.size() == 1u);
  BOOST_TEST(items[0]->done());
  BOOST_TEST(items[0]->output_text() == "hardcoded");
  BOOST_TEST(items[0]->message_id().value_or("") == "msg-1");
  BOOST_TEST(items[0]->node().value_or("") == "return_msg");
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EMessages::test_root_messages_only_shows_root_scope
BOOST_AUTO_TEST_CASE(TestStreamV2E2EMessages_test_root_messages_only_shows_root_scope) {
  auto run = messages_subgraph()->stream_events(messages_input());
  BOOST_TEST(drain(run->messages()).empty());  // emitted inside the subgraph
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EMessages::test_subgraph_handle_messages_drill_down
BOOST_AUTO_TEST_CASE(TestStreamV2E2EMessages_test_subgraph_handle_messages_drill_down) {
  auto run = messages_subgraph()->stream_events(messages_input());
  bool found = false;
  for (auto& handle : run->subgraphs()) {
    const auto child = drain(handle->messages());
    if (child.empty()) continue;
    found = true;
    BOOST_TEST(child[0]->output_text() == "from subgraph");
  }
  BOOST_TEST(found);
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECustom::test_custom_events_with_passthrough_transformer
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECustom_test_custom_events_with_passthrough_transformer) {
  auto run = custom_writer_graph()->stream_events(simple_input(), value(), {},
                                                  {factory_of<custom_passthrough>()});
  strs steps;
  for (auto& e : run->events())
    if (e.method == "custom") steps.push_back(e.params.data.get("step").as_string());
  BOOST_TEST(steps == (strs{"start", "middle", "end"}));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECustom::test_custom_events_suppressed_without_transformer
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECustom_test_custom_events_suppressed_without_transformer) {
  auto run = custom_writer_graph()->stream_events(simple_input());
  for (auto& e : run->events()) BOOST_TEST(e.method != "custom");
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECustom::test_custom_transformer_with_stream_channel
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECustom_test_custom_transformer_with_stream_channel) {
  auto run = nested_graph()->stream_events(simple_input(), value(), {},
                                           {factory_of<counter_transformer>()});
  BOOST_REQUIRE(run->extensions().count("counter") == 1u);
  auto counter = run->extension<stream_channel<value>>("counter").cursor();
  (void)run->output();
  const auto counts = drain(counter);
  BOOST_REQUIRE(!counts.empty());
  for (std::size_t i = 0; i < counts.size(); ++i)
    BOOST_TEST(counts[i] == value(static_cast<int>(i + 1)));  // ints, in order
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECustom::test_custom_channel_events_on_main_log
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECustom_test_custom_channel_events_on_main_log) {
  auto run = nested_graph()->stream_events(simple_input(), value(), {},
                                           {factory_of<counter_transformer>()});
  std::size_t n = 0;
  for (auto& e : run->events())
    if (e.method == "custom:counter") {
      ++n;
      BOOST_TEST(e.params.data.is_int());
    }
  BOOST_TEST(n >= 1u);
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EInterrupt::test_interrupt_sets_flags_and_surfaces_interrupts
BOOST_AUTO_TEST_CASE(TestStreamV2E2EInterrupt_test_interrupt_sets_flags_and_surfaces_interrupts) {
  auto run = interrupt_graph_e2e()->stream_events(simple_input(), thread("int-1"));
  const value out = run->output();
  BOOST_TEST(run->interrupted());
  BOOST_TEST(!run->interrupts().empty());
  BOOST_TEST(out.get("items") == value::array({"step1"}));
  BOOST_TEST(contains(out.get("value").as_string(), "_step1"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EInterrupt::test_interrupt_values_snapshot_has_partial_state
BOOST_AUTO_TEST_CASE(TestStreamV2E2EInterrupt_test_interrupt_values_snapshot_has_partial_state) {
  auto run = interrupt_graph_e2e()->stream_events(simple_input(), thread("int-2"));
  const auto snapshots = drain(run->values());
  BOOST_REQUIRE(!snapshots.empty());
  BOOST_TEST(has_item(snapshots.back(), "step1"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EErrors::test_subgraph_error_propagates_through_output
BOOST_AUTO_TEST_CASE(TestStreamV2E2EErrors_test_subgraph_error_propagates_through_output) {
  auto run = error_subgraph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)run->output(); }, "subgraph explosion"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EErrors::test_subgraph_error_propagates_through_raw_events
BOOST_AUTO_TEST_CASE(TestStreamV2E2EErrors_test_subgraph_error_propagates_through_raw_events) {
  auto run = error_subgraph()->stream_events(simple_input());
  BOOST_TEST(throws_with([&] { (void)drain(run->events()); }, "subgraph explosion"));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2EErrors::test_error_subgraph_handle_status
BOOST_AUTO_TEST_CASE(TestStreamV2E2EErrors_test_error_subgraph_handle_status) {
  auto run = error_subgraph()->stream_events(simple_input());
  auto handle = run->subgraphs().cursor().next();
  BOOST_REQUIRE(handle.has_value());
  BOOST_TEST(throws_with([&] { (void)(*handle)->output(); }, "subgraph explosion"));
  BOOST_TEST((*handle)->status() == subgraph_status::failed);
  BOOST_TEST((*handle)->error().value_or("") == "subgraph explosion");
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECombined::test_interleave_all_native_projections
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECombined_test_interleave_all_native_projections) {
  auto run = nested_graph()->stream_events(simple_input());
  std::set<std::string> seen;
  for (auto& [name, item] : run->interleave({"values", "messages", "lifecycle"})) seen.insert(name);
  BOOST_TEST(seen.count("values") == 1u);
  BOOST_TEST(seen.count("lifecycle") == 1u);
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECombined::test_multiple_custom_transformers
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECombined_test_multiple_custom_transformers) {
  class tag_transformer : public stream_transformer {
   public:
    using stream_transformer::stream_transformer;
    stream_projections init() override { return {{"tags", channel_}}; }
    bool process(protocol_event& e) override {
      if (e.method == "values") {
        const value& v = e.params.data.get("value");
        channel_->push("tag:" + (v.is_string() ? v.as_string() : std::string()));
      }
      return true;
    }

   private:
    std::shared_ptr<stream_channel<value>> channel_ =
        std::make_shared<stream_channel<value>>("tags");
  };
  auto run = nested_graph()->stream_events(
      simple_input(), value(), {},
      {factory_of<counter_transformer>(), factory_of<tag_transformer>()});
  BOOST_REQUIRE(run->extensions().count("counter") == 1u);
  BOOST_REQUIRE(run->extensions().count("tags") == 1u);
  auto counter = run->extension<stream_channel<value>>("counter").cursor();
  auto tags = run->extension<stream_channel<value>>("tags").cursor();
  (void)run->output();
  BOOST_TEST(!drain(counter).empty());
  const auto tag_items = drain(tags);
  BOOST_TEST(!tag_items.empty());
  for (const auto& t : tag_items) BOOST_TEST(t.as_string().rfind("tag:", 0) == 0u);
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECombined::test_two_sibling_subgraphs_both_discoverable
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECombined_test_two_sibling_subgraphs_both_discoverable) {
  const auto sub = [](const std::string& item) {
    state_graph g;
    g.add_key("items", "add");
    g.add_node("add_" + item, [item](const value&, node_context&) -> value {
      return object{{"items", value::array({item})}};
    });
    g.add_edge("__start__", "add_" + item);
    g.add_edge("add_" + item, "__end__");
    return g.compile(opts());
  };
  state_graph outer;
  outer.add_key("items", "add");
  outer.add_node("sub_a", sub("a"));
  outer.add_node("sub_b", sub("b"));
  outer.add_edge("__start__", "sub_a");
  outer.add_edge("sub_a", "sub_b");
  outer.add_edge("sub_b", "__end__");
  auto run = outer.compile(opts())->stream_events(object{{"items", list{}}});
  std::vector<std::shared_ptr<subgraph_run_stream>> handles;
  for (auto& handle : run->subgraphs()) {
    (void)drain(handle->values());
    handles.push_back(handle);
  }
  BOOST_REQUIRE(handles.size() == 2u);
  BOOST_TEST(handles[0]->graph_name().value_or("") == "sub_a");
  BOOST_TEST(handles[1]->graph_name().value_or("") == "sub_b");
  for (const auto& h : handles) BOOST_TEST(h->status() == subgraph_status::completed);
  std::set<std::string> items;
  for (const auto& i : run->output().get("items").as_list()) items.insert(i.as_string());
  BOOST_TEST(items == (std::set<std::string>{"a", "b"}));
}

// libs/langgraph/tests/test_stream_events_v3_e2e.py::TestStreamV2E2ECombined::test_lifecycle_matches_subgraph_handles
BOOST_AUTO_TEST_CASE(TestStreamV2E2ECombined_test_lifecycle_matches_subgraph_handles) {
  const auto prefix = [](const std::string& segment) {
    return segment.substr(0, segment.find(':'));
  };
  auto run1 = nested_graph()->stream_events(simple_input());
  std::set<std::string> handle_prefixes;
  for (auto& handle : run1->subgraphs()) {
    (void)drain(handle->values());
    handle_prefixes.insert(prefix(handle->path().at(0)));
  }
  auto run2 = nested_graph()->stream_events(simple_input());
  std::set<std::string> lifecycle_prefixes;
  for (const auto& e : drain(run2->lifecycle()))
    if (e.get("event") == value("started"))
      lifecycle_prefixes.insert(prefix(e.get("namespace").as_list().at(0).as_string()));
  BOOST_TEST(handle_prefixes == lifecycle_prefixes);
  BOOST_TEST(handle_prefixes == (std::set<std::string>{"inner"}));
}
