#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/value.hpp"

namespace superstep {

class error;
namespace storage {
class store;
}

/// What a node or router sees of its run besides its input: the run's config, its identity,
/// and the stream writers. Passed by reference to every call; valid only during that call.
/// A node may call it from the thread it runs on; emit_* are safe from any thread.
class node_context {
 public:
  virtual ~node_context() = default;

  /// The run's config object: {"configurable": {...}, "recursion_limit": n, ...}.
  virtual const value& config() const noexcept = 0;
  /// A key of `config.configurable`, or null when absent.
  const value& configurable(std::string_view key) const noexcept {
    return config().get("configurable").get(key);
  }

  virtual std::string_view node() const noexcept = 0;
  virtual std::string_view task_id() const noexcept = 0;
  virtual std::int64_t step() const noexcept = 0;
  /// Supersteps left before the recursion limit stops the run (LangGraph RemainingSteps).
  virtual std::int64_t remaining_steps() const noexcept = 0;
  /// Checkpoint namespace of the graph running this node ("" at the top level).
  virtual std::string_view checkpoint_ns() const noexcept = 0;

  /// Pauses the run to ask a human (LangGraph `interrupt`): the first time, raises an interrupt
  /// carrying `v` that ends the run (the caller sees it under "__interrupt__"); when the run is
  /// resumed with Command(resume=...), the node runs again from its start and this call returns
  /// the resume value. Several calls in one node are answered in order. Needs a checkpointer.
  /// Do not catch the exception it throws (a superstep::error with code interrupted).
  virtual value interrupt(value v) = 0;

  /// Sends `data` to the `custom` stream (LangGraph's stream writer).
  virtual void emit_custom(value data) = 0;
  /// Sends a message chunk (e.g. an LLM token) to the `messages` stream.
  virtual void emit_message(value chunk) = 0;
  /// Streams a whole message on `messages` and writes it to the state key `state_key` (an
  /// add_messages key; empty: stream only), as this task's write (LangGraph `push_message`).
  /// The message is taken as `channels::as_message` takes it and must have a string "id".
  /// Returns it. Throws `superstep::error` (invalid_argument) when it has no id; a context
  /// that cannot write state throws it too.
  virtual value push_message(value message, std::string_view state_key = "messages");

  /// The long-term store the graph was compiled with (LangGraph's `store` argument), shared
  /// by every thread; null when it has none. Include superstep/storage/store.hpp to use it.
  virtual storage::store* store() const noexcept { return nullptr; }
};

/// How often and how patiently a failing node is retried (LangGraph `RetryPolicy`, same
/// defaults). The wait before attempt n+1 is initial_interval_ms * backoff^(n-1), at most
/// max_interval_ms, with up to 50 % random jitter added when `jitter`.
struct retry_policy {
  std::int64_t max_attempts = 3;
  double initial_interval_ms = 500;
  double backoff = 2;
  double max_interval_ms = 128000;
  bool jitter = true;
  /// Which errors are retried. Null: errors raised by node code (node_error, storage_error),
  /// not our own verdicts on bad updates or input, which would fail again.
  std::function<bool(const class error&)> retry_on;
};

/// A node function: gets its input (the state, a Send argument, or channel values) and
/// returns its output (a state update, a Command, or for Pregel nodes any value).
/// May throw; the error becomes the task's error and fails the run.
using node_function = std::function<value(const value& input, node_context& ctx)>;

/// A router: gets the state after its source node's writes and returns a node name, END, a
/// Send, or a list of those.
using router_function = std::function<value(const value& state, node_context& ctx)>;

}  // namespace superstep
