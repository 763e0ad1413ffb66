// Writing a state_graph back as a "superstep.graph/1" spec (graph_export.hpp).
#include "superstep/cluster/graph_export.hpp"

#include <algorithm>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/named_function.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cluster {

namespace {

[[noreturn]] void cannot(const std::string& what) {
  throw error(error_code::invalid_graph, "cannot export the graph to a spec: " + what);
}

value strings(const std::vector<std::string>& names) {
  list out;
  for (const auto& n : names) out.emplace_back(n);
  return value(std::move(out));
}

// A node's destinations: their names, or an object of names to labels when any has a label.
value destinations_of(const std::vector<node_destination>& destinations) {
  const bool labelled = std::any_of(destinations.begin(), destinations.end(),
                                    [](const node_destination& d) { return !d.label.empty(); });
  if (!labelled) {
    list names;
    for (const auto& d : destinations) names.emplace_back(d.node);
    return value(std::move(names));
  }
  object labels;
  for (const auto& d : destinations) labels.set(d.node, value(d.label));
  return value(std::move(labels));
}

// {"fn": name, "params": params} of a function made by the registry or named by the caller.
void write_function(object& out, const char* fn_key, const node_function& fn,
                    const std::string& who) {
  const function_origin* origin = origin_of(fn);
  if (!origin)
    cannot(who +
           " runs an anonymous function; make it with function_registry::make_node or "
           "make_router, or name it with cluster::name_function (named_function.hpp) under the "
           "name it is registered as");
  out.set(fn_key, value(origin->name));
  if (!origin->params.is_null()) out.set("params", origin->params);
}

value retry_of(const retry_policies& retry, const std::string& node) {
  if (retry.size() != 1)
    cannot("node '" + node + "' has " + std::to_string(retry.size()) +
           " retry policies; a spec gives a node one");
  const retry_policy& r = retry.front();
  if (!r.jitter) cannot("node '" + node + "' has a retry policy without jitter");
  if (r.retry_on) cannot("node '" + node + "' has a retry policy with a retry_on function");
  return value(object{{"max_attempts", value(r.max_attempts)},
                      {"initial_interval_ms", value(r.initial_interval_ms)},
                      {"backoff", value(r.backoff)},
                      {"max_interval_ms", value(r.max_interval_ms)}});
}

value state_of(const state_graph& g) {
  if (!g.declared_managed_keys().empty())
    cannot("state key '" + g.declared_managed_keys().front().first +
           "' is a managed value, which a spec cannot declare");
  object state;
  for (const auto& k : g.declared_keys()) {
    const std::string who = "state key '" + k.name + "'";
    if (k.untracked) cannot(who + " is untracked, which a spec cannot declare");
    object key;
    if (k.reducer) {
      if (k.reducer->name.empty())
        cannot(who +
               " has a reducer without a name; register it with "
               "function_registry::add_reducer and use registry.reducer(name)");
      key.set("reducer", value(k.reducer->name));
    }
    if (k.delta) {
      if (k.delta->empty) key.set("default", *k.delta->empty);
      key.set("delta", value(object{{"snapshot_frequency", value(k.delta->snapshot_frequency)}}));
    } else if (k.initial) {
      key.set("default", *k.initial);
    }
    if (auto s = g.declared_key_schemas().find(k.name); s != g.declared_key_schemas().end()) {
      if (s->second.default_value)
        cannot(who + " has a schema default apart from its schema; put it inside the schema");
      if (!s->second.schema.is_null()) key.set("schema", s->second.schema);
      if (s->second.required) key.set("required", value(true));
    }
    state.set(k.name, value(std::move(key)));
  }
  for (const auto& [name, schema] : g.declared_key_schemas())
    if (!state.contains(name)) cannot("the schema of '" + name + "' names no state key");
  return value(std::move(state));
}

value node_of(const state_graph::declared_node& n) {
  const std::string who = "node '" + n.name + "'";
  const node_options& o = n.options;
  if (o.timeout) cannot(who + " has a timeout policy, which a spec cannot hold");
  if (o.cache) cannot(who + " has a cache policy, which a spec cannot hold");
  if (o.error_handler) cannot(who + " has an error handler, which a spec cannot hold");
  if (o.input_keys) cannot(who + " has input keys of its own, which a spec cannot hold");
  object out;
  if (n.subgraph) {
    if (!n.subgraph->graph().builder)
      cannot(who + " runs a subgraph that was not compiled from a state_graph");
    out.set("fn", value("graph"));
    out.set("graph", export_graph_spec(*n.subgraph));
  } else {
    write_function(out, "fn", n.fn, who);
  }
  if (!o.retry.empty()) out.set("retry", retry_of(o.retry, n.name));
  if (o.defer) out.set("defer", value(true));
  if (!o.destinations.empty()) out.set("destinations", destinations_of(o.destinations));
  return value(std::move(out));
}

value branch_of(const state_graph::declared_branch& b) {
  const std::string who = "the router after '" + b.from + "'";
  if (b.input_keys) cannot(who + " has input keys of its own, which a spec cannot hold");
  object out;
  out.set("from", value(b.from));
  write_function(out, "router", b.router, who);
  if (!b.path_map.empty()) {
    object map;
    for (const auto& [label, target] : b.path_map) map.set(label, value(target));
    out.set("path_map", value(std::move(map)));
  }
  return value(std::move(out));
}

}  // namespace

value export_graph_spec(const state_graph& g, const compile_options& compile,
                        const export_options& options) {
  const node_defaults& d = g.declared_node_defaults();
  if (!d.retry.empty() || d.timeout || d.cache || d.error_handler)
    cannot("the graph has node defaults (set_node_defaults), which a spec cannot hold");
  if (g.declared_input_title() || g.declared_output_title())
    cannot("the graph's input or output schema has a title of its own, which a spec cannot hold");
  object spec;
  spec.set("spec", value("superstep.graph/1"));
  if (!compile.name.empty() && compile.name != "LangGraph") spec.set("name", value(compile.name));
  if (g.declared_schema_title()) spec.set("title", value(*g.declared_schema_title()));
  spec.set("state", state_of(g));
  if (g.declared_input_keys()) spec.set("input", strings(*g.declared_input_keys()));
  if (g.declared_output_keys()) spec.set("output", strings(*g.declared_output_keys()));
  object nodes;
  for (const auto& n : g.declared_nodes()) nodes.set(n.name, node_of(n));
  spec.set("nodes", value(std::move(nodes)));
  list edges;
  for (const auto& [from, to] : g.declared_edges())
    edges.emplace_back(list{value(from), value(to)});
  for (const auto& [from, to] : g.declared_joins())
    edges.emplace_back(list{strings(from), value(to)});
  if (!edges.empty()) spec.set("edges", value(std::move(edges)));
  list branches;
  for (const auto& b : g.declared_branches()) branches.push_back(branch_of(b));
  if (!branches.empty()) spec.set("conditional_edges", value(std::move(branches)));
  if (!compile.interrupt_before.empty())
    spec.set("interrupt_before", strings(compile.interrupt_before));
  if (!compile.interrupt_after.empty())
    spec.set("interrupt_after", strings(compile.interrupt_after));
  if (options.recursion_limit) spec.set("recursion_limit", value(*options.recursion_limit));
  if (compile.step_timeout_ms) spec.set("step_timeout_ms", value(*compile.step_timeout_ms));
  return value(std::move(spec));
}

value export_graph_spec(const pregel& graph, const export_options& options) {
  const pregel_graph& g = graph.graph();
  if (!g.builder)
    cannot("graph '" + g.name +
           "' was not compiled from a state_graph (a pregel_graph or a superstep.pregel/1 "
           "spec), which only \"superstep.graph/1\" exports describe");
  compile_options compile;
  compile.name = g.name;
  compile.interrupt_before = g.interrupt_before;
  compile.interrupt_after = g.interrupt_after;
  compile.step_timeout_ms = g.step_timeout_ms;
  return export_graph_spec(*g.builder, compile, options);
}

}  // namespace superstep::cluster
