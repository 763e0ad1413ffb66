#pragma once

// One run per thread at a time: the runs in progress on the threads of one database, and what
// a run does when its thread is busy (LangGraph Platform's `multitask_strategy`).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"

namespace superstep {

/// What a run does when its thread already has a run in progress or waiting (LangGraph
/// Platform's `multitask_strategy`, "double texting").
enum class multitask_strategy : std::uint8_t {
  /// Fail at once with `error_code::thread_busy`, naming the thread and the running run. The
  /// default: two runs never write one thread at once, and nobody waits unasked.
  reject,
  /// Wait until the runs before it on the thread end, then run (in the order they came).
  enqueue,
  /// Stop the running run at its next step (the checkpoints it saved stay; it can be resumed)
  /// and cancel the runs waiting, then run. The stopped run fails with
  /// `error_code::run_cancelled`.
  interrupt,
  /// The same, and remove what the stopped run saved: its checkpoints, and the pending writes
  /// it added to the checkpoint it started from. Checkpoints of earlier runs stay.
  rollback,
};

/// Parses "reject", "enqueue", "interrupt" or "rollback"; throws `superstep::error`
/// (invalid_argument) naming `name` otherwise.
multitask_strategy parse_multitask_strategy(std::string_view name);
std::string_view multitask_strategy_name(multitask_strategy s) noexcept;

/// What a run saved that a rollback removes.
struct run_footprint {
  /// The checkpoints the run saved, in every namespace, in the order saved.
  std::vector<checkpoint_config> checkpoints;
  /// The checkpoint the run started from (top level) and its pending writes then; a rollback
  /// puts them back as they were. Empty thread_id: the run started a new thread.
  checkpoint_config start;
  std::vector<pending_write> start_writes;
};

/// The runs in progress on the threads of one database, in one process. A checkpointer owns
/// one (`checkpoint_saver::runs()`); savers on one database share it. `pregel::stream` and
/// `invoke` take a slot for their thread before they start and free it when they end, so two
/// runs of one process never write one thread at once (their channel versions would collide).
/// Processes do not share it: two processes cannot open one RocksDB database anyway.
///
/// Thread-safe.
class thread_runs {
  struct run;

 public:
  /// What a thread is doing, as `status` reports it.
  struct thread_status {
    std::string running;                     ///< the run in progress; empty: none
    std::optional<multitask_strategy> stop;  ///< interrupt or rollback asked of it
    std::vector<std::string> waiting;        ///< runs waiting for the thread, in order
  };

  /// A run's hold on its thread, from `begin` until destroyed.
  class slot {
   public:
    slot() = default;
    slot(slot&& other) noexcept;
    slot& operator=(slot&& other) noexcept;
    ~slot();

    /// Set (never cleared) when a later run asked this one to stop; the run loop reads it
    /// before each step.
    const std::atomic<bool>* stop_flag() const noexcept;
    /// The strategy of the run that asked this one to stop (interrupt or rollback) and its
    /// id; nullopt while nobody has.
    std::optional<std::pair<multitask_strategy, std::string>> stop_request() const;
    /// What the run saved so far (read it after the run ended).
    run_footprint footprint() const;
    /// Records the checkpoint the run starts from and its pending writes (the run loop).
    void set_start(const checkpoint_config& start, std::vector<pending_write> writes);
    const std::string& run_id() const noexcept;
    const std::string& thread_id() const noexcept { return thread_id_; }

   private:
    friend class thread_runs;
    slot(thread_runs* owner, std::string thread_id, std::shared_ptr<run> r)
        : owner_(owner), thread_id_(std::move(thread_id)), run_(std::move(r)) {}
    thread_runs* owner_ = nullptr;
    std::string thread_id_;
    std::shared_ptr<run> run_;
  };

  thread_runs();
  ~thread_runs();
  thread_runs(const thread_runs&) = delete;
  thread_runs& operator=(const thread_runs&) = delete;

  /// Takes the thread for run `run_id`, as `strategy` says when the thread is busy:
  /// - reject: throws `superstep::error` (thread_busy) "thread 'T' is busy with run R ...";
  /// - enqueue: blocks until every run before it on the thread has ended;
  /// - interrupt, rollback: asks the running run to stop, cancels the waiting ones, and
  ///   blocks until the running run has ended (a run stops at its next step: a node in
  ///   progress finishes first).
  /// A run that waits and is cancelled by a later run's interrupt or rollback throws
  /// `superstep::error` (run_cancelled) naming that run.
  [[nodiscard]] slot begin(const std::string& thread_id, const std::string& run_id,
                           multitask_strategy strategy);

  /// What the thread is doing now.
  thread_status status(const std::string& thread_id) const;

  /// Blocks until `ready(status(thread_id))` holds or `timeout` passes; returns whether it
  /// held. `ready` is called with the registry locked: it must not call back into it.
  bool wait_until(const std::string& thread_id,
                  const std::function<bool(const thread_status&)>& ready,
                  std::chrono::milliseconds timeout) const;

  /// Records that `where` (a checkpoint the saver just stored) belongs to the run in progress
  /// on its thread, if any: what a rollback of that run removes. Cheap when no run is going.
  void saved_checkpoint(const checkpoint_config& where);

 private:
  struct thread_entry;
  void end(const std::string& thread_id, const std::shared_ptr<run>& r);
  thread_status status_locked(const std::string& thread_id) const;

  mutable std::mutex m_;
  mutable std::condition_variable changed_;
  std::unordered_map<std::string, std::unique_ptr<thread_entry>> threads_;
  std::atomic<std::size_t> active_{0};  // runs holding a slot; 0 skips saved_checkpoint
};

}  // namespace superstep
