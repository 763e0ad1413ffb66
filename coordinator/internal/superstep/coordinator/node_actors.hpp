#pragma once

// Hosting a graph's node actors for another process's coordinators (a cluster's workers).
// Include only from actor translation units: it pulls in CAF.

#include <cstdint>
#include <vector>

#include "superstep/actors/protocol.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

/// Spawns `count` actors running tasks of node `node` (index into graph.graph().nodes) on
/// `rt`, for coordinators in other processes to send task batches to. Tasks run without a
/// checkpointer (subgraph nodes belong where the checkpointer is). `graph` must outlive the
/// actors; stop them with an exit message.
std::vector<actors::node_actor> spawn_node_actors(const pregel& graph, actors::runtime& rt,
                                                  std::uint32_t node, unsigned count);

}  // namespace superstep
