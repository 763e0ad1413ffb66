// `superstep worker`: a cluster::worker (superstep/cluster/worker.hpp) with the command
// line's options, stopped by SIGINT or SIGTERM.
#include <chrono>
#include <cstdio>
#include <thread>

#include "net.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/cluster/worker.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

int run_worker(const cli::worker_args& args, const cluster::function_registry& registry) {
  install_stop_handlers();
  actors::on_protocol_error(
      [](const std::string& why) { log("worker", "refused a malformed message: " + why); });
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
  cluster::worker w(registry, std::move(options));
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
    log("worker " + w.name(), e.what());
    status = 1;
  }
  done = true;
  watcher.join();
  std::fflush(nullptr);
  return status;
}

}  // namespace superstep::net
