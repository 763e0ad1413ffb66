#pragma once

// The head's threads for clients' commands (head/head.cpp): a fixed number run them and a
// bounded number wait; past that a command is refused at once ("head busy ...") instead of
// each one taking a thread of its own without bound. CAF-free.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace superstep::net {

/// A fixed pool of threads with a bounded queue. Thread-safe.
class request_pool {
 public:
  /// A command: `run` on a pool thread, or `refuse` with the reason when the pool stops
  /// before it started. Neither may throw.
  struct job {
    std::function<void()> run;
    std::function<void(const std::string& why)> refuse;
  };

  /// `threads` threads (at least one), at most `queue` jobs waiting for one; `what` the jobs
  /// are, for the refusal ("head busy: 8 runs running, ...").
  request_pool(unsigned threads, unsigned queue, std::string what = "requests")
      : queue_bound_(queue), what_(std::move(what)) {
    if (threads == 0) threads = 1;
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  }

  /// Stops (refusing what waits) and joins the threads: only once nothing runs, or the
  /// process waits for the jobs still running.
  ~request_pool() {
    stop("the head is stopping");
    {
      std::lock_guard lock(m_);
      closing_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  request_pool(const request_pool&) = delete;
  request_pool& operator=(const request_pool&) = delete;

  /// Queues `j`. Returns the refusal instead when every thread is busy and the queue is
  /// full ("head busy: N requests running, M queued; try again"), or when the pool stopped
  /// (`stop`'s reason).
  std::optional<std::string> submit(job j) {
    {
      std::lock_guard lock(m_);
      if (stopped_) return stop_reason_;
      if (running_ + queue_.size() >= threads_.size() + queue_bound_)
        return "head busy: " + std::to_string(running_) + " " + what_ + " running, " +
               std::to_string(queue_.size()) + " queued; try again";
      queue_.push_back(std::move(j));
    }
    cv_.notify_one();
    return std::nullopt;
  }

  /// Takes no more jobs and refuses those waiting with `why`; running ones go on.
  void stop(const std::string& why) {
    std::deque<job> refused;
    {
      std::lock_guard lock(m_);
      if (!stopped_) stop_reason_ = why;
      stopped_ = true;
      refused.swap(queue_);
    }
    for (auto& j : refused) j.refuse(why);
    idle_.notify_all();
  }

  /// Jobs running now.
  std::size_t running() const {
    std::lock_guard lock(m_);
    return running_;
  }

  /// Waits at most `timeout` until no job runs or waits; whether that is so.
  bool wait_idle(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_);
    return idle_.wait_for(lock, timeout, [&] { return running_ == 0 && queue_.empty(); });
  }

 private:
  void work() {
    for (;;) {
      job j;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;  // closing
        j = std::move(queue_.front());
        queue_.pop_front();
        ++running_;
      }
      j.run();
      {
        std::lock_guard lock(m_);
        --running_;
      }
      idle_.notify_all();
    }
  }

  mutable std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<job> queue_;
  std::vector<std::thread> threads_;
  std::size_t queue_bound_;
  std::string what_;
  std::size_t running_ = 0;
  bool stopped_ = false;
  bool closing_ = false;
  std::string stop_reason_;
};

}  // namespace superstep::net
