// `superstep state|history|update|delete`: the graph state API on a stored thread.
#include <vector>

#include "ops/operations.hpp"
#include "ops/support.hpp"

namespace superstep::ops {

using detail::load_thread_graph;
using detail::snapshot_json;
using detail::thread_config;

int show_state(command_env& env, const state_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  if (!args.checkpoint_ns.empty()) {
    // A subgraph's state, read through the subgraph (its tasks' results from its writes).
    data.require_thread(thread);
    cluster::loaded_graph graph = load_thread_graph(env, args.where);
    env.print(
        graph.graph
            ->get_state(thread_config(thread, args.checkpoint, args.checkpoint_ns), args.subgraphs)
            .to_value());
    return exit_done;
  }
  checkpoint_tuple tuple = data.checkpoint(thread, args.checkpoint);
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  // The tuple read above, not read again: a crashed fan-out's holds 10^5 writes. With the
  // subgraphs' states, through get_state, which reads them.
  state_snapshot s = args.subgraphs
                         ? graph.graph->get_state(thread_config(thread, args.checkpoint), true)
                         : graph.graph->state_at(tuple, args.checkpoint.empty());
  env.print(snapshot_json(s, graph.graph->graph(), tuple.pending_writes));
  return exit_done;
}

int list_threads(command_env& env, const threads_args& args) {
  data_dir& data = env.data;
  for (const std::string& thread : data.saver()->thread_ids()) {
    auto tuple = data.saver()->get_tuple(checkpoint_config{thread, "", ""});
    if (!tuple) continue;  // its checkpoints are all in subgraph namespaces
    object line{{"thread", thread},
                {"step", tuple->metadata.step},
                {"checkpoint", tuple->config.checkpoint_id},
                {"updated_at", tuple->checkpoint.ts}};
    thread_args where = args.where;
    where.thread = thread;
    try {
      cluster::loaded_graph graph = load_thread_graph(env, where);
      state_snapshot s = graph.graph->state_at(*tuple, true);
      bool interrupted = false;
      for (const auto& t : s.tasks) interrupted = interrupted || !t.interrupts.empty();
      list next;
      for (const auto& n : s.next) next.emplace_back(n);
      // A task left, even one whose writes were saved (its step cancelled or failed before
      // the step's checkpoint), is a step still to finish.
      line.set("status", std::string(interrupted       ? "interrupted"
                                     : s.tasks.empty() ? "done"
                                                       : "pending"));
      line.set("next", value(std::move(next)));
    } catch (const error& e) {
      line.set("status", "unknown");
      line.set("error", std::string(e.what()));
    }
    // A run holds the thread now (on a head: a client's): its checkpoints are moving.
    if (std::string running = data.saver()->runs().status(thread).running; !running.empty()) {
      line.set("status", "busy");
      line.set("run", running);
    }
    env.print(value(std::move(line)));
  }
  return exit_done;
}

int show_history(command_env& env, const history_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  list_options options;
  options.filter = args.filter;
  options.limit = args.limit;
  if (!args.checkpoint_ns.empty()) {
    // A subgraph's checkpoints, read through the subgraph.
    data.require_thread(thread);
    if (!args.before.empty())
      options.before = checkpoint_config{thread, args.checkpoint_ns, args.before};
    cluster::loaded_graph graph = load_thread_graph(env, args.where);
    for (const state_snapshot& s :
         graph.graph->get_state_history(thread_config(thread, "", args.checkpoint_ns), options))
      env.print(s.to_value());
    return exit_done;
  }
  if (!args.before.empty()) {
    data.require_checkpoint(thread, args.before);
    options.before = checkpoint_config{thread, "", args.before};
  }
  // The checkpoints with their saved writes (for the tasks' results), read once.
  std::vector<checkpoint_tuple> tuples =
      data.saver()->list(checkpoint_config{thread, "", ""}, options);
  if (tuples.empty()) data.require_thread(thread);
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  for (const auto& t : tuples)
    env.print(snapshot_json(graph.graph->state_at(t), graph.graph->graph(), t.pending_writes));
  return exit_done;
}

int update_state(command_env& env, const update_args& args) {
  const std::string& thread = args.where.thread;
  data_dir& data = env.data;
  if (args.checkpoint_ns.empty())
    data.require_checkpoint(thread, args.checkpoint);
  else
    data.require_thread(thread);
  cluster::loaded_graph graph = load_thread_graph(env, args.where);
  env.print(graph.graph->update_state(thread_config(thread, args.checkpoint, args.checkpoint_ns),
                                      args.values, args.as_node));
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

}  // namespace superstep::ops
