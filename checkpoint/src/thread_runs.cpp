#include "superstep/checkpoint/thread_runs.hpp"

#include <algorithm>

#include "superstep/core/error.hpp"

namespace superstep {

multitask_strategy parse_multitask_strategy(std::string_view name) {
  if (name == "reject") return multitask_strategy::reject;
  if (name == "enqueue") return multitask_strategy::enqueue;
  if (name == "interrupt") return multitask_strategy::interrupt;
  if (name == "rollback") return multitask_strategy::rollback;
  throw error(error_code::invalid_argument,
              "multitask strategy must be reject, enqueue, "
              "interrupt or rollback, not '" +
                  std::string(name) + "'");
}

std::string_view multitask_strategy_name(multitask_strategy s) noexcept {
  switch (s) {
    case multitask_strategy::reject: return "reject";
    case multitask_strategy::enqueue: return "enqueue";
    case multitask_strategy::interrupt: return "interrupt";
    case multitask_strategy::rollback: return "rollback";
  }
  return "reject";
}

struct thread_runs::run {
  explicit run(std::string id) : run_id(std::move(id)) {}
  std::string run_id;
  std::atomic<bool> stop{false};
  // Guarded by the registry's mutex:
  std::optional<multitask_strategy> stop_kind;
  std::string stopped_by;
  bool cancelled = false;  // while waiting
  run_footprint footprint;
};

struct thread_runs::thread_entry {
  std::shared_ptr<run> active;
  std::deque<std::shared_ptr<run>> waiting;
};

thread_runs::thread_runs() = default;
thread_runs::~thread_runs() = default;

thread_runs::slot thread_runs::begin(const std::string& thread_id, const std::string& run_id,
                                     multitask_strategy strategy) {
  auto me = std::make_shared<run>(run_id);
  std::unique_lock lock(m_);
  auto& entry = threads_[thread_id];
  if (!entry) entry = std::make_unique<thread_entry>();
  thread_entry& t = *entry;
  if (!t.active && t.waiting.empty()) {
    t.active = me;
    ++active_;
    return slot(this, thread_id, std::move(me));
  }
  const std::string& busy_with = t.active ? t.active->run_id : t.waiting.front()->run_id;
  switch (strategy) {
    case multitask_strategy::reject:
      throw error(error_code::thread_busy,
                  "thread '" + thread_id + "' is busy with run " + busy_with +
                      " (multitask strategy reject: the new run " + run_id +
                      " is refused; enqueue waits for it, interrupt or rollback stops it)");
    case multitask_strategy::enqueue: t.waiting.push_back(me); break;
    case multitask_strategy::interrupt:
    case multitask_strategy::rollback:
      for (auto& w : t.waiting) {
        w->cancelled = true;
        w->stopped_by = run_id;
        w->stop_kind = strategy;
      }
      t.waiting.clear();
      if (t.active && !t.active->stop_kind) {
        t.active->stop_kind = strategy;
        t.active->stopped_by = run_id;
        t.active->stop = true;
      }
      t.waiting.push_front(me);
      break;
  }
  changed_.notify_all();
  changed_.wait(lock, [&] { return me->cancelled || (!t.active && t.waiting.front() == me); });
  if (me->cancelled)
    throw error(error_code::run_cancelled,
                "run " + run_id + " on thread '" + thread_id +
                    "' was cancelled before it started: run " + me->stopped_by +
                    " came with multitask strategy " +
                    std::string(multitask_strategy_name(*me->stop_kind)));
  t.waiting.pop_front();
  t.active = me;
  ++active_;
  changed_.notify_all();
  return slot(this, thread_id, std::move(me));
}

void thread_runs::end(const std::string& thread_id, const std::shared_ptr<run>& r) {
  std::lock_guard lock(m_);
  auto it = threads_.find(thread_id);
  if (it == threads_.end() || it->second->active != r) return;
  it->second->active = nullptr;
  --active_;
  if (it->second->waiting.empty()) threads_.erase(it);
  changed_.notify_all();
}

thread_runs::thread_status thread_runs::status_locked(const std::string& thread_id) const {
  thread_status s;
  auto it = threads_.find(thread_id);
  if (it == threads_.end()) return s;
  if (const auto& a = it->second->active) {
    s.running = a->run_id;
    s.stop = a->stop_kind;
  }
  for (const auto& w : it->second->waiting) s.waiting.push_back(w->run_id);
  return s;
}

thread_runs::thread_status thread_runs::status(const std::string& thread_id) const {
  std::lock_guard lock(m_);
  return status_locked(thread_id);
}

bool thread_runs::wait_until(const std::string& thread_id,
                             const std::function<bool(const thread_status&)>& ready,
                             std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_);
  return changed_.wait_for(lock, timeout, [&] { return ready(status_locked(thread_id)); });
}

void thread_runs::saved_checkpoint(const checkpoint_config& where) {
  if (active_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(m_);
  auto it = threads_.find(where.thread_id);
  if (it == threads_.end() || !it->second->active) return;
  it->second->active->footprint.checkpoints.push_back(where);
}

thread_runs::slot::slot(slot&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      thread_id_(std::move(other.thread_id_)),
      run_(std::move(other.run_)) {}

thread_runs::slot& thread_runs::slot::operator=(slot&& other) noexcept {
  if (this != &other) {
    if (owner_ && run_) owner_->end(thread_id_, run_);
    owner_ = std::exchange(other.owner_, nullptr);
    thread_id_ = std::move(other.thread_id_);
    run_ = std::move(other.run_);
  }
  return *this;
}

thread_runs::slot::~slot() {
  if (owner_ && run_) owner_->end(thread_id_, run_);
}

const std::atomic<bool>* thread_runs::slot::stop_flag() const noexcept {
  return run_ ? &run_->stop : nullptr;
}

std::optional<std::pair<multitask_strategy, std::string>> thread_runs::slot::stop_request() const {
  if (!owner_ || !run_) return std::nullopt;
  std::lock_guard lock(owner_->m_);
  if (!run_->stop_kind) return std::nullopt;
  return std::pair{*run_->stop_kind, run_->stopped_by};
}

run_footprint thread_runs::slot::footprint() const {
  if (!owner_ || !run_) return {};
  std::lock_guard lock(owner_->m_);
  return run_->footprint;
}

void thread_runs::slot::set_start(const checkpoint_config& start,
                                  std::vector<pending_write> writes) {
  if (!owner_ || !run_) return;
  std::lock_guard lock(owner_->m_);
  run_->footprint.start = start;
  run_->footprint.start_writes = std::move(writes);
}

const std::string& thread_runs::slot::run_id() const noexcept {
  static const std::string none;
  return run_ ? run_->run_id : none;
}

}  // namespace superstep
