// `superstep state|history|update|delete`: the graph state API on a stored thread.
#include <unordered_map>

#include "cli_commands.hpp"
#include "cli_commands_support.hpp"

namespace superstep::cli {

using detail::load_thread_graph;
using detail::snapshot_json;
using detail::thread_config;

int show_state(command_env& env, const state_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  checkpoint_tuple tuple = data.checkpoint(thread, args.checkpoint);
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  state_snapshot s = graph.graph->get_state(thread_config(thread, tuple.config.checkpoint_id));
  env.print(snapshot_json(s, graph.graph->graph(), tuple.pending_writes));
  return exit_done;
}

int show_history(command_env& env, const history_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  list_options options;
  options.filter = args.filter;
  options.limit = args.limit;
  data.require_checkpoint(thread, args.before);
  if (!args.before.empty()) options.before = checkpoint_config{thread, "", args.before};
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  auto snapshots = graph.graph->get_state_history(thread_config(thread), options);
  // The saved writes of each checkpoint, for the tasks' results.
  std::unordered_map<std::string, std::vector<pending_write>> pending;
  for (auto& t : data.saver()->list(checkpoint_config{thread, "", ""}, options))
    pending.emplace(t.config.checkpoint_id, std::move(t.pending_writes));
  for (const auto& s : snapshots)
    env.print(snapshot_json(s, graph.graph->graph(), pending[s.config.checkpoint_id]));
  return exit_done;
}

int update_state(command_env& env, const update_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  data.require_checkpoint(thread, args.checkpoint);
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  env.print(
      graph.graph->update_state(thread_config(thread, args.checkpoint), args.values, args.as_node));
  return exit_done;
}

int delete_thread(command_env& env, const delete_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  data.require_thread(thread);
  // Not while a run holds the thread (on a head, another client's): thread_busy names it.
  thread_runs::slot slot = data.saver()->runs().begin(thread, "delete", multitask_strategy::reject);
  data.saver()->delete_thread(thread);
  data.forget_graph(thread);
  env.print(object{{"thread", thread}, {"deleted", true}});
  return exit_done;
}

}  // namespace superstep::cli
