#pragma once

// What the parsers of the subcommands share. The command line is parsed by CLI11: each
// subcommand is a CLI::App whose options hand their values to the command's struct as they
// are parsed (in command-line order, so later options win), and a `finish` step that checks
// how the options go together and yields the command. Values are read by our own readers so
// that every error names the option and the value (usage_error).

#include <CLI/App.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.hpp"

namespace superstep::cli::detail {

/// A subcommand of the program: its CLI11 app, and what turns what it parsed into a command.
struct subcommand {
  CLI::App* app = nullptr;
  std::function<command()> finish;
};

/// Adds subcommand `name` to `root`. `description` (starting with its usage line) and
/// `footer` make its --help with the options in their groups between them; unknown
/// arguments are kept for `finish` (take_extras) so that it names them with a suggestion.
CLI::App* add_command(CLI::App& root, const std::string& name, std::string description,
                      std::string footer = {});
/// Ends a subcommand's options: its --help, listed last in `group`.
void add_help(CLI::App& app, const std::string& group = "options");

/// An option taking one value, handed to `take` each time it is given, as it is parsed.
/// `value_name` (DIR, JSON|@FILE...) is how help shows the value; `help` may hold several
/// lines. An empty `group` hides it from help.
CLI::Option* add_value(CLI::App& app, const std::string& name, const std::string& value_name,
                       const std::string& help, std::function<void(const std::string&)> take,
                       const std::string& group = "options");
/// A switch: `take` runs when it is given, as it is parsed.
CLI::Option* add_switch(CLI::App& app, const std::string& name, const std::string& help,
                        std::function<void()> take, const std::string& group = "options");

/// Throws usage_error for the first argument `app` did not take, if any: an unknown option
/// with the options of `app` closest to it, or an unexpected argument.
void take_extras(const CLI::App& app);

/// JSON given inline or, as "@path", in a file. Throws usage_error naming `option`.
value read_json_arg(const std::string& option, const std::string& text);

/// A count given to `option`; throws usage_error naming it.
std::size_t count_arg(const std::string& option, const std::string& text);

/// A number up to `max` given to `option`; throws usage_error naming it.
unsigned number_arg(const std::string& option, const std::string& text, unsigned max);

/// The URL given to `option` (--saver) when it is a Redis URL; throws usage_error saying what
/// is wrong with it otherwise.
std::string saver_arg(const std::string& option, const std::string& url);

/// Which of the options about where a thread command runs it takes (add_thread_options).
enum thread_option : unsigned {
  opt_thread = 1u << 0,    ///< --thread ID
  opt_data = 1u << 1,      ///< --data DIR and --saver URL
  opt_graph = 1u << 2,     ///< --graph GRAPH.json
  opt_head = 1u << 3,      ///< --head, --key-file, the TLS options and --log-level
  opt_plugin = 1u << 4,    ///< --plugin LIB
  opt_progress = 1u << 5,  ///< --progress
};

/// Adds the options of `which` that set `out`; those in `hidden` are taken but not listed
/// in help (a command that refuses them after parsing, or ignores them).
void add_thread_options(CLI::App& app, thread_args& out, unsigned which, unsigned hidden = 0);

/// Adds --embedder, --dims, --distance and the --embedder-* options to `group`.
void add_embedder_options(CLI::App& app, embedder_args& out,
                          const std::string& group = "semantic search (the store's index)");
/// Throws usage_error unless the embedder options given make sense together.
void check_embedder(const embedder_args& embedder);

/// Adds --model, --model-url and --model-key-env, setting `out` (an object {"name", "url",
/// "key_env"}, see function_registry::set_model_settings).
void add_model_options(CLI::App& app, value& out,
                       const std::string& group = "chat model (llm.chat nodes)");

/// Adds --tls, --tls-cert, --tls-key and --tls-ca.
void add_tls_options(CLI::App& app, tls_args& out, const std::string& group = "options");
/// Throws usage_error unless the TLS options given make sense together.
void check_tls(const tls_args& tls);

/// Adds --log-level LEVEL (trace, debug, info, warn, error or off), checked as parsed.
void add_log_level_option(CLI::App& app, std::string& out, const std::string& default_level,
                          const std::string& group = "options");

/// Parses HOST:PORT given to `option`; throws usage_error naming it.
void parse_address(const std::string& option, const std::string& text, std::string& host,
                   std::uint16_t& port);

// The subcommands, by the files that define them.
subcommand run_command(CLI::App& root, bool submit);          // cli/run_args.cpp (run, submit)
subcommand graph_command(CLI::App& root);                     // cli/run_args.cpp
std::vector<subcommand> thread_commands(CLI::App& root);      // cli/thread_args.cpp
subcommand head_command(CLI::App& root);                      // cli/cluster_args.cpp
subcommand worker_command(CLI::App& root);                    // cli/cluster_args.cpp
subcommand serve_command(CLI::App& root);                     // cli/serve_args.cpp
subcommand store_command(CLI::App& root);                     // ops/store.cpp
subcommand maintenance_command(CLI::App& root, bool repair);  // ops/maintenance.cpp

}  // namespace superstep::cli::detail
