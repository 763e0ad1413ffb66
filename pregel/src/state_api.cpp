// The graph state API (LangGraph get_state, get_state_history, update_state): reading and
// writing a thread's checkpoints through the graph's own channels and writers.
#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "pregel_impl.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/delta_channels.hpp"
#include "superstep/pregel/run_config.hpp"
#include "superstep/pregel/run_context.hpp"
#include "task_outcomes.hpp"

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

void ids_after_latest(checkpoint_id_generator& ids, checkpoint_saver& saver,
                      const checkpoint_config& at) {
  ids.after(at.checkpoint_id);
  if (at.checkpoint_id.empty()) return;
  checkpoint_config latest = at;
  latest.checkpoint_id.clear();
  if (auto head = saver.get_tuple(latest)) ids.after(head->config.checkpoint_id);
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

// What `get_state` shows of one checkpoint: its values, the tasks it would run, their errors
// and interrupts from the saved pending writes. With `apply_pending_writes` (the thread's
// latest state, no checkpoint id asked for), as LangGraph: the writes of the tasks that
// finished are applied to the values, and `next` keeps only the tasks that did not (failed,
// interrupted, or not run).
state_snapshot snapshot_of(const pregel_graph& g, const algo::graph_index& index,
                           checkpoint_saver* saver, const checkpoint_tuple& tuple,
                           bool apply_pending_writes = false) {
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
    detail::rebuild_delta_channels(state, index, saver, tuple.config);
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
    // A task that failed or interrupted keeps its place in `next` (with the resume values it
    // was given so far), unless it has finished since: a write of its own.
    std::unordered_set<std::string_view> unfinished, succeeded;
    for (const auto& w : tuple.pending_writes)
      if (w.channel != ERROR && w.channel != INTERRUPT && w.channel != RESUME)
        succeeded.insert(w.task_id);
    for (const auto& w : tuple.pending_writes)
      if ((w.channel == ERROR || w.channel == INTERRUPT) && !succeeded.count(w.task_id))
        unfinished.insert(w.task_id);
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
  bool single = g.state_single || (g.state_channels.empty() && g.output_single);
  auto values = algo::read_channels(state.channels, state_channels(g), single);
  // An empty single state channel reads as null (LangGraph's read_channels of one channel).
  s.values = values ? *values : g.state_single ? value() : value(object{});
  // Each task's error, interrupts and result, from the saved writes.
  const auto outcomes = detail::task_outcomes(tuple.pending_writes);
  s.tasks.reserve(tasks.size());
  // As LangGraph's snapshot: the step's PUSH tasks (Sends) first, then its PULL tasks.
  std::vector<const pregel_task*> ordered;
  ordered.reserve(tasks.size());
  for (const bool push : {true, false})
    for (const auto& t : tasks)
      if (t.push == push) ordered.push_back(&t);
  for (const pregel_task* task : ordered) {
    const pregel_task& t = *task;
    // As LangGraph: each task still to run, in task order (a node twice for two Sends).
    if (!finished.count(t.id)) s.next.push_back(t.name);
    snapshot_task& st = s.tasks.emplace_back();
    st.id = t.id;
    st.name = t.name;
    // As LangGraph's: a Send's (PUSH, index, False), a triggered task's (PULL, node).
    st.path = t.push ? list{std::string(PUSH), static_cast<std::int64_t>(t.push_index), false}
                     : list{std::string(PULL), std::string(t.name)};
    // A task that runs a subgraph: where the subgraph keeps its checkpoints.
    if (auto node = index.node_by_name.find(t.name);
        node != index.node_by_name.end() && g.nodes[node->second].subgraph)
      st.state_config = checkpoint_config{tuple.config.thread_id,
                                          (ns.empty() ? "" : ns + "|") + t.name + ":" + t.id, ""};
    if (auto it = outcomes.find(t.id); it != outcomes.end()) {
      st.error = it->second.error;
      st.interrupts = it->second.interrupts;
      st.result = detail::task_result(g, it->second);
    }
  }
  return s;
}

}  // namespace

value state_snapshot::to_value() const {
  list next_list(next.begin(), next.end());
  list task_list;
  for (const auto& t : tasks) {
    object o{{"id", t.id},
             {"name", t.name},
             {"path", value(t.path)},
             {"error", t.error ? value(*t.error) : value()},
             {"interrupts", value(t.interrupts)}};
    if (!t.result.is_null()) o.set("result", t.result);
    if (t.state)
      o.set("state", t.state->to_value());
    else if (t.state_config)
      o.set("state",
            object{{"configurable", object{{"thread_id", t.state_config->thread_id},
                                           {"checkpoint_ns", t.state_config->checkpoint_ns}}}});
    task_list.push_back(value(std::move(o)));
  }
  return object{
      {"values", values},
      {"next", value(std::move(next_list))},
      {"config", detail::checkpoint_config_value(config)},
      {"metadata", metadata},
      {"created_at", created_at},
      {"parent_config", parent_config ? detail::checkpoint_config_value(*parent_config) : value()},
      {"tasks", value(std::move(task_list))}};
}

state_snapshot pregel::get_state(const value& config, bool subgraphs) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "get_state");
  return read_state(saver, detail::checkpoint_config_of(bound_config(config), true), subgraphs);
}

const pregel& pregel::graph_for(checkpoint_config& cfg) const {
  // A namespace names a subgraph: each part "node:task id" leads one level down, to the graph
  // whose checkpoints they are (LangGraph's get_subgraphs(namespace=recast)).
  std::vector<std::string> parts;
  for (std::size_t start = 0; !cfg.checkpoint_ns.empty();) {
    std::size_t bar = cfg.checkpoint_ns.find('|', start);
    parts.push_back(cfg.checkpoint_ns.substr(start, bar == std::string::npos ? bar : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  const pregel* owner = this;
  for (const auto& part : parts) {
    const std::string node = part.substr(0, part.find(':'));
    auto found = owner->impl_->index.node_by_name.find(node);
    if (found == owner->impl_->index.node_by_name.end() ||
        !owner->graph_.nodes[found->second].subgraph)
      throw error(error_code::not_found, "Subgraph " + detail::stable_ns(cfg.checkpoint_ns) +
                                             " not found (no subgraph node '" + node + "')");
    owner = owner->graph_.nodes[found->second].subgraph.get();
  }
  // A stateful subgraph keeps its checkpoints under the namespace without task ids.
  if (!parts.empty() && owner->options_.as_subgraph == subgraph_checkpointer::stateful)
    cfg.checkpoint_ns = detail::stable_ns(cfg.checkpoint_ns);
  return *owner;
}

state_snapshot pregel::read_state(checkpoint_saver& saver, checkpoint_config cfg,
                                  bool subgraphs) const {
  const pregel* owner = &graph_for(cfg);
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
  state_snapshot s =
      snapshot_of(owner->graph_, owner->impl_->index, &saver, *tuple, cfg.checkpoint_id.empty());
  if (!subgraphs) return s;
  // Each task that runs a subgraph: the subgraph's state under the task's namespace.
  const std::string& ns = tuple->config.checkpoint_ns;
  for (auto& t : s.tasks) {
    auto found = owner->impl_->index.node_by_name.find(t.name);
    if (found == owner->impl_->index.node_by_name.end() ||
        !owner->graph_.nodes[found->second].subgraph)
      continue;
    checkpoint_config sub;
    sub.thread_id = cfg.thread_id;
    sub.checkpoint_ns = (ns.empty() ? "" : ns + "|") + t.name + ":" + t.id;
    t.state = std::make_shared<const state_snapshot>(read_state(saver, std::move(sub), true));
  }
  return s;
}

state_snapshot pregel::state_at(const checkpoint_tuple& tuple, bool apply_pending_writes) const {
  return snapshot_of(graph_, impl_->index, options_.checkpointer.get(), tuple,
                     apply_pending_writes);
}

std::vector<state_snapshot> pregel::get_state_history(const value& config,
                                                      const list_options& options) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "get_state_history");
  checkpoint_config cfg = detail::checkpoint_config_of(bound_config(config), true);
  const pregel& owner = graph_for(cfg);
  std::vector<state_snapshot> out;
  for (const auto& tuple : saver.list(cfg, options))
    out.push_back(snapshot_of(owner.graph_, owner.impl_->index, &saver, tuple));
  return out;
}

namespace {

// Saves `cp` as the child of `parent_id` with new, sorted id (update_state's checkpoints).
checkpoint_config put_update(checkpoint_saver& saver, const checkpoint_config& cfg, checkpoint cp,
                             const std::string& parent_id, checkpoint_metadata meta,
                             const std::map<std::string, channel_version>& new_versions) {
  checkpoint_config parent = cfg;
  parent.checkpoint_id = parent_id;
  checkpoint_id_generator ids;
  detail::ids_after_latest(ids, saver, parent);
  cp.id = ids.next();
  cp.ts = now_iso8601();
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
  // The copy's delta channels are rebuilt from the same parents: the same counters.
  if (const value* counters = tuple->metadata.extra.find(detail::delta_counters_key))
    meta.extra.set(std::string(detail::delta_counters_key), *counters);
  // Every channel's value is stored again under its version: the parent may lack them.
  std::map<std::string, channel_version> versions(tuple->checkpoint.channel_versions.begin(),
                                                  tuple->checkpoint.channel_versions.end());
  const std::string parent_id = tuple->parent_config ? tuple->parent_config->checkpoint_id : "";
  return detail::checkpoint_config_value(
      put_update(saver, cfg, std::move(tuple->checkpoint), parent_id, std::move(meta), versions));
}

value clear_tasks(const pregel_graph& graph, const algo::graph_index& index,
                  checkpoint_saver& saver, const checkpoint_config& cfg, checkpoint cp,
                  std::int64_t step, std::vector<pending_write> pending,
                  const checkpoint_tuple& saved) {
  // LangGraph's update_state(None, as_node=END): the checkpoint's tasks are applied as if they
  // had run, with the writes of those that did (and the writes of no task), so nothing is
  // next and no interrupt is pending.
  const std::string parent_id = cp.id;
  algo::run_state state = algo::restore(graph, std::move(cp));
  detail::rebuild_delta_channels(state, index, &saver, saved.config);
  state.max_version = std::max(state.max_version, saver.latest_version(cfg));
  task_list tasks =
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
  detail::delta_counters counters = detail::delta_counters_of(saved.metadata);
  detail::prepare_delta_checkpoint(state, index, counters, new_versions, true,
                                   detail::delta_snapshots::due, meta);
  return detail::checkpoint_config_value(put_update(saver, cfg, std::move(state.checkpoint),
                                                    parent_id, std::move(meta), new_versions));
}

// The node an update without as_node is applied as (LangGraph's rule): the graph's only node;
// on a thread where no node ran yet, START; else the node that ran last, if only one did.
std::string default_as_node(const pregel_graph& graph, const algo::graph_index& index,
                            const checkpoint& cp) {
  if (graph.nodes.size() == 1) return graph.nodes.front().name;
  channel_version best = 0;
  std::set<std::string> last;
  for (const auto& [name, seen] : cp.versions_seen) {
    if (!index.node_by_name.count(name)) continue;
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
  return last.empty() ? std::string(START) : *last.begin();
}

// One superstep of updates (update_state, or one of bulk_update_state's): applied to the
// checkpoint at `cfg` as the writes of one step's tasks, saved as its child.
checkpoint_config update_superstep(const pregel_graph& graph, const algo::graph_index& index,
                                   checkpoint_saver& saver, const checkpoint_config& cfg,
                                   const value& config, const std::vector<state_update>& updates) {
  if (updates.empty()) throw error(error_code::invalid_argument, "No updates provided");
  auto tuple = saver.get_tuple(cfg);
  if (!tuple && !cfg.checkpoint_id.empty())
    throw error(error_code::not_found,
                "checkpoint " + cfg.checkpoint_id + " not found in thread " + cfg.thread_id);
  const state_update& first = updates.front();
  const std::string first_node = first.as_node.value_or("");
  for (const char* reserved : {"__copy__", "__end__", "__input__"}) {
    if (first_node != reserved) continue;
    if (updates.size() > 1)
      throw error(error_code::invalid_argument, std::string("update_state as ") + reserved +
                                                    " cannot be applied with other updates");
    if (first_node != "__input__" && !first.values.is_null())
      throw error(error_code::invalid_argument, "update_state as " + first_node +
                                                    " takes no values (null), not " +
                                                    first.values.to_json());
  }
  if (first_node == "__copy__")
    return detail::checkpoint_config_of(copy_checkpoint(saver, cfg, tuple), true);
  checkpoint cp;
  std::int64_t step = -1;
  std::vector<pending_write> pending;
  if (tuple) {
    cp = std::move(tuple->checkpoint);
    step = tuple->metadata.step;
    pending = std::move(tuple->pending_writes);
  }
  if (first_node == END)
    return detail::checkpoint_config_of(
        clear_tasks(graph, index, saver, cfg, std::move(cp), step, std::move(pending), *tuple),
        true);

  algo::run_state state = algo::restore(graph, std::move(cp));
  if (tuple) detail::rebuild_delta_channels(state, index, &saver, tuple->config);
  // New versions above every one the thread stored: updating an earlier checkpoint forks, and
  // the head of a fork may have lower versions than the branch it left.
  state.max_version = std::max(state.max_version, saver.latest_version(cfg));
  checkpoint_metadata meta;
  meta.source = "update";
  meta.step = step + 1;
  if (tuple) meta.parents = tuple->metadata.parents;  // a subgraph's: the checkpoints around it
  std::vector<pregel_task> tasks;
  if (first_node == INPUT) {
    // As the run's input: the input channels written, a checkpoint with source "input".
    pregel_task in;
    in.name = std::string(INPUT);
    in.writes = algo::map_input(graph, first.values);
    if (in.writes.empty()) {
      std::string names;
      for (const auto& c : graph.input_channels) names += (names.empty() ? "" : ", ") + c;
      throw error(error_code::invalid_argument, "Received no input writes for " + names);
    }
    tasks.push_back(std::move(in));
    meta.source = "input";
    meta.step = tuple ? step + 1 : -1;
  } else {
    // As LangGraph: an update takes the id of the checkpoint's next task of its node (in
    // order), unless it names one, so the checkpoint shows that task's result.
    std::unordered_map<std::string, std::vector<std::string>> prepared;  // node -> task ids
    if (tuple)
      for (const auto& t :
           algo::prepare_next_tasks(graph, index, state, nullptr, step + 1, cfg.checkpoint_ns))
        prepared[t.name].push_back(t.id);
    std::unordered_map<std::string, std::size_t> taken;  // node -> prepared ids used
    tasks.reserve(updates.size());
    for (const auto& u : updates) {
      if (updates.size() > 1 && !u.as_node)
        throw error(error_code::invalid_argument,
                    "as_node is required when applying multiple updates");
      std::string node = u.as_node.value_or("");
      if (node.empty()) node = default_as_node(graph, index, state.checkpoint);
      auto found = index.node_by_name.find(node);
      if (found == index.node_by_name.end())
        throw error(error_code::invalid_argument, "update_state: unknown node '" + node + "'");
      // Run the node's writers (not its function) on the values, as if it had returned them.
      pregel_task& task = tasks.emplace_back();
      task.node = found->second;
      task.name = node;
      if (u.task_id) {
        task.id = *u.task_id;
      } else if (auto& ids = prepared[node]; taken[node] < ids.size()) {
        task.id = ids[taken[node]++];
      } else {
        task.id = task_id(state.checkpoint.id, cfg.checkpoint_ns, step + 1, node, INTERRUPT,
                          tasks.size() - 1);
      }
      task.triggers = {std::string(INTERRUPT)};
      detail::run_shared shared;
      shared.config = config;
      detail::task_context ctx(shared, task, step + 1, state.channels);
      for (const auto& w : graph.nodes[task.node].writers) w(u.values, ctx);
    }
  }
  std::vector<pregel_task*> batch;
  for (auto& t : tasks) batch.push_back(&t);
  // As LangGraph's perform_superstep: the updates' channel writes are saved as the writes of
  // their tasks at the checkpoint they update (what its snapshot shows as their results).
  if (tuple && first_node != INPUT)
    for (const auto& t : tasks) {
      std::vector<std::pair<std::string, value>> writes;
      for (const auto& w : t.writes)
        if (w.first != TASKS) writes.push_back(w);
      if (!writes.empty()) saver.put_writes(tuple->config, writes, t.id, "");
    }
  auto applied = algo::apply_writes(state, index, batch);
  // As LangGraph's update_state: on a thread's first checkpoint nothing before it can rebuild
  // a delta channel, so every one is snapshotted; an update as the input writes no task's
  // writes, so what it wrote is; any other update counts as a step.
  // Writes of other tasks saved with the checkpoint updated (a step it left unfinished, or the
  // branch that followed it) are in the saver's history of its delta channels but not in this
  // state: then every delta channel is snapshotted too.
  detail::delta_counters counters;
  if (tuple) counters = detail::delta_counters_of(tuple->metadata);
  const bool stale = std::any_of(pending.begin(), pending.end(), [&](const pending_write& w) {
    return w.task_id != NULL_TASK_ID && detail::is_delta_channel(index, w.channel);
  });
  detail::prepare_delta_checkpoint(state, index, counters, applied.new_versions, tuple.has_value(),
                                   !tuple || stale       ? detail::delta_snapshots::all
                                   : first_node == INPUT ? detail::delta_snapshots::all_written
                                                         : detail::delta_snapshots::due,
                                   meta);
  merge_config_metadata(meta, config);
  const std::string parent_id = state.checkpoint.id;
  return put_update(saver, cfg, std::move(state.checkpoint), parent_id, std::move(meta),
                    applied.new_versions);
}

}  // namespace

value pregel::update_state(const value& given, const value& values,
                           const std::optional<std::string>& as_node) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "update_state");
  const value config = bound_config(given);
  checkpoint_config cfg = detail::checkpoint_config_of(config, true);
  // Not while a run writes the thread: both would issue the same channel versions.
  thread_runs::slot slot =
      saver.runs().begin(cfg.thread_id, "update_state", multitask_strategy::reject);
  const pregel& owner = graph_for(cfg);
  if (as_node == "__copy__" && values.is_list()) {
    // As LangGraph: copy the checkpoint and apply updates to the copy in one go, each update
    // {"values": ..., "as_node": ...} (or [values, as_node]) as the task of its node the copy
    // would run next.
    std::vector<state_update> updates;
    for (const auto& item : values.as_list()) {
      if (item.is_object() && item.find("as_node") && item.get("as_node").is_string()) {
        updates.push_back(state_update{item.get("values"), item.get("as_node").as_string()});
      } else if (item.is_list() && item.as_list().size() == 2 && item.as_list()[1].is_string()) {
        updates.push_back(state_update{item.as_list()[0], item.as_list()[1].as_string()});
      } else {
        throw error(error_code::invalid_argument,
                    "update_state as __copy__: each update must be {\"values\": ..., "
                    "\"as_node\": name} or [values, as_node], not " +
                        item.to_json());
      }
    }
    checkpoint_config copied = update_superstep(owner.graph_, owner.impl_->index, saver, cfg,
                                                config, {state_update{value(), as_node}});
    if (updates.empty()) return detail::checkpoint_config_value(copied);
    return detail::checkpoint_config_value(
        update_superstep(owner.graph_, owner.impl_->index, saver, copied, config, updates));
  }
  return detail::checkpoint_config_value(
      update_superstep(owner.graph_, owner.impl_->index, saver, cfg, config,
                       {state_update{values, as_node, std::nullopt}}));
}

value pregel::bulk_update_state(const value& given,
                                const std::vector<std::vector<state_update>>& supersteps) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "bulk_update_state");
  const value config = bound_config(given);
  checkpoint_config cfg = detail::checkpoint_config_of(config, true);
  if (supersteps.empty()) throw error(error_code::invalid_argument, "No supersteps provided");
  for (const auto& updates : supersteps)
    if (updates.empty()) throw error(error_code::invalid_argument, "No updates provided");
  thread_runs::slot slot =
      saver.runs().begin(cfg.thread_id, "bulk_update_state", multitask_strategy::reject);
  const pregel& owner = graph_for(cfg);
  for (const auto& updates : supersteps)
    cfg = update_superstep(owner.graph_, owner.impl_->index, saver, cfg, config, updates);
  return detail::checkpoint_config_value(cfg);
}

void pregel::delete_thread(const std::string& thread_id) const {
  checkpoint_saver& saver = need_saver(options_.checkpointer, "delete_thread");
  thread_runs::slot slot =
      saver.runs().begin(thread_id, "delete_thread", multitask_strategy::reject);
  saver.delete_thread(thread_id);
}

}  // namespace superstep
