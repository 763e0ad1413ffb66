#pragma once

// Internal: the cancellation of one run loop (LangGraph cancels a step's asyncio tasks when
// the run is cancelled, its stream closed, its step_timeout passed, or a task failed).

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>

#include "superstep/core/error.hpp"

namespace superstep::detail {

/// A run loop's cancellation, one per loop (a subgraph's run has its own, linked to its
/// parent's): the stop source its tasks watch through `node_context::stop_token()`. It is
/// requested, once, for the first of: the outer token stopping (run_control::request_cancel
/// at the top level, the parent run's cancellation in a subgraph), `cancel(why)` (the stream
/// sink closing the stream, the step timeout), or `cancel_for_failure()` (a task of the step
/// failed). Thread-safe.
class run_cancel {
 public:
  /// `outer`: the token whose stop cancels this run too; `outer_reason`: the error the run
  /// then fails with (called once, on the thread that stopped `outer`).
  run_cancel(std::stop_token outer, std::function<error()> outer_reason);
  ~run_cancel();
  run_cancel(const run_cancel&) = delete;
  run_cancel& operator=(const run_cancel&) = delete;

  std::stop_token token() const noexcept { return source_.get_token(); }
  bool requested() const noexcept { return source_.stop_requested(); }

  /// Cancels the run's tasks; the run fails with `why`. No-op once cancelled.
  void cancel(error why);
  /// Cancels the step's other tasks because one failed: the step fails with that task's
  /// error, so no reason is kept. No-op once cancelled.
  void cancel_for_failure();
  /// The error the run fails with when it was cancelled for another reason than a failed task.
  std::optional<error> reason() const;

  /// Starts the clock of step `step`: `timeout_ms` after now, the run is cancelled with
  /// error(step_timeout). The first call starts the watchdog thread.
  void arm(std::int64_t step, double timeout_ms);
  /// Stops the clock of the step (it ended in time).
  void disarm();

 private:
  void watch();

  std::stop_source source_;
  mutable std::mutex m_;
  std::optional<error> reason_;
  std::function<error()> outer_reason_;
  // The step watchdog: a deadline, the step it is for and its limit.
  std::condition_variable cv_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::int64_t step_ = 0;
  double timeout_ms_ = 0;
  bool stopping_ = false;
  std::thread watchdog_;
  // Last: a stopped outer token runs the callback in the constructor, after the rest exists.
  std::optional<std::stop_callback<std::function<void()>>> link_;
};

/// At most `limit` holders at once (LangGraph's max_concurrency semaphore around a step's
/// tasks). Thread-safe.
class task_gate {
 public:
  explicit task_gate(std::size_t limit) : free_(limit) {}

  /// A place held until it is destroyed; empty when the wait was cancelled.
  class place {
   public:
    place() = default;
    explicit place(task_gate* g) : g_(g) {}
    place(place&& o) noexcept : g_(std::exchange(o.g_, nullptr)) {}
    place& operator=(place&&) = delete;
    ~place() {
      if (g_) g_->leave();
    }

   private:
    task_gate* g_ = nullptr;
  };

  /// Waits for a free place, or until `stop` is requested (then holds none).
  place enter(std::stop_token stop) {
    std::unique_lock lock(m_);
    if (!cv_.wait(lock, stop, [&] { return free_ > 0; })) return place();
    --free_;
    return place(this);
  }

 private:
  void leave() {
    {
      std::lock_guard lock(m_);
      ++free_;
    }
    cv_.notify_one();
  }

  std::mutex m_;
  std::condition_variable_any cv_;
  std::size_t free_;
};

}  // namespace superstep::detail
