// Entry points of the spec loader and what both spec kinds share: functions, subgraphs,
// retry policies. The kinds themselves: spec/state_graph_spec.cpp and spec/pregel_spec.cpp.
#include "superstep/cluster/graph_spec.hpp"

#include <fstream>
#include <sstream>

#include "spec/graph_spec_support.hpp"
#include "superstep/cluster/function_params.hpp"

namespace superstep::cluster {

namespace detail {

namespace {

// Runs a factory, reporting its errors at the spec path of the function or its params.
template <class Make>
auto call_factory(const spec_node& owner, const char* fn_key, Make make) {
  try {
    return make();
  } catch (const invalid_param& e) {
    std::string path = owner.path_of("params");
    if (!e.param().empty()) path += "." + e.param();
    fail_at(path, e.reason(), error_code::invalid_spec);
  } catch (const error& e) {
    if (e.code() == error_code::unknown_function)
      fail_at(owner.path_of(fn_key), e.what(), e.code());
    fail_at(owner.path_of("params"), e.what(), e.code());
  } catch (const std::exception& e) {
    fail_at(owner.path_of("params"), e.what(), error_code::invalid_spec);
  } catch (...) {
    fail_at(owner.path_of(fn_key), "the factory threw an exception that is not a std::exception",
            error_code::invalid_spec);
  }
}

}  // namespace

node_function make_node_at(const spec_node& node, const function_registry& registry) {
  const std::string& fn = node.field("fn").expect_string();
  value params = node.has("params") ? node.field("params").get() : value();
  return call_factory(node, "fn", [&] { return registry.make_node(fn, params); });
}

router_function make_router_at(const spec_node& edge, const function_registry& registry) {
  const std::string& fn = edge.field("router").expect_string();
  value params = edge.has("params") ? edge.field("params").get() : value();
  return call_factory(edge, "router", [&] { return registry.make_router(fn, params); });
}

std::shared_ptr<pregel> load_subgraph_at(const spec_node& node, const function_registry& registry,
                                         const runtime_options& parent) {
  if (node.has("params"))
    fail_at(node.path_of("params"), "a subgraph node takes no params", error_code::invalid_spec);
  runtime_options options = parent;
  options.checkpointer = nullptr;  // subgraph checkpoints come with persistence
  options.driver = nullptr;        // subgraphs run inside their parent's task
  return load_spec_at(node.field("graph"), registry, options).graph;
}

retry_policy parse_retry(const spec_node& retry) {
  retry.expect_object({"max_attempts", "initial_interval_ms", "backoff", "max_interval_ms"});
  retry_policy r;
  if (retry.has("max_attempts")) {
    spec_node n = retry.field("max_attempts");
    r.max_attempts = n.expect_int();
    if (r.max_attempts < 1) n.fail("must be at least 1");
  }
  auto non_negative = [&](const char* key, double& out, double min) {
    if (!retry.has(key)) return;
    spec_node n = retry.field(key);
    out = n.expect_number();
    if (out < min) n.fail("must be at least " + value(min).to_json());
  };
  non_negative("initial_interval_ms", r.initial_interval_ms, 0);
  non_negative("backoff", r.backoff, 1);
  non_negative("max_interval_ms", r.max_interval_ms, 0);
  return r;
}

std::optional<std::int64_t> parse_recursion_limit(const spec_node& root) {
  if (!root.has("recursion_limit")) return std::nullopt;
  spec_node n = root.field("recursion_limit");
  std::int64_t limit = n.expect_int();
  if (limit < 1) n.fail("must be a positive int");
  return limit;
}

std::optional<double> parse_step_timeout(const spec_node& root) {
  if (!root.has("step_timeout_ms")) return std::nullopt;
  spec_node n = root.field("step_timeout_ms");
  double ms = n.expect_number();
  if (!(ms > 0)) n.fail("must be greater than 0");
  return ms;
}

loaded_graph load_spec_at(const spec_node& root, const function_registry& registry,
                          const runtime_options& options) {
  root.expect_object();
  spec_node kind = root.field("spec");
  const std::string& name = kind.expect_string();
  if (name == "superstep.graph/1") return load_state_graph_spec(root, registry, options);
  if (name == "superstep.pregel/1") return load_pregel_spec(root, registry, options);
  kind.fail("unknown spec kind '" + name + "' (expected superstep.graph/1 or superstep.pregel/1)");
}

}  // namespace detail

loaded_graph load_graph(const value& spec, const function_registry& registry,
                        runtime_options options) {
  return detail::load_spec_at(detail::spec_node(spec, ""), registry, options);
}

std::shared_ptr<pregel> load_graph_spec(const value& spec, const function_registry& registry,
                                        std::shared_ptr<checkpoint_saver> checkpointer) {
  runtime_options options;
  options.checkpointer = std::move(checkpointer);
  return load_graph(spec, registry, std::move(options)).graph;
}

value read_spec_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::invalid_spec, "invalid graph spec " + path + ": cannot read it");
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return value::parse_json(text.str());
  } catch (const error& e) {
    throw error(error_code::invalid_spec, "invalid graph spec " + path + ": not JSON: " + e.what());
  }
}

loaded_graph load_graph_file(const std::string& path, const function_registry& registry,
                             runtime_options options) {
  return load_graph(read_spec_file(path), registry, std::move(options));
}

std::map<std::string, std::set<std::string>> functions_by_node(const value& spec) {
  std::map<std::string, std::set<std::string>> out;
  const value& nodes = spec.get("nodes");
  if (nodes.is_object())
    for (const auto& [name, node] : nodes.as_object()) {
      const value& fn = node.get("fn");
      if (fn.is_string()) out[name].insert(fn.as_string());
    }
  const value& edges = spec.get("conditional_edges");
  if (edges.is_list())
    for (const value& e : edges.as_list()) {
      const value& from = e.get("from");
      const value& router = e.get("router");
      if (from.is_string() && router.is_string()) out[from.as_string()].insert(router.as_string());
    }
  return out;
}

std::shared_ptr<pregel> load_graph_spec_file(const std::string& path,
                                             const function_registry& registry,
                                             std::shared_ptr<checkpoint_saver> checkpointer) {
  runtime_options options;
  options.checkpointer = std::move(checkpointer);
  return load_graph_file(path, registry, std::move(options)).graph;
}

}  // namespace superstep::cluster
