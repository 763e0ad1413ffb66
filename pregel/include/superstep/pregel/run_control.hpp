#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

namespace superstep {

/// A run's control surface (LangGraph `RunControl`), given to a run through
/// `stream_options::control`: drain it at its next step boundary, or cancel it now.
///
/// `request_drain` asks the run to stop at its next step boundary: the step in flight
/// finishes (its tasks, and the functional API task calls they have made or go on to make),
/// is saved, and then the run ends. When nothing is left to run it ends normally with its
/// output; otherwise it fails with error(drained, "Graph drained: <reason> ..."), its thread
/// resumable from the checkpoint it saved (LangGraph's GraphDrained). Subgraphs of the run
/// (threads and actors modes, in this process) drain likewise.
///
/// `request_cancel` cancels the run at once (LangGraph: cancelling the asyncio task that runs
/// `ainvoke`, or a pending `astream` `__anext__`): its running nodes are cancelled
/// cooperatively (`node_context::stop_token()`, `throw_if_cancelled()`, `sleep_for()`, task
/// futures and nested graph runs observe it), no new step starts, and the run fails with
/// error(cancelled, "run cancelled: <reason>") once its running nodes have returned. What the
/// step's finished nodes wrote stays saved as pending writes, and the run still saves what its
/// durability held back (exit durability's checkpoint) before it returns. Subgraphs of the run
/// and the functional API's task calls are cancelled with it; nodes hosted by other processes
/// are not told.
///
/// Meant for one run: a control stays drained (cancelled) once asked. Thread-safe: the
/// requests may be called from any thread (a signal handler's helper thread, a watchdog, a
/// node of the run itself).
class run_control {
 public:
  /// Asks the run to drain; `reason` is told in the error (LangGraph's default "shutdown").
  /// Later calls keep the first reason.
  void request_drain(std::string reason = "shutdown") {
    std::lock_guard lock(m_);
    if (requested_.load(std::memory_order_relaxed)) return;
    reason_ = std::move(reason);
    requested_.store(true, std::memory_order_release);
  }
  /// Whether `request_drain` was called.
  bool drain_requested() const noexcept { return requested_.load(std::memory_order_acquire); }
  /// The reason given to `request_drain`; none before it was called.
  std::optional<std::string> drain_reason() const {
    std::lock_guard lock(m_);
    if (!requested_.load(std::memory_order_relaxed)) return std::nullopt;
    return reason_;
  }

  /// Cancels the run; `reason` is told in its error (LangGraph's CancelledError has none: the
  /// default says who asked). Later calls keep the first reason.
  void request_cancel(std::string reason = "cancelled by its caller") {
    {
      std::lock_guard lock(m_);
      if (cancel_asked_) return;
      cancel_asked_ = true;
      cancel_reason_ = std::move(reason);
    }
    cancel_.request_stop();
  }
  /// Whether `request_cancel` was called.
  bool cancel_requested() const noexcept { return cancel_.stop_requested(); }
  /// The reason given to `request_cancel`; none before it was called.
  std::optional<std::string> cancel_reason() const {
    std::lock_guard lock(m_);
    if (!cancel_asked_) return std::nullopt;
    return cancel_reason_;
  }
  /// Stopped once `request_cancel` was called: what the run links its own cancellation to.
  std::stop_token cancel_token() const noexcept { return cancel_.get_token(); }

 private:
  mutable std::mutex m_;
  std::atomic<bool> requested_{false};
  std::string reason_;
  std::stop_source cancel_;
  bool cancel_asked_ = false;
  std::string cancel_reason_;
};

}  // namespace superstep
