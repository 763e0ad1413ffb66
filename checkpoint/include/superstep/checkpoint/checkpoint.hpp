#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

/// A channel version. Versions only grow; 0 means "never written".
using channel_version = std::uint64_t;

/// A snapshot of the graph state at one superstep (LangGraph `Checkpoint`).
struct checkpoint {
  int v = 1;
  std::string id;  ///< uuid6-style, sorts by creation
  std::string ts;  ///< ISO 8601
  // Hash maps: the loop looks channels up several times per step, and channel names share
  // long prefixes ("branch:to:..."). Code that needs an order (encoding, display) sorts.
  std::unordered_map<std::string, value> channel_values;
  std::unordered_map<std::string, channel_version> channel_versions;
  /// node -> channel -> version of that channel the node last ran on.
  std::unordered_map<std::string, std::unordered_map<std::string, channel_version>> versions_seen;
  std::vector<std::string> updated_channels;
};

/// Metadata of a checkpoint (LangGraph `CheckpointMetadata`); `extra` holds user keys.
struct checkpoint_metadata {
  std::string source;  ///< input | loop | update | fork
  std::int64_t step = -1;
  std::map<std::string, std::string> parents;  ///< checkpoint_ns -> checkpoint id
  /// The run's config metadata and configurable keys (see `merge_config_metadata`), and any
  /// other keys a saver was given.
  object extra;
};

/// Adds to `m.extra` what LangGraph's `get_checkpoint_metadata` merges into a checkpoint's
/// metadata from the run's `config`: the keys of config["metadata"], then of
/// config["configurable"], whose value is a string (NUL characters removed), a number or a
/// bool, except keys already there (source, step and parents included), keys starting with
/// "__", and thread_id, checkpoint_id, checkpoint_ns, checkpoint_map and langgraph_step,
/// _node, _triggers, _path and _checkpoint_ns.
void merge_config_metadata(checkpoint_metadata& m, const value& config);

/// The coordinates of a checkpoint (the `configurable` of LangGraph's RunnableConfig).
struct checkpoint_config {
  std::string thread_id;
  std::string checkpoint_ns;
  std::string checkpoint_id;  ///< empty: the latest
};

/// A write made by a task and saved before its step commits (LangGraph `PendingWrite`).
struct pending_write {
  std::string task_id;
  std::string channel;
  value v;
};

/// Everything known about one checkpoint (LangGraph `CheckpointTuple`).
struct checkpoint_tuple {
  checkpoint_config config;
  superstep::checkpoint checkpoint;
  checkpoint_metadata metadata;
  std::optional<checkpoint_config> parent_config;
  std::vector<pending_write> pending_writes;
};

/// Converts metadata to a value object {source, step, parents, ...extra} (LangGraph's current
/// CheckpointMetadata: no `writes`).
value metadata_to_value(const checkpoint_metadata& m);

}  // namespace superstep
