// `superstep worker`: a cluster::worker (superstep/cluster/worker.hpp) with the command
// line's options, stopped by SIGINT or SIGTERM.
#include "superstep/cluster/worker.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/log.hpp"
#include "cli/processes.hpp"
#include "net/protocol.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cli {

int run_worker(const worker_args& args, const cluster::function_registry& registry) {
  net::install_stop_handlers();
  actors::on_protocol_error(
      [](const std::string& why) { log_warning("refused a malformed message: " + why); });
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
      case cluster::worker_log_level::info: log_info(line); break;
      case cluster::worker_log_level::warning: log_warning(line); break;
      case cluster::worker_log_level::error: log_error(line); break;
    }
  };
  cluster::worker w(registry, std::move(options));
  // Named before the worker's threads log: spdlog's default logger is swapped unguarded.
  rename_log("worker " + w.name());
  // The signal handlers only set a flag: this thread turns it into stop().
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done && !net::stop_requested())
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    w.stop();
  });
  int status = 0;
  try {
    w.run();
  } catch (const error& e) {
    log_error(e.what());
    status = 1;
  }
  done = true;
  watcher.join();
  std::fflush(nullptr);
  return status;
}

}  // namespace superstep::cli
