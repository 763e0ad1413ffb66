#pragma once

#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/pregel/node_context.hpp"

namespace superstep {

/// A message to one node, run as a PUSH task in the next step with `arg` as its input
/// (LangGraph `Send`). Routers and nodes return Sends as values made by `make_send`.
struct send {
  std::string node;
  value arg;
  /// Time limits of the PUSH task this Send starts, instead of the target node's own
  /// (LangGraph `Send(node, arg, timeout=...)`). None: the node's.
  std::optional<timeout_policy> timeout = std::nullopt;
};

/// Encodes a Send as a value: {"__send__": node, "arg": arg}.
value make_send(std::string node, value arg);
/// Encodes a Send whose task runs under `timeout` instead of the target node's timeout:
/// {"__send__": node, "arg": arg, "timeout": timeout_to_value(timeout)}. Throws
/// `superstep::error` (invalid_argument) naming the node when the policy is invalid.
value make_send(std::string node, value arg, const timeout_policy& timeout);
/// Decodes a value made by `make_send`; nullopt for any other value.
std::optional<send> as_send(const value& v);

/// A timeout policy as a value: {"run_timeout_ms": ms, "idle_timeout_ms": ms,
/// "refresh_on_heartbeat_only": bool}, the limits that are unset left out.
value timeout_to_value(const timeout_policy& timeout);
/// The policy `timeout_to_value` made. Throws `superstep::error` (invalid_argument) naming
/// the field for anything else, or when the policy is invalid.
timeout_policy timeout_from_value(const value& v);

/// What a node returns to update state and route at once (LangGraph `Command`).
struct command {
  /// State update applied as if the node had returned it (null: none).
  value update;
  /// Node names and Sends to run next.
  std::vector<value> go_to;
  /// Resume value(s) for interrupts (a value, or an object of interrupt id -> value).
  std::optional<value> resume;
  /// Empty: this graph. "__parent__": the enclosing graph.
  std::string graph;

  static constexpr const char* parent = "__parent__";
};

/// Encodes a Command as a value: {"__command__": {...}}.
value make_command(const command& c);
/// Decodes a value made by `make_command`; nullopt for any other value.
std::optional<command> as_command(const value& v);

}  // namespace superstep
