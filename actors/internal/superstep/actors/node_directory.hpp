#pragma once

// Where a run's tasks go when node actors live in other processes. Include only from actor
// translation units: it pulls in CAF.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/protocol.hpp"

namespace superstep::actors {

/// How a coordinator feeds remote node actors: batches of at most `max_batch` tasks, at most
/// `window` batches in flight per actor (backpressure), and how long a step waits for an actor
/// of a node when none is left (its workers died) before the run fails. A task in flight on
/// `task_loss_limit` workers that went away, the last time alone on its worker, is taken for
/// one that crashes its process: the run fails with a node error naming it instead of sending
/// it to another worker (0: never). After a first loss the batch goes again alone on a worker,
/// so that the next loss is its own.
struct dispatch_policy {
  std::size_t max_batch = 1024;
  std::size_t window = 4;
  std::chrono::milliseconds wait{30000};
  std::uint32_t task_loss_limit = 2;
};

/// The node actors of one graph that other processes (workers) host. A coordinator asks it at
/// every step, so workers may come and go during a run; it monitors every actor it sends a
/// batch to and sends the unfinished batches of an actor that went down to another one.
/// Thread-safe: coordinators of several runs ask concurrently.
class node_directory {
 public:
  virtual ~node_directory() = default;

  /// The actors that run tasks of node `node` (index into pregel_graph::nodes) elsewhere;
  /// nullopt when the node runs on this process's own node actors, an empty list when it runs
  /// elsewhere but no process hosting it is connected now.
  virtual std::optional<std::vector<node_actor>> instances(std::uint32_t node) = 0;

  /// Why no actor is available for `node`, for the error that ends a run after waiting.
  virtual std::string unavailable(std::uint32_t node) const = 0;

  virtual dispatch_policy policy() const { return {}; }

  /// The channel hosts (workers' host actors) a run of this graph places its channel groups
  /// on, one group each, in a stable order; empty (the default): the channels stay beside the
  /// coordinator. A host answers `place_atom, channel_placement` with a channel actor
  /// (channel_host).
  virtual std::vector<channel_host> channel_hosts() { return {}; }
  /// The key the channel hosts know the graph by (channel_placement::graph).
  virtual std::string graph_key() const { return {}; }

  /// A suspect task (in flight on a worker that went away) runs alone on process `host`: no
  /// run's suspect goes there while one is (runs of every graph share the claims), so that the
  /// next loss names one task. False: another run's suspect holds it.
  virtual bool claim_host(const caf::node_id& /*host*/) { return true; }
  /// The suspect is back (or lost, or its run ended).
  virtual void release_host(const caf::node_id& /*host*/) {}
};

}  // namespace superstep::actors
