#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "superstep/pregel/task_executor.hpp"

namespace superstep {

namespace {

// A batch is split in chunks claimed through an atomic counter. Pool threads and the caller
// claim chunks until none is left; the caller then waits for chunks others still run.
struct batch {
  std::size_t n = 0;
  std::size_t chunk = 1;
  const std::function<void(std::size_t)>* body = nullptr;
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;  // the first call's exception, set once under `m`
  std::mutex m;
  std::condition_variable cv;

  // Runs chunks until none are left. A call that throws (a saver or stream sink the task's
  // report reached) is caught here: on a pool thread it would end the process, and the
  // caller must not leave run_batch, freeing `body`, while others still run it. Calls not
  // yet started are skipped once one failed; the caller rethrows the first failure.
  void work() noexcept {
    for (;;) {
      std::size_t begin = next.fetch_add(chunk);
      if (begin >= n) return;
      std::size_t end = std::min(n, begin + chunk);
      for (std::size_t i = begin; i < end && !failed.load(std::memory_order_relaxed); ++i) {
        try {
          (*body)(i);
        } catch (...) {
          std::lock_guard lock(m);
          if (!failure) failure = std::current_exception();
          failed.store(true, std::memory_order_relaxed);
        }
      }
      if (finished.fetch_add(end - begin) + (end - begin) == n) {
        std::lock_guard lock(m);
        cv.notify_all();
      }
    }
  }
};

class thread_pool_executor final : public task_executor {
 public:
  explicit thread_pool_executor(unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    threads_ = threads;
    for (unsigned i = 0; i < threads; ++i) pool_.emplace_back([this] { loop(); });
  }

  ~thread_pool_executor() override {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : pool_) t.join();
  }

  void run_batch(std::size_t n, const std::function<void(std::size_t)>& body) override {
    if (n == 0) return;
    if (n == 1) {  // no hand-off for a lone task: the chain of single nodes stays cheap
      body(0);
      return;
    }
    auto b = std::make_shared<batch>();
    b->n = n;
    b->body = &body;
    b->chunk = std::max<std::size_t>(1, n / (threads_ * 8));
    {
      std::lock_guard lock(m_);
      queue_.push_back(b);
    }
    cv_.notify_all();
    b->work();
    std::unique_lock lock(b->m);
    b->cv.wait(lock, [&] { return b->finished.load() == n; });
    if (b->failure) std::rethrow_exception(b->failure);
  }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<batch> b;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        b = queue_.front();
        if (b->next.load() >= b->n) {
          queue_.pop_front();
          continue;
        }
      }
      b->work();
      std::lock_guard lock(m_);
      if (!queue_.empty() && queue_.front() == b) queue_.pop_front();
    }
  }

  unsigned threads_ = 1;
  std::vector<std::thread> pool_;
  std::deque<std::shared_ptr<batch>> queue_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace

std::shared_ptr<task_executor> make_thread_pool_executor(unsigned threads) {
  return std::make_shared<thread_pool_executor>(threads);
}

}  // namespace superstep
