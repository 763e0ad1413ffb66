#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/pregel/channel_group.hpp"
#include "superstep/pregel/task.hpp"
#include "superstep/channels/channel.hpp"

namespace superstep::detail {
struct run_hooks;  // superstep/pregel/run_context.hpp
}

namespace superstep::actors {

/// Sends a stream event (custom, messages, or a subgraph's) to the run that asked for it.
using stream_forward =
    std::function<void(const std::vector<std::string>& ns, std::uint8_t mode, value data)>;

/// What a task batch says about the run it belongs to.
struct batch_header {
  std::int64_t step = 0;
  std::int64_t stop = 0;      ///< the step past which the recursion limit ends the run
  std::string checkpoint_id;  ///< the checkpoint the step started from
  bool resuming = false;      ///< the run continues a thread
  value config;
  std::vector<std::string> ns;  ///< namespace of the graph (empty at the top level)
  std::uint32_t modes = 0;      ///< stream modes wanted, a bit per mode
  bool subgraphs = false;
  /// The run streams chat model calls as the v2 message protocol (stream_events runs).
  bool message_events = false;
  /// Set when the run replays from a past checkpoint: its subgraphs load their state from
  /// before this checkpoint the first time they run (`replay_visited`: those that have).
  std::string replay_checkpoint_id;
  std::vector<std::string> replay_visited;
  /// PULL tasks come without their input: the node actor builds it from its replica of the
  /// node's input channels, which the batch's deltas bring up to date (so a step sends what
  /// changed, not every task's whole input). Set for batches to other processes.
  bool inputs_from_replica = false;
  /// Set only for node actors in the coordinator's process, never sent: delivers stream
  /// events straight to the run's sink from the thread running the task, so they reach the
  /// caller while the task runs (LangGraph streams subgraph events live), not when the
  /// coordinator next gets a scheduler thread. Null: events go to the coordinator as messages.
  std::shared_ptr<const stream_forward> local_forward;
  /// Set only for node actors in the coordinator's process, never sent: what the run's owner
  /// gave it for its tasks and subgraphs (the coordinator's run hooks: a drain request, a
  /// node-finished callback). Null: none, or a batch from another process.
  std::shared_ptr<const superstep::detail::run_hooks> local_hooks;
  /// Set only for node actors in the coordinator's process, never sent: the run's
  /// cancellation, which its tasks see as `node_context::stop_token()`. A batch from another
  /// process has a never-stopping token: its tasks cannot be cancelled.
  std::stop_token local_stop;
};

/// Runs a batch of tasks of one node against the replica; fills each task's writes, output
/// and error. Never throws.
using task_body = std::function<void(std::vector<pregel_task>& tasks, const batch_header& header,
                                     const channel_map& replica, const stream_forward& forward)>;

/// What a process needs to host a node: its name, the body that runs its tasks, and
/// prototypes of the channels it reads fresh and of those its input is built from (its
/// replica).
struct node_host {
  std::string name;
  task_body body;
  /// Read fresh while a task runs: in every replica from the start.
  std::vector<std::pair<std::string, std::shared_ptr<const channels::channel>>> replica_channels;
  /// Read to build a PULL task's input: in a replica once a delta brings them (batches with
  /// `batch_header::inputs_from_replica`).
  std::vector<std::pair<std::string, std::shared_ptr<const channels::channel>>> input_channels;
};

}  // namespace superstep::actors
