#pragma once

// The program's cluster processes and its commands sent to a head.

#include "cli/args.hpp"
#include "superstep/cluster/function_registry.hpp"

namespace superstep::cli {

/// `superstep worker`: joins the head, hosts node actors for the graphs it is given, rejoins
/// when the head goes away, until SIGINT or SIGTERM (cli/worker.cpp).
int run_worker(const worker_args& args, const cluster::function_registry& registry);

/// A thread command given --head (`submit`, `state --head`, ...): sends it to the head and
/// prints what comes back. Returns the command's exit status (cli/remote.cpp).
int run_on_head(const command& cmd);

/// `superstep store ... --head`: the operation on the head's store (cli/remote.cpp).
int run_store_on_head(const store_args& args);

}  // namespace superstep::cli
