#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/runtime.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

class run_control;

/// The failure an error handler handles (LangGraph `NodeError`): the node that failed, after
/// its retries, and its error.
struct node_failure {
  std::string node;
  error_code code = error_code::node_error;
  std::string message;
};

/// Time limits of each attempt of a node (LangGraph `TimeoutPolicy`). An attempt past one
/// fails with error_code::node_timeout ("Node 'x' exceeded its run timeout of 0.050s ..."),
/// retried by the default retry policy; its writes are dropped. A C++ node cannot be cancelled:
/// it stops at its next `node_context::check_timeout()` (LangGraph stops an async node at its
/// next await), else when it returns.
struct timeout_policy {
  /// The longest an attempt may run, in milliseconds; never refreshed.
  std::optional<double> run_timeout_ms = std::nullopt;
  /// The longest an attempt may go without progress, in milliseconds: progress is a
  /// heartbeat() and, unless `refresh_on_heartbeat_only`, a custom or message stream event.
  std::optional<double> idle_timeout_ms = std::nullopt;
  /// LangGraph's refresh_on="heartbeat": only heartbeat() refreshes the idle timeout.
  bool refresh_on_heartbeat_only = false;

  /// What makes the policy invalid (LangGraph's TimeoutPolicy.coerce: each limit above 0, at
  /// least one), or "" when it is valid.
  std::string problem() const {
    if (run_timeout_ms && !(*run_timeout_ms > 0)) return "run_timeout must be greater than 0";
    if (idle_timeout_ms && !(*idle_timeout_ms > 0)) return "idle_timeout must be greater than 0";
    if (!run_timeout_ms && !idle_timeout_ms)
      return "a timeout needs a run_timeout or an idle_timeout";
    return "";
  }
};

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
  /// The run's context (LangGraph `Runtime.context`, the `context=` argument of invoke and
  /// stream): the run config's "context" value, passed as given to every node, router and
  /// subgraph of the run; null when the run was given none.
  const value& context() const noexcept { return config().get("context"); }

  virtual std::string_view node() const noexcept = 0;
  virtual std::string_view task_id() const noexcept = 0;
  virtual std::int64_t step() const noexcept = 0;
  /// Supersteps left before the recursion limit stops the run (LangGraph RemainingSteps).
  virtual std::int64_t remaining_steps() const noexcept = 0;
  /// Checkpoint namespace of the graph running this node ("" at the top level).
  virtual std::string_view checkpoint_ns() const noexcept = 0;
  /// The id of the checkpoint the task's step starts from (LangGraph
  /// `execution_info.checkpoint_id`); "" where the run keeps no checkpoints.
  virtual std::string_view checkpoint_id() const noexcept { return {}; }

  /// Pauses the run to ask a human (LangGraph `interrupt`): the first time, raises an interrupt
  /// carrying `v` that ends the run (the caller sees it under "__interrupt__"); when the run is
  /// resumed with Command(resume=...), the node runs again from its start and this call returns
  /// the resume value. Several calls in one node are answered in order. Needs a checkpointer.
  /// Do not catch the exception it throws (a superstep::error with code interrupted).
  virtual value interrupt(value v) = 0;

  /// Sends `data` to the `custom` stream (LangGraph's stream writer).
  virtual void emit_custom(value data) = 0;
  /// Sends a message chunk (e.g. an LLM token) to the `messages` stream. A no-op when the run
  /// streams chat model calls as protocol events instead (`message_events()`), as LangGraph's
  /// v2 handler drops v1 tokens.
  virtual void emit_message(value chunk) = 0;
  /// Sends a tool call's event to the `tools` stream (what the prebuilt tool node reports of
  /// each call it runs, stream.hpp). Dropped unless the run streams `tools` (a subgraph's: its
  /// caller asked for subgraphs too); counts as progress for an idle timeout, as a custom event.
  virtual void emit_tool_event(value event) { (void)event; }
  /// Whether events this node sends in mode `m` reach a stream (the run streams `m`, and for a
  /// subgraph its caller asked for subgraphs): lets a node skip building events nobody reads.
  virtual bool streams(stream_mode m) const noexcept {
    (void)m;
    return false;
  }
  /// Whether the run wants chat model calls as the v2 message protocol (message_events.hpp)
  /// through `emit_message_event` rather than chunks through `emit_message`: a
  /// `pregel::stream_events` run (stream_options::message_events) streaming `messages`.
  virtual bool message_events() const noexcept { return false; }
  /// Sends one protocol event of the chat model call `call_id` (an id unique to the call, the
  /// run id of LangChain's callbacks) to the `messages` stream as [event, metadata], the
  /// metadata this task's messages carry with "run_id" set to `call_id` (LangGraph's
  /// StreamMessagesHandler.on_stream_event). A message-start's message_id counts as seen: the
  /// node returning that message does not stream it again. A no-op unless `message_events()`.
  virtual void emit_message_event(value event, std::string_view call_id) {
    (void)event;
    (void)call_id;
  }
  /// Marks the message id `id` as streamed already, so a node returning that message does not
  /// stream it again (LangGraph's handler marks a streamed call's final message). A no-op
  /// unless the run streams `messages`.
  virtual void note_message_seen(std::string_view id) { (void)id; }
  /// Streams a whole message on `messages` and writes it to the state key `state_key` (an
  /// add_messages key; empty: stream only), as this task's write (LangGraph `push_message`).
  /// The message is taken as `channels::as_message` takes it and must have a string "id".
  /// Returns it. Throws `superstep::error` (invalid_argument) when it has no id; a context
  /// that cannot write state throws it too.
  virtual value push_message(value message, std::string_view state_key = "messages");

  /// The long-term store the graph was compiled with (LangGraph's `store` argument), shared
  /// by every thread; null when it has none. Include superstep/checkpoint/store.hpp to use it.
  virtual storage::store* store() const noexcept { return nullptr; }

  /// Which attempt of the task this is: 1, then 2, 3, ... on retries (LangGraph
  /// `execution_info.node_attempt`).
  virtual std::int64_t node_attempt() const noexcept { return 1; }
  /// When the task's first attempt started, in seconds since the Unix epoch (LangGraph
  /// `execution_info.node_first_attempt_time`); the same for every attempt.
  virtual double node_first_attempt_time() const noexcept { return 0; }
  /// Tells the idle timeout the node is making progress (LangGraph `runtime.heartbeat()`); a
  /// no-op without one.
  virtual void heartbeat() noexcept {}
  /// Throws error(node_timeout) when this attempt is past its run or idle timeout: a
  /// long-running node calls it where it may stop. A no-op without a timeout.
  virtual void check_timeout() const {}

  /// Requested once the runtime cancels this task (LangGraph cancels a running node's
  /// coroutine): the run was cancelled (`run_control::request_cancel`, or its stream sink threw
  /// `stream_stop`), the step passed the graph's `step_timeout`, or a sibling task of the step
  /// failed. A C++ node cannot be preempted: one that runs long polls `cancelled()`, calls
  /// `throw_if_cancelled()` where it may stop, or waits with the token
  /// (`std::condition_variable_any::wait(lock, token, pred)`, `sleep_for`), and throws the
  /// error they throw on. A task that returns normally finished first: its result stands. A
  /// task that starts once its step is cancelled (a pool starts some late) still runs, its
  /// token stopped; a cancelled task is not retried, nor handed to its error handler. A
  /// never-stopping token where the task cannot be cancelled (nodes hosted by another
  /// process).
  virtual std::stop_token stop_token() const noexcept { return {}; }
  /// Whether this task was cancelled (see `stop_token`).
  bool cancelled() const noexcept { return stop_token().stop_requested(); }
  /// Throws error(cancelled) naming the task when it was cancelled; else does nothing.
  void throw_if_cancelled() const;
  /// Waits `d` (LangGraph's `await asyncio.sleep(d)` in a node), or less when the task is
  /// cancelled meanwhile: then throws error(cancelled) as `throw_if_cancelled`.
  void sleep_for(std::chrono::duration<double, std::milli> d) const;

  /// The run's control (`stream_options::control`, LangGraph `Runtime.control`): a node may
  /// read whether the run is asked to drain, or ask it itself. Null when the run's caller gave
  /// none, and in nodes hosted by another process.
  virtual std::shared_ptr<run_control> control() const noexcept { return nullptr; }
  /// The functional API entrypoint's last saved value on the thread (LangGraph's `previous`;
  /// see `functional::call_context`); null in graph nodes.
  virtual const value& previous() const noexcept;

  /// What this node sees of its run as one value (LangGraph `Runtime`): `context()`,
  /// `store()`, a stream writer calling `emit_custom`, a heartbeat calling `heartbeat()`,
  /// `previous()`, the task's execution info (checkpoint_id, the task's own checkpoint
  /// namespace: `checkpoint_ns()` then "<node>:<task id>", task_id, the configurable
  /// thread_id and the config's run_id when they are strings, node_attempt,
  /// node_first_attempt_time), the server info of the config (`server_info::from_config`) and
  /// `control()`. Built at each call; its stream writer and heartbeat use this context, so
  /// they are valid only during the node's call.
  superstep::runtime runtime();

  /// In an error handler (node_options::error_handler): the failure it handles; null in a
  /// node or router.
  virtual const node_failure* node_error() const noexcept { return nullptr; }

  /// The stream modes the run wants from a graph this node runs outside the runtime (a
  /// `remote_graph` used as a node): the run's modes when its caller streams subgraphs
  /// (LangGraph hands such a graph its parent's stream only then), else none.
  virtual std::vector<stream_mode> subgraph_stream_modes() const { return {}; }
  /// Sends an event of such a graph to the run's stream as it is: `event.ns` is complete,
  /// this task's namespace ("node:task id" after its graph's) first. Dropped unless its mode
  /// is one of subgraph_stream_modes(). Safe from any thread.
  virtual void emit_subgraph_event(stream_event event) { (void)event; }
  /// The values the run gave this task to resume with (Command(resume=...) answering its
  /// interrupts, oldest first); empty on a first run. A graph the node runs elsewhere resumes
  /// with the last of them, as a local subgraph resumes with its parent task.
  virtual list resume_values_given() const { return {}; }
};

/// How often and how patiently a failing node is retried (LangGraph `RetryPolicy`, same
/// defaults). The wait after the n-th failed attempt is initial_interval_ms * backoff^(n-1),
/// at most max_interval_ms, plus a random 0 to 1000 ms when `jitter` (as LangGraph's
/// `random.uniform(0, 1)` seconds).
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

/// Whether `policy` retries `e` (LangGraph `_should_retry_on`): its `retry_on`, or by default
/// errors raised by node code (node_error, storage_error) and timeouts (node_timeout).
bool should_retry_on(const retry_policy& policy, const error& e);

/// A node's retry policies (LangGraph `retry_policy=[p1, p2]`): when an attempt fails, the
/// first policy whose `retry_on` matches decides whether and after how long the task runs
/// again; none matching fails the task. The attempts are counted across policies.
using retry_policies = std::vector<retry_policy>;

/// A node function: gets its input (the state, a Send argument, or channel values) and
/// returns its output (a state update, a Command, or for Pregel nodes any value).
/// May throw; the error becomes the task's error and fails the run.
using node_function = std::function<value(const value& input, node_context& ctx)>;

/// A router: gets the state after its source node's writes and returns a node name, END, a
/// Send, or a list of those.
using router_function = std::function<value(const value& state, node_context& ctx)>;

}  // namespace superstep
