#pragma once

// The command line of the `superstep` program, parsed into one struct per subcommand.

#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "superstep/coordinator/stream.hpp"
#include "superstep/core/value.hpp"

namespace superstep::cli {

/// A command line that does not make sense; the program prints it and exits with status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `--help` anywhere: print `text` to stdout and exit 0.
struct help_request {
  std::string text;
};

/// `superstep run GRAPH.json --input JSON [--thread ID] [--stream MODE...] [--subgraphs]
/// [--config JSON]`.
struct run_args {
  std::string graph_path;
  value input;
  /// The run's config: --config with --thread as configurable.thread_id.
  value config;
  std::vector<stream_mode> modes;
  bool subgraphs = false;
};

/// `superstep graph GRAPH.json [--mermaid]`.
struct graph_args {
  std::string graph_path;
};

using command = std::variant<help_request, run_args, graph_args>;

/// Parses argv (argv[0] is the program). Throws usage_error naming the problem; JSON given
/// to --input and --config (inline or as @file) is read and parsed here too.
command parse_command_line(int argc, const char* const* argv);

/// The top-level usage text.
std::string main_usage();

}  // namespace superstep::cli
