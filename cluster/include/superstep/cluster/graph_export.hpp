#pragma once

#include <cstdint>
#include <optional>

#include "superstep/core/value.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep::cluster {

/// What a graph spec holds that neither a `state_graph` nor its compiled graph does.
struct export_options {
  /// The spec's `recursion_limit` (a loaded_graph's), written when set.
  std::optional<std::int64_t> recursion_limit = std::nullopt;
};

/// The graph spec ("superstep.graph/1", docs/GRAPH_SPEC.md) of `builder` compiled with
/// `compile`'s name, interrupt_before/interrupt_after and step_timeout_ms (its other options
/// are the runtime's, not the spec's): `load_graph` of the result builds an equal graph.
///
/// Every node and router must come from `function_registry::make_node`/`make_router` or carry
/// a name given by `name_function` (named_function.hpp): it is written as {"fn": name,
/// "params": params}; reducers are written by their names. A subgraph node is written as
/// {"fn": "graph", "graph": the subgraph's spec}, for a subgraph compiled from a
/// `state_graph`.
///
/// Throws `superstep::error` (invalid_graph) naming the offender when the graph holds what
/// a spec cannot say: a node or router without a name ("node 'n' runs an anonymous
/// function..."), a reducer without a name, untracked or managed keys, a node's timeout,
/// cache policy, error handler or input keys, several retry policies or one with jitter off
/// or a `retry_on` function, node defaults, a router's input keys, input or output titles, a
/// key schema's separate default, a subgraph not compiled from a `state_graph`.
value export_graph_spec(const state_graph& builder, const compile_options& compile = {},
                        const export_options& options = {});

/// The graph spec of a compiled graph: of the `state_graph` it was compiled from
/// (`pregel_graph::builder`), with its name, interrupts and step timeout. Throws
/// `superstep::error` (invalid_graph) for a graph not compiled from a `state_graph` (a
/// `pregel_graph` built by hand or from a "superstep.pregel/1" spec), and as above.
value export_graph_spec(const pregel& graph, const export_options& options = {});

}  // namespace superstep::cluster
