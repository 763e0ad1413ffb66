// The LangGraph Server API over HTTP (server/api_server.hpp).
#include "server/api_server.hpp"

#include <optional>

#include "superstep/cluster/plugin.hpp"
#include "superstep/core/error.hpp"

namespace superstep::server {

server_config serve_config(const std::string& config_path,
                           const std::vector<std::pair<std::string, std::string>>& graphs,
                           const std::string& option, cluster::function_registry& registry) {
  server_config config = config_path.empty() ? server_config{} : read_server_config(config_path);
  if (!graphs.empty()) {
    server_config more = config_of_graphs(graphs);
    for (auto& [name, spec] : more.graphs) {
      if (config.graphs.count(name))
        throw error(error_code::invalid_argument,
                    option + " " + name + ": the config names a graph '" + name + "' too");
      config.graphs[name] = std::move(spec);
    }
  }
  for (const auto& p : config.plugins) cluster::load_plugin(p, registry);
  // The file's "env" after the caller's keys (the program's: its environment), for the keys
  // the graphs name and the server's LANGGRAPH_CONFIG.
  if (!config.env.empty())
    registry.set_key_source([outer = registry.keys(), env = config.env](const std::string& name) {
      if (auto found = outer ? outer(name) : std::nullopt) return found;
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  return config;
}

api_server::api_server(server_config config, ops::data_dir& data,
                       const cluster::function_registry& registry, api_server_options options)
    : host_(options.host), graphs_(config.graphs.size()), data_place_(data.checkpoints_place()) {
  http_options http;
  http.host = options.host;
  http.port = options.port;
  http.max_body = config.max_body;
  api_ = std::make_unique<service>(std::move(config), data, registry, options.log,
                                   options.run_threads, options.serde, std::move(options.load));
  http_ =
      std::make_unique<http_server>(http, [this](http_request r, std::shared_ptr<http_exchange> x) {
        api_->handle(std::move(r), std::move(x));
      });
  api_->set_self_url("http://" + host_ + ":" + std::to_string(http_->port()));
}

api_server::~api_server() { shutdown(); }

std::string api_server::listening() const {
  return "listening on http://" + host_ + ":" + std::to_string(http_->port()) + " (" +
         std::to_string(graphs_) + " graph" + (graphs_ == 1 ? "" : "s") + ", data in " +
         data_place_ + ")";
}

void api_server::shutdown() {
  if (!api_) return;
  api_->shutdown();
  api_.reset();
}

}  // namespace superstep::server
