#pragma once

// The actors as a compiled graph's execution driver (superstep/pregel/execution_driver.hpp):
// a coordinator actor runs each step's barrier and commit, node actors run the tasks, channel
// actors keep the channels (docs/channel_actors.md). The default of `execution::actors` when
// this library is linked; a cluster gives its own runtime and the nodes its workers host.

#include <memory>

#include "superstep/pregel/execution_driver.hpp"

namespace superstep::actors {
class runtime;
class node_directory;
}  // namespace superstep::actors

namespace superstep {

struct actor_driver_options {
  /// The actor runtime to run on; when null, each graph starts its own on its first run.
  std::shared_ptr<actors::runtime> runtime = nullptr;
  /// Nodes whose actors live in other processes (a cluster's workers); null: all run here.
  std::shared_ptr<actors::node_directory> directory = nullptr;
  /// Whether a run keeps its channels in channel actors: they own the channels and apply
  /// each step's writes, and the coordinator commits every step over them in two phases
  /// (prepare and vote, the checkpoint as the commit point, then commit or abort). False: the
  /// coordinator applies writes to channels of its own (kept to compare against).
  bool channel_actors = true;
};

/// A driver running graphs on actors as `options` say.
std::shared_ptr<const execution_driver> make_actor_driver(actor_driver_options options = {});

}  // namespace superstep
