#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

class run_control;

/// The fields `execution_info::patch` replaces: each one set is replaced, the others kept.
/// For the fields that may be absent (`thread_id`, `run_id`, `node_first_attempt_time`), an
/// empty inner optional makes them absent.
struct execution_info_patch {
  std::optional<std::string> checkpoint_id = std::nullopt;
  std::optional<std::string> checkpoint_ns = std::nullopt;
  std::optional<std::string> task_id = std::nullopt;
  std::optional<std::optional<std::string>> thread_id = std::nullopt;
  std::optional<std::optional<std::string>> run_id = std::nullopt;
  std::optional<std::int64_t> node_attempt = std::nullopt;
  std::optional<std::optional<double>> node_first_attempt_time = std::nullopt;
};

/// Where and as which attempt a node runs (LangGraph `ExecutionInfo`): a value, read by a node
/// through `node_context::runtime()`; changing a copy changes nothing in the run.
struct execution_info {
  /// The id of the checkpoint the task's step starts from ("" where the run keeps none).
  std::string checkpoint_id;
  /// The task's own checkpoint namespace (LangGraph's): its graph's namespace, then
  /// "<node>:<task id>" ("node:<task id>" at the top level), joined with '|'.
  std::string checkpoint_ns;
  std::string task_id;
  /// The run config's configurable "thread_id"; none without one.
  std::optional<std::string> thread_id = std::nullopt;
  /// The run config's "run_id"; none when the config gives none.
  std::optional<std::string> run_id = std::nullopt;
  /// Which attempt this is: 1, then 2, 3, ... on retries.
  std::int64_t node_attempt = 1;
  /// When the first attempt started, in seconds since the Unix epoch; none when unknown.
  std::optional<double> node_first_attempt_time = std::nullopt;

  /// A copy with the fields `p` sets replaced (LangGraph `ExecutionInfo.patch`); this one is
  /// left as it was.
  execution_info patch(const execution_info_patch& p) const;
};

/// What LangGraph Server tells a run about where it runs (LangGraph `ServerInfo`), read from
/// the run config's "configurable": "assistant_id", "graph_id" and "langgraph_auth_user".
struct server_info {
  std::string assistant_id;
  std::string graph_id;
  /// The authenticated user (LangGraph's `BaseUser`): an object with an "identity" key, its
  /// other keys ("display_name", "permissions", ...) as the server gave them; null when none.
  value user = value();

  /// Built from `config`'s configurable (LangGraph's `_build_server_info`): none when it has
  /// no assistant_id, no graph_id and no user; a missing or falsy id is "", a non-string one
  /// its JSON text. The configurable "langgraph_auth_user" is the user when it is an object
  /// with an "identity" key, else ignored.
  static std::optional<server_info> from_config(const value& config);
};

/// The fields `runtime::override` replaces: each one set is replaced, the others kept.
struct runtime_overrides {
  std::optional<value> context = std::nullopt;
  std::optional<storage::store*> store = std::nullopt;
  std::optional<std::function<void(value)>> stream_writer = std::nullopt;
  std::optional<std::function<void()>> heartbeat = std::nullopt;
  std::optional<value> previous = std::nullopt;
  std::optional<superstep::execution_info> execution_info = std::nullopt;
  std::optional<std::optional<superstep::server_info>> server_info = std::nullopt;
  std::optional<std::shared_ptr<run_control>> control = std::nullopt;
};

/// What a run gives its nodes besides their input and config (LangGraph `Runtime`), as one
/// value: the run's context, the store, the custom stream writer, the functional API's
/// previous value, the task's execution info, LangGraph Server's info and the run's control.
/// A node reads it through `node_context::runtime()`; it may also be built by hand (to call
/// node code outside a run, or to combine with `merge` and `override`). The stream writer and
/// heartbeat a node's runtime holds reach that node's context: use them only during its call.
struct runtime {
  /// The run's context (LangGraph `Runtime.context`, our config's "context"); null: none.
  value context = value();
  /// The long-term store (include superstep/checkpoint/store.hpp to use it); null: none.
  storage::store* store = nullptr;
  /// Sends its argument to the `custom` stream; empty: drops it (LangGraph's no-op writer).
  std::function<void(value)> stream_writer = nullptr;
  /// Tells the node's idle timeout it makes progress; empty: a no-op.
  std::function<void()> heartbeat = nullptr;
  /// The entrypoint's last saved value on the thread (functional API); null: none.
  value previous = value();
  /// None outside a task.
  std::optional<superstep::execution_info> execution_info = std::nullopt;
  /// None outside LangGraph Server (no assistant_id, graph_id or user in configurable).
  std::optional<superstep::server_info> server_info = std::nullopt;
  /// The run's control (`stream_options::control`); null when its caller gave none.
  std::shared_ptr<run_control> control = nullptr;

  /// This runtime with `other`'s fields laid over it (LangGraph `Runtime.merge`): each field of
  /// `other` that is set wins (context: when truthy; store, stream_writer, heartbeat,
  /// execution_info, server_info, control: when present; previous: when not null), the others
  /// come from this one.
  runtime merge(const runtime& other) const;
  /// A copy with the fields `o` sets replaced (LangGraph `Runtime.override`).
  runtime override(const runtime_overrides& o) const;
  /// A copy whose execution info is patched with `p` (LangGraph `patch_execution_info`).
  /// Throws `superstep::error` (invalid_argument) when it has no execution info.
  runtime patch_execution_info(const execution_info_patch& p) const;

  /// Whether the run's control asked it to drain (false without a control).
  bool drain_requested() const noexcept;
  /// The reason given to `run_control::request_drain`; none before, or without a control.
  std::optional<std::string> drain_reason() const;
};

}  // namespace superstep
