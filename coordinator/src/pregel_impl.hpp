#pragma once

// Internal: what a compiled graph keeps besides its topology.

#include <memory>
#include <mutex>

#include "coordinator_actor.hpp"
#include "superstep/actors/runtime.hpp"
#include "superstep/coordinator/algo.hpp"
#include "superstep/coordinator/pregel.hpp"
#include "superstep/coordinator/task_executor.hpp"

namespace superstep {

struct pregel::impl {
  algo::graph_index index;
  std::mutex m;
  std::shared_ptr<actors::runtime> runtime;
  detail::node_actor_pool_ptr pool;  // destroyed before the runtime it lives in

  std::shared_ptr<task_executor> executor;  // when runtime_options gives none

  detail::node_actor_pool& actor_pool(const pregel_graph& g, const runtime_options& o);
  /// The executor of threads mode and of subgraph runs.
  task_executor& thread_pool(const runtime_options& o);
};

}  // namespace superstep
