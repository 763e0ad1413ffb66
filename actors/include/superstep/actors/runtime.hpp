#pragma once

#include <functional>
#include <memory>

namespace caf {
class actor_system_config;
}

namespace superstep::actors {

/// Options of an actor runtime.
struct runtime_options {
  /// Scheduler threads (0: one per core).
  unsigned threads = 0;
  /// Loads CAF's network layer (the middleman), for processes of a cluster.
  bool network = false;
  /// Adds to the actor system's configuration before it starts (message types of a layer
  /// above, e.g. the cluster's).
  std::function<void(caf::actor_system_config&)> configure = nullptr;
};

/// The actor system of one process: its scheduler threads run every node actor and
/// coordinator actor of the graphs that use it. Create one in main() and pass it to the
/// graphs you compile; it must outlive them. Thread-safe.
class runtime {
 public:
  explicit runtime(runtime_options options = {});
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  /// Number of scheduler threads.
  unsigned threads() const noexcept;

  /// The CAF side, for actor translation units (see superstep/actors/caf_runtime.hpp).
  struct impl;
  impl& internals() noexcept { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::actors
