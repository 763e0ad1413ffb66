#pragma once

// The progress line of a run's long steps on stderr, for `superstep run` and the commands sent
// to a head.

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace superstep::cli {

/// The progress line of long steps on stderr: "\r[step 3] 51234/100000 tasks  48211/s".
class progress_line {
 public:
  /// `asked`: --progress was given, so every step of several tasks gets a line; otherwise
  /// (a terminal) only steps that run longer than 0.3 s.
  progress_line(bool asked, bool terminal) : on_(asked || terminal), eager_(asked) {}
  void show(std::int64_t step, std::uint64_t done, std::uint64_t total) {
    if (!on_ || total < 2) return;
    auto now = std::chrono::steady_clock::now();
    if (step != step_) step_ = step, start_ = now, first_ = done;
    double secs = std::chrono::duration<double>(now - start_).count();
    if (!shown_ && !eager_ && secs < 0.3) return;  // short steps go by without a line
    char buf[160];
    std::snprintf(buf, sizeof buf, "\r[step %lld] %llu/%llu tasks  %.0f/s   ",
                  static_cast<long long>(step), static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total), secs > 0 ? (done - first_) / secs : 0.0);
    std::fputs(buf, stderr);
    shown_ = true;
    if (done == total) end();
  }
  void end() {
    if (shown_) std::fputs("\n", stderr);
    shown_ = false;
  }

 private:
  bool on_;
  bool eager_;
  bool shown_ = false;
  std::int64_t step_ = -2;
  std::uint64_t first_ = 0;  // tasks done when the step's first report came
  std::chrono::steady_clock::time_point start_;
};

}  // namespace superstep::cli
