// The graph state API (LangGraph get_state, get_state_history, update_state): reading and
// writing a thread's checkpoints through the graph's own channels and writers.
#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_map>

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
// and interrupts from the saved pending writes.
state_snapshot snapshot_of(const pregel_graph& g, const algo::graph_index& index,
                           const checkpoint_tuple& tuple) {
  state_snapshot s;
  s.config = tuple.config;
  s.parent_config = tuple.parent_config;
  s.metadata = metadata_to_value(tuple.metadata);
  s.created_at = tuple.checkpoint.ts;
  const std::string ns = tuple.config.checkpoint_ns;
  const std::int64_t step = tuple.metadata.step + 1;
  algo::run_state state = algo::restore(g, tuple.checkpoint);  // values are shared, not copied
  // A Command's update saved with the checkpoint (as the writes of no task) is part of its
  // state, as LangGraph shows it.
  pregel_task null_task;
  null_task.name = std::string(INPUT);
  for (const auto& w : tuple.pending_writes)
    if (w.task_id == NULL_TASK_ID) null_task.writes.emplace_back(w.channel, w.v);
  if (!null_task.writes.empty()) {
    std::vector<pregel_task*> batch{&null_task};
    (void)algo::apply_writes(state, index, batch);
  }
  bool single = g.state_channels.empty() && g.output_single;
  auto values = algo::read_channels(state.channels, state_channels(g), single);
  s.values = values ? *values : value(object{});
  auto tasks = algo::prepare_next_tasks(g, index, state, nullptr, step, ns);
  // Each task's error and interrupts, gathered in one pass over the writes (a crashed step
  // of 10^5 Sends has as many tasks and writes: no scan of all writes per task).
  std::unordered_map<std::string_view, task_outcome> outcomes;
  for (const auto& w : tuple.pending_writes) {
    if (w.channel == ERROR) {
      outcomes[w.task_id].error = w.v.is_string() ? w.v.as_string() : w.v.to_json();
    } else if (w.channel == INTERRUPT) {
      list& interrupts = outcomes[w.task_id].interrupts;
      if (w.v.is_list())
        for (const auto& i : w.v.as_list()) interrupts.push_back(i);
      else
        interrupts.push_back(w.v);
    }
  }
  std::set<std::string> next;
  s.tasks.reserve(tasks.size());
  for (const auto& t : tasks) {
    next.insert(t.name);
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
  return snapshot_of(graph_, impl_->index, *tuple);
}

state_snapshot pregel::state_at(const checkpoint_tuple& tuple) const {
  return snapshot_of(graph_, impl_->index, tuple);
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
  checkpoint cp;
  std::int64_t step = -1;
  if (tuple) {
    cp = std::move(tuple->checkpoint);
    step = tuple->metadata.step;
  }
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
