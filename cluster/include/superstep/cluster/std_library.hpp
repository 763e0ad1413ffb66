#pragma once

#include <string_view>

#include "superstep/cluster/function_registry.hpp"

namespace superstep::cluster {

/// Registers the `std` node library of GRAPH_SPEC.md into `registry`: small deterministic
/// functions for demos, tests and glue.
///
/// Nodes: std.set, std.double, std.copy, std.template, std.pick, std.increment, std.map,
/// std.sum, std.sleep, std.fail, std.interrupt, std.emit, std.goto. Routers: std.send_each,
/// std.route. Every factory validates its params when called (missing, unknown or wrong-typed
/// params throw `invalid_param`); errors at run time name the function ("std.copy: ...").
///
/// Choices where GRAPH_SPEC.md leaves room:
/// - std.double with `until_len`: the length of a string or list is its size; a number's is
///   the length of its JSON text (so 10 has length 2).
/// - std.template replaces `{key}` by the input's value of key (a string as is, anything else
///   as JSON); `{{` and `}}` stand for literal braces; `wrap` may only be "list".
/// - std.increment and std.map treat an absent or null key as 0; std.pick takes Python-style
///   negative indices; std.route's `less_than` compares numbers or strings.
/// - std.fail fails the first `times` attempts per (configurable.thread_id, node name), then
///   behaves as std.set. Its counter belongs to this registration: two registries count apart.
/// - std.send_each takes an optional `timeout` ({"run_timeout_ms": ms, "idle_timeout_ms": ms,
///   "refresh_on_heartbeat_only": bool}): each Send's own time limits (LangGraph
///   `Send(timeout=...)`), which std.sleep, sleeping in slices, stops at.
/// - std.interrupt validates its params but raises invalid_argument when run: interrupt()
///   needs a checkpointer and arrives with persistence.
///
/// Agents (nodes/std_agents.cpp; examples/specs/README.md documents their params): the nodes
/// llm.chat (a chat-model call over the state's messages: model settings under the registry's
/// `model_settings`, system and prompt templates, tools by name, structured output by JSON
/// schema) and tools.run (runs the last AI message's tool calls with the registry's tools);
/// the routers tools.route (to the tools node or END) and std.route_by (to the node a state
/// key names); the tools calculator, save_memory and search_memory (the store's namespace
/// ("memories", configurable.user_id or "default")).
///
/// Registering twice into one registry throws (names are unique).
void register_std_library(function_registry& registry);

/// Whether `name` is in the std library's namespace ("std."): a node library may not register
/// such a name (load_plugin refuses it), so a head may run an input node whose routers all
/// are, as no user code.
inline bool is_std_name(std::string_view name) noexcept { return name.substr(0, 4) == "std."; }

}  // namespace superstep::cluster
