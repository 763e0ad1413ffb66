#include "ops/support.hpp"

#include <cstdio>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"

namespace superstep::ops::detail {

void print_line(const value& v) {
  std::string line = v.to_json();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

value thread_config(const std::string& thread_id, const std::string& checkpoint_id,
                    const std::string& checkpoint_ns) {
  object configurable{{"thread_id", thread_id}};
  if (!checkpoint_id.empty()) configurable.set("checkpoint_id", checkpoint_id);
  if (!checkpoint_ns.empty()) configurable.set("checkpoint_ns", checkpoint_ns);
  return object{{"configurable", value(std::move(configurable))}};
}

cluster::loaded_graph load_thread_graph(const command_env& env, const thread_args& where) {
  value spec;
  if (env.spec_text) {
    try {
      spec = value::parse_json(*env.spec_text);
    } catch (const error& e) {
      throw error(error_code::invalid_spec,
                  std::string("invalid graph spec: not JSON: ") + e.what());
    }
  } else {
    std::string path = where.graph_path;
    if (path.empty()) {
      auto saved = env.data.saved_graph(where.thread);
      if (!saved)
        throw error(error_code::not_found, "thread '" + where.thread + "' has no graph spec in " +
                                               env.data.path() + " (give --graph GRAPH.json)");
      path = *saved;
    }
    spec = cluster::read_spec_file(path);
  }
  runtime_options options;
  options.checkpointer = env.data.saver();
  options.store = env.data.store();  // the same database's long-term store
  if (env.load) return env.load(spec, std::move(options));
  return cluster::load_graph(spec, env.registry, std::move(options));
}

value snapshot_json(const state_snapshot& snapshot, const pregel_graph& graph,
                    const std::vector<pending_write>& pending) {
  const auto& keys = graph.state_channels.empty() ? graph.output_channels : graph.state_channels;
  const std::set<std::string_view> state_keys(keys.begin(), keys.end());
  // As the engine decides on resuming: a task with saved writes is done unless one of them
  // is an error or an interrupt.
  std::unordered_set<std::string_view> unfinished;
  // Each task's writes in saved order, gathered in one pass (a crashed step of 10^5 Sends has
  // as many tasks and writes: no scan of all writes per task).
  std::unordered_map<std::string_view, std::vector<const pending_write*>> by_task;
  for (const auto& w : pending) {
    if (w.channel == ERROR || w.channel == INTERRUPT) unfinished.insert(w.task_id);
    by_task[w.task_id].push_back(&w);
  }

  object out = snapshot.to_value().as_object();
  list tasks;
  for (const value& task : out.find("tasks")->as_list()) {
    const std::string& id = task.get("id").as_string();
    std::optional<object> result;
    if (auto writes = by_task.find(id); writes != by_task.end() && !unfinished.count(id)) {
      result.emplace();
      for (const pending_write* w : writes->second)
        if (state_keys.count(w->channel)) result->set(w->channel, w->v);
    }
    object t = task.as_object();
    t.set("result", result ? value(std::move(*result)) : value());
    tasks.push_back(value(std::move(t)));
  }
  out.set("tasks", value(std::move(tasks)));
  return value(std::move(out));
}

}  // namespace superstep::ops::detail
