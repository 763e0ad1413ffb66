#pragma once

// The LangGraph Server API served over HTTP: a service (server/service.hpp) on a data folder
// behind an HTTP server (server/http.hpp). `superstep serve` runs one over this process's
// runtime (server/serve.cpp); `superstep head --http` one whose graphs run on the workers.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops/data_dir.hpp"
#include "server/config.hpp"
#include "server/http.hpp"
#include "server/service.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::server {

/// The graphs to serve: those of superstep.json at `config_path` (none when empty) and of
/// `graphs` (NAME=SPEC.json, given with command line option `option`), the file's plugins
/// loaded into `registry`. Throws superstep::error (invalid_argument) for a name both give;
/// the file's errors as read_server_config throws them.
server_config serve_config(const std::string& config_path,
                           const std::vector<std::pair<std::string, std::string>>& graphs,
                           const std::string& option, cluster::function_registry& registry);

struct api_server_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8123;  ///< 0: any free port (port() says which)
  unsigned run_threads = 16;  ///< runs carried out at once
  /// How records are encoded; null: Cap'n Proto, unencrypted.
  std::shared_ptr<const storage::serializer> serde;
  /// The service's log lines (warnings, notes, webhooks that failed).
  std::function<void(const std::string&)> log;
  /// How graphs are loaded (null: in this process, cluster::load_graph).
  graph_loader load;
};

/// The API on `data`, bound at construction, served by `run`. `data` and `registry` outlive
/// it. Throws superstep::error for a graph that does not load or an address that cannot be
/// bound.
class api_server {
 public:
  api_server(server_config config, ops::data_dir& data, const cluster::function_registry& registry,
             api_server_options options);
  /// Shuts the service down first (its threads answer the HTTP server's exchanges).
  ~api_server();
  api_server(const api_server&) = delete;
  api_server& operator=(const api_server&) = delete;

  /// The port bound.
  std::uint16_t port() const noexcept { return http_->port(); }
  /// "listening on http://HOST:PORT (N graphs, data in DIR)": the line a server logs once
  /// it takes requests (tests read the port from it).
  std::string listening() const;

  /// Serves on this thread until `stop`.
  void run() { http_->run(); }
  /// Ends `run` (from any thread): no request is taken any more.
  void stop() { http_->stop(); }
  /// After `run` ended: runs in progress are told to stop once their current step is saved,
  /// and the service is destroyed when they have (its runs' threads joined). Idempotent.
  void shutdown();

 private:
  std::string host_;
  std::size_t graphs_;
  std::string data_place_;
  // The service is made first (a graph that does not load fails before the port is bound)
  // and destroyed first (declared last): its threads answer the server's exchanges.
  std::unique_ptr<http_server> http_;
  std::unique_ptr<service> api_;
};

}  // namespace superstep::server
