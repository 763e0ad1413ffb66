#include "run_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "superstep/coordinator/constants.hpp"
#include "superstep/coordinator/send.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail {

namespace {

// What a task contributes to `updates` streams, as LangGraph's map_output_updates over the
// stream channels (Pregel's stream_channels, else every channel; StateGraph: the state keys):
// its writes to them (raw, before reducers) as `{channel: value}`; when it wrote a channel
// more than once (a list of Commands), a list of `{channel: value}`, one per write; null if
// none.
value task_update(const std::unordered_set<std::string>& stream_set, const pregel_task& t) {
  object o;
  bool repeated = false;
  for (const auto& [ch, v] : t.writes)
    if (stream_set.count(ch)) {
      if (o.find(ch)) repeated = true;
      o.set(ch, v);
    }
  if (o.empty()) return value();
  if (!repeated) return value(std::move(o));
  list l;
  for (const auto& [ch, v] : t.writes)
    if (stream_set.count(ch)) l.push_back(object{{ch, v}});
  return value(std::move(l));
}

// A task's result in `debug` streams, as LangGraph's map_task_result_writes: its writes to
// the stream channels as {channel: value}, several writes to one channel as
// {channel: {"$writes": [...]}}.
value task_result_writes(const std::unordered_set<std::string>& stream_set, const pregel_task& t) {
  object o;
  for (const auto& [ch, v] : t.writes) {
    if (!stream_set.count(ch)) continue;
    const value* existing = o.find(ch);
    if (!existing) {
      o.set(ch, v);
      continue;
    }
    list writes;
    if (const value* w = existing->find("$writes"); w && w->is_list())
      writes = w->as_list();
    else
      writes.push_back(*existing);
    writes.push_back(v);
    o.set(ch, object{{"$writes", value(std::move(writes))}});
  }
  return value(std::move(o));
}

value triggers_value(const pregel_task& t) {
  if (t.push) return value::array({std::string(PUSH)});
  list l;
  for (const auto& tr : t.triggers) l.emplace_back(tr);
  return value(std::move(l));
}

}  // namespace

run_loop::run_loop(const pregel_graph& graph, const algo::graph_index& index,
                   checkpoint_saver* saver, run_shared& shared)
    : g_(graph), index_(index), saver_(saver), shared_(shared) {
  output_set_.insert(g_.output_channels.begin(), g_.output_channels.end());
  const auto& streamed = g_.state_channels.empty() ? g_.output_channels : g_.state_channels;
  stream_set_.insert(streamed.begin(), streamed.end());
  for (const auto& c : g_.output_channels) {
    std::string_view t = g_.channels.at(c)->type_name();
    if (t != "last_value" && t != "binary_operator_aggregate") outputs_volatile_ = true;
  }
}

void run_loop::begin(const value& given) {
  const value& cfg = shared_.config;
  // A Command as input resumes the thread (resume values, state update, goto) instead of
  // starting it anew: from here on it is treated as "no input".
  std::optional<command> cmd = as_command(given);
  value input = cmd ? value() : given;
  if (const value* rl = cfg.find("recursion_limit")) {
    if (!rl->is_int() || rl->as_int() < 1)
      throw error(error_code::invalid_argument, "recursion_limit must be a positive integer");
    limit_ = rl->as_int();
  }
  if (const value* d = cfg.find("durability"); d && !d->is_null()) {
    const std::string mode = d->is_string() ? d->as_string() : d->to_json();
    if (mode == "async")
      durability_ = durability::async;
    else if (mode == "exit")
      durability_ = durability::exit;
    else if (mode != "sync")
      throw error(error_code::invalid_argument,
                  "durability must be sync, async or exit, not " + d->to_json());
  }
  const bool nested = !shared_.ns.empty();
  if (saver_) {
    cp_config_ = checkpoint_config_of(cfg, true);
    cp_config_.checkpoint_ns = shared_.checkpoint_ns;
    if (nested) cp_config_.checkpoint_id.clear();  // a subgraph starts from its own latest
    if (durability_ == durability::async) background_ = start_background_saves(*saver_);
  }

  checkpoint start;
  std::int64_t meta_step = -2;
  channel_version version_floor = 0;  // versions this run issues are above it
  if (saver_) {
    const bool time_travel = !cp_config_.checkpoint_id.empty();
    auto tuple = saver_->get_tuple(cp_config_);
    if (!tuple && time_travel)
      throw error(error_code::not_found, "checkpoint " + cp_config_.checkpoint_id +
                                             " not found in thread " + cp_config_.thread_id);
    if (tuple && shared_.run_slot)  // what a rollback of this run puts back
      shared_.run_slot->set_start(tuple->config, tuple->pending_writes);
    if (tuple) {
      start = std::move(tuple->checkpoint);
      meta_step = tuple->metadata.step;
      resumed_writes_ = std::move(tuple->pending_writes);
      cp_config_.checkpoint_id = start.id;
      // Versions this run issues must be new to the thread: from an earlier checkpoint the run
      // forks, and the head of a branch that forked before may have lower versions than the
      // branch it left, which stored values under the versions that follow the head's.
      version_floor = saver_->latest_version(cp_config_);
      // Replaying from a past checkpoint re-runs its tasks (their old writes are not reused)
      // and forks: what follows becomes a new branch after that checkpoint.
      replaying_ = time_travel && given.is_null();
      replay_source_ = tuple->metadata.source;
      if (replaying_)  // the writes of no task (a Command's update) still apply
        std::erase_if(resumed_writes_,
                      [](const pending_write& w) { return w.task_id != NULL_TASK_ID; });
      if (nested && shared_.resuming) {
        // The parent re-runs an interrupted task: the subgraph continues where it stopped,
        // its pending interrupt answered with the parent task's latest resume value.
        input = value();
        if (!shared_.resume.empty() && has_pending_interrupt()) {
          resume_ = shared_.resume.back();
          resume_by_id_ = false;
        }
      }
    }
  }
  shared_.saver = saver_;
  if (!nested)  // a subgraph keeps its parent's answer
    shared_.resuming = !start.channel_versions.empty() && (given.is_null() || cmd.has_value());
  state_ = algo::restore(g_, std::move(start));
  state_.max_version = std::max(state_.max_version, version_floor);
  step_ = meta_step + 1;
  stop_ = step_ + limit_ + 1;
  shared_.stop = stop_;

  if (cmd)
    take_command(*cmd);
  else
    apply_null_writes({});

  const bool resuming = !state_.checkpoint.channel_versions.empty() && input.is_null();
  if (resuming) {
    // Proceed past the previous run's stop: a static interrupt does not fire again.
    auto& seen = state_.checkpoint.versions_seen[std::string(INTERRUPT)];
    for (const auto& [ch, v] : state_.checkpoint.channel_versions) seen[ch] = v;
    unsaved_changes_.seen.insert(std::string(INTERRUPT));
    // A checkpoint update_state made (source update or fork) is a fork already: the replay
    // continues from it without another (LangGraph's _first).
    if (replaying_ && replay_source_ != "update" && replay_source_ != "fork")
      put_checkpoint("fork", nullptr);
    // As LangGraph: resuming emits the state it resumes from. It is also the output when
    // nothing is left to run (a finished thread) or nothing left writes an output channel.
    if (auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single)) {
      latest_values_ = *out;
      values_pending_ = false;
    }
    if (shared_.wants(stream_mode::values))
      if (auto v = stream_values()) shared_.emit(stream_mode::values, *v);
  }

  if (input.is_null()) return;
  resumed_writes_.clear();  // new input: the unfinished step of the last checkpoint is discarded
  auto writes = algo::map_input(g_, input);
  if (writes.empty()) {
    std::string names;
    for (const auto& c : g_.input_channels) names += (names.empty() ? "" : ", ") + c;
    throw error(error_code::invalid_argument, "received no input for " + names);
  }
  pregel_task in;
  in.name = std::string(INPUT);
  in.writes = std::move(writes);
  // The tasks the last checkpoint left to run are discarded: applied with no writes, they mark
  // their triggers seen, so only what the new input triggers runs (LangGraph's _first).
  std::vector<pregel_task> discarded;
  if (!state_.checkpoint.channel_versions.empty())
    discarded = algo::prepare_next_tasks(g_, index_, state_, nullptr, step_, shared_.checkpoint_ns);
  std::vector<pregel_task*> batch;
  for (auto& t : discarded) batch.push_back(&t);
  batch.push_back(&in);
  auto applied = algo::apply_writes(state_, index_, batch);
  updated_ = std::move(applied.updated_channels);
  have_updated_ = true;
  emit_values_if(updated_);
  put_checkpoint("input", &applied);
}

bool run_loop::plan() {
  if (shared_.stop_asked && (*shared_.stop_asked)())
    throw error(error_code::unavailable,
                "the run stopped before step " + std::to_string(step_) +
                    (saver_ ? "; its thread resumes from the checkpoint saved before it" : ""));
  if (shared_.run_slot && shared_.run_slot->stop_flag()->load(std::memory_order_relaxed)) {
    // A later run on the thread asked this one to stop (multitask interrupt or rollback):
    // it stops between steps, its checkpoints so far saved.
    auto by = shared_.run_slot->stop_request();
    throw error(error_code::run_cancelled,
                "run " + shared_.run_slot->run_id() + " on thread '" + cp_config_.thread_id +
                    "' was stopped before step " + std::to_string(step_) + " by run " +
                    (by ? by->second : std::string("?")) + " (multitask strategy " +
                    std::string(by ? multitask_strategy_name(by->first) : "interrupt") + ")");
  }
  if (step_ > stop_)
    throw error(error_code::graph_recursion,
                "Recursion limit of " + std::to_string(limit_) +
                    " reached without hitting a stop condition. You can increase the limit by "
                    "setting the `recursion_limit` config key.");
  shared_.checkpoint_id = state_.checkpoint.id;
  tasks_ = algo::prepare_next_tasks(g_, index_, state_, have_updated_ ? &updated_ : nullptr, step_,
                                    shared_.checkpoint_ns);
  if (tasks_.empty()) return false;
  if (!resumed_writes_.empty() || resume_) attach_resumed_writes();
  if (algo::should_interrupt(g_, state_, g_.interrupt_before, tasks_)) {
    interrupted_ = true;
    emit_static_interrupt();
    return false;
  }
  if (shared_.wants(stream_mode::debug))
    for (const auto& t : tasks_)
      if (!g_.nodes[t.node].hidden)  // as LangGraph: no events of internal tasks (__start__)
        shared_.emit(stream_mode::debug,
                     object{{"type", "task"},
                            {"timestamp", now_iso8601()},
                            {"step", step_},
                            {"payload", object{{"id", t.id},
                                               {"name", t.name},
                                               {"input", t.input},
                                               {"triggers", triggers_value(t)}}}});
  return true;
}

void run_loop::task_finished(const pregel_task& t) { tasks_finished({&t}); }

void run_loop::tasks_finished(const std::vector<const pregel_task*>& tasks) {
  if (saver_) {
    std::vector<const pregel_task*> fresh;
    for (const pregel_task* t : tasks)
      if (!t->cached) fresh.push_back(t);
    if (!fresh.empty() && durability_ == durability::exit) {
      std::lock_guard lock(held_mutex_);  // tasks finish on several threads
      held_writes_.insert(held_writes_.end(), fresh.begin(), fresh.end());
    } else if (!fresh.empty()) {
      save_writes(fresh);  // one write for the batch
    }
  }
  for (const pregel_task* t : tasks) report_finished(*t);
}

void run_loop::report_finished(const pregel_task& t) {
  if (t.error || !t.interrupts.empty()) return;
  if (shared_.wants(stream_mode::updates) && !g_.nodes[t.node].hidden)
    shared_.emit(stream_mode::updates, object{{t.name, task_update(stream_set_, t)}});
  if (shared_.wants(stream_mode::debug) && !g_.nodes[t.node].hidden)
    shared_.emit(stream_mode::debug,
                 object{{"type", "task_result"},
                        {"timestamp", now_iso8601()},
                        {"step", step_},
                        {"payload", object{{"id", t.id},
                                           {"name", t.name},
                                           {"error", value()},
                                           {"result", task_result_writes(stream_set_, t)},
                                           {"interrupts", list{}}}}});
}

bool run_loop::commit_step() {
  // Fail the step with the first error in task-path order, after every task ran.
  const pregel_task* failed = nullptr;
  for (const auto& t : tasks_)
    if (t.error && (!failed || task_path_less(t, *failed))) failed = &t;
  if (failed) {
    if (shared_.wants(stream_mode::debug))
      shared_.emit(stream_mode::debug, object{{"type", "task_result"},
                                              {"timestamp", now_iso8601()},
                                              {"step", step_},
                                              {"payload", object{{"id", failed->id},
                                                                 {"name", failed->name},
                                                                 {"error", failed->error->message},
                                                                 {"result", object{}},
                                                                 {"interrupts", list{}}}}});
    throw error(failed->error->code, failed->error->message);
  }
  // A task that called interrupt(): the step does not commit; the others' writes are saved
  // and reused when the thread resumes.
  bool paused = false;  // a subgraph's breakpoint pauses its task with a null interrupt
  for (const auto& t : tasks_)
    for (const auto& i : t.interrupts) {
      paused = true;
      if (!i.is_null()) interrupts_.push_back(i);
    }
  if (paused) {
    interrupted_ = true;
    if (shared_.wants(stream_mode::updates))
      shared_.emit(stream_mode::updates, object{{std::string(INTERRUPT), value(interrupts_)}});
    if (shared_.wants(stream_mode::values)) {
      // As LangGraph: the state so far with the interrupts, or the interrupts alone when the
      // state is a single channel.
      auto cur = stream_values();
      object o;
      if (cur && !g_.state_single && cur->is_object()) o = cur->as_object();
      o.set(std::string(INTERRUPT), value(interrupts_));
      shared_.emit(stream_mode::values, value(std::move(o)));
    }
    return false;
  }
  std::vector<pregel_task*> batch;
  batch.reserve(tasks_.size());
  for (auto& t : tasks_) batch.push_back(&t);
  auto applied = algo::apply_writes(state_, index_, batch);
  held_writes_.clear();  // the step's checkpoint supersedes its pending writes
  updated_ = std::move(applied.updated_channels);
  have_updated_ = true;
  emit_values_if(updated_);
  put_checkpoint("loop", &applied);
  if (algo::should_interrupt(g_, state_, g_.interrupt_after, tasks_)) {
    interrupted_ = true;
    emit_static_interrupt();
    return false;
  }
  return true;
}

std::vector<std::uint32_t> run_loop::runnable() {
  std::vector<std::uint32_t> todo;
  todo.reserve(tasks_.size());
  for (std::uint32_t i = 0; i < tasks_.size(); ++i) {
    if (tasks_[i].cached)
      task_finished(tasks_[i]);
    else
      todo.push_back(i);
  }
  return todo;
}

void run_loop::emit_static_interrupt() {
  // As LangGraph: a breakpoint (interrupt_before/after) shows in `updates` as no interrupts.
  if (shared_.wants(stream_mode::updates))
    shared_.emit(stream_mode::updates, object{{std::string(INTERRUPT), list{}}});
}

std::optional<value> run_loop::stream_values() const {
  if (g_.state_channels.empty())
    return algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
  return algo::read_channels(state_.channels, g_.state_channels, g_.state_single);
}

void run_loop::emit_values_if(const std::unordered_set<std::string>& updated) {
  // O(changed): the updated channels are few, the outputs may be many
  bool output_touched = false, stream_touched = false;
  for (const auto& c : updated) {
    output_touched = output_touched || output_set_.count(c);
    stream_touched = stream_touched || stream_set_.count(c);
  }
  // As LangGraph's stream(): `values` events show the stream channels; the run's output
  // (invoke's result) is read from the output channels.
  if (stream_touched && shared_.wants(stream_mode::values))
    if (auto v = stream_values()) shared_.emit(stream_mode::values, *v);
  if (!output_touched) return;
  // The output is read once at the end instead of every step, unless an output channel can
  // clear without a new event (then it must be kept now, as LangGraph returns the last event).
  if (!outputs_volatile_) {
    values_pending_ = true;
    return;
  }
  auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
  if (!out) return;
  latest_values_ = *out;
  values_pending_ = false;
}

const value& run_loop::output() {
  if (values_pending_) {
    auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
    if (out) latest_values_ = std::move(*out);
    values_pending_ = false;
  }
  if (!interrupts_.empty() && !output_with_interrupts_) {
    // As LangGraph's invoke: the state so far, with the pending interrupts.
    object o = latest_values_.is_object() ? latest_values_.as_object() : object{};
    o.set(std::string(INTERRUPT), value(interrupts_));
    latest_values_ = value(std::move(o));
    output_with_interrupts_ = true;
  }
  return latest_values_;
}

}  // namespace superstep::detail
