#pragma once

// The values remote_graph exchanges with a head, CAF-free: the config it sends (LangGraph's
// _sanitize_config and merge_configs) and the snapshots and drawings it reads back.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/pregel/graph_description.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep::remote_detail {

/// LangGraph's _sanitize_config_value: primitives kept, objects and lists sanitised
/// recursively, anything else (null, bytes) dropped (nullopt).
std::optional<value> sanitize_value(const value& v);

/// LangGraph's merge_configs for two configs: metadata and configurable merged key by key,
/// tags joined, anything else replaced.
value merge_configs(const value& base, const value& over);

/// "HOST:PORT" into its parts; throws error(invalid_argument) naming it.
void parse_head_address(const std::string& text, std::string& host, std::uint16_t& port);

/// A random uuid4-shaped thread id.
std::string fresh_thread_id();

/// A checkpoint_ns split at '|' (none for "").
std::vector<std::string> split_ns(const std::string& ns);

/// The string at `key`, or "".
std::string string_at(const value& v, std::string_view key);

/// {"configurable": {thread_id, checkpoint_ns, checkpoint_id}} as a checkpoint_config.
checkpoint_config config_of(const value& v);

/// A snapshot as the head prints it (state_snapshot::to_value with tasks' results). Throws
/// error(protocol_error) for one that is not an object.
state_snapshot snapshot_of(const value& v);

/// LangGraph's RemoteGraph._get_drawable_nodes and edges, into a graph_description. Throws
/// error(protocol_error) without nodes and edges.
graph_description description_of(const value& v);

}  // namespace superstep::remote_detail
