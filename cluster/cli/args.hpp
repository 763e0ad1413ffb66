#pragma once

// The command line of the `superstep` program, parsed into the cluster's operations
// (net/command.hpp), one per subcommand.

#include <string>

#include "net/command.hpp"

namespace superstep::cli {

// The operations and their options are the cluster's (net/command.hpp); the command line
// parses into them.
using net::cancel_args;
using net::command;
using net::default_data_dir;
using net::delete_args;
using net::embedder_args;
using net::exit_done;
using net::exit_failed;
using net::exit_interrupted;
using net::exit_status;
using net::exit_usage;
using net::graph_args;
using net::head_args;
using net::help_request;
using net::history_args;
using net::link_limits;
using net::maintenance_args;
using net::run_args;
using net::serve_args;
using net::state_args;
using net::store_args;
using net::thread_args;
using net::threads_args;
using net::tls_args;
using net::update_args;
using net::usage_error;
using net::worker_args;

using net::where_of;

/// Parses argv (argv[0] is the program). Throws usage_error naming the problem; JSON given
/// to --input, --resume, --config, --values and --filter (inline or as @file) is read and
/// parsed here too.
command parse_command_line(int argc, const char* const* argv);

/// The top-level usage text.
std::string main_usage();

/// The --log-level of `cmd`, for the commands that log (head, worker, the commands sent to a
/// head); empty for the others.
std::string log_level_of(const command& cmd);

}  // namespace superstep::cli
