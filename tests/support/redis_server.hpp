#pragma once

// A real redis-server (Debian's redis-server package) for tests: started on a free loopback
// port in a temporary folder, ready when it says so on its output, stopped (and killed if it
// lingers) at the end. It dies with the test process (PR_SET_PDEATHSIG).
// SUPERSTEP_TEST_REDIS_URL points `url()` at a server of your own instead (to watch the tests'
// commands with `redis-cli monitor`); the one started here then goes unused.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/loopback_port.hpp"
#include "support/temp_dir.hpp"

namespace superstep::test {

/// Whether redis-server can be run here (it is on the PATH).
inline bool have_redis_server() { return ::system("command -v redis-server >/dev/null 2>&1") == 0; }

class redis_server {
 public:
  /// Starts a server; `aof`: with the append-only file on (every write fsynced), so a restart
  /// after a kill keeps what was acknowledged. Throws std::runtime_error when it does not
  /// come up within 10 s.
  explicit redis_server(bool aof = false) : dir_("superstep-redis"), aof_(aof) {
    std::filesystem::create_directories(dir_.path);
    // Another process may take the free port before the server binds it: then try another.
    for (int attempt = 0;; ++attempt) {
      port_ = free_loopback_port();
      try {
        start();
        return;
      } catch (const std::runtime_error&) {
        if (attempt == 2) throw;
      }
    }
  }
  ~redis_server() { stop(); }
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  int port() const { return port_; }
  std::string url() const {
    if (const char* external = std::getenv("SUPERSTEP_TEST_REDIS_URL")) return external;
    return "redis://127.0.0.1:" + std::to_string(port_);
  }

  /// SIGKILL, as a crash: nothing is flushed beyond what the AOF already holds.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    reap();
  }

  /// Starts it again on the same port and folder (after `kill`).
  void restart() {
    kill();
    start();
  }

  /// SIGTERM (a clean shutdown, quick without snapshots), and waits for it to exit.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    reap();
  }

 private:
  void reap() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (drain_.joinable()) drain_.join();
  }

  void start() {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("redis_server: pipe failed");
    std::vector<std::string> args{"redis-server", "--port",    std::to_string(port_),
                                  "--bind",       "127.0.0.1", "--dir",
                                  dir_.str(),     "--save",    "",
                                  "--daemonize",  "no",        "--protected-mode",
                                  "no",           "--logfile", ""};
    if (aof_) {
      for (const char* a : {"--appendonly", "yes", "--appendfsync", "always"}) args.push_back(a);
    } else {
      for (const char* a : {"--appendonly", "no"}) args.push_back(a);
    }
    const pid_t parent = ::getpid();
    // The server dies with this process, not only with the test's clean exit. The signal is
    // sent when the forking *thread* ends, so only a fork from the main thread asks for it
    // (a server restarted from a worker thread is stopped by the destructor).
    const bool main_thread = ::gettid() == parent;
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("redis_server: fork failed");
    if (pid_ == 0) {
      if (main_thread) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
      }
      ::dup2(out[1], 1);
      ::dup2(out[1], 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp("redis-server", argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    // Read its output until it says it is ready (or exits), then drain it on a thread.
    std::string seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool ready = false;
    while (!ready) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{out[0], POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n <= 0) break;
      seen.append(buf, static_cast<std::size_t>(n));
      ready = seen.find("Ready to accept connections") != std::string::npos;
    }
    if (!ready) {
      ::close(out[0]);
      ::kill(pid_, SIGKILL);
      reap();
      throw std::runtime_error("redis_server: redis-server did not start on port " +
                               std::to_string(port_) + ": " + seen);
    }
    drain_ = std::thread([fd = out[0]] {
      char buf[4096];
      while (::read(fd, buf, sizeof buf) > 0) {
      }
      ::close(fd);
    });
  }

  temp_dir dir_;
  bool aof_;
  int port_ = 0;
  pid_t pid_ = -1;
  std::thread drain_;
};

/// The server of this test process, started on first use and stopped at exit.
inline redis_server& shared_redis_server() {
  static redis_server server;
  return server;
}

/// A key prefix nobody else in this process uses: each saver or store of a test has its own
/// keys on the shared server.
inline std::string fresh_redis_prefix(const std::string& what) {
  static std::atomic<int> counter{0};
  return "test-" + what + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace superstep::test
