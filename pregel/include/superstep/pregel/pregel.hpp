#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/pregel/graph_callbacks.hpp"
#include "superstep/pregel/graph_description.hpp"
#include "superstep/pregel/json_schema.hpp"
#include "superstep/pregel/pregel_graph.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

class task_executor;
class graph_run_stream;
class execution_driver;

/// How a graph's top-level runs execute their tasks.
enum class execution : std::uint8_t {
  /// An execution driver runs them: `runtime_options::driver`, else the coordinator
  /// library's actors (a coordinator actor dispatching task batches to node actors), the
  /// default when the program links superstep::coordinator.
  actors,
  /// The calling thread drives the loop and runs tasks on a thread pool (no actors).
  threads,
};

/// How a graph keeps checkpoints when it runs as a subgraph (a node of a graph, or invoked
/// through `run_nested` inside a node): LangGraph's `compile(checkpointer=None | True | False)`.
/// A subgraph always saves in its parent run's checkpointer and thread, never in its own
/// `checkpointer`; at the top level the setting has no effect.
enum class subgraph_checkpointer : std::uint8_t {
  /// LangGraph's `checkpointer=None` (the default): checkpoints under the task's namespace
  /// "<node>:<task id>". An interrupt inside it pauses and resumes with the parent task, but
  /// each new invocation of the node starts from an empty state.
  per_invocation,
  /// LangGraph's `checkpointer=True`: checkpoints under the stable namespace "<node>" (the
  /// task ids taken out), so its state carries over from one invocation to the next on the
  /// same thread. A parent replayed or forked from a past checkpoint finds it as it was then.
  stateful,
  /// LangGraph's `checkpointer=False`: no checkpoints at all, even under a parent that has a
  /// checkpointer; every invocation starts afresh and an interrupt inside it cannot resume.
  none,
};

/// Options of a compiled graph's runtime.
struct runtime_options {
  std::shared_ptr<checkpoint_saver> checkpointer;
  /// What it keeps when run as a subgraph (ignored at the top level).
  subgraph_checkpointer as_subgraph = subgraph_checkpointer::per_invocation;
  execution mode = execution::actors;
  /// What runs the top-level graph's tasks in `execution::actors` mode
  /// (superstep/pregel/execution_driver.hpp): the coordinator library's
  /// `make_actor_driver(...)` with a runtime, the nodes hosted elsewhere and where channels
  /// live. Null: the default driver, the coordinator's actors in a runtime of the graph's own.
  std::shared_ptr<const execution_driver> driver;
  /// Runs tasks in `execution::threads` mode and inside subgraphs (default: a thread pool).
  std::shared_ptr<task_executor> executor;
  /// The long-term store nodes reach through `node_context::store()` (memory across threads).
  std::shared_ptr<storage::store> store;
  /// The retry policies of nodes that have none of their own (LangGraph
  /// `Pregel(retry_policy=...)`).
  retry_policies retry;
  /// Where nodes with a cache policy keep their writes (LangGraph `cache`); subgraphs without
  /// their own use their parent's.
  std::shared_ptr<node_cache> cache;
  /// What the run context nodes read looks like (LangGraph `context_schema`; a superstep run
  /// passes its context in the config's "configurable", read through
  /// `node_context::configurable`), for `pregel::context_json_schema`. Runs do not check it.
  std::optional<object_schema> context_schema = std::nullopt;
  /// The config bound to the graph (LangGraph's `Pregel.config`, set by `pregel::with_config`):
  /// each run's config, and the config given to get_state, get_state_history, update_state and
  /// bulk_update_state, is merged over it (`merge_configs`, config.hpp). Null: none.
  value config = value();
};

struct state_snapshot;

/// A task of a snapshot: what would run (or failed, or was interrupted) at that checkpoint.
struct snapshot_task {
  std::string id;
  std::string name;
  /// Where the task comes from (LangGraph `PregelTask.path`): ["__pregel_pull", node] for a
  /// task its triggers started, ["__pregel_push", index, false] for a Send's.
  list path = list{};
  std::optional<std::string> error;
  list interrupts;  ///< {"value": ..., "id": ...} of each pending interrupt
  /// The state of the subgraph the task runs (LangGraph `PregelTask.state`), read by
  /// `get_state(config, true)`; null otherwise and for tasks that run no subgraph.
  std::shared_ptr<const state_snapshot> state = nullptr;
  /// The task's update as its saved writes show it (LangGraph `PregelTask.result`): what a
  /// functional API task returned, else its writes to the graph's output channels as
  /// {channel: value} ({channel: {"$writes": [...]}} for a channel it wrote more than once;
  /// the value itself for a graph whose output is one channel, as a ROOT state). Null while
  /// the task has no saved writes (not run, or only failed or interrupted).
  value result = value();
  /// Where the subgraph the task runs keeps its checkpoints (LangGraph `PregelTask.state` when
  /// read without subgraphs): the thread and the namespace "<node>:<task id>" below the
  /// snapshot's, to give `get_state`, `get_state_history` or `update_state`. Unset for tasks
  /// that run no subgraph.
  std::optional<checkpoint_config> state_config = std::nullopt;
};

/// The graph's state at one checkpoint (LangGraph `StateSnapshot`).
struct state_snapshot {
  value values;                   ///< the state channels' values
  std::vector<std::string> next;  ///< the node of each task still to run, in task order
  checkpoint_config config;       ///< thread, namespace and checkpoint id
  value metadata;                 ///< source, step, parents, writes; null without a checkpoint
  std::string created_at;         ///< the checkpoint's timestamp
  std::optional<checkpoint_config> parent_config;
  std::vector<snapshot_task> tasks;  ///< the step's Sends (PUSH tasks) first, then PULL tasks

  /// As JSON-ready data: {values, next, config, metadata, created_at, parent_config, tasks}
  /// (a task with a subgraph state has it under "state", else the subgraph's config
  /// {"configurable": {thread_id, checkpoint_ns}} when it runs one; one with a result has it
  /// under "result").
  value to_value() const;
};

/// One update of `pregel::bulk_update_state` (LangGraph `StateUpdate`).
struct state_update {
  /// What the node returned: an update object, a Command, or null.
  value values;
  /// The node the update is applied as; unset: as `update_state` picks it. "__input__" applies
  /// `values` as the run's input.
  std::optional<std::string> as_node = std::nullopt;
  /// The id of the task whose writes these are (LangGraph's `task_id`); unset: a fresh one.
  std::optional<std::string> task_id = std::nullopt;
};

/// Options of one run, besides the config object.
struct stream_options {
  std::vector<stream_mode> modes;
  /// Also stream events of subgraphs, with their namespace.
  bool subgraphs = false;
  /// The `messages` stream carries chat model calls as the v2 message protocol
  /// (`node_context::message_events`): what `stream_events` sets when its transformers read
  /// `messages` (LangGraph's CONFIG_KEY_STREAM_MESSAGES_V2). Off: the v1 chunks of
  /// `emit_message`. A graph streamed from inside a node has its own (off unless asked).
  bool message_events = false;
  /// Called as a step's tasks finish: the step, tasks finished and tasks in the step. On the
  /// actor runtime only, from the coordinator's thread; keep it cheap (throttle printing).
  std::function<void(std::int64_t step, std::size_t done, std::size_t total)> progress = nullptr;
  /// Asked before each step of the run starts, once the step before is saved: true ends the
  /// run there with error(unavailable, "the run stopped before step N ..."), its thread
  /// resumable from that checkpoint (a head shutting down). Called from the run's thread.
  std::function<bool()> stop = nullptr;
  /// What the run does when its thread has a run in progress in this process (a checkpointer
  /// is shared by the runs of its database): thread_runs.hpp. Unset: the config's
  /// "multitask_strategy" ("reject", "enqueue", "interrupt", "rollback"), else reject.
  std::optional<multitask_strategy> multitask = std::nullopt;
  /// Called once the run holds its thread, before it starts (not when it is rejected or
  /// cancelled while waiting).
  std::function<void()> started = nullptr;
  /// Asks the run to drain when its owner calls `control->request_drain()` (LangGraph's
  /// `control=RunControl()`): run_control.hpp. Null: the run cannot be drained.
  std::shared_ptr<run_control> control = nullptr;
  /// Told the name of each node whose task finished without error or interrupt (LangGraph's
  /// CONFIG_KEY_NODE_FINISHED), in the order they finish: the nodes of subgraphs (run in this
  /// process) and the functional API's task calls included; hidden nodes, tasks whose writes
  /// were restored or came from the cache, and failed or interrupted tasks not. A task its
  /// node's error handler took over is told as the handler. Called from a thread of the run (the
  /// one that ran a subgraph's or a task call's task; the coordinator's, or the one driving
  /// the run, for the graph's own tasks); calls never overlap. Keep it cheap; an exception
  /// thrown here fails the run.
  std::function<void(const std::string& node)> node_finished = nullptr;
  /// Called once the run ended, whichever way (done, failed, stopped; rolled back: after what
  /// it saved was removed), while it still holds its thread: the thread's state read here is
  /// the one the run left, not a later run's. When the run failed, an error thrown here is
  /// dropped for the run's own.
  std::function<void()> finished = nullptr;
  /// The run's breakpoints instead of the graph's (LangGraph's stream(interrupt_before=...,
  /// interrupt_after=...)): node names, or "*" for every node; nullopt: the graph's.
  std::optional<std::vector<std::string>> interrupt_before = std::nullopt;
  std::optional<std::vector<std::string>> interrupt_after = std::nullopt;
  /// Told when the run pauses at interrupts and when it, or a subgraph of it run in this
  /// process, resumes from a checkpoint (LangGraph's GraphCallbackHandler in the config's
  /// "callbacks"), in this order: graph_callbacks.hpp. Both execution modes.
  std::vector<std::shared_ptr<graph_callback_handler>> callbacks = {};
};

/// What `pregel::invoke_v2` returns (LangGraph's `GraphOutput`, the result of
/// `invoke(version="v2")`): the graph's output and the run's interrupts apart.
struct graph_output {
  /// The data of the run's last `values` event, without "__interrupt__": the output, or the
  /// state when the run was interrupted (an interrupt of a graph whose output is one channel
  /// leaves an empty object, as LangGraph's); null when no values event came.
  superstep::value value;
  /// Every interrupt the run's `values` events carried ({"value", "id"} each), in order; empty
  /// when it ran to its end.
  list interrupts;

  /// LangGraph's dict-compatible access (`result[key]`, deprecated there): "__interrupt__"
  /// gives the interrupts (a list, possibly empty), any other key the value's (an object).
  /// Throws `superstep::error` (not_found) naming the key when the value is not an object or
  /// lacks it (LangGraph's KeyError).
  superstep::value at(std::string_view key) const;
  /// LangGraph's `key in result`: "__interrupt__" when there are interrupts, else whether the
  /// value is an object with that key.
  bool contains(std::string_view key) const noexcept;
};

/// A compiled graph: the runtime of the Pregel algorithm (LangGraph `Pregel`).
///
/// `invoke` and `stream` run the graph: plan, execute the tasks of a step in parallel, apply
/// their writes, checkpoint, repeat. The config is an object as in LangGraph:
/// {"configurable": {"thread_id": ..., ...}, "recursion_limit": 25}. With a checkpointer a
/// thread_id is required. Runs of one `pregel` may proceed concurrently on different threads.
/// One thread runs one run at a time: a run whose thread is busy in this process (any graph
/// on the same checkpointer) follows its multitask strategy (`stream_options::multitask`,
/// default reject). The run's id is the config's "run_id", or a fresh one.
class pregel : public std::enable_shared_from_this<pregel> {
 public:
  /// Validates the graph (channels named by nodes exist, ...) and takes ownership.
  /// Throws `superstep::error` (invalid_graph) naming the offender.
  explicit pregel(pregel_graph graph, runtime_options options = {});
  ~pregel();

  /// Runs to completion and returns the output channels' values. Called from a node function
  /// of a run with a null config or the node's own (`node_context::config()`), a graph without
  /// a checkpointer runs as that node's subgraph (LangGraph's config reaching it through the
  /// context, or handed on by an async node): under the node's namespace in the
  /// run's checkpointer; an interrupt() inside pauses the node, and a Command for the parent
  /// is thrown through the node function as the node's own (`options` then unused: the parent
  /// run's apply). `options` are the run's as `stream` takes them; without a sink, no events.
  value invoke(const value& input, const value& config = value(),
               const stream_options& options = {}) const;

  /// Runs to completion as LangGraph's `invoke(input, config, version="v2")`: streams the
  /// run's `values` (of subgraphs too with `options.subgraphs`, as LangGraph does) and returns
  /// the last one's data with every interrupt the values carried apart (graph_output). The
  /// other options are the run's, as `stream` takes them. Throws what `stream` throws;
  /// `superstep::error` (invalid_argument) when `options.modes` holds a mode other than
  /// values (`invoke_parts` returns those), naming it. Both execution modes.
  graph_output invoke_v2(const value& input, const value& config = value(),
                         const stream_options& options = {}) const;

  /// Runs to completion as LangGraph's `invoke(input, config, stream_mode=modes,
  /// version="v2")`: returns the run's events of `options.modes` (and of subgraphs with
  /// `options.subgraphs`) as v2 stream parts, in order, a `values` part with its interrupts
  /// apart. Throws what `stream` throws; `superstep::error` (invalid_argument) when
  /// `options.modes` is empty.
  std::vector<stream_part> invoke_parts(const value& input, const value& config,
                                        const stream_options& options) const;

  /// Runs to completion, sending events of the requested modes to `sink`; returns the output.
  value stream(const value& input, const value& config, const stream_options& options,
               const stream_sink& sink) const;

  /// Starts a run whose events the caller pulls through stream transformers (LangGraph
  /// `stream_events(version="v3")`): a graph_run_stream (graph_run_stream.hpp) whose
  /// projections `values()`, `messages()`, `lifecycle()`, `subgraphs()`, raw `events()`,
  /// `output()` and `interrupts()` the caller reads, each read pumping the run. Its mux holds
  /// the built-in transformers (values, messages, lifecycle, subgraphs), then `transformers`
  /// (called once per scope: the run, and each subgraph handle); the graph streams the union
  /// of the modes they require, subgraphs included. Nothing runs before the first read; the
  /// run executes on a thread of its own and aborts when the stream is destroyed. `options`
  /// are the run's (control, stop, multitask, started, finished, node_finished, progress,
  /// callbacks), but
  /// its stream modes and subgraphs belong to stream_events. A config whose configurable
  /// "checkpoint_ns" names where the caller runs ("node:<task id>|...", a node streaming a
  /// graph with its own config) scopes the projections there, and every event's namespace
  /// starts with it (LangGraph's parent namespace). Throws `superstep::error`
  /// (invalid_argument): `options.modes` not empty or `options.subgraphs` set, naming them;
  /// the errors of `stream_mux` (an empty factory, conflicting projection keys, ...). The
  /// graph must be owned by a shared_ptr (as `compile` returns it).
  std::unique_ptr<graph_run_stream> stream_events(
      const value& input, const value& config = value(), const stream_options& options = {},
      std::vector<transformer_factory> transformers = {}) const;

  /// The state at the thread's latest checkpoint, or at `configurable.checkpoint_id`
  /// (LangGraph `get_state`). A thread without checkpoints gives empty values. At the latest
  /// checkpoint (no checkpoint id given), the saved writes of the tasks of an unfinished step
  /// that succeeded are applied and `next` names only the tasks still to run (failed,
  /// interrupted, not run), as LangGraph; at a given checkpoint id, none are applied.
  /// Throws `superstep::error` (invalid_argument) without a checkpointer or thread_id.
  /// A `configurable.checkpoint_ns` naming a subgraph's namespace ("node:task id", nested with
  /// '|') reads that subgraph's state instead, through the subgraph. With `subgraphs`, each
  /// task that runs a subgraph carries the subgraph's state (recursively) in `tasks[i].state`.
  state_snapshot get_state(const value& config, bool subgraphs = false) const;

  /// The state at a checkpoint the caller has read from this graph's checkpointer already:
  /// what `get_state` shows of it, without reading it again (a caller that also needs the
  /// tuple's pending writes reads a thread once). `apply_pending_writes`: as `get_state`
  /// without a checkpoint id (the thread's latest), else as `get_state` at the tuple's id.
  state_snapshot state_at(const checkpoint_tuple& tuple, bool apply_pending_writes = false) const;

  /// The thread's checkpoints, newest first (LangGraph `get_state_history`).
  std::vector<state_snapshot> get_state_history(const value& config,
                                                const list_options& options = {}) const;

  /// Applies `values` as if node `as_node` had returned them: through the reducers and the
  /// node's edges and routers, so the node's successors run next. Without `as_node`, the node
  /// that ran last. Saves a checkpoint with source "update" and returns its config
  /// ({"configurable": {thread_id, checkpoint_ns, checkpoint_id}}). With null `values`, two
  /// reserved `as_node`s: `"__end__"` applies the checkpoint's tasks as if they had run (their
  /// saved writes only), clearing `next` and any pending interrupt; `"__copy__"` saves a copy
  /// of the checkpoint, a sibling with source "fork", from which its tasks run again; with a
  /// list of updates ({"values": ..., "as_node": node} or [values, as_node]) as `values`,
  /// `"__copy__"` also applies them to the copy as one superstep, each as the copy's next
  /// task of its node (LangGraph's update_state with a list of StateUpdate). Throws
  /// `superstep::error` (thread_busy) while a run of this process holds the thread.
  value update_state(const value& config, const value& values,
                     const std::optional<std::string>& as_node = std::nullopt) const;

  /// Applies several supersteps of updates as one series of checkpoints (LangGraph
  /// `bulk_update_state`): the updates of one superstep are applied together, as the tasks of
  /// one step, and make one checkpoint (source "update"; "input" for an "__input__" update);
  /// each superstep starts from the one before. Returns the last checkpoint's config. Throws
  /// `superstep::error` (invalid_argument): no supersteps, a superstep with no updates, an
  /// ambiguous update without as_node, "__end__"/"__copy__"/"__input__" in a superstep with
  /// other updates, or the errors of `update_state`; (thread_busy) as `update_state`.
  value bulk_update_state(const value& config,
                          const std::vector<std::vector<state_update>>& supersteps) const;

  /// Removes every checkpoint and write of the thread. Throws `superstep::error`
  /// (thread_busy) while a run of this process holds the thread.
  void delete_thread(const std::string& thread_id) const;

  /// Drops the cached writes of `nodes` (all nodes when empty) from the graph's cache
  /// (LangGraph `clear_cache`). Throws `superstep::error` (invalid_argument) when the graph has
  /// no cache.
  void clear_cache(const std::vector<std::string>& nodes = {}) const;

  /// A Mermaid flowchart of the graph (LangGraph `get_graph().draw_mermaid()`); for the
  /// options and subgraphs drawn inside their parent, `get_graph(xray).draw_mermaid(options)`.
  std::string draw_mermaid() const;

  /// The graph as nodes and edges, in LangGraph's order (LangGraph `get_graph(xray=...)`):
  /// the builder's edges sorted, then edges to END from nodes that lead nowhere (or, when
  /// none, from the one node the last step of a walk of the edges runs). `xray` > 0 draws the
  /// nodes of subgraphs inside their parent down to that depth (a negative value: every
  /// depth), as "<node>:<subgraph node>" ids.
  graph_description get_graph(int xray = 0) const;

  /// The JSON schema of the graph's input (LangGraph `get_input_jsonschema`): a StateGraph's
  /// is an object of its input keys (see `state_graph::set_key_schema`); otherwise, with one
  /// input channel read as a value, that channel's schema (`pregel_graph::channel_schemas`)
  /// titled "<name>Input", else an object of the input channels, each optional with a null
  /// default. Throws `superstep::error` (invalid_argument) when the schemas of two channels
  /// define one "$defs" name differently.
  value input_json_schema() const;
  /// The JSON schema of the graph's output (LangGraph `get_output_jsonschema`), likewise from
  /// the output keys or channels, titled "<name>Output".
  value output_json_schema() const;
  /// The JSON schema of the run context (LangGraph `get_context_jsonschema`): the
  /// `context_schema` of its runtime options, or null when it has none.
  value context_json_schema() const;

  const pregel_graph& graph() const noexcept { return graph_; }
  const std::shared_ptr<checkpoint_saver>& checkpointer() const noexcept {
    return options_.checkpointer;
  }
  /// The long-term store its nodes reach (null: none).
  storage::store* store() const noexcept { return options_.store.get(); }

  /// A copy of this graph with `config` bound to it (LangGraph `Pregel.with_config`): merged
  /// over the config it had bound (`merge_configs`), and under the config of each of its runs
  /// and state calls, so the run's "configurable" and "metadata" keys win over the bound ones,
  /// and its "tags" come after them. A node reads the merged config through
  /// `node_context::config()`; checkpoint metadata takes its metadata and configurable keys as
  /// from any run's config. Also used when the copy runs as a subgraph. Throws
  /// `superstep::error` (invalid_argument) as `merge_configs` does.
  std::shared_ptr<pregel> with_config(const value& config) const;
  /// The config bound to it (`with_config`); null when none.
  const value& config() const noexcept { return options_.config; }

  /// A copy of this graph using another checkpointer (used by compile()).
  std::shared_ptr<pregel> with_checkpointer(std::shared_ptr<checkpoint_saver> saver) const;

  /// Runs this graph as a subgraph inside a task of a parent run. Internal to the runtime.
  /// Its namespace is the parent's plus "<node>:<task id>"; its events reach the parent's
  /// stream when the parent asked for subgraphs.
  value run_nested(const value& input, node_context& parent) const;

 private:
  value run_unguarded(const value& input, const value& config, const stream_options& options,
                      const stream_sink& sink, thread_runs::slot* slot,
                      const std::string& run_id) const;

  /// The graph whose checkpoints `cfg.checkpoint_ns` names: this one for "", else the subgraph
  /// its parts lead to ("node:task id|..."); a stateful subgraph's namespace is made stable
  /// in `cfg`. Throws `superstep::error` (not_found) when no subgraph has that namespace.
  const pregel& graph_for(checkpoint_config& cfg) const;

  /// `config` merged over the bound config (`runtime_options::config`); `config` itself when
  /// none is bound.
  value bound_config(const value& config) const;

  /// get_state through `saver` (a subgraph's: its parent's saver) at coordinates `cfg`.
  state_snapshot read_state(checkpoint_saver& saver, checkpoint_config cfg, bool subgraphs) const;

  struct impl;
  pregel_graph graph_;
  runtime_options options_;
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep
