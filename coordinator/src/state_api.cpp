// The graph state API (LangGraph get_state, get_state_history, update_state): reading and
// writing a thread's checkpoints through the graph's own channels and writers.
#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "pregel_impl.hpp"
#include "run_config.hpp"
#include "run_context.hpp"
#include "superstep/coordinator/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"

namespace superstep {

namespace detail {

checkpoint_config checkpoint_config_of(const value& config, bool need_thread) {
  checkpoint_config c;
  const value& conf = config.get("configurable");
  auto text = [&](const char* key) -> std::string {
    const value& v = conf.get(key);
    if (v.is_null()) return {};
    return v.is_string() ? v.as_string() : v.to_json();
  };
  c.thread_id = text("thread_id");
  c.checkpoint_ns = text("checkpoint_ns");
  c.checkpoint_id = text("checkpoint_id");
  if (need_thread && c.thread_id.empty())
    throw error(error_code::invalid_argument,
                "a graph with a checkpointer needs configurable.thread_id");
  return c;
}

value checkpoint_config_value(const checkpoint_config& c) {
  return object{{"configurable", object{{"thread_id", c.thread_id},
                                        {"checkpoint_ns", c.checkpoint_ns},
                                        {"checkpoint_id", c.checkpoint_id}}}};
}

}  // namespace detail

namespace {

checkpoint_saver& need_saver(const std::shared_ptr<checkpoint_saver>& saver, const char* what) {
  if (!saver)
    throw error(error_code::invalid_argument,
                std::string(what) + " needs a graph compiled with a checkpointer");
  return *saver;
}

const std::vector<std::string>& state_channels(const pregel_graph& g) {
  return g.state_channels.empty() ? g.output_channels : g.state_channels;
}

// What the saved writes of a checkpoint say of one task: its error and its interrupts.
struct task_outcome {
  std::optional<std::string> error;
  list interrupts;
};

// What `get_state` shows of one checkpoint: its values, the tasks it would run, their errors
// and interrupts from the saved pending writes. With `apply_pending_writes` (the thread's
// latest state, no checkpoint id asked for), as LangGraph: the writes of the tasks that
// finished are applied to the values, and `next` keeps only the tasks that did not (failed,
// interrupted, or not run).
state_snapshot snapshot_of(const pregel_graph& g, const algo::graph_index& index,
                           const checkpoint_tuple& tuple, bool apply_pending_writes = false) {
  state_snapshot s;
  s.config = tuple.config;
  s.parent_config = tuple.parent_config;
  s.metadata = metadata_to_value(tuple.metadata);
  s.created_at = tuple.checkpoint.ts;
  const std::string ns = tuple.config.checkpoint_ns;
  const std::int64_t step = tuple.metadata.step + 1;
  // A Command's update saved with the checkpoint (as the writes of no task) is part of its
  // state, as LangGraph shows it.
  pregel_task null_task;
  null_task.name = std::string(INPUT);
  for (const auto& w : tuple.pending_writes)
    if (w.task_id == NULL_TASK_ID) null_task.writes.emplace_back(w.channel, w.v);
  auto checkpoint_state = [&] {
    algo::run_state state = algo::restore(g, tuple.checkpoint);  // values are shared, not copied
    if (!null_task.writes.empty()) {
      std::vector<pregel_task*> batch{&null_task};
      (void)algo::apply_writes(state, index, batch);
    }
    return state;
  };
  algo::run_state state = checkpoint_state();
  auto tasks = algo::prepare_next_tasks(g, index, state, nullptr, step, ns);
  std::unordered_set<std::string_view> finished;  // ids of tasks whose writes were applied
  if (apply_pending_writes && !tuple.pending_writes.empty()) {
    std::unordered_map<std::string_view, pregel_task*> by_id;
    for (auto& t : tasks) by_id.emplace(t.id, &t);
    // A task that failed or interrupted keeps its place in `next`, whatever else it wrote
    // (the resume values an interrupted task was given so far).
    std::unordered_set<std::string_view> unfinished;
    for (const auto& w : tuple.pending_writes)
      if (w.channel == ERROR || w.channel == INTERRUPT) unfinished.insert(w.task_id);
    for (const auto& w : tuple.pending_writes) {
      if (unfinished.count(w.task_id)) continue;
      auto it = by_id.find(w.task_id);
      if (it == by_id.end()) continue;
      it->second->writes.emplace_back(w.channel, w.v);
      finished.insert(it->second->id);
    }
    std::vector<pregel_task*> batch;
    for (auto& t : tasks)
      if (!t.writes.empty()) batch.push_back(&t);
    try {
      if (!batch.empty()) (void)algo::apply_writes(state, index, batch);
    } catch (const error&) {
      // Writes the channels refuse (the step failed applying them): the state is shown as
      // its checkpoint holds it, every task still next, rather than not at all.
      state = checkpoint_state();
      finished.clear();
    }
  }
  bool single = g.state_channels.empty() ? g.output_single : g.state_single;
  auto values = algo::read_channels(state.channels, state_channels(g), single);
  s.values = values ? *values : value(object{});
  // Each task's error and interrupts, gathered in one pass over the writes (a crashed step
  // of 10^5 Sends has as many tasks and writes: no scan of all writes per task).
  std::unordered_map<std::string_view, task_outcome> outcomes;
  for (const auto& w : tuple.pending_writes) {
    if (w.channel == ERROR) {
      outcomes[w.task_id].error = w.v.is_string() ? w.v.as_string() : w.v.to_json();
    } else if (w.channel == INTERRUPT) {
      list& interrupts = outcomes[w.task_id].interrupts;
      if (w.v.is_list()) {
        for (const auto& i : w.v.as_list())
          if (!i.is_null()) interrupts.push_back(i);  // null: a subgraph's breakpoint
      } else {
        interrupts.push_back(w.v);
      }
    }
  }
  std::set<std::string> next;
  s.tasks.reserve(tasks.size());
  for (const auto& t : tasks) {
    if (!finished.count(t.id)) next.insert(t.name);
    snapshot_task& st = s.tasks.emplace_back(snapshot_task{t.id, t.name, std::nullopt, list{}});
    if (auto it = outcomes.find(t.id); it != outcomes.end()) {
      st.error = it->second.error;
      st.interrupts = it->second.interrupts;
    }
  }
  s.next.assign(next.begin(), next.end());
  return s;
}

}  // namespace

value state_snapshot::to_value() const {
  list next_list(next.begin(), next.end());
  list task_list;
  for (const auto& t : tasks)
    task_list.push_back(object{{"id", t.id},
                               {"name", t.name},
                               {"error", t.error ? value(*t.error) : value()},
                               {"interrupts", value(t.interrupts)}});
  return object{
      {"values", values},
      {"next", value(std::move(next_list))},
      {"config", detail::checkpoint_config_value(config)},
      {"metadata", metadata},
      {"created_at", created_at},
      {"parent_config", parent_config ? detail::checkpoint_config_value(*parent_config) : value()},
      {"tasks", value(std::move(task_list))}};
}

state_snapshot pregel::get_state(const value& config) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "get_state");
  checkpoint_config cfg = detail::checkpoint_config_of(config, true);
  auto tuple = saver.get_tuple(cfg);
  if (!tuple) {
    if (!cfg.checkpoint_id.empty())
      throw error(error_code::not_found,
                  "checkpoint " + cfg.checkpoint_id + " not found in thread " + cfg.thread_id);
    state_snapshot empty;
    empty.values = object{};
    empty.config = cfg;
    return empty;
  }
  return snapshot_of(graph_, impl_->index, *tuple, cfg.checkpoint_id.empty());
}

state_snapshot pregel::state_at(const checkpoint_tuple& tuple, bool apply_pending_writes) const {
  return snapshot_of(graph_, impl_->index, tuple, apply_pending_writes);
}

std::vector<state_snapshot> pregel::get_state_history(const value& config,
                                                      const list_options& options) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "get_state_history");
  checkpoint_config cfg = detail::checkpoint_config_of(config, true);
  std::vector<state_snapshot> out;
  for (const auto& tuple : saver.list(cfg, options))
    out.push_back(snapshot_of(graph_, impl_->index, tuple));
  return out;
}

namespace {

// Saves `cp` as the child of `parent_id` with new, sorted id (update_state's checkpoints).
checkpoint_config put_update(checkpoint_saver& saver, const checkpoint_config& cfg, checkpoint cp,
                             const std::string& parent_id, checkpoint_metadata meta,
                             const std::map<std::string, channel_version>& new_versions) {
  checkpoint_id_generator ids;
  cp.id = ids.next();
  while (!parent_id.empty() && cp.id <= parent_id) cp.id = ids.next();
  cp.ts = now_iso8601();
  checkpoint_config parent = cfg;
  parent.checkpoint_id = parent_id;
  checkpoint_config stored = saver.put(parent, cp, meta, new_versions);
  saver.runs().saved_checkpoint(stored);
  return stored;
}

value copy_checkpoint(checkpoint_saver& saver, const checkpoint_config& cfg,
                      std::optional<checkpoint_tuple>& tuple) {
  // LangGraph's as_node="__copy__": the same state under a new id, a sibling of the checkpoint
  // copied (same parent), with source "fork"; running from it re-runs that checkpoint's tasks.
  if (!tuple)
    throw error(error_code::invalid_argument,
                "update_state as __copy__: thread " + cfg.thread_id + " has no checkpoint to copy");
  checkpoint_metadata meta;
  meta.source = "fork";
  meta.step = tuple->metadata.step + 1;
  meta.parents = tuple->metadata.parents;
  // Every channel's value is stored again under its version: the parent may lack them.
  std::map<std::string, channel_version> versions(tuple->checkpoint.channel_versions.begin(),
                                                  tuple->checkpoint.channel_versions.end());
  const std::string parent_id = tuple->parent_config ? tuple->parent_config->checkpoint_id : "";
  return detail::checkpoint_config_value(
      put_update(saver, cfg, std::move(tuple->checkpoint), parent_id, std::move(meta), versions));
}

value clear_tasks(const pregel_graph& graph, const algo::graph_index& index,
                  checkpoint_saver& saver, const checkpoint_config& cfg, checkpoint cp,
                  std::int64_t step, std::vector<pending_write> pending) {
  // LangGraph's update_state(None, as_node=END): the checkpoint's tasks are applied as if they
  // had run, with the writes of those that did (and the writes of no task), so nothing is
  // next and no interrupt is pending.
  const std::string parent_id = cp.id;
  algo::run_state state = algo::restore(graph, std::move(cp));
  state.max_version = std::max(state.max_version, saver.latest_version(cfg));
  std::vector<pregel_task> tasks =
      algo::prepare_next_tasks(graph, index, state, nullptr, step + 1, cfg.checkpoint_ns);
  pregel_task in;
  in.name = std::string(INPUT);
  std::unordered_map<std::string_view, pregel_task*> by_id;
  for (auto& t : tasks) by_id.emplace(t.id, &t);
  for (const auto& w : pending) {
    if (w.channel == ERROR || w.channel == INTERRUPT || w.channel == RESUME ||
        w.channel == NO_WRITES)
      continue;
    if (w.task_id == NULL_TASK_ID) {
      in.writes.emplace_back(w.channel, w.v);
    } else if (auto it = by_id.find(w.task_id); it != by_id.end()) {
      it->second->writes.emplace_back(w.channel, w.v);
    }
  }
  std::map<std::string, channel_version> new_versions;
  if (!in.writes.empty()) {
    std::vector<pregel_task*> null_batch{&in};
    new_versions = algo::apply_writes(state, index, null_batch).new_versions;
  }
  std::vector<pregel_task*> batch;
  for (auto& t : tasks) batch.push_back(&t);
  for (const auto& [ch, v] : algo::apply_writes(state, index, batch).new_versions)
    new_versions[ch] = v;
  checkpoint_metadata meta;
  meta.source = "update";
  meta.step = step + 1;
  return detail::checkpoint_config_value(put_update(saver, cfg, std::move(state.checkpoint),
                                                    parent_id, std::move(meta), new_versions));
}

}  // namespace

value pregel::update_state(const value& config, const value& values,
                           const std::optional<std::string>& as_node) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "update_state");
  checkpoint_config cfg = detail::checkpoint_config_of(config, true);
  // Not while a run writes the thread: both would issue the same channel versions.
  thread_runs::slot slot =
      saver.runs().begin(cfg.thread_id, "update_state", multitask_strategy::reject);
  auto tuple = saver.get_tuple(cfg);
  if (!tuple && !cfg.checkpoint_id.empty())
    throw error(error_code::not_found,
                "checkpoint " + cfg.checkpoint_id + " not found in thread " + cfg.thread_id);
  if (as_node && (*as_node == "__copy__" || *as_node == END) && !values.is_null())
    throw error(error_code::invalid_argument,
                "update_state as " + *as_node + " takes no values (null), not " + values.to_json());
  if (as_node && *as_node == "__copy__") return copy_checkpoint(saver, cfg, tuple);
  checkpoint cp;
  std::int64_t step = -1;
  std::vector<pending_write> pending;
  if (tuple) {
    cp = std::move(tuple->checkpoint);
    step = tuple->metadata.step;
    pending = std::move(tuple->pending_writes);
  }
  if (as_node && *as_node == END)
    return clear_tasks(graph_, impl_->index, saver, cfg, std::move(cp), step, std::move(pending));
  // Without as_node: the node that ran last (the latest version any node has seen).
  std::string node = as_node.value_or("");
  if (node.empty()) {
    channel_version best = 0;
    std::set<std::string> last;
    for (const auto& [name, seen] : cp.versions_seen) {
      if (!impl_->index.node_by_name.count(name)) continue;
      for (const auto& [_, v] : seen) {
        if (v > best) {
          best = v;
          last = {name};
        } else if (v == best) {
          last.insert(name);
        }
      }
    }
    if (last.size() > 1)
      throw error(error_code::invalid_argument, "Ambiguous update, specify as_node");
    node = last.empty() ? std::string(START) : *last.begin();
  }
  auto found = impl_->index.node_by_name.find(node);
  if (found == impl_->index.node_by_name.end())
    throw error(error_code::invalid_argument, "update_state: unknown node '" + node + "'");

  algo::run_state state = algo::restore(graph_, std::move(cp));
  // New versions above every one the thread stored: updating an earlier checkpoint forks, and
  // the head of a fork may have lower versions than the branch it left.
  state.max_version = std::max(state.max_version, saver.latest_version(cfg));
  // Run the node's writers (not its function) on `values`, as if it had returned them.
  pregel_task task;
  task.node = found->second;
  task.name = node;
  task.triggers = {std::string(INTERRUPT)};
  detail::run_shared shared;
  shared.config = config;
  detail::task_context ctx(shared, task, step + 1, state.channels);
  for (const auto& w : graph_.nodes[task.node].writers) w(values, ctx);
  std::vector<pregel_task*> batch{&task};
  auto applied = algo::apply_writes(state, impl_->index, batch);

  checkpoint& next = state.checkpoint;
  const std::string parent_id = next.id;
  checkpoint_id_generator ids;
  next.id = ids.next();
  if (!parent_id.empty() && next.id <= parent_id)  // keep ids sorted after the parent's
    while (next.id <= parent_id) next.id = ids.next();
  next.ts = now_iso8601();
  checkpoint_metadata meta;
  meta.source = "update";
  meta.step = step + 1;
  merge_config_metadata(meta, config);
  checkpoint_config parent = cfg;
  parent.checkpoint_id = parent_id;
  checkpoint_config stored = saver.put(parent, next, meta, applied.new_versions);
  saver.runs().saved_checkpoint(stored);
  return detail::checkpoint_config_value(stored);
}

void pregel::delete_thread(const std::string& thread_id) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "delete_thread");
  thread_runs::slot slot =
      saver.runs().begin(thread_id, "delete_thread", multitask_strategy::reject);
  saver.delete_thread(thread_id);
}

}  // namespace superstep
