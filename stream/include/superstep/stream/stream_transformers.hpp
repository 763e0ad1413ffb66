#pragma once

// The built-in stream transformers of LangGraph's v3 event streaming
// (`langgraph.stream.transformers`). `pregel::stream_events` registers values, messages,
// lifecycle and subgraph transformers on every run; the others are opt-in
// (`factory_of<updates_transformer>()`, ...).

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "superstep/stream/chat_model_stream.hpp"
#include "superstep/stream/graph_run_stream.hpp"
#include "superstep/stream/stream_transformer.hpp"

namespace superstep {

/// Pushes the `data` of each event of one method at the transformer's own scope into a
/// local channel, exposed under the method's name (the values, messages, updates, custom,
/// checkpoints, debug, tasks and tools projections). Native; requires that mode; keeps every
/// event.
class mode_projection_transformer : public stream_transformer {
 public:
  mode_projection_transformer(std::vector<std::string> scope, stream_mode mode);
  stream_projections init() override;
  bool process(protocol_event& event) override;
  std::vector<stream_mode> required_stream_modes() const override { return {mode_}; }
  bool native() const override { return true; }
  std::string name() const override;
  /// The projection channel.
  stream_channel<value>& log() const noexcept { return *log_; }

 protected:
  /// Called with each event pushed (after the push).
  virtual void observe(const protocol_event& event) { (void)event; }

 private:
  stream_mode mode_;
  std::string method_;
  std::shared_ptr<stream_channel<value>> log_;
};

/// `run.values` (LangGraph `ValuesTransformer`): the state after each step, at its scope; also
/// tracks the last one and the interrupts.
class values_transformer : public mode_projection_transformer {
 public:
  explicit values_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::values) {}
  const value& latest() const noexcept { return latest_; }
  bool interrupted() const noexcept { return interrupted_; }
  const list& interrupts() const noexcept { return interrupts_; }
  /// The error the run ended with (its projection failed), or null.
  std::exception_ptr error() const { return log().error(); }

 protected:
  void observe(const protocol_event& event) override;

 private:
  value latest_;
  bool interrupted_ = false;
  list interrupts_;
};

/// `run.messages` (LangGraph `MessagesTransformer`): a chat_model_stream per chat model call
/// of the graph at its scope, from the `messages` events' [payload, metadata] pairs:
/// - a v2 message protocol event (an object with "event", message_events.hpp; what
///   `pregel::stream_events` makes chat models emit, see `node_context::emit_message_event`)
///   is routed by the metadata's "run_id" (the model call's id): message-start makes a stream,
///   pushed at once, with the metadata's langgraph_node and the event's message_id (a
///   message-start of role "tool" has its call ignored to its message-finish); later events go
///   to their call's stream; message-finish ends the routing; an event of no known call is
///   dropped;
/// - a whole message a node returned (not a chunk, not a tool message) becomes a stream
///   already finished, replayed through `message_to_events`;
/// - anything else (the `messages` mode's v1 chunks) is ignored.
/// Events of other namespaces (subgraphs) are left to the subgraph handles' own transformers.
/// `fail` fails the streams still open; `finalize` and `fail` clear the routing. Streams read
/// past what arrived pump the run (the mux's pump, or `bind_pump`'s). Native; keeps every
/// event in the main log.
class messages_transformer : public stream_transformer {
 public:
  explicit messages_transformer(std::vector<std::string> scope = {});
  stream_projections init() override;
  bool process(protocol_event& event) override;
  void finalize() override;
  void fail(const std::exception_ptr& err) override;
  void on_register(stream_mux& mux) override { mux_ = &mux; }
  std::vector<stream_mode> required_stream_modes() const override {
    return {stream_mode::messages};
  }
  bool native() const override { return true; }
  std::string name() const override { return "messages_transformer"; }

  /// The projection channel.
  stream_channel<std::shared_ptr<chat_model_stream>>& log() const noexcept { return *log_; }
  /// Sets the pump of the streams it makes (LangGraph `_bind_pump`), for a transformer used
  /// without a run stream; otherwise the mux's pump is used.
  void bind_pump(std::function<bool()> pump) { pump_ = std::move(pump); }
  /// The pump its streams get: `bind_pump`'s, else the registering mux's; null without either.
  std::function<bool()> pump() const;
  /// The streams of the calls in progress, by call id (LangGraph `_by_run`).
  const std::map<std::string, std::shared_ptr<chat_model_stream>>& open_streams() const noexcept {
    return by_run_;
  }
  /// The calls whose events are ignored (tool messages) until their message-finish.
  const std::set<std::string>& ignored_runs() const noexcept { return ignored_runs_; }

 private:
  void route_protocol_event(const value& event, const std::string& run_id,
                            const std::optional<std::string>& node,
                            const std::vector<std::string>& ns);
  void route_whole_message(const value& message, const std::optional<std::string>& node,
                           const std::vector<std::string>& ns);
  std::shared_ptr<chat_model_stream> make_stream(std::vector<std::string> ns,
                                                 std::optional<std::string> node,
                                                 std::optional<std::string> message_id) const;

  std::shared_ptr<stream_channel<std::shared_ptr<chat_model_stream>>> log_;
  std::map<std::string, std::shared_ptr<chat_model_stream>> by_run_;
  std::set<std::string> ignored_runs_;
  std::function<bool()> pump_;
  stream_mux* mux_ = nullptr;
};

/// `run.updates` (LangGraph `UpdatesTransformer`, opt-in).
class updates_transformer : public mode_projection_transformer {
 public:
  explicit updates_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::updates) {}
};
/// `run.custom` (LangGraph `CustomTransformer`, opt-in): what nodes emit with emit_custom.
class custom_transformer : public mode_projection_transformer {
 public:
  explicit custom_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::custom) {}
};
/// `run.checkpoints` (LangGraph `CheckpointsTransformer`, opt-in; empty without a
/// checkpointer).
class checkpoints_transformer : public mode_projection_transformer {
 public:
  explicit checkpoints_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::checkpoints) {}
};
/// `run.debug` (LangGraph `DebugTransformer`, opt-in).
class debug_transformer : public mode_projection_transformer {
 public:
  explicit debug_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::debug) {}
};
/// `run.tasks` (LangGraph `TasksTransformer`, opt-in): task start and result payloads.
class tasks_transformer : public mode_projection_transformer {
 public:
  explicit tasks_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::tasks) {}
};

/// `run.tools` (opt-in): the `tools` events of tool calls at its scope, {"event":
/// "tool-started"|"tool-output-delta"|"tool-finished"|"tool-error", "tool_call_id", ...}
/// (stream.hpp). LangGraph's prebuilt `ToolCallTransformer` folds the same events into a
/// stream per call.
class tools_transformer : public mode_projection_transformer {
 public:
  explicit tools_transformer(std::vector<std::string> scope = {})
      : mode_projection_transformer(std::move(scope), stream_mode::tools) {}
};

/// What the lifecycle and subgraph transformers share (LangGraph `_TasksLifecycleBase`):
/// subgraphs found from `tasks` events. A namespace the subclass tracks is "started" at its
/// first task event (its graph name from the namespace segment "node:<task id>", or the
/// task's metadata lc_agent_name), and ends when the parent's result for that task arrives:
/// interrupted (the result has interrupts), failed (an error), else completed. `finalize`
/// completes, `fail` ends as the run's error says, whatever is still open. `tasks` events are
/// dropped from the main log (the projections carry them).
class tasks_lifecycle_transformer : public stream_transformer {
 public:
  using stream_transformer::stream_transformer;
  bool process(protocol_event& event) override;
  void finalize() override;
  void fail(const std::exception_ptr& err) override;
  std::vector<stream_mode> required_stream_modes() const override { return {stream_mode::tasks}; }

  /// The namespaces seen so far.
  const std::set<std::vector<std::string>>& seen() const noexcept { return seen_; }

 protected:
  /// Whether `ns` is one this transformer follows.
  virtual bool should_track(const std::vector<std::string>& ns) const = 0;
  /// First sighting of `ns`. `cause()` is the tool call that spawned it, if known.
  virtual void on_started(const std::vector<std::string>& ns,
                          const std::optional<std::string>& graph_name,
                          const std::optional<std::string>& trigger_call_id) = 0;
  /// `ns` ended (once per tracked namespace).
  virtual void on_terminal(const std::vector<std::string>& ns, subgraph_status status,
                           const std::optional<std::string>& error) = 0;
  /// {type: "toolCall", tool_call_id} of the subgraph being started, or null.
  const value& cause() const noexcept { return pending_cause_; }
  std::map<std::vector<std::string>, std::string>& open() noexcept { return open_; }

 private:
  void record_identity(const std::vector<std::string>& ns, const value& data);
  void record_pending_tool_call(const value& data);
  void handle_task_start(const std::vector<std::string>& ns, const value& data);
  void handle_task_result(const std::vector<std::string>& ns, const value& data);

  std::set<std::vector<std::string>> seen_;
  std::map<std::vector<std::string>, std::string> open_;  // namespace -> parent task id
  std::map<std::vector<std::string>, value> agent_by_ns_;
  std::map<std::string, std::string> pending_tool_calls_;  // task id -> tool call id
  value pending_cause_;
};

/// `run.lifecycle` (LangGraph `LifecycleTransformer`): a named channel "lifecycle" (so also
/// "lifecycle" events in the main log) of the subgraphs at every depth below its scope.
class lifecycle_transformer : public tasks_lifecycle_transformer {
 public:
  explicit lifecycle_transformer(std::vector<std::string> scope = {});
  stream_projections init() override;
  bool native() const override { return true; }
  std::string name() const override { return "lifecycle_transformer"; }

 protected:
  bool should_track(const std::vector<std::string>& ns) const override;
  void on_started(const std::vector<std::string>& ns, const std::optional<std::string>& graph_name,
                  const std::optional<std::string>& trigger_call_id) override;
  void on_terminal(const std::vector<std::string>& ns, subgraph_status status,
                   const std::optional<std::string>& error) override;

 private:
  std::shared_ptr<stream_channel<value>> channel_;
};

/// `run.subgraphs` (LangGraph `SubgraphTransformer`): a subgraph_run_stream per direct child
/// subgraph, with a child mux of the same transformers; the events at or below the child's
/// namespace are forwarded into it. Grandchildren are found by the child's own subgraph
/// transformer. A handle ends with its subgraph (its mux closed, or failed with the
/// subgraph's error) or with the run.
class subgraph_transformer : public tasks_lifecycle_transformer {
 public:
  explicit subgraph_transformer(std::vector<std::string> scope = {});
  stream_projections init() override;
  bool process(protocol_event& event) override;
  void finalize() override;
  void fail(const std::exception_ptr& err) override;
  void on_register(stream_mux& mux) override { mux_ = &mux; }
  bool native() const override { return true; }
  std::string name() const override { return "subgraph_transformer"; }

 protected:
  bool should_track(const std::vector<std::string>& ns) const override;
  void on_started(const std::vector<std::string>& ns, const std::optional<std::string>& graph_name,
                  const std::optional<std::string>& trigger_call_id) override;
  void on_terminal(const std::vector<std::string>& ns, subgraph_status status,
                   const std::optional<std::string>& error) override;

 private:
  subgraph_run_stream* handle_for(const protocol_event& event) const;
  static void close_or_fail(subgraph_run_stream& h, subgraph_status status,
                            const std::optional<std::string>& error);

  std::shared_ptr<stream_channel<std::shared_ptr<subgraph_run_stream>>> log_;
  std::map<std::vector<std::string>, std::shared_ptr<subgraph_run_stream>> handles_;
  stream_mux* mux_ = nullptr;
};

/// The terminal status a run error gives the subgraphs still open (LangGraph
/// `_status_from_exception`): drained, interrupted, else failed with the error's message.
std::pair<subgraph_status, std::optional<std::string>> status_from_exception(
    const std::exception_ptr& err);

}  // namespace superstep
