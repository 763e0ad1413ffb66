#pragma once

// The background thread of a store with a `ttl_config::sweep_interval`.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace superstep::storage {

/// Calls `sweep` every `interval` on its own thread, reporting each outcome to `on_sweep`
/// (if set), until destroyed. The destructor wakes the thread and joins it, so it returns
/// after at most the sweep in progress, never a whole interval.
class ttl_sweeper {
 public:
  using report_fn = std::function<void(std::size_t, const std::exception_ptr&)>;

  ttl_sweeper(std::chrono::milliseconds interval, std::function<std::size_t()> sweep,
              report_fn on_sweep);
  ~ttl_sweeper();
  ttl_sweeper(const ttl_sweeper&) = delete;
  ttl_sweeper& operator=(const ttl_sweeper&) = delete;

 private:
  void run();

  std::chrono::milliseconds interval_;
  std::function<std::size_t()> sweep_;
  report_fn on_sweep_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace superstep::storage
