#pragma once

// Internal: running a graph on actors. CAF-free, so pregel.cpp stays light; the CAF code is
// in coordinator_actor.cpp.

#include <memory>

#include "run_loop.hpp"
#include "superstep/actors/runtime.hpp"

namespace superstep::detail {

/// The node actors of one compiled graph in one runtime: a few instances per node, spawned
/// when the node first runs, stopped when the pool is destroyed. Thread-safe.
class node_actor_pool;
struct node_actor_pool_deleter {
  void operator()(node_actor_pool* p) const noexcept;
};
using node_actor_pool_ptr = std::unique_ptr<node_actor_pool, node_actor_pool_deleter>;

/// `saver`: the graph's checkpointer, which subgraphs run by its nodes save into (or null).
node_actor_pool_ptr make_node_actor_pool(actors::runtime& rt, const pregel_graph& graph,
                                         checkpoint_saver* saver);

/// Runs `loop` to completion with a coordinator actor dispatching to `pool`; blocks the caller.
value run_on_actors(run_loop& loop, node_actor_pool& pool, const value& input);

}  // namespace superstep::detail
