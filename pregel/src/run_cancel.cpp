#include "superstep/pregel/run_cancel.hpp"

#include <cstdio>
#include <string>

namespace superstep::detail {

run_cancel::run_cancel(std::stop_token outer, std::function<error()> outer_reason)
    : outer_reason_(std::move(outer_reason)) {
  if (outer.stop_possible())
    link_.emplace(std::move(outer), std::function<void()>([this] {
                    cancel(outer_reason_ ? outer_reason_()
                                         : error(error_code::cancelled, "the run was cancelled"));
                  }));
}

run_cancel::~run_cancel() {
  link_.reset();  // waits for a callback running on another thread
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

void run_cancel::cancel(error why) {
  {
    std::lock_guard lock(m_);
    if (source_.stop_requested()) return;
    reason_ = std::move(why);
  }
  source_.request_stop();
}

void run_cancel::cancel_for_failure() {
  {
    std::lock_guard lock(m_);
    if (source_.stop_requested()) return;
  }
  source_.request_stop();
}

std::optional<error> run_cancel::reason() const {
  std::lock_guard lock(m_);
  return reason_;
}

void run_cancel::arm(std::int64_t step, double timeout_ms) {
  {
    std::lock_guard lock(m_);
    step_ = step;
    timeout_ms_ = timeout_ms;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double, std::milli>(timeout_ms));
    if (!watchdog_.joinable()) watchdog_ = std::thread([this] { watch(); });
  }
  cv_.notify_all();
}

void run_cancel::disarm() {
  std::lock_guard lock(m_);
  deadline_.reset();
}

void run_cancel::watch() {
  std::unique_lock lock(m_);
  for (;;) {
    if (stopping_) return;
    if (!deadline_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, *deadline_) != std::cv_status::timeout) continue;
    if (!deadline_ || std::chrono::steady_clock::now() < *deadline_) continue;
    deadline_.reset();
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.3fs", timeout_ms_ / 1000);
    error why(error_code::step_timeout, "Timed out: step " + std::to_string(step_) +
                                            " ran past the graph's step_timeout of " + limit);
    lock.unlock();
    cancel(std::move(why));
    lock.lock();
  }
}

}  // namespace superstep::detail
