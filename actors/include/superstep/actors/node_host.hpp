#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/pregel/channel_group.hpp"
#include "superstep/pregel/task.hpp"

namespace superstep::detail {
struct run_shared;  // superstep/pregel/run_context.hpp
}

namespace superstep::actors {

/// Sends a stream event (custom, messages, or a subgraph's) to the run that asked for it.
using stream_forward =
    std::function<void(const std::vector<std::string>& ns, std::uint8_t mode, value data)>;

/// What a task batch says about the run it belongs to.
struct batch_header {
  std::int64_t step = 0;
  // The run, for a batch to another process (in this one: local_run).
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
  /// Set only for node actors in the coordinator's process, never sent: the run itself as
  /// this step has it (config, namespace, persistence, stream modes, replay, the owner's
  /// hooks, the cancellation), which its tasks run with as they do in threads mode. Its sink
  /// delivers stream events straight to the run's from the thread running the task, so they
  /// reach the caller while the task runs (LangGraph streams subgraph events live), not when
  /// the coordinator next gets a scheduler thread. The fields above but `step` and
  /// `inputs_from_replica` are then left unset: they are the run's description for another
  /// process, filled only for batches that go to one. Null: a batch from another process,
  /// whose tasks run with those fields, stream to the coordinator as messages and cannot be
  /// cancelled.
  std::shared_ptr<const superstep::detail::run_shared> local_run;
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
