#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "superstep/channels/reducer.hpp"
#include "superstep/coordinator/checkpoint_saver.hpp"
#include "superstep/coordinator/node_context.hpp"
#include "superstep/coordinator/pregel.hpp"

namespace superstep {

/// Values computed for each task instead of stored in a channel (LangGraph managed values).
enum class managed_value : std::uint8_t {
  remaining_steps,  ///< supersteps left before the recursion limit (LangGraph RemainingSteps)
  is_last_step,     ///< true in the last step the recursion limit allows (LangGraph IsLastStep)
};

/// Options of `state_graph::add_node`.
struct node_options {
  /// Run only once every other pending node has finished (LangGraph `defer=True`).
  bool defer = false;
  /// Nodes this node may route to with a Command (LangGraph `destinations`): declares a way in
  /// for them and draws the edges.
  std::vector<std::string> destinations = {};
  /// Retries when the node fails (LangGraph `retry_policy`).
  std::optional<retry_policy> retry = std::nullopt;
  /// The state keys the node reads (LangGraph `input_schema`); unset: the graph's state keys.
  /// The node's input holds only these keys, and routers after it read the same keys unless
  /// they name their own. A key no `add_key` declared becomes a private channel (last value
  /// wins): nodes write it and nodes naming it read it; the graph's input and output leave it
  /// out unless `set_input_keys`/`set_output_keys` name it; snapshots and streams show it, as
  /// LangGraph's stream channels.
  std::optional<std::vector<std::string>> input_keys = std::nullopt;
};

/// Options of `state_graph::compile`.
struct compile_options {
  std::shared_ptr<checkpoint_saver> checkpointer;
  /// Where and how runs execute (actors by default).
  execution mode = execution::actors;
  std::shared_ptr<actors::runtime> runtime;
  std::shared_ptr<task_executor> executor;
  /// Nodes hosted by other processes (see runtime_options::directory).
  std::shared_ptr<actors::node_directory> directory;
  /// The long-term store nodes reach through `node_context::store()`.
  std::shared_ptr<storage::store> store;
  std::vector<std::string> interrupt_before;
  std::vector<std::string> interrupt_after;
  std::string name;
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

  /// Declares a key whose value is never checkpointed (LangGraph `UntrackedValue`): runs see
  /// it, at most one write per step, but snapshots and resumed runs do not (handles, secrets).
  state_graph& add_untracked_key(std::string name);

  /// Declares a key that nodes and routers read but nobody writes: its value is computed for
  /// each task from the run (e.g. the steps left before the recursion limit).
  state_graph& add_managed_key(std::string name, managed_value kind);

  /// Input and output schemas: subsets of the state keys (default: all keys).
  state_graph& set_input_keys(std::vector<std::string> keys);
  state_graph& set_output_keys(std::vector<std::string> keys);

  state_graph& add_node(std::string name, node_function fn, node_options options = {});
  /// Adds a compiled graph as a node: it gets this graph's state and returns its output.
  state_graph& add_node(std::string name, std::shared_ptr<const pregel> subgraph,
                        node_options options = {});

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

  std::vector<key_spec> keys_;
  std::vector<std::pair<std::string, managed_value>> managed_;
  std::optional<std::vector<std::string>> input_keys_;
  std::optional<std::vector<std::string>> output_keys_;
  std::vector<node_spec> nodes_;
  std::unordered_set<std::string> node_names_;
  std::vector<std::pair<std::string, std::string>> edges_;
  std::vector<std::pair<std::vector<std::string>, std::string>> joins_;
  std::vector<branch_spec> branches_;
};

}  // namespace superstep
