// The `tasks`, `checkpoints` and `debug` streams of a run (LangGraph's map_debug_tasks,
// map_debug_task_results and map_debug_checkpoint, langgraph/pregel/debug.py): each task as it
// starts and ends, each checkpoint of a run with a checkpointer as `get_state` shows it, and
// `debug` as both wrapped in {type, timestamp, step, payload}.
#include <algorithm>
#include <string_view>
#include <vector>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/pregel/run_config.hpp"
#include "superstep/pregel/run_loop.hpp"
#include "task_outcomes.hpp"

namespace superstep::detail {

namespace {

// LangGraph's EXCLUDED_METADATA_KEYS: its own keys, which the task's fields say already.
bool framework_metadata_key(std::string_view k) {
  static constexpr std::string_view keys[] = {
      "thread_id",          "checkpoint_id",  "checkpoint_ns",
      "checkpoint_map",     "langgraph_step", "langgraph_node",
      "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns"};
  for (auto key : keys)
    if (k == key) return true;
  return false;
}

// What a task event carries of the run's config: its metadata less the framework keys, and
// its tags less the internal `seq:step:*` ones; null when nothing is left.
value task_metadata(const value& config) {
  object md;
  if (const value* m = config.find("metadata"); m && m->is_object())
    for (const auto& [k, v] : m->as_object())
      if (!framework_metadata_key(k)) md.set(k, v);
  if (const value* tags = config.find("tags"); tags && tags->is_list()) {
    list kept;
    for (const auto& t : tags->as_list())
      if (!(t.is_string() && t.as_string().starts_with("seq:step"))) kept.push_back(t);
    if (!kept.empty()) md.set("tags", value(std::move(kept)));
  }
  if (md.empty()) return value();
  return value(std::move(md));
}

value triggers_of(const pregel_task& t) {
  if (t.push) return value::array({std::string(PUSH)});
  list l;
  for (const auto& tr : t.triggers) l.emplace_back(tr);
  return value(std::move(l));
}

}  // namespace

bool run_loop::wants_task_events() const noexcept {
  return shared_.wants(stream_mode::tasks) || shared_.wants(stream_mode::debug);
}

void run_loop::emit_debug_event(stream_mode m, const char* type, std::int64_t step, value payload) {
  if (shared_.wants(stream_mode::debug))
    shared_.emit(
        stream_mode::debug,
        object{{"type", type}, {"timestamp", now_iso8601()}, {"step", step}, {"payload", payload}});
  if (shared_.wants(m)) shared_.emit(m, std::move(payload));
}

void run_loop::emit_task_events() {
  if (!wants_task_events()) return;
  const value metadata = task_metadata(shared_.config);
  for (const auto& t : tasks_) {
    if (g_.nodes[t.node].hidden) continue;  // the internal __start__ task
    object p{
        {"id", t.id}, {"name", t.name.str()}, {"input", t.input}, {"triggers", triggers_of(t)}};
    if (!metadata.is_null()) p.set("metadata", metadata);
    emit_debug_event(stream_mode::tasks, "task", step_, value(std::move(p)));
  }
}

void run_loop::emit_task_result(const pregel_task& t) {
  if (!wants_task_events() || t.cached || g_.nodes[t.node].hidden) return;
  // The task's writes to the stream channels, as its update: {channel: value}, or
  // {channel: {"$writes": [...]}} for a channel written more than once.
  std::vector<std::pair<std::string, list>> by_channel;  // in the order first written
  if (!t.rare->error && t.rare->interrupts.empty())
    for (const auto& [ch, v] : t.writes) {
      if (!stream_set_.count(ch)) continue;
      auto it = std::find_if(by_channel.begin(), by_channel.end(),
                             [&](const auto& e) { return e.first == ch; });
      if (it == by_channel.end()) it = by_channel.insert(by_channel.end(), {ch, list{}});
      it->second.push_back(v);
    }
  object result;
  for (auto& [ch, vs] : by_channel)
    result.set(ch, vs.size() == 1 ? vs.front() : value(object{{"$writes", value(std::move(vs))}}));
  list interrupts;
  for (const auto& i : t.rare->interrupts)
    if (!i.is_null()) interrupts.push_back(i);  // null: a subgraph's breakpoint
  emit_debug_event(stream_mode::tasks, "task_result", step_,
                   object{{"id", t.id},
                          {"name", t.name.str()},
                          {"error", t.rare->error ? value(t.rare->error->message) : value()},
                          {"result", value(std::move(result))},
                          {"interrupts", value(std::move(interrupts))}});
}

void run_loop::emit_checkpoint_event() {
  // As LangGraph: only a run with a checkpointer streams its checkpoints.
  if (!saver_ || !(shared_.wants(stream_mode::checkpoints) || shared_.wants(stream_mode::debug)))
    return;
  checkpoint_config at = cp_config_;
  at.checkpoint_id = state_.checkpoint.id;
  value parent;
  if (!stream_parent_id_.empty()) {
    checkpoint_config p = cp_config_;
    p.checkpoint_id = stream_parent_id_;
    parent = checkpoint_config_value(p);
  }
  const auto& keys = g_.state_channels.empty() ? g_.output_channels : g_.state_channels;
  auto values = algo::read_channels(
      state_.channels, keys, g_.state_single || (g_.state_channels.empty() && g_.output_single));
  list next;  // as LangGraph's map_debug_checkpoint: a node per task, in task order
  // What the checkpoint's pending writes say of its tasks: those loaded with it, when the run
  // starts from a saved checkpoint (a resumed task's interrupts, a failed one's error).
  const auto outcomes = task_outcomes(resumed_writes_);
  // In LangGraph's task order, as get_state shows them: the step's Sends, then its PULL tasks.
  std::vector<const pregel_task*> ordered;
  ordered.reserve(tasks_.size());
  for (const bool push : {true, false})
    for (const auto& t : tasks_)
      if (t.push == push) ordered.push_back(&t);
  list tasks;
  for (const pregel_task* each : ordered) {
    const pregel_task& t = *each;
    next.push_back(t.name.str());
    object task{{"id", t.id}, {"name", t.name.str()}};
    const auto it = outcomes.find(t.id);
    if (it != outcomes.end() && it->second.error) {
      task.set("error", *it->second.error);  // as LangGraph: no interrupts nor result then
    } else {
      // As LangGraph's map_debug_checkpoint: a result only when it is truthy.
      if (it != outcomes.end())
        if (value result = task_result(g_, it->second); result.truthy())
          task.set("result", std::move(result));
      task.set("interrupts", it != outcomes.end() ? it->second.interrupts : list{});
    }
    task.set("state", value());
    if (g_.nodes[t.node].subgraph) {
      // Where the subgraph's checkpoints live (LangGraph's task state config).
      std::string ns = t.name + ":" + t.id;
      if (!shared_.checkpoint_ns.empty()) ns = shared_.checkpoint_ns + "|" + ns;
      task.set("state", object{{"configurable", object{{"thread_id", cp_config_.thread_id},
                                                       {"checkpoint_ns", ns}}}});
    }
    tasks.push_back(value(std::move(task)));
  }
  emit_debug_event(stream_mode::checkpoints, "checkpoint", stream_meta_.step,
                   object{{"config", checkpoint_config_value(at)},
                          {"parent_config", parent},
                          {"values", values            ? *values
                                     : g_.state_single ? value()
                                                       : value(object{})},
                          {"metadata", metadata_to_value(stream_meta_)},
                          {"next", value(std::move(next))},
                          {"tasks", value(std::move(tasks))}});
}

}  // namespace superstep::detail
