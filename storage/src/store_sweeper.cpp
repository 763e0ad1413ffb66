#include "store_sweeper.hpp"

#include <utility>

namespace superstep::storage {

ttl_sweeper::ttl_sweeper(std::chrono::milliseconds interval, std::function<std::size_t()> sweep,
                         report_fn on_sweep)
    : interval_(interval),
      sweep_(std::move(sweep)),
      on_sweep_(std::move(on_sweep)),
      thread_([this] { run(); }) {}

ttl_sweeper::~ttl_sweeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ttl_sweeper::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, interval_, [this] { return stopping_; })) return;
    }
    std::size_t swept = 0;
    std::exception_ptr failure;
    try {
      swept = sweep_();
    } catch (...) {
      // A failed sweep (a storage error) must not end the process; the next one may work.
      failure = std::current_exception();
    }
    if (!on_sweep_) continue;
    try {
      on_sweep_(swept, failure);
    } catch (...) {
      // The callback's own failure has nowhere to go on this thread: dropped, as documented.
    }
  }
}

}  // namespace superstep::storage
