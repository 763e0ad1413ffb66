#pragma once

// What the operations share: JSON lines on stdout and the graph a stored thread runs on.

#include <cstdint>
#include <string>

#include "ops/data_dir.hpp"
#include "ops/operations.hpp"
#include "superstep/cluster/graph_spec.hpp"

namespace superstep::ops::detail {

/// Writes one JSON line and flushes, so a reader of a pipe sees each event when it happens.
void print_line(const value& v);

/// The config that names a thread and, unless empty, one of its checkpoints.
value thread_config(const std::string& thread_id, const std::string& checkpoint_id = "",
                    const std::string& checkpoint_ns = "");

/// The graph of env.spec_text, or of `where.graph_path`, or else of the spec saved for the
/// thread, with the data folder's saver as its checkpointer. Throws error(not_found) when
/// there is none.
cluster::loaded_graph load_thread_graph(const command_env& env, const thread_args& where);

/// The snapshot as JSON (state_snapshot::to_value), where each task also has its "result":
/// the state updates it saved before its step stopped (LangGraph PregelTask.result), or null
/// when it has not finished. `pending` are the checkpoint's saved writes.
value snapshot_json(const state_snapshot& snapshot, const pregel_graph& graph,
                    const std::vector<pending_write>& pending);

}  // namespace superstep::ops::detail
