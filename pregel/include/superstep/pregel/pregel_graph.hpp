#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/pregel/node_cache.hpp"
#include "superstep/pregel/node_context.hpp"

namespace superstep {

/// Where a task's writes go: the writers of a node append to it. It also gives the "fresh"
/// view routers need: channel values with this task's own writes applied.
class write_scope {
 public:
  virtual ~write_scope() = default;
  virtual void write(std::string channel, value v) = 0;
  /// A hint: about `more` writes follow (a router's list of 10^6 Sends), room for which is
  /// made at once rather than by growing the task's writes step by step.
  virtual void expect_writes(std::size_t more) { (void)more; }
  /// The value of `channel` as it would be after this task's writes so far, or nullopt when
  /// the channel would be empty.
  virtual std::optional<value> fresh_read(const std::string& channel) = 0;
  virtual node_context& context() = 0;
};

/// Turns a node's output into channel writes (LangGraph `ChannelWrite` and branch writers).
using node_writer = std::function<void(const value& output, write_scope& scope)>;

class pregel;
class state_graph;

/// A node of the low-level Pregel API (LangGraph `PregelNode`).
struct pregel_node {
  std::string name;
  /// Channels whose update makes the node run in the next step.
  std::vector<std::string> triggers;
  /// Channels read to build the input: with `single_read`, the one channel's value;
  /// otherwise an object of the available channels.
  std::vector<std::string> reads;
  bool single_read = false;
  node_function fn;
  std::vector<node_writer> writers;
  /// Channels the writers read "fresh" (routers): node actors keep replicas of these.
  std::vector<std::string> fresh_reads;
  /// Retries of a failing task; none when empty.
  retry_policies retry;
  /// Time limits of each attempt (LangGraph `timeout`); none: no limit.
  std::optional<timeout_policy> timeout;
  /// Caching of the task's writes by input (needs a cache in runtime_options); none: no cache.
  std::optional<cache_policy> cache;
  /// The node that runs, in the same task, when this one fails after its retries (LangGraph
  /// `error_handler`); it gets the task's input and `node_context::node_error()`, and its
  /// writes are the task's. Empty: a failure fails the step. Interrupts and Commands to a
  /// parent graph are not failures.
  std::string error_handler;
  /// Hidden nodes (the StateGraph START node) do not appear in `updates` streams.
  bool hidden = false;
  /// The compiled subgraph this node runs, if it is one (for drawing and namespaces).
  std::shared_ptr<const pregel> subgraph;
};

/// The topology of a compiled graph: channels (as prototypes) and nodes. Immutable once
/// built; shared by every run of the graph.
struct pregel_graph {
  std::string name = "LangGraph";
  std::map<std::string, std::shared_ptr<const channels::channel>> channels;
  std::vector<pregel_node> nodes;
  /// Input goes to these channels: with `input_single`, the input is the value of the one
  /// channel; otherwise an object keyed by channel.
  std::vector<std::string> input_channels;
  bool input_single = false;
  /// The output is read from these channels, likewise.
  std::vector<std::string> output_channels;
  bool output_single = false;
  /// The channels that make up the graph's state as `get_state` shows it and as the `values`
  /// and `updates` streams send it, always as an object (LangGraph's stream_channels;
  /// StateGraph: every state key), whatever the output channels a run returns. Empty: every
  /// channel, as LangGraph's Pregel without stream_channels (the `pregel` constructor fills
  /// it in).
  std::vector<std::string> state_channels;
  /// The state is the value of the one state channel, not an object of it (LangGraph's
  /// stream_channels given as one channel, as an entrypoint's END, or a
  /// StateGraph whose state is the one key ROOT): `updates` stream a task's
  /// write to it as {node: value}, snapshots show the value itself.
  bool state_single = false;
  std::vector<std::string> interrupt_before;
  std::vector<std::string> interrupt_after;
  /// How a retry waits before the next attempt (null: the task's thread sleeps). A test or a
  /// simulator passes its own to observe or skip the waits. Called from the task's thread.
  std::function<void(std::chrono::duration<double, std::milli>)> retry_sleep;
  /// The longest a step may run, in milliseconds (LangGraph `Pregel.step_timeout`); none: no
  /// limit. A step past it is cancelled: its running tasks are told through
  /// `node_context::stop_token()` and the run fails, once they returned, with
  /// error(step_timeout, "Timed out: ..."); the writes of its tasks that finished stay saved
  /// as pending writes. The time the stream sink takes with the step's events counts. Must be
  /// greater than 0.
  std::optional<double> step_timeout_ms;
  /// A delta channel gets a snapshot once this many steps passed since its last one, written
  /// or not (LangGraph's DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT), so rebuilding it never walks
  /// further back. Must be positive.
  std::int64_t delta_max_steps_since_snapshot = 5000;
  /// For drawing: static edges and branches as the builder declared them.
  std::vector<std::pair<std::string, std::string>> draw_edges;
  std::vector<std::tuple<std::string, std::string, std::string>> draw_conditional_edges;
  /// The JSON schemas `pregel::input_json_schema` and `output_json_schema` return (a
  /// StateGraph's, made from its keys by compile()); null: made from the input and output
  /// channels and `channel_schemas`.
  value input_schema;
  value output_schema;
  /// The JSON schema of a channel's value (LangGraph: the channel's type, as `LastValue(int)`
  /// gives {"type": "integer"}) for the schemas made from channels; a channel not listed takes
  /// any value.
  std::map<std::string, value> channel_schemas;
  /// The builder the graph was compiled from, as it was then (LangGraph's
  /// `CompiledStateGraph.builder`): set by `state_graph::compile`, null for graphs built
  /// otherwise. A graph spec export reads it.
  std::shared_ptr<const state_graph> builder;
};

}  // namespace superstep

namespace superstep {

/// A Pregel node reading `subscribe` (its triggers), running `fn` and writing its result to
/// each of `write_to` (LangGraph `Channel.subscribe_to(...) | fn | Channel.write_to(...)`).
/// With one channel the input is that channel's value, with several an object of them.
/// With `skip_none`, a null result writes nothing.
pregel_node subscribe_node(std::string name, std::vector<std::string> subscribe, node_function fn,
                           std::vector<std::string> write_to, bool skip_none = false);

}  // namespace superstep
