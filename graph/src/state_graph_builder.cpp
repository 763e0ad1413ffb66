// Declaring a StateGraph (LangGraph's StateGraph builder): its keys, nodes and edges, checked
// as they are added; compiling it is state_graph.cpp's.
#include <set>

#include "invalid_graph.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep {

namespace {

using graph_detail::invalid;

}  // namespace

void state_graph::check_new_name(const std::string& name) const {
  if (name.empty()) invalid("a node name must not be empty");
  if (name == START || name == END) invalid("'" + name + "' is a reserved name");
  for (char c : {':', '|'})
    if (name.find(c) != std::string::npos)
      invalid("node name '" + name + "' contains the reserved character '" + c + "'");
  // A node may share its name with a state key, as in LangGraph: a node's channels are its
  // own (branch:to:<node>), apart from the state's.
  if (node_names_.count(name)) invalid("node '" + name + "' already exists");
}

state_graph& state_graph::add_key(std::string name, std::optional<value> default_value) {
  for (const auto& k : keys_)
    if (k.name == name) invalid("state key '" + name + "' is declared twice");
  for (const auto& m : managed_)
    if (m.first == name) invalid("state key '" + name + "' is declared twice");
  if (name.empty() || (name != ROOT && name.rfind("__", 0) == 0) ||
      name.find(':') != std::string::npos)
    invalid("state key '" + name + "' is a reserved name");
  keys_.push_back({std::move(name), std::nullopt, std::move(default_value), false, std::nullopt});
  return *this;
}

state_graph& state_graph::add_key(std::string name, channels::reducer reducer,
                                  std::optional<value> initial) {
  add_key(std::move(name), std::move(initial));
  keys_.back().reducer = std::move(reducer);
  return *this;
}

state_graph& state_graph::add_key(std::string name, std::string_view reducer_name,
                                  std::optional<value> initial) {
  const channels::reducer* r = channels::builtin_reducer(reducer_name);
  if (!r)
    invalid("state key '" + name + "' names unknown reducer '" + std::string(reducer_name) +
            "' (built-in: append, add, max, min, merge, add_messages)");
  if (!initial && (reducer_name == "append" || reducer_name == "add_messages"))
    initial = value(list{});
  if (!initial && reducer_name == "merge") initial = value(object{});
  return add_key(std::move(name), *r, std::move(initial));
}

state_graph& state_graph::add_delta_key(std::string name, channels::reducer reducer,
                                        delta_options options) {
  if (options.snapshot_frequency <= 0)
    invalid("state key '" + name + "': snapshot_frequency must be a positive integer, got " +
            std::to_string(options.snapshot_frequency));
  if (!reducer.binary && !reducer.fold)
    invalid("state key '" + name + "': reducer '" + reducer.name + "' has no function");
  if (!options.empty) options.empty = value(list{});
  add_key(std::move(name));
  keys_.back().reducer = std::move(reducer);
  keys_.back().delta = std::move(options);
  return *this;
}

state_graph& state_graph::add_delta_key(std::string name, std::string_view reducer_name,
                                        delta_options options) {
  const channels::reducer* r = channels::builtin_reducer(reducer_name);
  if (!r)
    invalid("state key '" + name + "' names unknown reducer '" + std::string(reducer_name) +
            "' (built-in: append, add, max, min, merge, add_messages, messages_delta)");
  if (!options.empty && reducer_name == "merge") options.empty = value(object{});
  return add_delta_key(std::move(name), *r, std::move(options));
}

state_graph& state_graph::add_untracked_key(std::string name) {
  add_key(std::move(name));
  keys_.back().untracked = true;
  return *this;
}

state_graph& state_graph::add_managed_key(std::string name, managed_value kind) {
  add_key(name);  // checks the name like any key's; the channel is dropped at compile time
  keys_.pop_back();
  for (const auto& m : managed_)
    if (m.first == name) invalid("state key '" + name + "' is declared twice");
  managed_.emplace_back(std::move(name), kind);
  return *this;
}

state_graph& state_graph::set_input_keys(std::vector<std::string> keys,
                                         std::optional<std::string> title) {
  input_keys_ = std::move(keys);
  input_title_ = std::move(title);
  return *this;
}

state_graph& state_graph::set_output_keys(std::vector<std::string> keys,
                                          std::optional<std::string> title) {
  output_keys_ = std::move(keys);
  output_title_ = std::move(title);
  return *this;
}

state_graph& state_graph::set_key_schema(std::string key, key_schema schema) {
  if (std::string problem = schema.problem(); !problem.empty())
    invalid("state key '" + key + "': " + problem);
  key_schemas_[std::move(key)] = std::move(schema);
  return *this;
}

state_graph& state_graph::set_schema_title(std::string title) {
  schema_title_ = std::move(title);
  return *this;
}

namespace {

// As LangGraph's TimeoutPolicy.coerce, when the node is declared: each limit above 0.
void check_timeout(const std::string& who, const std::optional<timeout_policy>& t) {
  if (!t) return;
  if (std::string problem = t->problem(); !problem.empty()) invalid(who + ": " + problem);
}

}  // namespace

state_graph& state_graph::set_node_defaults(node_defaults defaults) {
  check_timeout("the node defaults", defaults.timeout);
  if (!defaults.retry.empty()) defaults_.retry = std::move(defaults.retry);
  if (defaults.cache) defaults_.cache = std::move(defaults.cache);
  if (defaults.timeout) defaults_.timeout = std::move(defaults.timeout);
  if (defaults.error_handler) defaults_.error_handler = std::move(defaults.error_handler);
  return *this;
}

state_graph& state_graph::add_node(std::string name, node_function fn, node_options options) {
  check_new_name(name);
  if (!fn) invalid("node '" + name + "' has no function");
  check_timeout("node '" + name + "'", options.timeout);
  node_names_.insert(name);
  nodes_.push_back({std::move(name), std::move(fn), nullptr, std::move(options)});
  return *this;
}

state_graph& state_graph::add_node(std::string name, std::shared_ptr<const pregel> subgraph,
                                   node_options options) {
  check_new_name(name);
  if (!subgraph) invalid("node '" + name + "' has no subgraph");
  check_timeout("node '" + name + "'", options.timeout);
  node_names_.insert(name);
  nodes_.push_back({std::move(name), nullptr, std::move(subgraph), std::move(options)});
  return *this;
}

state_graph& state_graph::add_sequence(std::vector<std::pair<std::string, node_function>> steps) {
  if (steps.empty()) invalid("a sequence needs at least one node");
  std::unordered_set<std::string> names;
  for (const auto& [name, fn] : steps) {
    check_new_name(name);
    if (!names.insert(name).second) invalid("node '" + name + "' is twice in the sequence");
    if (!fn) invalid("node '" + name + "' has no function");
  }
  for (std::size_t i = 0; i < steps.size(); ++i) {
    add_node(steps[i].first, std::move(steps[i].second));
    if (i > 0) add_edge(steps[i - 1].first, steps[i].first);
  }
  return *this;
}

state_graph& state_graph::add_edge(std::string from, std::string to) {
  if (from == END) invalid("END cannot be the start of an edge");
  if (to == START) invalid("START cannot be the end of an edge");
  edges_.emplace_back(std::move(from), std::move(to));
  return *this;
}

state_graph& state_graph::add_edge(std::vector<std::string> from, std::string to) {
  if (from.empty()) invalid("a join edge to '" + to + "' needs at least one source");
  if (from.size() == 1) return add_edge(std::move(from.front()), std::move(to));
  for (const auto& f : from)
    if (f == START || f == END) invalid("START and END cannot be sources of a join edge");
  if (to == START) invalid("START cannot be the end of an edge");
  joins_.emplace_back(std::move(from), std::move(to));
  return *this;
}

state_graph& state_graph::add_conditional_edges(
    std::string from, router_function router, std::map<std::string, std::string> path_map,
    std::optional<std::vector<std::string>> input_keys) {
  if (!router) invalid("conditional edges from '" + from + "' have no router");
  if (from == END) invalid("END cannot be the start of conditional edges");
  branches_.push_back(
      {std::move(from), std::move(router), std::move(path_map), std::move(input_keys)});
  return *this;
}

}  // namespace superstep
