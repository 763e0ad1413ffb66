// `superstep serve` (server/serve.hpp).
#include "server/serve.hpp"

#include <pthread.h>

#include <csignal>
#include <thread>

#include "ops/data_dir.hpp"
#include "server/service.hpp"
#include "superstep/cluster/plugin.hpp"

namespace superstep::server {

int serve(const net::serve_args& args, cluster::function_registry& registry,
          const serve_services& services) {
  server_config config =
      args.config_path.empty() ? server_config{} : read_server_config(args.config_path);
  if (!args.graphs.empty()) {
    server_config more = config_of_graphs(args.graphs);
    for (auto& [name, spec] : more.graphs) {
      if (config.graphs.count(name))
        throw error(error_code::invalid_argument,
                    "--graph " + name + ": the config names a graph '" + name + "' too");
      config.graphs[name] = std::move(spec);
    }
  }
  if (config.graphs.empty())
    throw error(
        error_code::invalid_argument,
        "serve: no graphs to serve: give --config superstep.json or --graph NAME=SPEC.json");
  for (const auto& p : config.plugins) cluster::load_plugin(p, registry);

  ops::data_dir data(args.data_dir, {.fsync = args.fsync,
                                     .index = ops::store_index(args.embedder, registry),
                                     .saver_url = args.saver,
                                     .serde = services.serde});
  // SIGINT and SIGTERM go to one thread, which stops the server; every other thread (the
  // loop's, the pools') starts with them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  http_options options;
  options.host = args.host;
  options.port = args.port;
  options.max_body = config.max_body;
  // The service goes before the HTTP server: its threads answer exchanges of the server.
  auto api = std::make_unique<service>(config, data, registry, services.log, args.run_threads,
                                       services.serde, args.fsync);
  http_server http(options, [&api](http_request r, std::shared_ptr<http_exchange> x) {
    api->handle(std::move(r), std::move(x));
  });
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig != 0) http.stop();
  });
  api->set_self_url("http://" + args.host + ":" + std::to_string(http.port()));
  services.log("listening on http://" + args.host + ":" + std::to_string(http.port()) + " (" +
               std::to_string(config.graphs.size()) + " graph" +
               (config.graphs.size() == 1 ? "" : "s") + ", data in " + data.checkpoints_place() +
               ")");
  http.run();
  services.log("stopping: runs in progress stop at their next step");
  api->shutdown();
  api.reset();
  // The waiter may still be in sigwait when the loop ended otherwise: wake it.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  services.log("stopped");
  return 0;
}

}  // namespace superstep::server
