#pragma once

// Child processes of the `superstep` program for the suites that start, kill and restart
// them: each one's stdout and stderr go to files in a scratch folder, and a child still
// running when its test ends is killed, so no test leaves a process behind.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/cli_support.hpp"

namespace superstep::test {

using namespace std::chrono_literals;

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Variables a child gets on top of the test's environment, each `NAME=VALUE`.
using environment = std::vector<std::string>;

// A child process running the program, with stdout and stderr in files. Killed and reaped
// when the test leaves early, so that no test can leave a process behind.
class child {
 public:
  child(const std::vector<std::string>& args, const scratch& s, const environment& env = {})
      : child(test::superstep_bin(), args, s, env) {}
  /// Runs `program` instead of the `superstep` program.
  child(std::string program, const std::vector<std::string>& args, const scratch& s,
        const environment& env = {}) {
    out_ = s.path("out" + std::to_string(++count_));
    err_ = s.path("err" + std::to_string(count_));
    std::string bin = std::move(program);
    std::vector<char*> argv{bin.data()};
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    environment vars = env;
    pid_ = ::fork();
    BOOST_REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
      ::unsetenv("SUPERSTEP_AES_KEY");
      for (auto& v : vars) ::putenv(v.data());
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~child() {
    if (running()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  child(const child&) = delete;
  child& operator=(const child&) = delete;

  bool running() const { return !status_; }
  pid_t pid() const { return pid_; }

  /// What it wrote to stderr so far.
  std::string err_text() const { return read_file(err_); }

  /// What it wrote to stdout so far.
  std::string out_text() const { return read_file(out_); }

  /// Waits at most `timeout` until its stderr holds `text` `times` times; false otherwise.
  bool wait_for_err(const std::string& text, std::chrono::milliseconds timeout, int times = 1) {
    return wait_for(err_, text, timeout, times);
  }

  /// The same for its stdout.
  bool wait_for_out(const std::string& text, std::chrono::milliseconds timeout, int times = 1) {
    return wait_for(out_, text, timeout, times);
  }

  /// Sends `sig` (SIGTERM to stop a head or worker) and waits for it to end.
  void stop(int sig = SIGTERM) {
    if (running()) ::kill(pid_, sig);
    if (!wait(10s)) kill();
  }

 private:
  bool wait_for(const std::string& file, const std::string& text, std::chrono::milliseconds timeout,
                int times) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      std::string err = read_file(file);
      int n = 0;
      for (auto at = err.find(text); at != std::string::npos; at = err.find(text, at + 1)) ++n;
      if (n >= times) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(10ms);
    }
  }

 public:
  // Waits at most `timeout` for the child to end; false when it still runs.
  bool wait(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (running()) {
      int status = 0;
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        status_ = status;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(2ms);
    }
    return true;
  }

  void kill() {
    if (running()) ::kill(pid_, SIGKILL);
    BOOST_REQUIRE(wait(10s));
  }

  // The result once it ended; the status is -1 when a signal ended it.
  cli_result result() const {
    cli_result r;
    r.status = WIFEXITED(*status_) ? WEXITSTATUS(*status_) : -1;
    r.out = read_file(out_);
    r.err = read_file(err_);
    return r;
  }

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  std::string out_, err_;
  static inline int count_ = 0;
};

// Runs the program to its end (bounded).
inline cli_result run_to_end(const std::vector<std::string>& args, const scratch& s) {
  child c(args, s);
  BOOST_REQUIRE_MESSAGE(c.wait(20s), "superstep did not finish in 20 s");
  return c.result();
}

}  // namespace superstep::test
