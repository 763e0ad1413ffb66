#pragma once

// Internal: running a graph on actors. CAF-free, so pregel.cpp stays light; the CAF code is
// in coordinator_actor.cpp.

#include <cstdint>
#include <functional>
#include <memory>

#include "superstep/actors/runtime.hpp"
#include "superstep/pregel/execution_driver.hpp"
#include "superstep/pregel/run_loop.hpp"

namespace superstep::actors {
class node_directory;
}

namespace superstep::detail {

/// The node actors of one compiled graph in one runtime: a few instances per node, spawned
/// when the node first runs, stopped when the pool is destroyed. Thread-safe.
class node_actor_pool;
struct node_actor_pool_deleter {
  void operator()(node_actor_pool* p) const noexcept;
};
using node_actor_pool_ptr = std::unique_ptr<node_actor_pool, node_actor_pool_deleter>;

/// `saver`: the graph's checkpointer, which subgraphs run by its nodes save into (or null);
/// `store`: the long-term store its nodes reach (or null); `cache`: the graph's node cache
/// (or null).
node_actor_pool_ptr make_node_actor_pool(actors::runtime& rt, const pregel_graph& graph,
                                         checkpoint_saver* saver, storage::store* store,
                                         node_cache* cache);

/// Where a run on actors sends its tasks.
struct actor_run {
  node_actor_pool& pool;                  ///< this process's node actors
  actors::node_directory* directory;      ///< nodes hosted elsewhere, or null
  const progress_fn* progress = nullptr;  ///< told as tasks finish, or null
  bool channel_actors = true;             ///< runtime_options::channel_actors
};

/// Runs `loop` to completion with a coordinator actor dispatching its tasks; blocks the caller.
value run_on_actors(run_loop& loop, const actor_run& run, const value& input);

}  // namespace superstep::detail
