#include "superstep/pregel/run_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

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

// The same for a graph whose state is one channel's value (state_single): the task's write
// to it; when it wrote it more than once (a list of Commands), the list of its writes; null
// if none.
value single_update(const std::vector<std::string>& state_channels, const pregel_task& t) {
  list out;
  for (const auto& [ch, v] : t.writes)
    if (!state_channels.empty() && ch == state_channels.front()) out.push_back(v);
  if (out.empty()) return value();
  if (out.size() == 1) return out.front();
  return value(std::move(out));
}

}  // namespace

run_loop::run_loop(const pregel_graph& graph, const algo::graph_index& index,
                   checkpoint_saver* saver, run_shared& shared)
    : g_(graph), index_(index), saver_(saver), shared_(shared) {
  // The run's tasks watch its own cancellation, which the token its owner gave (run_control's
  // at the top level, the parent run's in a subgraph) stops too.
  std::shared_ptr<const run_hooks> hooks = shared_.ns.empty() ? shared_.hooks : nullptr;
  cancel_ = std::make_unique<run_cancel>(shared_.cancel, [hooks] {
    if (hooks && hooks->control)
      return error(error_code::cancelled,
                   "run cancelled: " + hooks->control->cancel_reason().value_or("cancelled"));
    return error(error_code::cancelled, "the run was cancelled with its parent task");
  });
  shared_.cancel = cancel_->token();
  output_set_.insert(g_.output_channels.begin(), g_.output_channels.end());
  // What `values` and `updates` stream: the stream channels (LangGraph's stream_channels, all
  // channels unless given; StateGraph: every state key), apart from what the run returns.
  stream_channels_ = g_.state_channels.empty() ? &g_.output_channels : &g_.state_channels;
  stream_single_ = g_.state_single || (g_.state_channels.empty() && g_.output_single);
  stream_is_output_ = *stream_channels_ == g_.output_channels && stream_single_ == g_.output_single;
  stream_set_.insert(stream_channels_->begin(), stream_channels_->end());
  for (const auto& c : g_.output_channels)
    if (!g_.channels.at(c)->stays_until_written()) outputs_volatile_ = true;
  // A low-level graph may show or read the tasks topic like any channel: then its Sends stay.
  const std::string tasks(TASKS);
  const auto reads_tasks = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), tasks) != names.end();
  };
  sends_read_ = output_set_.count(tasks) || stream_set_.count(tasks) ||
                std::any_of(g_.nodes.begin(), g_.nodes.end(), [&](const pregel_node& n) {
                  return reads_tasks(n.reads) || reads_tasks(n.fresh_reads);
                });
}

bool run_loop::plan() {
  if (auto why = cancel_->reason()) throw *why;  // cancelled between steps
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
  // The last step's tasks (and the writes they hold) go before the next ones are made: the
  // list keeps only its first block.
  tasks_.clear();
  value sends = release_sends();
  try {
    algo::prepare_next_tasks(tasks_, g_, index_, state_, have_updated_ ? &updated_ : nullptr, step_,
                             shared_.checkpoint_ns, sends.is_null() ? nullptr : &sends);
  } catch (...) {
    tasks_.clear();  // no step half planned
    throw;
  }
  emit_checkpoint_event();
  if (tasks_.empty()) return false;
  if (shared_.hooks && shared_.hooks->drain_requested()) {
    // As LangGraph's loop: a drained run with nothing left to run ends normally (above);
    // otherwise it stops here, between steps, its checkpoint saved (GraphDrained).
    throw error(error_code::drained,
                "Graph drained: " + shared_.hooks->control->drain_reason().value_or("shutdown") +
                    " (the run stopped before step " + std::to_string(step_) +
                    (saver_ ? "; its thread resumes from the checkpoint saved before it)" : ")"));
  }
  if (!resumed_writes_.empty() || resume_) attach_resumed_writes();
  if (algo::should_interrupt(g_, state_,
                             shared_.interrupt_before ? *shared_.interrupt_before : g_.interrupt_before,
                             tasks_)) {
    stop_at_breakpoint(graph_lifecycle_status::interrupt_before);
    return false;
  }
  emit_task_events();
  cache_keys_.clear();
  if (shared_.cache) take_cached_writes();
  if (g_.step_timeout_ms) cancel_->arm(step_, *g_.step_timeout_ms);
  return true;
}

value run_loop::release_sends() {
  // The PUSH tasks hold their Sends' arguments. The checkpoint that holds the Sends is saved
  // (or queued to be): the run lets go of them as it plans their tasks, each Send as its task
  // is made (a fan-out's 10^6 Sends, decoded, are about 250 MB, 150 of them besides the
  // arguments); the tasks topic keeps only that it is not empty, so that the step clears it
  // and reports the change. Kept: under exit durability (the run's last checkpoint is saved
  // from them when it ends), in a subgraph, for streams that show the checkpoint or the
  // tasks of the step (debug, checkpoints, tasks), and when the graph reads or shows the topic.
  if (sends_read_ || !steps_checkpointed() || !shared_.ns.empty() ||
      shared_.wants(stream_mode::debug) || shared_.wants(stream_mode::tasks) ||
      shared_.wants(stream_mode::checkpoints))
    return value();
  auto it = state_.channels.find(std::string(TASKS));
  if (it == state_.channels.end() || !it->second->is_available()) return value();
  value sends = it->second->release();
  if (!sends.is_null()) state_.checkpoint.channel_values.erase(std::string(TASKS));
  return sends;
}

void run_loop::take_cached_writes() {
  // Tasks whose node caches its writes and whose input has a live entry do not run: their
  // writes come from the cache (LangGraph's match_cached_writes), reported by runnable().
  // The keys are kept for cache_writes: an executor may not give the inputs back.
  for (pregel_task& t : tasks_) {
    const auto& policy = g_.nodes[t.node].cache;
    if (t.done || !policy) continue;
    std::string key = policy->key(t.input);
    if (auto hit = shared_.cache->get(cache_namespace_of(t.name), key)) {
      t.writes = std::move(*hit);
      t.done = t.cached = true;
    } else {
      cache_keys_.emplace(t.id, std::move(key));
    }
  }
}

void run_loop::cache_writes(const pregel_task& t) {
  if (!shared_.cache || t.cached || t.rare->error || t.rare->handled_error ||
      !t.rare->interrupts.empty())
    return;
  auto key = cache_keys_.find(t.id);
  if (key == cache_keys_.end()) return;
  shared_.cache->set(cache_namespace_of(t.name), key->second, t.writes,
                     g_.nodes[t.node].cache->ttl);
}

void run_loop::task_finished(const pregel_task& t) { tasks_finished({&t}); }

void run_loop::save_finished_writes(const std::vector<const pregel_task*>& tasks) {
  if (!saver_) return;
  // A task whose writes came from the cache saves none, unless it wrote a delta channel:
  // those writes rebuild the channel.
  auto writes_delta_channel = [&](const pregel_task& t) {
    return std::any_of(t.writes.begin(), t.writes.end(),
                       [&](const auto& w) { return is_delta_channel(index_, w.first); });
  };
  std::vector<const pregel_task*> fresh;
  for (const pregel_task* t : tasks)
    if (!t->cached || writes_delta_channel(*t)) fresh.push_back(t);
  if (!fresh.empty() && durability_ == durability::exit) {
    std::lock_guard lock(held_mutex_);  // tasks finish on several threads
    held_writes_.insert(held_writes_.end(), fresh.begin(), fresh.end());
  } else if (!fresh.empty()) {
    save_writes(fresh);  // one write for the batch
  }
}

void run_loop::tasks_finished(const std::vector<const pregel_task*>& tasks, bool saved_apart) {
  if (!saved_apart) save_finished_writes(tasks);
  for (const pregel_task* t : tasks) {
    cache_writes(*t);
    report_finished(*t);
  }
  // The first failure cancels the step's other tasks; a task's cancellation, a Command for
  // the parent and a drain do not (LangGraph's GraphBubbleUp and CancelledError).
  for (const pregel_task* t : tasks)
    if (t->rare->error && t->rare->error->code != error_code::cancelled &&
        t->rare->error->code != error_code::parent_command &&
        t->rare->error->code != error_code::drained)
      cancel_->cancel_for_failure();
}

void run_loop::report_finished(const pregel_task& t) {
  if (!t.rare->error && !t.rare->interrupts.empty()) {
    report_interrupts(t);
  } else if (!t.rare->error && shared_.wants(stream_mode::updates) && !g_.nodes[t.node].hidden) {
    // A task its node's error handler took over reports as the handler (LangGraph runs it as
    // a task of its own); writes not computed now (restored or from the cache) are marked, as
    // LangGraph's map_output_updates.
    object update{
        {t.rare->handled_error ? g_.nodes[t.node].error_handler : t.name.str(),
         g_.state_single ? single_update(g_.state_channels, t) : task_update(stream_set_, t)}};
    if (t.cached) update.set("__metadata__", object{{"cached", true}});
    shared_.emit(stream_mode::updates, value(std::move(update)));
  }
  if (shared_.hooks && !t.rare->error && t.rare->interrupts.empty() && !t.cached &&
      !g_.nodes[t.node].hidden)
    shared_.hooks->finished(t.rare->handled_error ? g_.nodes[t.node].error_handler : t.name.str());
  emit_task_result(t);
}

bool run_loop::check_step() {
  if (g_.step_timeout_ms) cancel_->disarm();
  // A cancelled run (from outside, by its stream's sink, past its step timeout) fails with
  // why, its finished tasks' writes saved as pending writes.
  if (auto why = cancel_->reason()) throw *why;
  // Fail the step with the first error in task-path order, after every task ran; the tasks
  // that failure cancelled are not what failed (LangGraph skips cancelled futures).
  const pregel_task* failed = nullptr;
  const auto cancelled = [](const pregel_task& t) {
    return t.rare->error->code == error_code::cancelled;
  };
  for (const auto& t : tasks_)
    if (t.rare->error && (!failed || (cancelled(*failed) && !cancelled(t)) ||
                          (cancelled(*failed) == cancelled(t) && task_path_less(t, *failed))))
      failed = &t;
  if (failed) throw failed->rare->error->to_error();
  // A task that called interrupt(): the step does not commit; the others' writes are saved
  // and reused when the thread resumes.
  bool paused = false;  // a subgraph's breakpoint pauses its task with a null interrupt
  for (const auto& t : tasks_)
    for (const auto& i : t.rare->interrupts) {
      paused = true;
      if (!i.is_null()) interrupts_.push_back(i);
    }
  if (paused) {
    interrupted_ = true;
    if (shared_.ns.empty()) {
      const auto elsewhere = [&](const std::vector<std::string>& channels) {
        return std::any_of(channels.begin(), channels.end(),
                           [&](const std::string& c) { return holds_elsewhere(c); });
      };
      if (elsewhere(g_.output_channels) || elsewhere(*stream_channels_))
        pause_shown_later_ = true;
      else
        show_pause();
    }
    return false;
  }
  return true;
}

void run_loop::show_pause() {
  pause_shown_later_ = false;
  show_finished_writes();
  // As LangGraph's loop exit: a pause with no interrupt value (a subgraph's breakpoint)
  // shows as an empty interrupt, after the last values.
  if (interrupts_.empty() && shared_.wants(stream_mode::updates))
    shared_.emit(stream_mode::updates, object{{std::string(INTERRUPT), list{}}});
}

std::vector<pregel_task*> run_loop::step_batch() {
  std::vector<pregel_task*> batch;
  batch.reserve(tasks_.size());
  for (auto& t : tasks_) batch.push_back(&t);
  return batch;
}

bool run_loop::commit_step() {
  if (!check_step()) return false;
  auto batch = step_batch();
  return end_step(algo::apply_writes(state_, index_, batch));
}

std::optional<algo::step_writes> run_loop::stage_step(const std::vector<bool>& sent) {
  if (!check_step()) return std::nullopt;
  auto batch = step_batch();
  staged_ = {};
  staged_version_ = state_.max_version + 1;
  auto writes = algo::stage_writes(state_, batch, staged_, sent);
  staged_bump_ = writes.bump_step;
  return writes;
}

void run_loop::take_votes(const actors::group_changes& changes) {
  algo::take_changes(state_, changes, staged_version_, staged_);
}

bool run_loop::finish_due() const {
  // Without deferred channels (LangGraph's *AfterFinish, a node's `defer`) a finish changes
  // nothing: no second round.
  return !index_.finishable.empty() && algo::tentatively_last(index_, staged_, staged_bump_);
}

bool run_loop::complete_step() { return end_step(std::exchange(staged_, {})); }

bool run_loop::end_step(algo::applied applied) {
  if (durability_ == durability::exit && !held_writes_.empty() && !index_.delta_channels.empty()) {
    // Held in task-path order: the order the step applied them in.
    std::unordered_set<const pregel_task*> held(held_writes_.begin(), held_writes_.end());
    for (const auto& t : tasks_)
      if (held.count(&t)) hold_exit_delta_writes(t.id, t.writes);
  }
  held_writes_.clear();  // the step's checkpoint supersedes its pending writes
  // Applied and saved: the tasks' writes go before the checkpoint is written (a node that
  // sent 10^6 Sends holds 56 MB of them, beside the Sends in the tasks topic and the
  // checkpoint's encoding of them).
  for (auto& t : tasks_) std::vector<std::pair<std::string, value>>().swap(t.writes);
  updated_ = std::move(applied.updated_channels);
  have_updated_ = true;
  put_checkpoint("loop", &applied);
  algo::drop_values_held_elsewhere(state_, applied.new_versions);
  // After the commit point: nothing of a step that did not commit is ever streamed.
  emit_values_if(updated_);
  // Past the step it resumed, the run no longer resumes: subgraphs of later steps start from
  // their input (LangGraph unsets CONFIG_KEY_RESUMING after each tick).
  shared_.resuming = false;
  if (shared_.replay) {
    // The subgraphs this step ran have had their first run of the replay (on node actors,
    // which tell no replay state back).
    for (const auto& t : tasks_)
      if (g_.nodes[t.node].subgraph)
        (void)shared_.replay->first_visit(shared_.checkpoint_ns.empty()
                                              ? t.name.str()
                                              : shared_.checkpoint_ns + "|" + t.name.str());
  }
  if (algo::should_interrupt(g_, state_,
                             shared_.interrupt_after ? *shared_.interrupt_after : g_.interrupt_after,
                             tasks_)) {
    stop_at_breakpoint(graph_lifecycle_status::interrupt_after);
    return false;
  }
  return true;
}

void run_loop::report_interrupts(const pregel_task& t) {
  if (g_.nodes[t.node].hidden) return;
  // As LangGraph's output_writes: each interrupted task shows its own interrupts as it
  // finishes.
  list shown;
  for (const auto& i : t.rare->interrupts)
    if (!i.is_null()) shown.push_back(i);
  // A subgraph's breakpoint writes no interrupt: the top level shows it when the run stops.
  if (shown.empty()) return;
  if (shared_.wants(stream_mode::updates))
    shared_.emit(stream_mode::updates, object{{std::string(INTERRUPT), value(shown)}});
  if (shared_.wants(stream_mode::values)) {
    // The state so far with the interrupts, or the interrupts alone when the output is a
    // single channel. The step's channels do not change before it commits.
    auto cur = algo::read_channels(state_.channels, *stream_channels_, stream_single_);
    object o;
    if (cur && !stream_single_ && cur->is_object()) o = cur->as_object();
    o.set(std::string(INTERRUPT), value(std::move(shown)));
    shared_.emit(stream_mode::values, value(std::move(o)));
  }
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

void run_loop::stop_at_breakpoint(graph_lifecycle_status why) {
  interrupted_ = true;
  status_ = why;
  // As LangGraph: a breakpoint (interrupt_before/after) shows in `updates` as no interrupts,
  // at the top level only (a subgraph's pauses its parent, which shows it).
  if (shared_.wants(stream_mode::updates) && shared_.ns.empty())
    shared_.emit(stream_mode::updates, object{{std::string(INTERRUPT), list{}}});
}

void run_loop::emit_values_if(const std::unordered_set<std::string>& updated) {
  // O(changed): the updated channels are few, the outputs may be many.
  const auto touches = [&](const std::unordered_set<std::string>& set) {
    for (const auto& c : updated)
      if (set.count(c)) return true;
    return false;
  };
  std::optional<value> streamed;
  if (shared_.wants(stream_mode::values) && touches(stream_set_)) {
    streamed = algo::read_channels(state_.channels, *stream_channels_, stream_single_);
    if (streamed) shared_.emit(stream_mode::values, *streamed);
  }
  if (!touches(output_set_)) return;
  if (streamed && stream_is_output_) {
    latest_values_ = std::move(*streamed);
    values_pending_ = false;
    return;
  }
  // The output is read once at the end instead of every step, unless an output channel can
  // clear without a new event (then the state must be kept now, as LangGraph returns the
  // last event).
  if (!outputs_volatile_) {
    values_pending_ = true;
    return;
  }
  auto out = algo::read_channels(state_.channels, g_.output_channels, g_.output_single);
  if (!out) return;
  latest_values_ = *out;
  values_pending_ = false;
}

void run_loop::show_finished_writes() {
  // As LangGraph when a step stops at an interrupt: the output (and a last `values` event)
  // shows the writes of the step's tasks that finished, applied to copies of the channels;
  // the checkpoint keeps them as pending writes.
  std::vector<const pregel_task*> finished;
  for (const auto& t : tasks_)
    if (!t.rare->error && t.rare->interrupts.empty() && !t.writes.empty()) finished.push_back(&t);
  std::sort(finished.begin(), finished.end(),
            [](const pregel_task* a, const pregel_task* b) { return task_path_less(*a, *b); });
  std::map<std::string, std::vector<value>> writes;
  for (const pregel_task* t : finished)
    for (const auto& [ch, v] : t->writes)
      if (output_set_.count(ch) || stream_set_.count(ch)) writes[ch].push_back(v);
  if (writes.empty()) return;
  algo::channel_map shown;
  const auto show = [&](const std::vector<std::string>& channels) {
    for (const auto& c : channels) {
      if (shown.count(c)) continue;
      auto copy = state_.channels.at(c)->copy();
      if (auto it = writes.find(c); it != writes.end()) {
        try {
          (void)copy->update(it->second);
        } catch (const error&) {
          // Writes the channel refuses (the step would fail applying them): shown as it was.
          copy = state_.channels.at(c)->copy();
        }
      }
      shown.emplace(c, std::move(copy));
    }
  };
  show(g_.output_channels);
  show(*stream_channels_);
  if (auto out = algo::read_channels(shown, g_.output_channels, g_.output_single)) {
    latest_values_ = *out;
    values_pending_ = false;
  }
  if (shared_.wants(stream_mode::values))
    if (auto streamed = algo::read_channels(shown, *stream_channels_, stream_single_))
      shared_.emit(stream_mode::values, *streamed);
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
