// The `superstep` program. Builds the function registry (the std library for now; node
// libraries given as plugins later) and dispatches to a subcommand.
#include <cstdio>
#include <exception>
#include <string>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "superstep/cluster/std_library.hpp"

namespace {

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace superstep;
  cli::command cmd;
  try {
    cmd = cli::parse_command_line(argc, argv);
  } catch (const cli::usage_error& e) {
    fail(e.what(), 2);
    std::fputs("(see 'superstep --help' or 'superstep COMMAND --help')\n", stderr);
    return 2;
  }
  if (auto* help = std::get_if<cli::help_request>(&cmd)) {
    std::fputs(help->text.c_str(), stdout);
    return 0;
  }
  try {
    cluster::function_registry registry;
    cluster::register_std_library(registry);
    if (auto* run = std::get_if<cli::run_args>(&cmd)) return cli::run_graph(*run, registry);
    return cli::draw_graph(std::get<cli::graph_args>(cmd), registry);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}
