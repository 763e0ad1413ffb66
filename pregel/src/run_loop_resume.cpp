// The run loop resuming a thread: Command input, resume values for interrupted tasks, and
// the saved writes that spare the tasks of an interrupted step from running again.
#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_context.hpp"
#include "superstep/pregel/run_loop.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::detail {

namespace {

// Tasks of the saved step that have finished: those with a write of their own. One that
// interrupted (or failed) in an earlier run and has finished since keeps its writes; its old
// interrupt is no longer pending (LangGraph reuses every task's saved writes).
std::unordered_set<std::string_view> finished_tasks(const std::vector<pending_write>& writes) {
  std::unordered_set<std::string_view> finished;
  for (const auto& w : writes)
    if (w.channel != ERROR && w.channel != INTERRUPT && w.channel != RESUME &&
        w.channel != ERROR_SOURCE_NODE)  // a failed node whose error handler failed too
      finished.insert(w.task_id);
  return finished;
}

}  // namespace

bool run_loop::has_pending_interrupt() const { return !pending_interrupt_ids().empty(); }

std::vector<std::string> run_loop::pending_interrupt_ids() const {
  std::vector<std::string> ids;
  const auto finished = finished_tasks(resumed_writes_);
  for (const auto& w : resumed_writes_) {
    if (w.channel != INTERRUPT || finished.count(w.task_id)) continue;
    for (const auto& i : w.v.is_list() ? w.v.as_list() : list{w.v})
      if (i.get("id").is_string()) ids.push_back(i.get("id").as_string());
  }
  return ids;
}

void run_loop::take_command(const command& cmd) {
  if (cmd.resume) {
    if (!saver_)
      throw error(error_code::invalid_argument, "Command(resume=...) needs a checkpointer");
    if (state_.checkpoint.channel_versions.empty())
      throw error(error_code::invalid_argument, "Command(resume=...) but thread " +
                                                    cp_config_.thread_id +
                                                    " has no checkpoint to resume");
    std::vector<std::string> pending = pending_interrupt_ids();
    // With no pending interrupt (a fork, a static breakpoint, a finished step) the value is
    // LangGraph's null resume: it answers the next interrupt() the resumed step raises.
    // An object keyed by pending interrupt ids answers each; anything else answers the one.
    // As LangGraph, an object whose keys all have the form of interrupt ids is a map: an id
    // no longer pending (its task has finished since) answers nothing.
    resume_by_id_ = cmd.resume->is_object() && !cmd.resume->as_object().empty();
    if (resume_by_id_)
      for (const auto& [id, _] : cmd.resume->as_object())
        if (std::find(pending.begin(), pending.end(), id) == pending.end() && !is_interrupt_id(id))
          resume_by_id_ = false;
    if (!resume_by_id_ && pending.size() > 1)
      throw error(error_code::invalid_argument,
                  "When there are multiple pending interrupts, you must specify the interrupt id "
                  "when resuming: Command(resume={id: value, ...})");
    resume_ = *cmd.resume;
    // As LangGraph's resume map in the config: subgraphs find their tasks' answers in it.
    if (resume_by_id_) set_resume_map(shared_.config, *resume_);
  }
  // A state update and goto apply as if written before the step the thread resumes.
  std::vector<std::pair<std::string, value>> writes;
  if (cmd.update.is_object())
    for (const auto& [k, v] : cmd.update.as_object()) writes.emplace_back(k, v);
  for (const auto& g : cmd.go_to) {
    if (as_send(g))
      writes.emplace_back(std::string(TASKS), g);
    else if (!g.is_string())
      throw error(error_code::invalid_argument,
                  "Command(goto=...) takes node names and Sends, not " + g.to_json());
    else if (g.as_string() != END && !index_.node_by_name.count(g.as_string()))
      throw error(error_code::invalid_argument,
                  "Command(goto=...) names unknown node '" + g.as_string() + "'");
    else if (g.as_string() != END)
      writes.emplace_back("branch:to:" + g.as_string(), value());
  }
  apply_null_writes(std::move(writes));
}

void set_resume_map(value& config, const value& map) {
  object cfg = config.is_object() ? config.as_object() : object{};
  const value& conf_in = cfg.contains("configurable") ? *cfg.find("configurable") : value();
  object conf = conf_in.is_object() ? conf_in.as_object() : object{};
  conf.set(std::string(resume_map_key), map);
  cfg.set("configurable", value(std::move(conf)));
  config = value(std::move(cfg));
}

const value* resume_map_of(const value& config) {
  const value* map = config.get("configurable").find(resume_map_key);
  return map && map->is_object() ? map : nullptr;
}

void run_loop::apply_null_writes(std::vector<std::pair<std::string, value>> added) {
  pregel_task in;
  in.name = std::string(INPUT);
  // The updates of earlier Commands on this checkpoint: a resumed node that interrupted again
  // made no checkpoint that holds them, so they live on as its pending writes.
  const auto is_null = [](const pending_write& w) { return w.task_id == NULL_TASK_ID; };
  for (auto& w : resumed_writes_)
    if (is_null(w)) in.writes.emplace_back(std::move(w.channel), std::move(w.v));
  resumed_writes_.erase(std::remove_if(resumed_writes_.begin(), resumed_writes_.end(), is_null),
                        resumed_writes_.end());
  if (!added.empty() && saver_ && !state_.checkpoint.id.empty()) {
    // Saved after the earlier ones (a saver keeps the first copy of each index), so the next
    // resume of this checkpoint applies them all again, in order.
    checkpoint_config cfg = cp_config_;
    cfg.checkpoint_id = state_.checkpoint.id;
    std::vector<std::pair<std::string, value>> all = in.writes;
    all.insert(all.end(), added.begin(), added.end());
    saver_->put_writes(cfg, all, std::string(NULL_TASK_ID), std::string(INPUT));
  }
  in.writes.insert(in.writes.end(), std::make_move_iterator(added.begin()),
                   std::make_move_iterator(added.end()));
  if (in.writes.empty()) return;
  std::vector<pregel_task*> batch{&in};
  // Every node stays a candidate for the next step (no updated set): the interrupted step's
  // tasks must be planned again too. The changed channels go to the saver with the next
  // checkpoint.
  auto applied = algo::apply_writes(state_, index_, batch);
  add_changes(unsaved_changes_, applied.new_versions, applied.seen_changed);
}

void run_loop::attach_resumed_writes() {
  // Tasks re-created with the same ids as before the interruption: those whose writes were
  // saved do not run again (LangGraph's _reapply_writes_to_succeeded_nodes).
  std::unordered_map<std::string_view, pregel_task*> by_id;
  for (auto& t : tasks_) by_id.emplace(t.id, &t);
  // Failed and interrupted tasks run again; an interrupted one is given the resume values it
  // had, plus the new one meant for it (by interrupt id, or the single pending interrupt's).
  std::unordered_set<std::string_view> rerun;
  const auto finished = finished_tasks(resumed_writes_);
  for (const auto& w : resumed_writes_)
    if ((w.channel == ERROR || w.channel == INTERRUPT) && !finished.count(w.task_id))
      rerun.insert(w.task_id);
  for (const auto& w : resumed_writes_) {
    auto it = by_id.find(w.task_id);
    if (it == by_id.end()) continue;
    pregel_task& t = *it->second;
    if (w.channel == RESUME && w.v.is_list()) {
      t.set_resume(w.v.as_list());
    } else if (w.channel == ERROR_SOURCE_NODE) {
      // Its node failed before and its error handler did not finish: the handler runs again.
      t.set_handled_error(
          task_error{static_cast<error_code>(w.v.get("code").is_int() ? w.v.get("code").as_int()
                                                                      : std::int64_t(0)),
                     w.v.get("error").is_string() ? w.v.get("error").as_string()
                                                  : w.v.get("error").to_json()});
    } else if (!rerun.count(w.task_id)) {
      t.done = t.cached = true;
      if (w.channel != NO_WRITES) t.writes.emplace_back(w.channel, w.v);
    }
  }
  if (resume_ && !has_pending_interrupt()) {
    // A null resume: every task of the step may ask for it (LangGraph hands it to the first
    // that does; each task here gets it, so the step stays deterministic on every executor).
    for (auto& t : tasks_)
      if (!t.done) t.rare.edit().resume.push_back(*resume_);
    resume_.reset();
  }
  if (resume_) {
    for (const auto& w : resumed_writes_) {
      if (w.channel != INTERRUPT) continue;
      auto it = by_id.find(w.task_id);
      if (it == by_id.end() || it->second->done) continue;
      if (!resume_by_id_) {
        it->second->rare.edit().resume.push_back(*resume_);
        continue;
      }
      // The ids are those the interrupts were raised with (a subgraph's, for a task that
      // runs one), so the caller's map answers them.
      for (const auto& i : w.v.is_list() ? w.v.as_list() : list{w.v})
        if (const value* v = resume_->find(i.get("id").is_string() ? i.get("id").as_string() : ""))
          it->second->rare.edit().resume.push_back(*v);
    }
    resume_.reset();
  }
  resumed_writes_.clear();
}

}  // namespace superstep::detail
