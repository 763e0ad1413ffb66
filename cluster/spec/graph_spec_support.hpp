#pragma once

// Internal: what the loaders of the two spec kinds share.

#include <memory>
#include <optional>

#include "spec/spec_reader.hpp"
#include "superstep/cluster/graph_spec.hpp"

namespace superstep::cluster::detail {

/// Loads the spec at `root` (either kind); used for the top level and for subgraphs.
loaded_graph load_spec_at(const spec_node& root, const function_registry& registry,
                          const runtime_options& options);
loaded_graph load_state_graph_spec(const spec_node& root, const function_registry& registry,
                                   const runtime_options& options);
loaded_graph load_pregel_spec(const spec_node& root, const function_registry& registry,
                              const runtime_options& options);

/// The node function of the node spec `node` (its "fn" and "params"), with factory errors
/// reported at "<node>.fn" (unknown function) or "<node>.params.<param>".
node_function make_node_at(const spec_node& node, const function_registry& registry);
/// The router of a conditional edge spec (its "router" and "params"), likewise.
router_function make_router_at(const spec_node& edge, const function_registry& registry);

/// The subgraph of a node spec whose fn is "graph" (its "graph" member), with the parent's
/// runtime options but no checkpointer.
std::shared_ptr<pregel> load_subgraph_at(const spec_node& node, const function_registry& registry,
                                         const runtime_options& parent);

/// A node's "retry" member.
retry_policy parse_retry(const spec_node& retry);
/// The root's "recursion_limit", if any.
std::optional<std::int64_t> parse_recursion_limit(const spec_node& root);
/// The root's "step_timeout_ms" (pregel_graph::step_timeout_ms), if any; above 0.
std::optional<double> parse_step_timeout(const spec_node& root);

}  // namespace superstep::cluster::detail
