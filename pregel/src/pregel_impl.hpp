#pragma once

// Internal: what a compiled graph keeps besides its topology.

#include <memory>
#include <mutex>

#include "superstep/pregel/algo.hpp"
#include "superstep/pregel/execution_driver.hpp"
#include "superstep/pregel/pregel.hpp"
#include "superstep/pregel/task_executor.hpp"

namespace superstep {

struct pregel::impl {
  algo::graph_index index;
  std::mutex m;
  /// The execution driver's hold on the graph, made on its first run in `execution::actors`.
  std::unique_ptr<graph_driver> driven;

  std::shared_ptr<task_executor> executor;  // when runtime_options gives none

  graph_driver& driver(const pregel_graph& g, const runtime_options& o);
  /// The executor of threads mode and of subgraph runs.
  task_executor& thread_pool(const runtime_options& o);
};

}  // namespace superstep
