// Loading "superstep.graph/1" specs through the state_graph builder.
#include <set>

#include "spec/graph_spec_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep::cluster::detail {

namespace {

// Runs a builder call, reporting its invalid_graph errors at `at`.
template <class F>
void build_at(const spec_node& at, F f) {
  try {
    f();
  } catch (const error& e) {
    if (e.code() != error_code::invalid_graph) throw;
    at.fail(e.what());
  }
}

class state_graph_loader {
 public:
  state_graph_loader(const spec_node& root, const function_registry& registry)
      : root_(root), registry_(registry) {}

  loaded_graph load(const runtime_options& runtime) {
    runtime_ = &runtime;
    root_.expect_object({"spec", "name", "title", "state", "context", "input", "output", "nodes",
                         "edges", "conditional_edges", "interrupt_before", "interrupt_after",
                         "recursion_limit", "step_timeout_ms"});
    compile_options options;
    options.checkpointer = runtime.checkpointer;
    options.mode = runtime.mode;
    options.driver = runtime.driver;
    options.executor = runtime.executor;
    options.store = runtime.store;
    if (root_.has("name")) options.name = root_.field("name").expect_string();
    load_state();
    if (root_.has("title")) builder_.set_schema_title(root_.field("title").expect_string());
    if (root_.has("context")) options.context_schema = load_context(options.name);
    if (root_.has("input")) builder_.set_input_keys(state_keys_at(root_.field("input")));
    if (root_.has("output")) builder_.set_output_keys(state_keys_at(root_.field("output")));
    load_nodes();
    if (root_.has("edges")) load_edges(root_.field("edges"));
    if (root_.has("conditional_edges")) load_conditional_edges(root_.field("conditional_edges"));
    if (root_.has("interrupt_before"))
      options.interrupt_before = interrupt_nodes_at(root_.field("interrupt_before"));
    if (root_.has("interrupt_after"))
      options.interrupt_after = interrupt_nodes_at(root_.field("interrupt_after"));
    loaded_.recursion_limit = parse_recursion_limit(root_);
    options.step_timeout_ms = parse_step_timeout(root_);
    loaded_.graph = builder_.compile(std::move(options));
    return std::move(loaded_);
  }

 private:
  void load_state() {
    spec_node state = root_.field("state");
    if (state.expect_object().empty()) state.fail("expected at least one state key");
    for (const auto& [key, v] : state.get().as_object()) {
      spec_node k(v, state.path_of(key));
      k.expect_object({"reducer", "default", "schema", "required", "delta"});
      std::optional<value> initial;
      if (k.has("default")) initial = k.field("default").get();
      if (k.has("delta")) {
        load_delta_key(key, k, initial);
      } else if (!k.has("reducer")) {
        build_at(k, [&] { builder_.add_key(key, initial); });
      } else {
        spec_node r = k.field("reducer");
        const std::string& name = r.expect_string();
        if (channels::builtin_reducer(name))
          build_at(k, [&] { builder_.add_key(key, std::string_view(name), initial); });
        else if (registry_.has_reducer(name))
          build_at(k, [&] { builder_.add_key(key, registry_.reducer(name), initial); });
        else
          r.fail("unknown reducer '" + name +
                     "' (built-in: append, add, max, min, merge, add_messages, messages_delta)",
                 error_code::unknown_function);
      }
      keys_.insert(key);
      load_key_schema(k, key);
    }
  }

  // A key's "schema" (the JSON schema of its value) and "required", for the graph's input and
  // output JSON schemas.
  void load_key_schema(const spec_node& k, const std::string& key) {
    if (!k.has("schema") && !k.has("required")) return;
    key_schema schema = key_schema_at(k, false);
    build_at(k, [&] { builder_.set_key_schema(key, std::move(schema)); });
  }

  // A state key's "default" is its channel's first value, not a schema's: `with_default` only
  // for a context key.
  static key_schema key_schema_at(const spec_node& k, bool with_default) {
    key_schema schema;
    if (k.has("schema")) {
      spec_node s = k.field("schema");
      s.expect_object();
      schema.schema = s.get();
    }
    if (k.has("required")) schema.required = k.field("required").expect_bool();
    if (with_default && k.has("default")) schema.default_value = k.field("default").get();
    if (std::string problem = schema.problem(); !problem.empty())
      (k.has("schema") ? k.field("schema") : k).fail(problem);
    return schema;
  }

  // The root's "context": the run context's keys (LangGraph's context_schema), for the
  // graph's context JSON schema. Runs do not check it.
  object_schema load_context(const std::string& graph_name) {
    spec_node context = root_.field("context");
    object_schema schema;
    schema.title = (root_.has("title") ? root_.field("title").expect_string() : graph_name) +
                   "Context";
    for (const auto& [key, v] : context.expect_object()) {
      spec_node k(v, context.path_of(key));
      k.expect_object({"schema", "required", "default"});
      schema.keys.emplace_back(key, key_schema_at(k, true));
    }
    return schema;
  }

  // A key with "delta": true or {"snapshot_frequency": n}: a delta key (needs a reducer);
  // its "default" is the value before any write.
  void load_delta_key(const std::string& key, const spec_node& k,
                      const std::optional<value>& initial) {
    spec_node d = k.field("delta");
    delta_options options;
    options.empty = initial;
    if (d.get().is_bool()) {
      if (!d.expect_bool()) d.fail("expected true or an object {\"snapshot_frequency\": n}");
    } else {
      d.expect_object({"snapshot_frequency"});
      if (d.has("snapshot_frequency")) {
        spec_node f = d.field("snapshot_frequency");
        options.snapshot_frequency = f.expect_int();
        if (options.snapshot_frequency <= 0)
          f.fail("snapshot_frequency of state key '" + key + "' must be a positive integer, got " +
                 std::to_string(options.snapshot_frequency));
      }
    }
    if (!k.has("reducer")) k.fail("the delta state key '" + key + "' needs a reducer");
    spec_node r = k.field("reducer");
    const std::string& name = r.expect_string();
    if (channels::builtin_reducer(name))
      build_at(k, [&] { builder_.add_delta_key(key, std::string_view(name), options); });
    else if (registry_.has_reducer(name))
      build_at(k, [&] { builder_.add_delta_key(key, registry_.reducer(name), options); });
    else
      r.fail("unknown reducer '" + name +
                 "' (built-in: append, add, max, min, merge, add_messages, messages_delta)",
             error_code::unknown_function);
  }

  std::vector<std::string> state_keys_at(const spec_node& n) {
    std::vector<std::string> keys = n.expect_strings();
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (!keys_.count(keys[i])) n.item(i).fail("unknown state key '" + keys[i] + "'");
    return keys;
  }

  void load_nodes() {
    spec_node nodes = root_.field("nodes");
    nodes.expect_object();
    for (const auto& [name, v] : nodes.get().as_object()) nodes_.insert(name);
    for (const auto& [name, v] : nodes.get().as_object()) {
      spec_node n(v, nodes.path_of(name));
      n.expect_object({"fn", "params", "graph", "retry", "defer", "destinations"});
      node_options options;
      if (n.has("defer")) options.defer = n.field("defer").expect_bool();
      if (n.has("destinations")) options.destinations = destinations_at(n.field("destinations"));
      if (n.has("retry")) options.retry = {loaded_.retry[name] = parse_retry(n.field("retry"))};
      if (n.field("fn").expect_string() == "graph") {
        auto sub = load_subgraph_at(n, registry_, *runtime_);
        build_at(n, [&] { builder_.add_node(name, sub, options); });
      } else {
        if (n.has("graph")) n.field("graph").fail("only a node whose fn is \"graph\" has a graph");
        node_function fn = make_node_at(n, registry_);
        build_at(n, [&] { builder_.add_node(name, std::move(fn), options); });
      }
    }
  }

  // Checks a node name used as the start of an edge (START allowed unless in a join).
  void source_at(const spec_node& at, const std::string& name, bool join) {
    if (name == END) at.fail("__end__ cannot be the start of an edge");
    if (name == START && join) at.fail("__start__ cannot be a source of a join edge");
    if (name != START && !nodes_.count(name)) at.fail("unknown node '" + name + "'");
  }

  void target_at(const spec_node& at, const std::string& name) {
    if (name == START) at.fail("__start__ cannot be the end of an edge");
    if (name != END && !nodes_.count(name)) at.fail("unknown node '" + name + "'");
  }

  // A node's destinations: a list of names, or an object of names to edge labels.
  std::vector<node_destination> destinations_at(const spec_node& d) {
    std::vector<node_destination> out;
    if (d.get().is_object()) {
      for (const auto& [target, label] : d.expect_object()) {
        spec_node l(label, d.path_of(target));
        target_at(l, target);
        out.emplace_back(target, l.expect_string());
      }
      return out;
    }
    std::vector<std::string> names = d.expect_strings();
    for (std::size_t i = 0; i < names.size(); ++i) {
      target_at(d.item(i), names[i]);
      out.emplace_back(std::move(names[i]));
    }
    return out;
  }

  void load_edges(const spec_node& edges) {
    for (std::size_t i = 0; i < edges.expect_list().size(); ++i) {
      spec_node e = edges.item(i);
      if (e.expect_list().size() != 2)
        e.fail("expected [from, to], got a list of " + std::to_string(e.get().as_list().size()) +
               " items");
      spec_node from = e.item(0), to = e.item(1);
      const std::string& target = to.expect_string();
      target_at(to, target);
      if (from.get().is_list()) {
        std::vector<std::string> sources = from.expect_strings();
        if (sources.empty()) from.fail("a join edge needs at least one source");
        for (std::size_t j = 0; j < sources.size(); ++j) source_at(from.item(j), sources[j], true);
        build_at(e, [&] { builder_.add_edge(sources, target); });
      } else {
        const std::string& source = from.expect_string();
        source_at(from, source, false);
        build_at(e, [&] { builder_.add_edge(source, target); });
      }
    }
  }

  void load_conditional_edges(const spec_node& edges) {
    for (std::size_t i = 0; i < edges.expect_list().size(); ++i) {
      spec_node e = edges.item(i);
      e.expect_object({"from", "router", "params", "path_map"});
      spec_node from = e.field("from");
      const std::string& source = from.expect_string();
      source_at(from, source, false);
      router_function router = make_router_at(e, registry_);
      std::map<std::string, std::string> path_map;
      if (e.has("path_map")) {
        spec_node m = e.field("path_map");
        if (m.get().is_list()) {
          std::vector<std::string> targets = m.expect_strings();
          for (std::size_t j = 0; j < targets.size(); ++j) {
            target_at(m.item(j), targets[j]);
            path_map[targets[j]] = targets[j];
          }
        } else {
          for (const auto& [label, target] : m.expect_object()) {
            spec_node t(target, m.path_of(label));
            target_at(t, t.expect_string());
            path_map[label] = target.as_string();
          }
        }
      }
      build_at(e, [&] { builder_.add_conditional_edges(source, std::move(router), path_map); });
    }
  }

  std::vector<std::string> interrupt_nodes_at(const spec_node& n) {
    std::vector<std::string> names = n.expect_strings();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] != "*" && !nodes_.count(names[i]))
        n.item(i).fail("unknown node '" + names[i] + "'");
    return names;
  }

  const spec_node& root_;
  const function_registry& registry_;
  const runtime_options* runtime_ = nullptr;
  state_graph builder_;
  loaded_graph loaded_;
  std::set<std::string> keys_;
  std::set<std::string> nodes_;
};

}  // namespace

loaded_graph load_state_graph_spec(const spec_node& root, const function_registry& registry,
                                   const runtime_options& options) {
  return state_graph_loader(root, registry).load(options);
}

}  // namespace superstep::cluster::detail
