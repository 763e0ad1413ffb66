#pragma once

// Helpers of the ports of LangGraph's test_time_travel.py (time_travel_*_test.cpp): graphs
// whose nodes append to `value` (an operator.add list, LangGraph's State there), a record of
// the nodes called, and lookups in a thread's history.

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace superstep::conformance {

/// The nodes called, in order (nodes run on several threads).
struct called_log {
  std::mutex m;
  std::vector<std::string> names;

  void add(const std::string& name) {
    std::lock_guard lock(m);
    names.push_back(name);
  }
  void clear() {
    std::lock_guard lock(m);
    names.clear();
  }
  bool has(const std::string& name) {
    std::lock_guard lock(m);
    return std::find(names.begin(), names.end(), name) != names.end();
  }
  std::size_t count(const std::string& name) {
    std::lock_guard lock(m);
    return static_cast<std::size_t>(std::count(names.begin(), names.end(), name));
  }
  std::vector<std::string> all() {
    std::lock_guard lock(m);
    return names;
  }
};

/// A node that records its name and appends `item` to `value`.
inline node_function append(std::string name, std::string item,
                            std::shared_ptr<called_log> log = nullptr) {
  return [name, item, log](const value&, node_context&) -> value {
    if (log) log->add(name);
    return object{{"value", value::array({item})}};
  };
}

/// A node that records its name, asks `question` and appends "<prefix>:<answer>".
inline node_function ask(std::string name, std::string question, std::string prefix = "human",
                         std::shared_ptr<called_log> log = nullptr) {
  return [name, question, prefix, log](const value&, node_context& ctx) -> value {
    if (log) log->add(name);
    value answer = ctx.interrupt(question);
    return object{
        {"value", value::array({prefix + ":" +
                                (answer.is_string() ? answer.as_string() : answer.to_json())})}};
  };
}

/// A state graph with the one key `value` (an add-reduced list, [] before any write, as
/// LangGraph's `Annotated[list[str], operator.add]`).
inline state_graph value_graph() {
  state_graph b;
  b.add_key("value", "add", value(list{}));
  return b;
}

/// The input {"value": []}.
inline value empty_input() { return object{{"value", list{}}}; }

/// The config of checkpoint `checkpoint_id` of thread `id`.
inline value at(std::string_view id, const std::string& checkpoint_id) {
  return object{
      {"configurable", object{{"thread_id", std::string(id)}, {"checkpoint_id", checkpoint_id}}}};
}

/// A snapshot's config as a run config.
inline value config_of(const state_snapshot& s) {
  return object{{"configurable", object{{"thread_id", s.config.thread_id},
                                        {"checkpoint_ns", s.config.checkpoint_ns},
                                        {"checkpoint_id", s.config.checkpoint_id}}}};
}

/// The snapshots of a history whose next is exactly `next`, newest first.
inline std::vector<state_snapshot> with_next(const std::vector<state_snapshot>& history,
                                             const std::vector<std::string>& next) {
  std::vector<state_snapshot> out;
  for (const auto& s : history)
    if (s.next == next) out.push_back(s);
  return out;
}

/// The newest checkpoint of the thread's history whose next is `{node}` (Python's `next(...)`);
/// fails the case when there is none.
inline state_snapshot newest_before(const pregel& graph, const value& config,
                                    const std::string& node) {
  auto found = with_next(graph.get_state_history(config), {node});
  BOOST_TEST_REQUIRE(!found.empty(), "no checkpoint with next " << node);
  return found.front();
}

/// The oldest one (Python's `[...][-1]`).
inline state_snapshot oldest_before(const pregel& graph, const value& config,
                                    const std::string& node) {
  auto found = with_next(graph.get_state_history(config), {node});
  BOOST_TEST_REQUIRE(!found.empty(), "no checkpoint with next " << node);
  return found.back();
}

/// The value of a result's first interrupt (null when none).
inline value first_interrupt(const value& result) {
  const value& i = result.get("__interrupt__");
  if (!i.is_list() || i.as_list().empty()) return value();
  return i.as_list().front().get("value");
}

/// Whether `result["value"]` (a list) holds `item`.
inline bool holds(const value& result, const std::string& item) {
  const value& v = result.get("value");
  if (!v.is_list()) return false;
  for (const auto& x : v.as_list())
    if (x == value(item)) return true;
  return false;
}

/// (source, next, values) of each checkpoint of a history, newest first, one string each
/// (LangGraph test_time_travel.py's _checkpoint_summary, ids aside).
inline std::vector<std::string> summary(const std::vector<state_snapshot>& history) {
  std::vector<std::string> out;
  for (const auto& s : history) {
    std::string next;
    for (const auto& n : s.next) next += (next.empty() ? "" : ",") + n;
    out.push_back(s.metadata.get("source").as_string() + " (" + next + ") " + s.values.to_json());
  }
  return out;
}

/// Compile options with a saver and, for a subgraph, what it keeps.
inline compile_options sub_opts(subgraph_checkpointer kind) {
  compile_options o = opts();
  o.as_subgraph = kind;
  return o;
}

}  // namespace superstep::conformance
