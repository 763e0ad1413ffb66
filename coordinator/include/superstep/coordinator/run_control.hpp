#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace superstep {

/// A run's control surface for cooperative draining (LangGraph `RunControl`), given to a run
/// through `stream_options::control`.
///
/// `request_drain` asks the run to stop at its next step boundary: the step in flight
/// finishes (its tasks, and the functional API task calls they have made or go on to make),
/// is saved, and then the run ends. When nothing is left to run it ends normally with its
/// output; otherwise it fails with error(drained, "Graph drained: <reason> ..."), its thread
/// resumable from the checkpoint it saved (LangGraph's GraphDrained). Subgraphs of the run
/// (threads and actors modes, in this process) drain likewise.
///
/// Meant for one run: a control stays drained once asked. Thread-safe: request_drain may be
/// called from any thread (a signal handler's helper thread, a node of the run itself).
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

 private:
  mutable std::mutex m_;
  std::atomic<bool> requested_{false};
  std::string reason_;
};

}  // namespace superstep
