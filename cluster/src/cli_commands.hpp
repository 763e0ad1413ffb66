#pragma once

// The subcommands of the `superstep` program. Each returns the exit status; errors of the
// graph (bad spec, failing node) and of the database propagate as exceptions for main() to
// report.

#include "cli_args.hpp"
#include "superstep/cluster/function_registry.hpp"

namespace superstep::cli {

/// Runs the graph on a thread of the data folder and prints the stream events and the output
/// (or the interrupts) as JSON lines on stdout (cli_run.cpp).
int run_graph(const run_args& args, const cluster::function_registry& registry);

/// Prints the graph as a Mermaid flowchart (cli_run.cpp).
int draw_graph(const graph_args& args, const cluster::function_registry& registry);

/// Prints the thread's state at one checkpoint (cli_state.cpp).
int show_state(const state_args& args, const cluster::function_registry& registry);

/// Prints the thread's checkpoints, newest first, one per line (cli_state.cpp).
int show_history(const history_args& args, const cluster::function_registry& registry);

/// Updates the thread's state as a node would and prints the new config (cli_state.cpp).
int update_state(const update_args& args, const cluster::function_registry& registry);

/// Deletes the thread's checkpoints and saved spec (cli_state.cpp).
int delete_thread(const delete_args& args);

}  // namespace superstep::cli
