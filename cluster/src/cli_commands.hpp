#pragma once

// The subcommands of the `superstep` program. Each returns the exit status; errors of the
// graph (bad spec, failing node) propagate as exceptions for main() to report.

#include "cli_args.hpp"
#include "superstep/cluster/function_registry.hpp"

namespace superstep::cli {

/// Runs the graph and prints the stream events and the output as JSON lines on stdout.
int run_graph(const run_args& args, const cluster::function_registry& registry);

/// Prints the graph as a Mermaid flowchart.
int draw_graph(const graph_args& args, const cluster::function_registry& registry);

}  // namespace superstep::cli
