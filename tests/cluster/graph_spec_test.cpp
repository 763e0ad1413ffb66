// Loading graph specs: the example specs run to their expected outputs, and malformed specs
// are rejected with errors naming the JSON path of the offender.
#include "superstep/cluster/graph_spec.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>

#include "superstep/cluster/std_library.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/memory_saver.hpp"

using namespace superstep;
using namespace superstep::cluster;

namespace {

const function_registry& std_registry() {
  static const function_registry registry = [] {
    function_registry r;
    register_std_library(r);
    return r;
  }();
  return registry;
}

std::string example(const std::string& name) {
  return std::string(SUPERSTEP_EXAMPLE_SPECS) + "/" + name + ".json";
}

std::string run_example(const std::string& name, const std::string& input) {
  auto graph = load_graph_spec_file(example(name), std_registry());
  return graph->invoke(value::parse_json(input)).to_json();
}

// The error of loading `spec_json`; fails the test when it loads.
error load_error(const std::string& spec_json, const function_registry& registry = std_registry()) {
  try {
    load_graph_spec(value::parse_json(spec_json), registry);
  } catch (const error& e) {
    return e;
  }
  BOOST_FAIL("the spec loaded: " + spec_json);
  throw std::logic_error("unreachable");
}

// A one-node state graph spec with `node` as the node "n" and extra top-level members.
std::string state_spec(const std::string& node, const std::string& extra = "") {
  return R"({"spec": "superstep.graph/1", "state": {"a": {}, "b": {}}, "nodes": {"n": )" + node +
         R"(}, "edges": [["__start__", "n"], ["n", "__end__"]])" + extra + "}";
}

}  // namespace

BOOST_AUTO_TEST_CASE(pregel_single_node_example_doubles_its_input) {
  BOOST_TEST(run_example("pregel_single_node", R"({"a": "foo"})") == R"({"b":"foofoo"})");
}

BOOST_AUTO_TEST_CASE(pregel_two_nodes_example_chains_through_a_last_value) {
  BOOST_TEST(run_example("pregel_two_nodes", R"({"a": "foo"})") ==
             R"({"b":"foofoo","c":"foofoofoofoo"})");
}

BOOST_AUTO_TEST_CASE(pregel_topic_example_accumulates_both_steps) {
  BOOST_TEST(run_example("pregel_topic", R"({"a": "foo"})") ==
             R"({"c":["foofoo","foofoofoofoo"]})");
}

BOOST_AUTO_TEST_CASE(pregel_binop_example_folds_with_add) {
  // LangGraph's example folds with a custom reducer ("foofoo | update"); the spec uses the
  // built-in "add", which concatenates the two writes.
  BOOST_TEST(run_example("pregel_binop", R"({"a": "foo"})") == R"({"c":"foofoofoofoofoofoo"})");
}

BOOST_AUTO_TEST_CASE(pregel_cycle_example_runs_until_the_length_reaches_ten) {
  BOOST_TEST(run_example("pregel_cycle", R"({"value": "a"})") == R"({"value":"aaaaaaaaaaaaaaaa"})");
}

BOOST_AUTO_TEST_CASE(jokes_example_maps_subjects_and_picks_the_first_joke) {
  BOOST_TEST(run_example("jokes", R"({"subjects": ["cats", "dogs"]})") ==
             R"({"jokes":["joke about cats","joke about dogs"],"best":"joke about cats"})");
}

BOOST_AUTO_TEST_CASE(schemas_example_takes_the_input_keys_and_returns_the_output_keys) {
  BOOST_TEST(run_example("schemas", R"({"question": "life", "answer": "ignored"})") ==
             R"({"answer":"notes on life: 42"})");
}

BOOST_AUTO_TEST_CASE(loop_example_routes_back_until_the_count_reaches_five) {
  BOOST_TEST(run_example("loop", "{}") ==
             R"({"count":5,"trace":["step","step","step","step","step"]})");
}

BOOST_AUTO_TEST_CASE(map_reduce_example_fans_out_and_sums) {
  // 100 workers write 3i + 1 each: 3 * 4950 + 100.
  BOOST_TEST(run_example("map_reduce", "{}") == R"({"total":14950})");
}

BOOST_AUTO_TEST_CASE(subgraph_example_runs_the_nested_graph) {
  BOOST_TEST(run_example("subgraph", R"({"text": "hi"})") ==
             R"({"text":"<hi>","log":["inner shouted"]})");
}

BOOST_AUTO_TEST_CASE(keeps_the_recursion_limit_and_retry_policies) {
  loaded_graph g = load_graph(
      value::parse_json(state_spec(
          R"({"fn": "std.set", "params": {"update": {}}, "retry": {"max_attempts": 5, "backoff": 3}})",
          R"(, "recursion_limit": 7)")),
      std_registry());
  BOOST_TEST(g.recursion_limit.value() == 7);
  BOOST_TEST(g.retry.at("n").max_attempts == 5);
  BOOST_TEST(g.retry.at("n").backoff == 3.0);
  BOOST_TEST(g.retry.at("n").initial_interval_ms == 500.0);
}

BOOST_AUTO_TEST_CASE(keeps_the_step_timeout) {
  loaded_graph g =
      load_graph(value::parse_json(state_spec(R"({"fn": "std.set", "params": {"update": {}}})",
                                              R"(, "step_timeout_ms": 250)")),
                 std_registry());
  BOOST_TEST(g.graph->graph().step_timeout_ms.value() == 250.0);
  error e = load_error(
      state_spec(R"({"fn": "std.set", "params": {"update": {}}})", R"(, "step_timeout_ms": 0)"));
  BOOST_TEST(e.code() == error_code::invalid_spec);
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at step_timeout_ms: must be greater than 0");
}

BOOST_AUTO_TEST_CASE(pregel_node_with_read_channels_gets_an_object) {
  auto g = load_graph_spec(value::parse_json(R"({
    "spec": "superstep.pregel/1",
    "channels": {"a": {"type": "last_value"}, "b": {"type": "any_value"},
                 "out": {"type": "untracked"}},
    "nodes": {"n": {"subscribe": "a", "read": ["b"], "fn": "std.copy",
                    "params": {"from": "b", "to": "copied"}, "writes": "out"}},
    "input": ["a", "b"], "output": "out"})"),
                           std_registry());
  BOOST_TEST(g->invoke(value::parse_json(R"({"a": 1, "b": 2})")).to_json() == R"({"copied":2})");
}

BOOST_AUTO_TEST_CASE(pregel_spec_draws_edges_from_writers_to_subscribers) {
  auto g = load_graph_spec_file(example("pregel_two_nodes"), std_registry());
  std::string drawing = g->draw_mermaid();
  BOOST_TEST(drawing.find("__start__ --> node1;") != std::string::npos);
  BOOST_TEST(drawing.find("node1 --> node2;") != std::string::npos);
  BOOST_TEST(drawing.find("node2 --> __end__;") != std::string::npos);
  BOOST_TEST(drawing.find("node2 --> node1;") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(uses_reducers_registered_by_a_library) {
  function_registry r;
  register_std_library(r);
  r.add_reducer("bar", channels::reducer{"bar",
                                         [](const value& current, const value& update) {
                                           if (current.truthy())
                                             return value(current.as_string() + " | update");
                                           return update;
                                         },
                                         {}});
  std::string spec = R"({"spec": "superstep.pregel/1",
    "channels": {"a": {"type": "ephemeral"}, "b": {"type": "ephemeral"},
                 "c": {"type": "binop", "reducer": "bar"}},
    "nodes": {"node1": {"subscribe": ["a"], "fn": "std.double", "writes": ["b", "c"]},
              "node2": {"subscribe": ["b"], "fn": "std.double", "writes": ["c"]}},
    "input": ["a"], "output": ["c"]})";
  auto g = load_graph_spec(value::parse_json(spec), r);
  BOOST_TEST(g->invoke(value::parse_json(R"({"a": "foo"})")).to_json() ==
             R"({"c":"foofoo | update"})");
}

BOOST_AUTO_TEST_CASE(goto_reaches_declared_destinations) {
  auto g = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"a": {}},
    "nodes": {"jump": {"fn": "std.goto", "params": {"goto": "land", "update": {"a": 1}},
                       "destinations": ["land"]},
              "land": {"fn": "std.increment", "params": {"key": "a", "by": 10}}},
    "edges": [["__start__", "jump"]]})"),
                           std_registry());
  BOOST_TEST(g->invoke(value::parse_json("{}")).to_json() == R"({"a":11})");
}

BOOST_AUTO_TEST_CASE(destinations_with_labels_draw_labelled_edges) {
  auto g = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"a": {}},
    "nodes": {"jump": {"fn": "std.goto", "params": {"goto": "land", "update": {"a": 1}},
                       "destinations": {"land": "to land", "__end__": "stop"}},
              "land": {"fn": "std.increment", "params": {"key": "a", "by": 10}}},
    "edges": [["__start__", "jump"]]})"),
                           std_registry());
  BOOST_TEST(g->invoke(value::parse_json("{}")).to_json() == R"({"a":11})");
  std::vector<std::string> edges;
  for (const auto& e : g->get_graph().edges)
    edges.push_back(e.source + (e.conditional ? "-.->" : "->") + e.target +
                    (e.data ? ":" + *e.data : ""));
  BOOST_TEST(edges == (std::vector<std::string>{"__start__->jump", "jump-.->__end__:stop",
                                                "jump-.->land:to land", "land->__end__"}),
             boost::test_tools::per_element());
  BOOST_TEST(g->draw_mermaid().find("jump -. &nbsp;to land&nbsp; .-> land;") != std::string::npos,
             g->draw_mermaid());
}

BOOST_AUTO_TEST_CASE(rejects_a_destination_label_that_is_not_a_string) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"jump": {"fn": "std.goto", "params": {"goto": "land"},
                       "destinations": {"land": 1}},
              "land": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "jump"]]})");
  BOOST_TEST(e.code() == error_code::invalid_spec);
  BOOST_TEST(std::string(e.what()).find("nodes.jump.destinations.land") != std::string::npos,
             e.what());
}

BOOST_AUTO_TEST_CASE(a_join_edge_into_end_loads_and_ends_the_run) {
  auto g = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"a": {"reducer": "add"}},
    "nodes": {"A": {"fn": "std.increment", "params": {"key": "a", "by": 1}},
              "B": {"fn": "std.increment", "params": {"key": "a", "by": 10}}},
    "edges": [["__start__", "A"], ["__start__", "B"], [["A", "B"], "__end__"]]})"),
                           std_registry());
  BOOST_TEST(g->invoke(value::parse_json(R"({"a": 0})")).to_json() == R"({"a":11})");
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_node_in_an_edge) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"pick": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "pick"], ["pick", "pik"]]})");
  BOOST_TEST(e.code() == error_code::invalid_spec);
  BOOST_TEST(std::string(e.what()) == "invalid graph spec at edges[1][1]: unknown node 'pik'");
  e = load_error(state_spec(R"({"fn": "std.set", "params": {"update": {}}})",
                            R"(, "conditional_edges": [{"from": "m", "router": "std.route"}])"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at conditional_edges[0].from: unknown node 'm'");
  e = load_error(state_spec(R"({"fn": "std.set", "params": {"update": {}}})",
                            R"(, "interrupt_before": ["x"])"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at interrupt_before[0]: unknown node 'x'");
}

BOOST_AUTO_TEST_CASE(rejects_an_edge_to_nowhere) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "n"], ["n"]]})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at edges[1]: expected [from, to], got a list of 1 items");
  e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "n"], ["n", null]]})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at edges[1][1]: expected string, got null");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_functions) {
  error e = load_error(state_spec(R"({"fn": "std.dbl"})"));
  BOOST_TEST(e.code() == error_code::unknown_function);
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.fn: unknown node function 'std.dbl' (did you mean "
             "'std.double'?); functions of a node library are known once it is loaded with "
             "--plugin LIB");
  e = load_error(state_spec(R"({"fn": "std.set", "params": {"update": {}}})",
                            R"(, "conditional_edges": [{"from": "n", "router": "std.rout"}])"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at conditional_edges[0].router: unknown router 'std.rout' (did "
             "you mean 'std.route' or 'std.route_by'?); functions of a node library are known "
             "once it is loaded with --plugin LIB");
  e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {"reducer": "concat"}},
    "nodes": {}, "edges": []})");
  BOOST_TEST(e.code() == error_code::unknown_function);
  BOOST_TEST(std::string(e.what()).find("at state.a.reducer: unknown reducer 'concat'") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(rejects_wrong_typed_missing_and_unknown_params) {
  error e = load_error(state_spec(R"({"fn": "std.template", "params": {"text": "x", "to": 3}})"));
  BOOST_TEST(e.code() == error_code::invalid_spec);
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.params.to: expected string, got int");
  e = load_error(state_spec(R"({"fn": "std.copy", "params": {"from": "a"}})"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.params.to: missing required param");
  e = load_error(state_spec(R"({"fn": "std.copy", "params": {"from": "a", "to": "b", "tp": 1}})"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.params.tp: unknown param (expected one of from, to)");
  e = load_error(state_spec(R"({"fn": "std.goto", "params": {"goto": ["a", 1]}})"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.params.goto[1]: expected string, got int");
}

BOOST_AUTO_TEST_CASE(rejects_an_unknown_channel_type) {
  error e =
      load_error(R"({"spec": "superstep.pregel/1", "channels": {"a": {"type": "ephemeral_valu"}},
    "nodes": {"n": {"subscribe": ["a"], "fn": "std.double"}}, "input": "a"})");
  BOOST_TEST(
      std::string(e.what()).rfind(
          "invalid graph spec at channels.a.type: unknown channel type 'ephemeral_valu'", 0) == 0);
  e = load_error(
      R"({"spec": "superstep.pregel/1", "channels": {"a": {"type": "topic", "acumulate": true}},
    "nodes": {"n": {"subscribe": ["a"], "fn": "std.double"}}, "input": "a"})");
  BOOST_TEST(std::string(e.what()).rfind("invalid graph spec at channels.a.acumulate: unknown key",
                                         0) == 0);
  e = load_error(R"({"spec": "superstep.pregel/1", "channels": {"a": {"type": "ephemeral"}},
    "nodes": {"n": {"subscribe": ["a", "x"], "fn": "std.double"}}, "input": "a"})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.subscribe[1]: unknown channel 'x'");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_keys_anywhere) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}}, "nodez": {}})");
  BOOST_TEST(std::string(e.what()).rfind(
                 "invalid graph spec at nodez: unknown key (expected one of spec,", 0) == 0);
  e = load_error(state_spec(R"({"fn": "std.set", "params": {"update": {}}, "defr": true})"));
  BOOST_TEST(std::string(e.what()).rfind("invalid graph spec at nodes.n.defr: unknown key", 0) ==
             0);
  e = load_error(
      state_spec(R"({"fn": "std.set", "params": {"update": {}}, "retry": {"max_attempts": 0}})"));
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at nodes.n.retry.max_attempts: must be at least 1");
}

BOOST_AUTO_TEST_CASE(rejects_a_wrong_spec_kind_and_a_non_object) {
  error e = load_error(R"({"spec": "superstep.graph/2"})");
  BOOST_TEST(std::string(e.what()).rfind("invalid graph spec at spec: unknown spec kind", 0) == 0);
  e = load_error("[1]");
  BOOST_TEST(std::string(e.what()) == "invalid graph spec: expected object, got list");
  e = load_error(R"({"state": {}})");
  BOOST_TEST(std::string(e.what()) == "invalid graph spec: missing required key 'spec'");
}

BOOST_AUTO_TEST_CASE(names_the_full_path_inside_subgraphs) {
  error e = load_error(state_spec(R"({"fn": "graph", "graph": {"spec": "superstep.graph/1",
    "state": {"a": {}}, "nodes": {"inner": {"fn": "std.nope"}}, "edges": [["__start__", "inner"]]}})"));
  BOOST_TEST(
      std::string(e.what()) ==
      "invalid graph spec at nodes.n.graph.nodes.inner.fn: unknown node function 'std.nope' (did "
      "you mean 'std.copy'?); functions of a node library are known "
      "once it is loaded with --plugin LIB");
}

BOOST_AUTO_TEST_CASE(rejects_unknown_state_keys_in_schemas) {
  error e = load_error(
      state_spec(R"({"fn": "std.set", "params": {"update": {}}})", R"(, "output": ["a", "c"])"));
  BOOST_TEST(std::string(e.what()) == "invalid graph spec at output[1]: unknown state key 'c'");
}

BOOST_AUTO_TEST_CASE(state_keys_carry_their_json_schemas) {
  auto graph = load_graph_spec_file(example("schemas"), std_registry());
  BOOST_TEST(
      graph->input_json_schema().to_json() ==
      R"({"properties":{"question":{"description":"what to answer","title":"Question",)"
      R"("type":"string"}},"required":["question"],"title":"schemasInput","type":"object"})");
  BOOST_TEST(graph->output_json_schema().to_json() ==
             R"({"properties":{"answer":{"title":"Answer","type":"string"}},)"
             R"("title":"schemasOutput","type":"object"})");
  // A "title" names the state schema, and so both when input and output name no keys.
  auto titled = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "title": "State", "state": {"a": {"required": true}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})"),
                                std_registry());
  BOOST_TEST(
      titled->input_json_schema().to_json() ==
      R"({"properties":{"a":{"title":"A"}},"required":["a"],"title":"State","type":"object"})");
}

BOOST_AUTO_TEST_CASE(a_context_declares_the_graphs_context_schema) {
  auto graph = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1", "name": "g",
    "state": {"a": {}}, "context": {"model": {"schema": {"type": "string"}, "default": "x"},
                                    "user": {"required": true}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})"),
                               std_registry());
  BOOST_TEST(graph->context_json_schema().to_json() ==
             R"({"properties":{"model":{"default":"x","title":"Model","type":"string"},)"
             R"("user":{"title":"User"}},"required":["user"],"title":"gContext","type":"object"})");
  // Without one: none.
  auto plain = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"a": {}}, "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "n"]]})"),
                               std_registry());
  BOOST_TEST(plain->context_json_schema().is_null());
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "context": {"model": {"reducer": "add"}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})");
  BOOST_TEST(std::string(e.what()).find("context.model") != std::string::npos, e.what());
  e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "context": {"model": {"required": true, "default": 1}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})");
  BOOST_TEST(std::string(e.what()).find("context.model") != std::string::npos, e.what());
}

BOOST_AUTO_TEST_CASE(pregel_channels_carry_their_json_schemas) {
  auto graph = load_graph_spec(value::parse_json(R"({"spec": "superstep.pregel/1",
    "channels": {"a": {"type": "last_value", "schema": {"type": "string"}},
                 "b": {"type": "last_value", "schema": {"type": "string"}}},
    "nodes": {"n": {"subscribe": ["a"], "fn": "std.double", "writes": ["b"]}},
    "input": "a", "output": ["b"]})"),
                               std_registry());
  BOOST_TEST(graph->input_json_schema().to_json() ==
             R"({"title":"LangGraphInput","type":"string"})");
  BOOST_TEST(graph->output_json_schema().to_json() ==
             R"({"properties":{"b":{"default":null,"title":"B","type":"string"}},)"
             R"("title":"LangGraphOutput","type":"object"})");
  BOOST_TEST(graph->invoke("x") == value::parse_json(R"({"b": "xx"})"));
  error e = load_error(R"({"spec": "superstep.pregel/1",
    "channels": {"a": {"type": "last_value", "schema": 3}},
    "nodes": {"n": {"subscribe": ["a"], "fn": "std.double", "writes": ["a"]}}, "input": "a"})");
  BOOST_TEST(std::string(e.what()).find("channels.a.schema") != std::string::npos, e.what());
}

BOOST_AUTO_TEST_CASE(rejects_an_invalid_key_schema_at_its_path) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {"schema": [1]}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})");
  BOOST_TEST(e.code() == error_code::invalid_spec);
  BOOST_TEST(std::string(e.what()).find("state.a.schema") != std::string::npos, e.what());
  e = load_error(R"({"spec": "superstep.graph/1",
    "state": {"a": {"schema": {"$ref": "#/$defs/Nope"}}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at state.a.schema: its JSON schema refers to \"#/$defs/Nope\", "
             "which its \"$defs\" do not define");
  e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {"required": "yes"}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}}, "edges": [["__start__", "n"]]})");
  BOOST_TEST(std::string(e.what()).find("state.a.required") != std::string::npos, e.what());
}

BOOST_AUTO_TEST_CASE(compile_errors_of_the_graph_builder_propagate) {
  error e = load_error(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["n", "__end__"]]})");
  BOOST_TEST(e.code() == error_code::invalid_graph);
  BOOST_TEST(std::string(e.what()).find("Graph must have an entrypoint") != std::string::npos,
             e.what());
}

BOOST_AUTO_TEST_CASE(a_node_no_edge_leads_to_loads_as_in_langgraph) {
  // A Command's goto may reach it; LangGraph's validate accepts it.
  auto g = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1", "state": {"a": {}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {"a": 1}}},
              "orphan": {"fn": "std.set", "params": {"update": {"a": 2}}}},
    "edges": [["__start__", "n"]]})"),
                           std_registry());
  BOOST_TEST(g->invoke(value::parse_json("{}")).to_json() == R"({"a":1})");
}

BOOST_AUTO_TEST_CASE(rejects_a_file_that_is_not_json) {
  auto path = std::filesystem::temp_directory_path() / "superstep_graph_spec_test_bad.json";
  std::ofstream(path) << R"({"spec": "superstep.graph/1",)";
  try {
    load_graph_spec_file(path.string(), std_registry());
    BOOST_FAIL("loaded");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_spec);
    BOOST_TEST(std::string(e.what()).find(path.string() + ": not JSON: ") != std::string::npos);
  }
  std::filesystem::remove(path);
  BOOST_CHECK_THROW(load_graph_spec_file(path.string(), std_registry()), error);
}

BOOST_AUTO_TEST_CASE(a_delta_state_key_folds_its_writes_and_is_rebuilt_from_them) {
  auto saver = std::make_shared<storage::memory_saver>();
  auto g = load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "append", "delta": {"snapshot_frequency": 50}}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {"log": ["n"]}}}},
    "edges": [["__start__", "n"], ["n", "__end__"]]})"),
                           std_registry(), saver);
  const value config = value::parse_json(R"({"configurable": {"thread_id": "t"}})");
  g->invoke(value::parse_json(R"({"log": ["a"]})"), config);
  BOOST_TEST(g->invoke(value::parse_json(R"({"log": ["b"]})"), config).to_json() ==
             R"({"log":["a","n","b","n"]})");
  // The checkpoint holds no value of the key: get_state rebuilds it from the saved writes.
  auto head = saver->get_tuple(checkpoint_config{"t", "", ""});
  BOOST_TEST_REQUIRE(head.has_value());
  BOOST_TEST(!head->checkpoint.channel_values.count("log"));
  BOOST_TEST(g->get_state(config).values.to_json() == R"({"log":["a","n","b","n"]})");
  // `true` takes the default frequency; a Pregel spec has the channel type "delta".
  (void)load_graph_spec(value::parse_json(R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "append", "delta": true}},
    "nodes": {"n": {"fn": "std.set", "params": {"update": {}}}},
    "edges": [["__start__", "n"]]})"),
                        std_registry());
  auto p = load_graph_spec(value::parse_json(R"({"spec": "superstep.pregel/1",
    "channels": {"a": {"type": "ephemeral"},
                 "c": {"type": "delta", "reducer": "append", "snapshot_frequency": 3}},
    "nodes": {"n": {"subscribe": ["a"], "fn": "std.double", "writes": ["c"]}},
    "input": ["a"], "output": ["c"]})"),
                           std_registry());
  BOOST_TEST(p->invoke(value::parse_json(R"({"a": ["x"]})")).to_json() == R"({"c":["x","x"]})");
}

BOOST_AUTO_TEST_CASE(rejects_a_bad_delta_key) {
  error e = load_error(R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "append", "delta": {"snapshot_frequency": 0}}},
    "nodes": {}, "edges": []})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at state.log.delta.snapshot_frequency: snapshot_frequency of "
             "state key 'log' must be a positive integer, got 0");
  e = load_error(R"({"spec": "superstep.graph/1", "state": {"log": {"delta": true}},
    "nodes": {}, "edges": []})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at state.log: the delta state key 'log' needs a reducer");
  e = load_error(R"({"spec": "superstep.graph/1",
    "state": {"log": {"reducer": "append", "delta": {"frequency": 3}}}, "nodes": {}, "edges": []})");
  BOOST_TEST(std::string(e.what()).rfind(
                 "invalid graph spec at state.log.delta.frequency: unknown key", 0) == 0);
  e = load_error(R"({"spec": "superstep.pregel/1",
    "channels": {"c": {"type": "delta", "reducer": "append", "snapshot_frequency": -2}},
    "nodes": {"n": {"subscribe": ["c"], "fn": "std.double"}}, "input": "c"})");
  BOOST_TEST(std::string(e.what()) ==
             "invalid graph spec at channels.c.snapshot_frequency: snapshot_frequency of channel "
             "'c' must be a positive integer, got -2");
}
