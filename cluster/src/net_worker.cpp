// `superstep worker`: a cluster::worker (superstep/cluster/worker.hpp) with the command
// line's options, stopped by SIGINT or SIGTERM.
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli_log.hpp"
#include "net.hpp"
#include "spdlog/spdlog.h"
#include "superstep/actors/protocol.hpp"
#include "superstep/cluster/worker.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

int run_worker(const cli::worker_args& args, const cluster::function_registry& registry) {
  install_stop_handlers();
  actors::on_protocol_error(
      [](const std::string& why) { spdlog::warn("refused a malformed message: " + why); });
  cluster::worker_options options;
  options.host = args.host;
  options.port = args.port;
  options.key_file = args.key_file;
  options.tls = args.tls.on;
  options.tls_cert = args.tls.cert;
  options.tls_key = args.tls.key;
  options.tls_ca = args.tls.ca;
  options.name = args.name;
  options.threads = args.threads;
  options.log = [](cluster::worker_log_level level, const std::string& line) {
    switch (level) {
      case cluster::worker_log_level::info: spdlog::info(line); break;
      case cluster::worker_log_level::warning: spdlog::warn(line); break;
      case cluster::worker_log_level::error: spdlog::error(line); break;
    }
  };
  cluster::worker w(registry, std::move(options));
  // Named before the worker's threads log: spdlog's default logger is swapped unguarded.
  cli::rename_log("worker " + w.name());
  // The signal handlers only set a flag: this thread turns it into stop().
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done && !stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    w.stop();
  });
  int status = 0;
  try {
    w.run();
  } catch (const error& e) {
    spdlog::error(e.what());
    status = 1;
  }
  done = true;
  watcher.join();
  std::fflush(nullptr);
  return status;
}

}  // namespace superstep::net
