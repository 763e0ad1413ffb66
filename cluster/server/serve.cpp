// `superstep serve` (server/serve.hpp).
#include "server/serve.hpp"

#include <pthread.h>

#include <csignal>
#include <thread>

#include "ops/data_dir.hpp"
#include "server/api_server.hpp"
#include "superstep/core/error.hpp"

namespace superstep::server {

int serve(const net::serve_args& args, cluster::function_registry& registry,
          const serve_services& services) {
  server_config config = serve_config(args.config_path, args.graphs, "--graph", registry);
  if (config.graphs.empty())
    throw error(
        error_code::invalid_argument,
        "serve: no graphs to serve: give --config superstep.json or --graph NAME=SPEC.json");

  ops::data_dir data(args.data_dir, {.fsync = args.fsync,
                                     .index = ops::store_index(args.embedder, registry),
                                     .saver_url = args.saver,
                                     .serde = services.serde});
  // SIGINT and SIGTERM go to one thread, which stops the server; every other thread (the
  // loop's, the pools') starts with them blocked. The threads made before this (RocksDB's for
  // the folder above, a caller's) must block them too: the program blocks them first thing.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  api_server api(std::move(config), data, registry,
                 {.host = args.host,
                  .port = args.port,
                  .run_threads = args.run_threads,
                  .serde = services.serde,
                  .log = services.log,
                  .load = nullptr});
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != 0) api.stop();
  });
  services.log(api.listening());
  api.run();
  services.log("stopping: runs in progress stop at their next step");
  api.shutdown();
  // The waiter may still be in sigwait when the loop ended otherwise: wake it.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  services.log("stopped");
  return 0;
}

}  // namespace superstep::server
