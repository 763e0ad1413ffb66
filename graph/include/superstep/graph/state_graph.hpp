#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "superstep/channels/delta_channel.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

/// Values computed for each task instead of stored in a channel (LangGraph managed values).
enum class managed_value : std::uint8_t {
  remaining_steps,  ///< supersteps left before the recursion limit (LangGraph RemainingSteps)
  is_last_step,     ///< true in the last step the recursion limit allows (LangGraph IsLastStep)
};

/// A node another may route to with a Command (an item of `node_options::destinations`): its
/// name, and the label of the edge drawn to it. A name alone is LangGraph's tuple form
/// (`destinations=("a", "b")`), a {name, label} pair its dict form (`destinations={"a": "x"}`).
struct node_destination {
  // Implicit: a name alone is a destination without a label.
  node_destination(const char* node) : node(node) {}
  node_destination(std::string node, std::string label = {})
      : node(std::move(node)), label(std::move(label)) {}

  std::string node;
  /// The drawn edge's label (`graph_edge::data`); empty: none.
  std::string label;

  bool operator==(const node_destination&) const = default;
};

/// Options of `state_graph::add_node`.
struct node_options {
  /// Run only once every other pending node has finished (LangGraph `defer=True`).
  bool defer = false;
  /// Nodes this node may route to with a Command (LangGraph `destinations`): declares a way in
  /// for them and draws the edges, conditional, labelled when a destination has a label.
  std::vector<node_destination> destinations = {};
  /// Retries when the node fails (LangGraph `retry_policy`, one or several). Empty: the
  /// graph's default (`set_node_defaults`), else none.
  retry_policies retry = {};
  /// Time limits of each attempt (LangGraph `timeout`). None: the graph's default.
  std::optional<timeout_policy> timeout = std::nullopt;
  /// Caches the node's writes by input (LangGraph `cache_policy`; needs compile_options::cache).
  /// None: the graph's default.
  std::optional<cache_policy> cache = std::nullopt;
  /// Runs when the node fails after its retries (LangGraph `error_handler`): a node added as
  /// `__error_handler__<name>` that gets the failed task's state, reads the failure from
  /// `node_context::node_error()` and returns an update or a Command (whose goto routes on).
  /// Its failure fails the run. Null: the graph's default, else the failure fails the step.
  node_function error_handler = nullptr;
  /// The graph this node's function runs through `pregel::run_nested`, if any (LangGraph finds
  /// it in the function's closure): `get_state(config, true)` shows its state for the node's
  /// tasks, and its namespace leads get_state/update_state to it.
  std::shared_ptr<const pregel> subgraph = nullptr;
  /// The state keys the node reads (LangGraph `input_schema`); unset: the graph's state keys.
  /// The node's input holds only these keys, and routers after it read the same keys unless
  /// they name their own. A key no `add_key` declared becomes a private channel (last value
  /// wins): nodes write it and nodes naming it read it; the graph's input and output leave it
  /// out unless `set_input_keys`/`set_output_keys` name it; snapshots and streams show it, as
  /// LangGraph's stream channels.
  std::optional<std::vector<std::string>> input_keys = std::nullopt;
};

/// What every node of a graph gets unless its node_options say otherwise (LangGraph
/// `set_node_defaults`). `retry` and `timeout` apply to error handlers too; `cache` and
/// `error_handler` to regular nodes only. Not inherited by subgraphs.
struct node_defaults {
  retry_policies retry = {};
  std::optional<timeout_policy> timeout = std::nullopt;
  std::optional<cache_policy> cache = std::nullopt;
  /// Handles the failures of nodes without their own, as the node `__default_error_handler__`.
  node_function error_handler = nullptr;
};

/// Options of `state_graph::compile`.
struct compile_options {
  std::shared_ptr<checkpoint_saver> checkpointer;
  /// What the graph keeps when it runs as a subgraph: LangGraph's `checkpointer=None`
  /// (per_invocation, the default), `checkpointer=True` (stateful) or `checkpointer=False`
  /// (none). See `subgraph_checkpointer`.
  subgraph_checkpointer as_subgraph = subgraph_checkpointer::per_invocation;
  /// Where and how runs execute (actors by default).
  execution mode = execution::actors;
  /// What runs them on actors (see runtime_options::driver); null: the default driver.
  std::shared_ptr<const execution_driver> driver;
  std::shared_ptr<task_executor> executor;
  /// The long-term store nodes reach through `node_context::store()`.
  std::shared_ptr<storage::store> store;
  std::vector<std::string> interrupt_before;
  std::vector<std::string> interrupt_after;
  std::string name;
  /// Where the writes of nodes with a cache policy are cached (LangGraph `cache`).
  std::shared_ptr<node_cache> cache;
  /// How retries wait (see pregel_graph::retry_sleep); null: the task's thread sleeps.
  std::function<void(std::chrono::duration<double, std::milli>)> retry_sleep;
  /// The longest a step may run (see pregel_graph::step_timeout_ms); none: no limit.
  std::optional<double> step_timeout_ms;
  /// What the run context nodes read looks like (see runtime_options::context_schema).
  std::optional<object_schema> context_schema = std::nullopt;
  /// See pregel_graph::delta_max_steps_since_snapshot. Throws `superstep::error`
  /// (invalid_graph) at compile() when not positive.
  std::int64_t delta_max_steps_since_snapshot = 5000;
};

/// How a delta key is kept (the parameters of LangGraph's `DeltaChannel`).
struct delta_options {
  /// A snapshot of the value is stored once this many steps wrote the key since the last one
  /// (LangGraph's default: 1000). Must be positive.
  std::int64_t snapshot_frequency = channels::delta_channel::default_snapshot_frequency;
  /// The key's value before any write (LangGraph's `typ()`); by default an empty object for
  /// the `merge` reducer, else an empty list.
  std::optional<value> empty;
};

/// The name of the one key of a graph whose state is not an object (LangGraph's `__root__`).
inline constexpr std::string_view ROOT = "__root__";

/// Builds a graph whose nodes communicate through a shared state (LangGraph `StateGraph`).
///
/// Each state key becomes a channel: a last_value, or a binary_operator_aggregate when the key
/// has a reducer. Nodes read the whole state and return an update object (or a Command);
/// edges, joins and conditional edges decide what runs next. Keys of a node's update that are
/// not channels of the graph are ignored, as LangGraph's. `compile()` validates the topology
/// and returns the runnable graph. Not thread-safe; build on one thread.
///
/// A graph whose only key is `ROOT` (`add_key(std::string(ROOT), "add")`) has a state that
/// is a single value, not an object (LangGraph `StateGraph(Annotated[list, add])`): the
/// graph's input and output, each node's input and each router's are that value, and a
/// node's update is the value to write (or a Command whose update is, or a list mixing
/// Commands and values).
/// Beside other keys, `ROOT` is a key like any other (the state an object), as LangGraph's.
class state_graph {
 public:
  state_graph() = default;

  /// Declares a state key kept with "last value wins, one value per step".
  state_graph& add_key(std::string name, std::optional<value> default_value = std::nullopt);
  /// Declares a state key folded with `reducer` (`initial`: its value before any write).
  state_graph& add_key(std::string name, channels::reducer reducer,
                       std::optional<value> initial = std::nullopt);
  /// Declares a state key folded with a built-in reducer: append, add, max, min, merge,
  /// add_messages. Throws `superstep::error` (invalid_graph) for other names.
  state_graph& add_key(std::string name, std::string_view builtin_reducer,
                       std::optional<value> initial = std::nullopt);
  state_graph& add_key(std::string name, const char* builtin_reducer,
                       std::optional<value> initial = std::nullopt) {
    return add_key(std::move(name), std::string_view(builtin_reducer), std::move(initial));
  }

  /// Declares a state key folded with `reducer` whose checkpoints store what each step wrote,
  /// not the value (LangGraph `DeltaChannel`): a checkpoint of a long message list then costs
  /// its new messages. The value is rebuilt from the saved writes when a checkpoint is loaded
  /// (a run, get_state, history, a fork), folded onto the nearest snapshot, stored every
  /// `options.snapshot_frequency` steps that wrote it. The reducer gets batches of writes of
  /// many steps at once: it must be batching-invariant (every built-in one is). Throws
  /// `superstep::error` (invalid_graph) naming the key and value for a snapshot_frequency
  /// that is not positive.
  state_graph& add_delta_key(std::string name, channels::reducer reducer,
                             delta_options options = {});
  /// The same with a built-in reducer: append, add, max, min, merge, add_messages,
  /// messages_delta. Throws `superstep::error` (invalid_graph) for other names.
  state_graph& add_delta_key(std::string name, std::string_view builtin_reducer,
                             delta_options options = {});

  /// Declares a key whose value is never checkpointed (LangGraph `UntrackedValue`): runs see
  /// it, at most one write per step, but snapshots and resumed runs do not (handles, secrets).
  state_graph& add_untracked_key(std::string name);

  /// Declares a key that nodes and routers read but nobody writes: its value is computed for
  /// each task from the run (e.g. the steps left before the recursion limit).
  state_graph& add_managed_key(std::string name, managed_value kind);

  /// Input and output schemas: subsets of the state keys (default: all keys). `title` names
  /// the schema in `input_json_schema()`/`output_json_schema()` (LangGraph: the input or
  /// output schema class's name); none: "<graph name>Input" / "<graph name>Output".
  state_graph& set_input_keys(std::vector<std::string> keys,
                              std::optional<std::string> title = std::nullopt);
  state_graph& set_output_keys(std::vector<std::string> keys,
                               std::optional<std::string> title = std::nullopt);

  /// Describes a state key in the graph's JSON schemas (LangGraph: the key's type hint,
  /// Required/NotRequired marker and default): the JSON schema of its value, whether it is
  /// required, its default. A key not described takes any value, is optional and has no
  /// default. Throws `superstep::error` (invalid_graph) naming the key when `schema` is
  /// invalid (`key_schema::problem`), and at compile() when no state key has its name.
  state_graph& set_key_schema(std::string key, key_schema schema);
  /// The state schema's name (LangGraph: the state class's name): the title of the input and
  /// output JSON schemas when set_input_keys/set_output_keys name no keys of their own.
  state_graph& set_schema_title(std::string title);

  /// Sets the defaults of every node's policies (LangGraph `set_node_defaults`); each field
  /// given (non-empty) replaces the earlier default. Applied at compile(), whatever the order
  /// of calls. Throws `superstep::error` (invalid_graph) at compile() when a default error
  /// handler meets a node named `__default_error_handler__`.
  state_graph& set_node_defaults(node_defaults defaults);

  state_graph& add_node(std::string name, node_function fn, node_options options = {});
  /// Adds a compiled graph as a node: it gets this graph's state and returns its output.
  state_graph& add_node(std::string name, std::shared_ptr<const pregel> subgraph,
                        node_options options = {});

  /// Adds the nodes in order, each running after the one before (LangGraph `add_sequence`).
  /// Throws `superstep::error` (invalid_graph), adding nothing, when `steps` is empty, names a
  /// node twice, or a node could not be added.
  state_graph& add_sequence(std::vector<std::pair<std::string, node_function>> steps);

  /// `to` runs after `from`. Use START and END for the entry and the exit.
  state_graph& add_edge(std::string from, std::string to);
  /// `to` runs once every node in `from` has run (a join). A join into END routes nowhere,
  /// as LangGraph's.
  state_graph& add_edge(std::vector<std::string> from, std::string to);
  /// After `from`, `router` picks what runs next: node names, END, or Sends. With a path map,
  /// the router's results are keys of the map, whose values are node names. The router reads
  /// `input_keys` (LangGraph: the router's own input schema), by default the keys `from` reads.
  state_graph& add_conditional_edges(std::string from, router_function router,
                                     std::map<std::string, std::string> path_map = {},
                                     std::optional<std::vector<std::string>> input_keys = {});
  state_graph& set_entry_point(std::string node) {
    return add_edge(std::string("__start__"), std::move(node));
  }
  state_graph& set_finish_point(std::string node) {
    return add_edge(std::move(node), std::string("__end__"));
  }

  /// Validates and builds the runnable graph. Throws `superstep::error` (invalid_graph)
  /// naming the offender: unknown node in an edge, no entry point, a node with no way in,
  /// duplicate or reserved names, unknown schema keys.
  std::shared_ptr<pregel> compile(compile_options options = {}) const;

 private:
  struct key_spec {
    std::string name;
    std::optional<channels::reducer> reducer;
    std::optional<value> initial;
    bool untracked = false;
    std::optional<delta_options> delta;  ///< a delta key (with a reducer)
  };
  struct node_spec {
    std::string name;
    node_function fn;
    std::shared_ptr<const pregel> subgraph;
    node_options options;
  };
  struct branch_spec {
    std::string from;
    router_function router;
    std::map<std::string, std::string> path_map;
    std::optional<std::vector<std::string>> input_keys;
  };

  void check_new_name(const std::string& name) const;
  /// compile()'s step that gives `g` its input and output JSON schemas (state_graph_schema.cpp).
  void attach_json_schemas(pregel_graph& g, const std::unordered_set<std::string>& state_keys,
                           const std::vector<std::string>& input_keys,
                           const std::vector<std::string>& output_keys) const;

  std::vector<key_spec> keys_;
  std::vector<std::pair<std::string, managed_value>> managed_;
  std::optional<std::vector<std::string>> input_keys_;
  std::optional<std::vector<std::string>> output_keys_;
  std::map<std::string, key_schema> key_schemas_;
  std::optional<std::string> schema_title_;
  std::optional<std::string> input_title_;
  std::optional<std::string> output_title_;
  std::vector<node_spec> nodes_;
  std::unordered_set<std::string> node_names_;
  std::vector<std::pair<std::string, std::string>> edges_;
  std::vector<std::pair<std::vector<std::string>, std::string>> joins_;
  std::vector<branch_spec> branches_;
  node_defaults defaults_;

 public:
  /// What was declared, in declaration order, for code that reads a graph back (a graph spec
  /// export: superstep/cluster/graph_export.hpp). Read-only; valid while the builder lives.
  using declared_key = key_spec;
  using declared_node = node_spec;
  using declared_branch = branch_spec;
  const std::vector<key_spec>& declared_keys() const noexcept { return keys_; }
  const std::vector<std::pair<std::string, managed_value>>& declared_managed_keys() const noexcept {
    return managed_;
  }
  const std::optional<std::vector<std::string>>& declared_input_keys() const noexcept {
    return input_keys_;
  }
  const std::optional<std::vector<std::string>>& declared_output_keys() const noexcept {
    return output_keys_;
  }
  const std::optional<std::string>& declared_input_title() const noexcept { return input_title_; }
  const std::optional<std::string>& declared_output_title() const noexcept { return output_title_; }
  const std::map<std::string, key_schema>& declared_key_schemas() const noexcept {
    return key_schemas_;
  }
  const std::optional<std::string>& declared_schema_title() const noexcept { return schema_title_; }
  const std::vector<node_spec>& declared_nodes() const noexcept { return nodes_; }
  const std::vector<std::pair<std::string, std::string>>& declared_edges() const noexcept {
    return edges_;
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>>& declared_joins()
      const noexcept {
    return joins_;
  }
  const std::vector<branch_spec>& declared_branches() const noexcept { return branches_; }
  const node_defaults& declared_node_defaults() const noexcept { return defaults_; }
};

}  // namespace superstep
