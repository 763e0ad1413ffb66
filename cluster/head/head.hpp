#pragma once

// `superstep head`: a cluster's head, serving workers and clients (CAF-free interface; the
// actors are in head.cpp and requests.cpp).

#include <functional>
#include <memory>
#include <string>

#include "net/command.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::net {

/// How bad a line of the head's log is.
enum class log_level { info, warning, error };

/// What the head takes from the program that runs it.
struct head_services {
  /// How the data folder's records are encoded (the program: encrypting with
  /// SUPERSTEP_AES_KEY when it is set); null: Cap'n Proto, unencrypted.
  std::shared_ptr<const storage::serializer> serde = nullptr;
  /// Receives each line of the head's log (the program writes it with spdlog); null: none.
  std::function<void(log_level, const std::string&)> log = nullptr;
};

/// Serves workers and clients until SIGINT or SIGTERM. `registry` holds the std library and
/// the head's plugins. Returns the exit status.
int run_head(const head_args& args, const cluster::function_registry& registry,
             head_services services);

}  // namespace superstep::net
