#pragma once

// What the parsers of the subcommands share: a cursor over the arguments, the readers of
// option values, and the parsers of the thread commands.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_args.hpp"

namespace superstep::cli::detail {

inline bool is_help(std::string_view a) { return a == "--help" || a == "-h"; }

/// JSON given inline or, as "@path", in a file. Throws usage_error naming `option`.
value read_json_arg(const std::string& option, const std::string& text);

/// A count given to `option`; throws usage_error naming it.
std::size_t count_arg(const std::string& option, const std::string& text);

/// Walks the arguments after the subcommand.
class arg_cursor {
 public:
  arg_cursor(int argc, const char* const* argv, int first) : argv_(argv + first, argv + argc) {}
  bool done() const { return i_ >= argv_.size(); }
  std::string next() { return argv_[i_++]; }
  std::optional<std::string> peek() const {
    if (done()) return std::nullopt;
    return std::string(argv_[i_]);
  }
  /// The value after `option`; throws usage_error when there is none.
  std::string value_of(const std::string& option) {
    if (done()) throw usage_error(option + " needs a value");
    return next();
  }

 private:
  std::vector<const char*> argv_;
  std::size_t i_ = 0;
};

/// Takes the options every thread command has (--thread, --data, --graph) when `arg` is one
/// of them; false for any other argument.
bool take_thread_option(const std::string& arg, arg_cursor& args, thread_args& out);

/// The URL given to `option` (--saver) when it is a Redis URL; throws usage_error saying what
/// is wrong with it otherwise.
std::string saver_arg(const std::string& option, const std::string& url);

/// Takes --embedder, --dims and the --embedder-* options when `arg` is one of them.
bool take_embedder_option(const std::string& arg, arg_cursor& args, embedder_args& out);
/// Throws usage_error unless the embedder options given make sense together.
void check_embedder(const embedder_args& embedder);
/// The help text of the embedder options, for the usage of the commands that take them.
extern const char* const embedder_usage;

/// Takes --model, --model-url and --model-key-env into `out` (an object {"name", "url",
/// "key_env"}, see function_registry::set_model_settings) when `arg` is one of them.
bool take_model_option(const std::string& arg, arg_cursor& args, value& out);
/// The help text of the model options.
extern const char* const model_usage;

/// Throws usage_error for an argument the command does not take; for an unknown option, the
/// message suggests the closest options of those `usage` (the command's help text) names.
[[noreturn]] void unexpected_argument(const std::string& arg, std::string_view usage = {});

// The parsers of the commands on stored threads (cli_thread_args.cpp).
command parse_state(arg_cursor args);
command parse_history(arg_cursor args);
command parse_update(arg_cursor args);
command parse_delete(arg_cursor args);
command parse_threads(arg_cursor args);
command parse_cancel(arg_cursor args);

/// Takes --tls, --tls-cert, --tls-key, --tls-ca when `arg` is one of them.
bool take_tls_option(const std::string& arg, arg_cursor& args, tls_args& out);
/// Throws usage_error unless the TLS options given make sense together.
void check_tls(const tls_args& tls);

/// Parses HOST:PORT given to `option`; throws usage_error naming it.
void parse_address(const std::string& option, const std::string& text, std::string& host,
                   std::uint16_t& port);

// The parsers of the cluster's processes (cli_cluster_args.cpp).
command parse_head(arg_cursor args);
command parse_worker(arg_cursor args);
command parse_store(arg_cursor args);                     // cli_store.cpp
command parse_maintenance(arg_cursor args, bool repair);  // cli_maintenance.cpp

}  // namespace superstep::cli::detail
