// The run loop saving its work: checkpoints (sync, in the background, or at exit) and each
// task's pending writes.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/run_loop.hpp"

namespace superstep::detail {

// Saves checkpoints on one background thread, in the order they were made.
//
// The thread keeps its own copy of the loop's checkpoint: the first job carries it whole, each
// later one only what changed (the values and versions of the changed channels, the seen
// versions of the changed nodes), so handing a step's checkpoint over costs what the step
// changed, not a copy of the graph's whole state.
class background_saves {
 public:
  explicit background_saves(checkpoint_saver& saver) : saver_(saver), thread_([this] { work(); }) {}
  ~background_saves() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  /// Queues the save of `cp`; the thread's copy keeps no value of the channels of `drop`
  /// once it is saved (their values are held elsewhere).
  void put(checkpoint_config parent, const checkpoint& cp, checkpoint_metadata meta,
           checkpoint_changes changes, std::vector<std::string> drop = {}) {
    job j{std::move(parent), {}, {}, std::move(meta), std::move(changes), std::move(drop), true};
    if (!sent_whole_) {
      j.whole = cp;
      sent_whole_ = true;
    } else {
      j.part.v = cp.v;
      j.part.id = cp.id;
      j.part.ts = cp.ts;
      j.part.updated_channels = cp.updated_channels;
      for (const auto& [channel, version] : j.changes.versions) {
        j.part.channel_versions.emplace(channel, version);
        if (auto it = cp.channel_values.find(channel); it != cp.channel_values.end())
          j.part.channel_values.emplace(channel, it->second);
      }
      for (const auto& node : j.changes.seen)
        if (auto it = cp.versions_seen.find(node); it != cp.versions_seen.end())
          j.part.versions_seen.emplace(node, it->second);
    }
    {
      std::lock_guard lock(m_);
      jobs_.push_back(std::move(j));
    }
    cv_.notify_all();
  }

  /// The thread's copy keeps no value of `names` from now on (in order with the saves).
  void forget(std::vector<std::string> names) {
    job j;
    j.drop = std::move(names);
    {
      std::lock_guard lock(m_);
      jobs_.push_back(std::move(j));
    }
    cv_.notify_all();
  }

  /// Waits until every save is done; rethrows the first one that failed.
  void drain() {
    std::unique_lock lock(m_);
    idle_.wait(lock, [&] { return jobs_.empty() && !busy_; });
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

 private:
  struct job {
    checkpoint_config parent;
    std::optional<checkpoint> whole;  ///< the first job's checkpoint
    checkpoint part;                  ///< later ones': what changed, and the id and ts
    checkpoint_metadata meta;
    checkpoint_changes changes;
    std::vector<std::string> drop;  ///< values the copy lets go of once saved
    bool save = false;              ///< false: only `drop`
  };

  // The thread's copy brought up to the job's checkpoint.
  void apply(job& j) {
    if (j.whole) {
      copy_ = std::move(*j.whole);
      return;
    }
    copy_.v = j.part.v;
    copy_.id = std::move(j.part.id);
    copy_.ts = std::move(j.part.ts);
    copy_.updated_channels = std::move(j.part.updated_channels);
    for (const auto& [channel, version] : j.changes.versions) {
      copy_.channel_versions[channel] = version;
      if (auto it = j.part.channel_values.find(channel); it != j.part.channel_values.end())
        copy_.channel_values[channel] = std::move(it->second);
      else
        copy_.channel_values.erase(channel);  // cleared
    }
    for (auto& [node, seen] : j.part.versions_seen) copy_.versions_seen[node] = std::move(seen);
  }

  void work() {
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job j = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
      lock.unlock();
      try {
        if (j.save) {
          apply(j);
          if (!failure_) saver_.put_changes(j.parent, copy_, j.meta, j.changes);
        }
        for (const auto& name : j.drop) copy_.channel_values.erase(name);
      } catch (...) {
        failure_ = std::current_exception();
      }
      lock.lock();
      busy_ = false;
      idle_.notify_all();
    }
  }

  checkpoint_saver& saver_;
  bool sent_whole_ = false;  // the loop's side
  checkpoint copy_;          // the thread's side
  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<job> jobs_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr failure_;
  std::thread thread_;
};

void background_saves_deleter::operator()(background_saves* p) const noexcept { delete p; }

background_saves_ptr start_background_saves(checkpoint_saver& saver) {
  return background_saves_ptr(new background_saves(saver));
}

run_loop::~run_loop() = default;

void run_loop::finish(bool failed) {
  if (background_) {
    try {
      background_->drain();
    } catch (...) {
      if (!failed) throw;  // a failed run reports its own error, not the saver's
    }
  }
  if (durability_ != durability::exit || !saver_) return;
  // A subgraph that starts afresh on each invocation (a task id in its namespace) keeps its
  // exit checkpoint only when it has to be resumed: failed or interrupted (LangGraph's
  // _suppress_interrupt). A stateful one keeps it always: its next invocation starts there.
  const bool per_invocation = std::any_of(shared_.ns.begin(), shared_.ns.end(), [](const auto& p) {
    return p.find(':') != std::string::npos;
  });
  if (per_invocation && !failed && !interrupted_) return;
  // The run's last checkpoint, then the writes of the step it stopped in (for resuming).
  if (unsaved_) {
    // As LangGraph's exit: the delta channels due get a snapshot, the writes of the others
    // are saved for them.
    save_exit_delta_writes(prepare_delta_checkpoint(
        state_, index_, delta_counters_, unsaved_versions_.versions, false,
        std::exchange(delta_snapshot_all_, false) ? delta_snapshots::all : delta_snapshots::due,
        unsaved_meta_));
    checkpoint_config parent = cp_config_;
    parent.checkpoint_id = last_saved_id_;
    cp_config_ = saver_->put_changes(parent, state_.checkpoint, unsaved_meta_, unsaved_versions_);
    saver_->runs().saved_checkpoint(cp_config_);
    unsaved_ = false;
  }
  if (!held_writes_.empty()) save_writes(held_writes_);
  held_writes_.clear();
}

void run_loop::hold_exit_delta_writes(const std::string& task_id,
                                      const std::vector<std::pair<std::string, value>>& writes) {
  if (!saver_ || durability_ != durability::exit || index_.delta_channels.empty()) return;
  for (const auto& [channel, v] : writes)
    if (is_delta_channel(index_, channel))
      exit_delta_writes_.push_back({step_, task_id, channel, v});
}

void run_loop::save_exit_delta_writes(const std::set<std::string>& snapshotted) {
  std::vector<task_writes> tasks;
  for (std::size_t i = 0; i < exit_delta_writes_.size(); ++i) {
    auto& w = exit_delta_writes_[i];
    if (snapshotted.count(w.channel)) continue;
    // Saved writes come back in task id order: the id starts with the step and the write's
    // place in the run (LangGraph's exit_delta_task_id), so they come back in the order the
    // run applied them.
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "%08lld-%08zu-", static_cast<long long>(w.step + 1), i);
    tasks.push_back({prefix + w.task_id, "", {{std::move(w.channel), std::move(w.v)}}});
  }
  exit_delta_writes_.clear();
  if (tasks.empty()) return;
  if (last_saved_id_.empty()) {
    // No checkpoint before the run: an empty one (LangGraph's stub, step -2) holds them and
    // becomes the parent of the run's checkpoint.
    checkpoint stub;
    stub.id = exit_stub_id_.empty() ? ids_.next() : exit_stub_id_;
    stub.ts = now_iso8601();
    checkpoint_metadata meta;
    meta.step = -2;
    checkpoint_config root = cp_config_;
    root.checkpoint_id.clear();
    last_saved_id_ = saver_->put(root, stub, meta, {}).checkpoint_id;
  }
  checkpoint_config anchor = cp_config_;
  anchor.checkpoint_id = last_saved_id_;
  saver_->put_writes_many(anchor, tasks);
}

namespace {

std::string task_path_of(const pregel_task& t) {
  return t.push ? std::string(PUSH) + "," + std::to_string(t.push_index)
                : std::string(PULL) + "," + t.name;
}

// Whether what `t` leaves in the saver is its writes as they are (saved_writes_of).
bool lends_writes(const pregel_task& t) {
  return t.rare->interrupts.empty() && !t.rare->error && !t.writes.empty();
}

// What a finished task leaves in the saver: its writes, or why it has none.
task_writes saved_writes_of(const pregel_task& t) {
  task_writes w;
  w.task_id = t.id;
  w.task_path = task_path_of(t);
  if (!t.rare->interrupts.empty()) {
    w.writes = t.writes;  // the resume values it was given
    w.writes.emplace_back(std::string(INTERRUPT), value(t.rare->interrupts));
  } else if (t.rare->error) {
    w.writes = {{std::string(ERROR), value(t.rare->error->message)}};
  }
  if (t.rare->handled_error && (t.rare->error || !t.rare->interrupts.empty()))
    // The node failed and its error handler did not finish: a resume runs the handler again.
    w.writes.emplace_back(std::string(ERROR_SOURCE_NODE),
                          object{{"node", t.name.str()},
                                 {"code", static_cast<std::int64_t>(t.rare->handled_error->code)},
                                 {"error", t.rare->handled_error->message}});
  if (!t.rare->interrupts.empty() || t.rare->error) return w;
  if (t.writes.empty()) {  // still record that the task finished, so a resume skips it
    w.writes = {{std::string(NO_WRITES), value()}};
  } else {
    w.writes = t.writes;
  }
  return w;
}

}  // namespace

void run_loop::save_writes(const std::vector<const pregel_task*>& tasks) {
  checkpoint_config cfg = cp_config_;
  cfg.checkpoint_id = state_.checkpoint.id;
  std::vector<task_writes> all;
  all.reserve(tasks.size());
  // A task's own writes (no interrupt or error) are lent to the saver rather than copied (a
  // task sending 10^6 Sends holds 56 MB of them), and given back even if the saver throws. The
  // tasks are the loop's own or a writes saver's batch: no one reads them while they are saved.
  std::vector<pregel_task*> lent(tasks.size());  // by position in `all`
  auto give_back = [&] {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (lent[i]) lent[i]->writes = std::move(all[i].writes);
  };
  try {
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      const pregel_task& t = *tasks[i];
      if (!lends_writes(t)) {
        all.push_back(saved_writes_of(t));
        continue;
      }
      task_writes w{t.id, task_path_of(t), {}};
      lent[i] = const_cast<pregel_task*>(&t);
      w.writes = std::move(lent[i]->writes);
      all.push_back(std::move(w));  // reserved: cannot throw
    }
    saver_->put_writes_many(cfg, all);
  } catch (...) {
    give_back();
    throw;
  }
  give_back();
}

bool run_loop::writes_saved_apart() const noexcept {
  return saver_ && durability_ != durability::exit && !shared_.cache &&
         !shared_.wants(stream_mode::updates) && !shared_.wants(stream_mode::debug) &&
         !shared_.wants(stream_mode::tasks);
}

void run_loop::restore_write_values(const std::vector<bool>& which) {
  if (!saver_) return;
  // Under async durability the step's checkpoint, which its pending writes hang from, may
  // still be queued.
  if (background_) background_->drain();
  checkpoint_config cfg = cp_config_;
  cfg.checkpoint_id = state_.checkpoint.id;
  auto saved = saver_->get_tuple(cfg);
  // Every task saved at least one record (NO_WRITES when it wrote nothing).
  std::unordered_map<std::string, std::vector<std::pair<std::string, value>>> by_task;
  if (saved)
    for (auto& w : saved->pending_writes) {
      auto& writes = by_task[w.task_id];
      if (w.channel != INTERRUPT && w.channel != ERROR && w.channel != ERROR_SOURCE_NODE &&
          w.channel != NO_WRITES)
        writes.emplace_back(std::move(w.channel), std::move(w.v));
    }
  for (std::size_t i = 0; i < which.size() && i < tasks_.size(); ++i) {
    if (!which[i] || tasks_[i].rare->error) continue;
    auto it = by_task.find(tasks_[i].id);
    if (it == by_task.end())
      throw error(error_code::internal, "the saved writes of task " + tasks_[i].id +
                                            " are missing from checkpoint " + state_.checkpoint.id);
    tasks_[i].writes = std::move(it->second);
  }
}

std::vector<actors::channel_delta> run_loop::committed_values(
    const std::vector<std::string>& names, std::vector<channel_version>* versions) {
  std::vector<actors::channel_delta> out;
  if (names.empty()) return out;
  // Under async durability the checkpoint may still be queued.
  if (background_) background_->drain();
  std::optional<checkpoint_tuple> saved;
  if (saver_) saved = saver_->get_tuple(cp_config_);
  if (!saved)
    throw error(error_code::internal, "the run's last checkpoint (" + cp_config_.checkpoint_id +
                                          ") cannot be read back to place its channels again");
  out.reserve(names.size());
  for (const auto& name : names) {
    const auto& proto = g_.channels.at(name);
    auto it = saved->checkpoint.channel_values.find(name);
    auto ch = it == saved->checkpoint.channel_values.end() ? proto->copy()
                                                           : proto->from_checkpoint(it->second);
    out.push_back(actors::channel_delta::of(name, ch->transfer()));
    if (versions) versions->push_back(algo::version_of(saved->checkpoint, name));
  }
  return out;
}

void run_loop::forget_in_background(const std::unordered_set<std::string>& names) {
  if (background_) background_->forget({names.begin(), names.end()});
}

void run_loop::put_checkpoint(const char* source, const algo::applied* applied,
                              delta_snapshots delta) {
  // Every change since the last put reaches the saver, including those made outside a step
  // (a Command's update, the seen versions of a resumed run), so it stores the value of each
  // changed channel and may store the version maps as what changed.
  checkpoint_changes changed;
  if (saver_) {
    if (applied) add_changes(unsaved_changes_, applied->new_versions, applied->seen_changed);
    changed = std::exchange(unsaved_changes_, {});
    for (const auto& name : index_.not_extended)
      if (changed.versions.count(name)) changed.not_extended.insert(name);
  }
  checkpoint& cp = state_.checkpoint;
  const std::string parent_id = cp.id;
  cp.id = ids_.next();
  if (saver_) cp.ts = now_iso8601();
  checkpoint_metadata meta;
  meta.source = source;
  meta.step = step_;
  meta.parents = shared_.parents;
  if (saver_) merge_config_metadata(meta, shared_.config);
  if (saver_) {
    // Held back until the run's end under exit durability: no snapshot is made before then.
    if (durability_ == durability::exit)
      delta = delta_snapshots::none;
    else if (std::exchange(delta_snapshot_all_, false))
      delta = delta_snapshots::all;
    prepare_delta_checkpoint(state_, index_, delta_counters_, changed.versions, true, delta, meta);
  }
  if (saver_) {
    checkpoint_config parent = cp_config_;
    parent.checkpoint_id = parent_id;
    switch (durability_) {
      case durability::sync:
        cp_config_ = saver_->put_changes(parent, cp, meta, changed);
        saver_->runs().saved_checkpoint(cp_config_);
        break;
      case durability::async: {
        std::vector<std::string> drop;
        if (!state_.held_elsewhere.empty())
          for (const auto& [name, _] : changed.versions)
            if (state_.held_elsewhere.count(name)) drop.push_back(name);
        background_->put(parent, cp, meta, std::move(changed), std::move(drop));
        cp_config_.checkpoint_id = cp.id;
        saver_->runs().saved_checkpoint(cp_config_);  // saved by the time the run ends
        break;
      }
      case durability::exit:
        if (!unsaved_) last_saved_id_ = parent_id;
        unsaved_ = true;
        unsaved_meta_ = meta;
        add_changes(unsaved_versions_, changed.versions, changed.seen);
        cp_config_.checkpoint_id = cp.id;
        break;
    }
  }
  stream_meta_ = meta;
  // The checkpoints stream names as parent the checkpoint saved before this one, as LangGraph's
  // loop does (its prev_checkpoint_config): under exit durability none is saved during the run,
  // so it stays the parent of the checkpoint the run started from.
  if (durability_ != durability::exit) stream_parent_id_ = parent_id;
  ++step_;
}

}  // namespace superstep::detail
