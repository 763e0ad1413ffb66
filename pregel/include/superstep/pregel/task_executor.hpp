#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace superstep {

/// Runs the tasks of one superstep. `run_batch(n, body)` calls body(i) for every i in [0, n),
/// in parallel where it can, and returns when all calls returned. The calling thread may run
/// calls itself, so a task may start a nested batch (a subgraph) without deadlock.
class task_executor {
 public:
  virtual ~task_executor() = default;
  virtual void run_batch(std::size_t n, const std::function<void(std::size_t)>& body) = 0;
};

/// An executor on a fixed pool of threads (0: one per core).
std::shared_ptr<task_executor> make_thread_pool_executor(unsigned threads = 0);

}  // namespace superstep
