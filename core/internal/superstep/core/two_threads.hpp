#pragma once

// Encoding a big value or record in parts on two threads: a fan-out's 10^6 Sends are encoded
// in parts of 16384 (a checkpoint's tasks topic, a task's pending writes) while the rest of
// the process waits on them, with a core to spare.

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

namespace superstep::detail {

/// Makes items 0..n-1 with `make(k)` and hands each to `take(k, item)` on this thread, in
/// order. With two parts or more and a second core, a second thread makes the odd ones while
/// this one makes the even ones and takes them all, the other thread at most two items ahead:
/// no more than three items are held at once (and all are made here when no thread can be
/// started). `make` must be safe to call from two threads at once. The first exception thrown by
/// either (in `k` order of what was taken) is rethrown here, after the second thread ended.
template <class Make, class Take>
void make_in_order_on_two_threads(std::size_t n, Make&& make, Take&& take) {
  const auto on_this_thread = [&] {
    for (std::size_t k = 0; k < n; ++k) take(k, make(k));
  };
  if (n < 2 || std::thread::hardware_concurrency() < 2) return on_this_thread();
  using item = decltype(make(std::size_t{0}));
  std::mutex m;
  std::condition_variable changed;
  std::map<std::size_t, item> made;  // odd items made, not taken yet
  std::size_t taken = 0;             // items taken so far
  bool stop = false;
  std::exception_ptr failed;  // the second thread's
  std::size_t failed_at = 0;
  std::thread helper;
  const auto help = [&] {
    for (std::size_t k = 1; k < n; k += 2) {
      {
        std::unique_lock lock(m);
        changed.wait(lock, [&] { return stop || k <= taken + 3; });
        if (stop) return;
      }
      try {
        item x = make(k);
        std::lock_guard lock(m);
        made.emplace(k, std::move(x));
      } catch (...) {
        std::lock_guard lock(m);
        failed = std::current_exception();
        failed_at = k;
        changed.notify_all();
        return;
      }
      changed.notify_all();
    }
  };
  try {
    helper = std::thread(help);
  } catch (const std::system_error&) {  // no thread to be had (a process or thread limit)
    return on_this_thread();
  }
  const auto finish = [&] {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    changed.notify_all();
    helper.join();
  };
  try {
    for (std::size_t k = 0; k < n; ++k) {
      if (k % 2 == 0) {
        take(k, make(k));
      } else {
        item x;
        {
          std::unique_lock lock(m);
          changed.wait(lock, [&] { return made.count(k) != 0 || (failed && failed_at == k); });
          if (failed && failed_at == k) std::rethrow_exception(failed);
          x = std::move(made.at(k));
          made.erase(k);
        }
        take(k, std::move(x));
      }
      {
        std::lock_guard lock(m);
        taken = k + 1;
      }
      changed.notify_all();
    }
  } catch (...) {
    finish();
    throw;
  }
  finish();
}

}  // namespace superstep::detail
