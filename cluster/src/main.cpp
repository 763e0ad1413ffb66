// The `superstep` program. Builds the function registry (the std library for now; node
// libraries given as plugins later) and dispatches to a subcommand.
//
// Exit statuses: 0 done, 1 failed (graph, spec or database), 2 usage error, 3 interrupted
// (cli::exit_status).
#include <cstdio>
#include <exception>
#include <string>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "superstep/cluster/std_library.hpp"

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};

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
    fail(e.what(), cli::exit_usage);
    std::fputs("(see 'superstep --help' or 'superstep COMMAND --help')\n", stderr);
    return cli::exit_usage;
  }
  if (auto* help = std::get_if<cli::help_request>(&cmd)) {
    std::fputs(help->text.c_str(), stdout);
    return cli::exit_done;
  }
  try {
    cluster::function_registry registry;
    cluster::register_std_library(registry);
    return std::visit(
        overloaded{[](const cli::help_request&) { return int(cli::exit_done); },
                   [&](const cli::run_args& a) { return cli::run_graph(a, registry); },
                   [&](const cli::graph_args& a) { return cli::draw_graph(a, registry); },
                   [&](const cli::state_args& a) { return cli::show_state(a, registry); },
                   [&](const cli::history_args& a) { return cli::show_history(a, registry); },
                   [&](const cli::update_args& a) { return cli::update_state(a, registry); },
                   [](const cli::delete_args& a) { return cli::delete_thread(a); }},
        cmd);
  } catch (const std::exception& e) {
    return fail(e.what(), cli::exit_failed);
  }
}
