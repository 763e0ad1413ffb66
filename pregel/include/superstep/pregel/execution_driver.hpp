#pragma once

// What runs a compiled graph's top-level tasks in `execution::actors` mode: the interface the
// coordinator library implements with its actors (superstep/coordinator/actor_driver.hpp).
// The engine drives a run's loop through it and knows nothing of actors; `execution::threads`
// runs and subgraphs run on the engine's own thread pool.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "superstep/core/value.hpp"

namespace superstep {

struct pregel_graph;
struct runtime_options;
namespace detail {
class run_loop;
}

/// Told as a step's tasks finish: the step, how many of its tasks are done, how many it has.
using progress_fn = std::function<void(std::int64_t step, std::size_t done, std::size_t total)>;

/// A driver's hold on one compiled graph (its node actors, say): made on the graph's first
/// run and kept until the graph is destroyed. Runs of the graph on several threads call
/// `run` at once.
class graph_driver {
 public:
  virtual ~graph_driver() = default;
  /// Runs `loop`, a run of the graph, to its end and returns its output; blocks the caller.
  /// Throws what the run failed with. `progress`: null, or told as tasks finish.
  virtual value run(detail::run_loop& loop, const value& input, const progress_fn* progress) = 0;
};

/// Makes a graph's `graph_driver`. One driver may serve many graphs (a cluster's head runs
/// every graph on one actor runtime).
class execution_driver {
 public:
  virtual ~execution_driver() = default;
  /// Prepares to run `graph`; `options` are the graph's (its checkpointer, store and cache
  /// reach the tasks wherever they run).
  virtual std::unique_ptr<graph_driver> attach(const pregel_graph& graph,
                                               const runtime_options& options) const = 0;
};

namespace detail {
/// The driver of `execution::actors` runs whose `runtime_options::driver` is null. The
/// coordinator library registers its own when it is linked; without one such runs fail
/// (invalid_argument) naming the library.
void set_default_driver(std::shared_ptr<const execution_driver> (*make)());
}  // namespace detail

}  // namespace superstep
