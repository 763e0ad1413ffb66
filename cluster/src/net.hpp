#pragma once

// The cluster's processes, as the `superstep` program runs them (CAF-free interface; the
// actors are in net_*.cpp).

#include "net_command.hpp"
#include "superstep/cluster/function_registry.hpp"

namespace superstep::net {

/// `superstep head`: serves workers and clients until SIGINT or SIGTERM. `registry` holds
/// the std library and the head's plugins. Returns the exit status.
int run_head(const net::head_args& args, const cluster::function_registry& registry);

/// `superstep worker`: joins the head, hosts node actors for the graphs it is given, rejoins
/// when the head goes away, until SIGINT or SIGTERM.
int run_worker(const net::worker_args& args, const cluster::function_registry& registry);

/// A thread command given --head (`submit`, `state --head`, ...): sends it to the head and
/// prints what comes back. Returns the command's exit status.
int run_on_head(const net::command& cmd);

/// `superstep store ... --head`: the operation on the head's store.
int run_store_on_head(const net::store_args& args);

/// Installs SIGINT/SIGTERM handlers that ask the process to stop; `stop_requested` says
/// whether one came.
void install_stop_handlers();
bool stop_requested() noexcept;

}  // namespace superstep::net
