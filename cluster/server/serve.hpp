#pragma once

// `superstep serve`: the LangGraph Server API (server/service.hpp) over HTTP (server/http.hpp)
// on this process's runtime and data folder, until SIGINT or SIGTERM.

#include <functional>
#include <memory>
#include <string>

#include "net/command.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::server {

struct serve_services {
  /// How records are encoded (the program's: encrypted with SUPERSTEP_AES_KEY when set).
  std::shared_ptr<const storage::serializer> serde;
  /// Where the server's log lines go ("listening on http://127.0.0.1:8123", warnings).
  std::function<void(const std::string&)> log;
};

/// Serves until stopped; returns the exit status. Throws superstep::error for a config that
/// does not load, a folder that does not open or an address that cannot be bound.
int serve(const net::serve_args& args, cluster::function_registry& registry,
          const serve_services& services);

}  // namespace superstep::server
