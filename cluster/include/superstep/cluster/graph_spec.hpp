#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep::cluster {

/// A node's retry policy as a spec declares it (the engine's, LangGraph defaults).
using retry_policy = superstep::retry_policy;

/// A graph built from a spec, with the spec's settings that the compiled graph does not hold.
struct loaded_graph {
  std::shared_ptr<pregel> graph;
  /// The spec's `recursion_limit`, to put in a run's config when the caller sets none.
  std::optional<std::int64_t> recursion_limit;
  /// Retry policies of the top-level nodes that declare one, by node name (also applied to
  /// the nodes themselves).
  std::map<std::string, retry_policy> retry;
};

/// Builds the graph described by `spec` (see GRAPH_SPEC.md): "superstep.graph/1" through
/// `state_graph`, "superstep.pregel/1" as a `pregel_graph`. Node, router and reducer names are
/// resolved in `registry`, and node params are validated by their factories, now.
///
/// Errors name the JSON path of the offender, as in
/// "invalid graph spec at edges[1][1]: unknown node 'pik'": unknown keys anywhere in the spec
/// (typo protection), wrong kinds, unknown nodes, channels and state keys (code invalid_spec),
/// unknown functions (unknown_function). `state_graph::compile` errors propagate unchanged
/// (invalid_graph, naming the node). Subgraph nodes (`"fn": "graph"`) are loaded with the same
/// registry and the same runtime options, but without a checkpointer of their own.
loaded_graph load_graph(const value& spec, const function_registry& registry,
                        runtime_options options = {});

/// The graph of `load_graph`, with `checkpointer` and default runtime options.
std::shared_ptr<pregel> load_graph_spec(const value& spec, const function_registry& registry,
                                        std::shared_ptr<checkpoint_saver> checkpointer = nullptr);

/// Reads the JSON spec in file `path` and loads it. A file that cannot be read or is not JSON
/// gives error(invalid_spec, "invalid graph spec <path>: ...").
loaded_graph load_graph_file(const std::string& path, const function_registry& registry,
                             runtime_options options = {});

/// The graph of `load_graph_file`, with `checkpointer` and default runtime options.
std::shared_ptr<pregel> load_graph_spec_file(
    const std::string& path, const function_registry& registry,
    std::shared_ptr<checkpoint_saver> checkpointer = nullptr);

/// Reads and parses the JSON spec in file `path`. Throws error(invalid_spec) naming the file
/// when it cannot be read or is not JSON.
value read_spec_file(const std::string& path);

/// The code each top-level node of a spec runs, by node name as the compiled graph names it
/// ("__start__" for the routers of edges leaving START): its `fn` and the routers of its
/// conditional edges. A subgraph node lists "graph". For a spec that `load_graph` accepted.
std::map<std::string, std::set<std::string>> functions_by_node(const value& spec);

/// The JSON Schema (draft 2020-12) of graph specs, as text: docs/graph_spec.schema.json,
/// which `superstep schema` prints, for editors to validate and complete specs. Every example
/// spec of the project conforms (tests/cluster/spec_schema_test.cpp).
std::string_view graph_spec_json_schema() noexcept;

}  // namespace superstep::cluster
