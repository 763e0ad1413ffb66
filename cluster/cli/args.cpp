// The command line of `superstep`, parsed with CLI11: the program's app with one subcommand
// per command, the help formatter, the options several commands share, and `schema`, `help`
// and `version`. The other commands' options are in cli/run_args.cpp, cli/thread_args.cpp,
// cli/cluster_args.cpp, ops/store.cpp and ops/maintenance.cpp.
#include "cli/args.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <fstream>
#include <sstream>
#include <utility>

#include "cli/args_support.hpp"
#include "nodes/suggest.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/redis_client.hpp"
#include "superstep/version.hpp"

namespace superstep::cli {

namespace detail {

namespace {

// Help as the program has always printed it: the command's usage line and description, its
// options by group ("options:", "semantic search ...:") with each value's name, the footer.
// The program's own help is main_usage().
class help_formatter : public CLI::Formatter {
 public:
  help_formatter() { column_width(24); }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    if (app->get_parent() == nullptr) return main_usage();
    std::string out = app->get_description();
    for (const std::string& group : app->get_groups()) {
      if (group.empty()) continue;
      auto options = app->get_options(
          [&](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
      if (options.empty()) continue;
      out += "\n" + group + ":\n";
      for (const CLI::Option* o : options) out += make_option(o, false);
    }
    const std::string footer = app->get_footer();
    if (!footer.empty()) out += "\n" + footer;
    return out;
  }

  std::string make_option_name(const CLI::Option* o, bool positional) const override {
    if (positional || o->get_lnames().empty()) return o->get_name();
    return "--" + o->get_lnames().back();
  }

  std::string make_option_opts(const CLI::Option* o) const override {
    return o->get_option_text().empty() ? std::string() : " " + o->get_option_text();
  }
};

}  // namespace

CLI::App* add_command(CLI::App& root, const std::string& name, std::string description,
                      std::string footer) {
  CLI::App* app = root.add_subcommand(name, std::move(description));
  app->allow_extras();
  app->set_help_flag();  // added last, by add_help
  if (!footer.empty()) app->footer(std::move(footer));
  return app;
}

void add_help(CLI::App& app, const std::string& group) {
  app.set_help_flag("-h,--help", "show this help")->group(group);
}

CLI::Option* add_value(CLI::App& app, const std::string& name, const std::string& value_name,
                       const std::string& help, std::function<void(const std::string&)> take,
                       const std::string& group) {
  return app.add_option_function<std::string>(name, std::move(take), help)
      ->option_text(value_name)
      ->trigger_on_parse()
      ->group(group);
}

CLI::Option* add_switch(CLI::App& app, const std::string& name, const std::string& help,
                        std::function<void()> take, const std::string& group) {
  return app.add_flag_callback(name, std::move(take), help)->trigger_on_parse()->group(group);
}

void take_extras(const CLI::App& app) {
  const std::vector<std::string> extras = app.remaining();
  if (extras.empty()) return;
  const std::string& arg = extras.front();
  if (arg.empty() || arg[0] != '-') throw usage_error("unexpected argument '" + arg + "'");
  // The options the command lists in its help.
  std::vector<std::string> options;
  for (const CLI::Option* o : app.get_options())
    if (!o->get_group().empty())
      for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  throw usage_error("unknown option '" + arg + "'" + cluster::did_you_mean(arg, options));
}

value read_json_arg(const std::string& option, const std::string& text) {
  std::string json = text;
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1), std::ios::binary);
    if (!in) throw usage_error(option + ": cannot read file '" + text.substr(1) + "'");
    std::ostringstream s;
    s << in.rdbuf();
    json = s.str();
  }
  try {
    return value::parse_json(json);
  } catch (const error& e) {
    throw usage_error(option + ": " + e.what());
  }
}

std::size_t count_arg(const std::string& option, const std::string& text) {
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw usage_error(option + ": expected a count, not '" + text + "'");
  return n;
}

unsigned number_arg(const std::string& option, const std::string& text, unsigned max) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > max)
    throw usage_error(option + ": expected a number up to " + std::to_string(max) + ", not '" +
                      text + "'");
  return n;
}

std::string saver_arg(const std::string& option, const std::string& url) {
  try {
    static_cast<void>(storage::redis_url::parse(url));
  } catch (const error& e) {
    throw usage_error(option + ": " + e.what() +
                      " (the saver is RocksDB in --data unless --saver gives a redis:// URL)");
  }
  return url;
}

void add_log_level_option(CLI::App& app, std::string& out, const std::string& default_level,
                          const std::string& group) {
  add_value(
      app, "--log-level", "LEVEL",
      "what to log on stderr: trace, debug, info, warn, error or off\n(default " + default_level +
          ")",
      [&out](const std::string& v) {
        for (const char* level : {"trace", "debug", "info", "warn", "error", "off"})
          if (v == level) {
            out = v;
            return;
          }
        throw usage_error("--log-level: expected trace, debug, info, warn, error or off, not '" +
                          v + "'");
      },
      group);
}

void add_thread_options(CLI::App& app, thread_args& out, unsigned which, unsigned hidden) {
  auto group = [hidden](thread_option o) { return hidden & o ? "" : "options"; };
  if (which & opt_thread)
    add_value(
        app, "--thread", "ID", "the thread (required)",
        [&out](const std::string& v) {
          if (v.empty()) throw usage_error("--thread: the thread id is empty");
          out.thread = v;
        },
        group(opt_thread));
  if (which & opt_data) {
    add_value(
        app, "--data", "DIR", "the checkpoint database (default: .superstep)",
        [&out](const std::string& v) {
          if (v.empty()) throw usage_error("--data: the folder name is empty");
          out.data_dir = v;
        },
        group(opt_data));
    add_value(
        app, "--saver", "URL", "the thread's checkpoints are on this Redis server (redis://...)",
        [&out](const std::string& v) { out.saver = saver_arg("--saver", v); }, group(opt_data));
  }
  if (which & opt_graph)
    add_value(
        app, "--graph", "GRAPH.json",
        "the graph spec to read the checkpoints with (default: the spec\n"
        "the thread last ran with, kept in the data folder)",
        [&out](const std::string& v) {
          if (!out.graph_path.empty()) throw usage_error("--graph: one GRAPH.json only");
          out.graph_path = v;
        },
        group(opt_graph));
  if (which & opt_head) {
    add_value(
        app, "--head", "HOST:PORT", "work on a cluster head's threads instead (its database)",
        [&out](const std::string& v) {
          if (v.empty()) throw usage_error("--head: the address is empty");
          out.head = v;
        },
        group(opt_head));
    add_value(
        app, "--key-file", "FILE", "the cluster's key, when the head has one",
        [&out](const std::string& v) { out.key_file = v; }, group(opt_head));
    add_tls_options(app, out.tls, group(opt_head));
    add_log_level_option(app, out.log_level, "warn", group(opt_head));
  }
  if (which & opt_plugin)
    add_value(
        app, "--plugin", "LIB.so", "a node library the thread's graph needs (repeatable)",
        [&out](const std::string& v) { out.plugins.push_back(v); }, group(opt_plugin));
  if (which & opt_progress)
    add_switch(
        app, "--progress",
        "show a progress line on stderr during long steps (the default\n"
        "when stderr is a terminal)",
        [&out] { out.progress = true; }, group(opt_progress));
}

void add_embedder_options(CLI::App& app, embedder_args& out, const std::string& group) {
  add_value(
      app, "--embedder", "NAME",
      "what turns values and queries into vectors: hashing (the\n"
      "default: offline, deterministic), openai (an OpenAI-compatible\n"
      "HTTP endpoint) or one that a --plugin library registers",
      [&out](const std::string& v) {
        if (v.empty()) throw usage_error("--embedder: the name is empty");
        out.name = v;
      },
      group);
  add_value(
      app, "--dims", "N",
      "the length of its vectors (default 384 with hashing; required\n"
      "with the others). A database records the embedder and dims of\n"
      "its first vector and refuses to embed with others",
      [&out](const std::string& v) {
        out.dims = count_arg("--dims", v);
        if (out.dims == 0) throw usage_error("--dims: must be at least 1");
      },
      group);
  add_value(
      app, "--distance", "TYPE",
      "how a query scores items: cosine (the default: cosine\n"
      "similarity), inner_product (the dot product) or l2 (the\n"
      "Euclidean distance, negated). A database records it with the\n"
      "embedder and refuses to embed under another",
      [&out](const std::string& v) {
        try {
          out.distance = storage::parse_distance_type(v);
        } catch (const error& e) {
          throw usage_error("--distance: " + std::string(e.what()));
        }
      },
      group);
  // The openai embedder's params, each an option; --embedder-params sets any.
  auto param = [&](const char* option, const char* value_name, const char* help, const char* name,
                   bool count) {
    add_value(
        app, option, value_name, help,
        [&out, option, name, count](const std::string& v) {
          if (count)
            out.params.set(name, count_arg(option, v));
          else
            out.params.set(name, v);
        },
        group);
  };
  param("--embedder-url", "URL",
        "openai: the endpoint (default:\nhttps://api.openai.com/v1/embeddings)", "url", false);
  param("--embedder-model", "M", "openai: the model, such as text-embedding-3-small (required)",
        "model", false);
  param("--embedder-key-env", "V",
        "openai: the environment variable holding the API key (default:\n"
        "SUPERSTEP_EMBEDDINGS_KEY, else OPENAI_API_KEY, else no key)",
        "key_env", false);
  add_switch(
      app, "--embedder-send-dims", "openai: ask the model for --dims dimensions (text-embedding-3)",
      [&out] { out.params.set("send_dims", true); }, group);
  param("--embedder-batch", "N", "openai: texts per request (default 256)", "batch", true);
  param("--embedder-timeout", "MS", "openai: the time limit of a request (default 30000)",
        "timeout_ms", true);
  add_value(
      app, "--embedder-params", "JSON|@FILE",
      "the embedder's params as an object (a plugin embedder's own)",
      [&out](const std::string& v) {
        value params = read_json_arg("--embedder-params", v);
        if (!params.is_object()) throw usage_error("--embedder-params: expected a JSON object");
        for (const auto& [name, p] : params.as_object()) out.params.set(name, p);
      },
      group);
}

void check_embedder(const embedder_args& embedder) {
  if (embedder.name.empty() && !embedder.params.empty())
    throw usage_error("the --embedder-* options need --embedder NAME");
  if (!embedder.name.empty() && embedder.name != "hashing" && embedder.dims == 0)
    throw usage_error("--embedder " + embedder.name +
                      " needs --dims N (the length of its vectors)");
}

}  // namespace detail

namespace {

using detail::add_command;
using detail::add_help;
using detail::subcommand;

subcommand schema_command(CLI::App& root) {
  CLI::App* app = add_command(
      root, "schema",
      "usage: superstep schema\n\nPrints the JSON Schema (draft 2020-12) of graph specs, for "
      "editors to validate\nand complete them: e.g. superstep schema > graph_spec.schema.json"
      " and \"$schema\"\nin a spec, or a json.schemas setting of the editor.\n");
  add_help(*app);
  return {app, [app]() -> command {
            if (!app->remaining().empty()) throw usage_error("schema: takes no arguments");
            return help_request{std::string(cluster::graph_spec_json_schema())};
          }};
}

subcommand version_command(CLI::App& root) {
  CLI::App* app = add_command(root, "version",
                              "usage: superstep version\n\nPrints superstep's version "
                              "(also: superstep --version).\n");
  add_help(*app);
  return {app, [app]() -> command {
            if (!app->remaining().empty()) throw usage_error("version: takes no arguments");
            return help_request{std::string("superstep ") + superstep::version() + "\n"};
          }};
}

// The names of the program's commands, for "did you mean".
std::vector<std::string> command_names(const CLI::App& root) {
  std::vector<std::string> names;
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

[[noreturn]] void unknown_command(const CLI::App& root, const std::string& name) {
  throw usage_error("unknown command '" + name + "'" +
                    cluster::did_you_mean(name, command_names(root)));
}

// `superstep help [COMMAND]`: the program's help, or COMMAND's (as COMMAND --help).
subcommand help_command(CLI::App& root) {
  auto wanted = std::make_shared<std::string>();
  CLI::App* app = add_command(root, "help",
                              "usage: superstep help [COMMAND]\n\nDescribes superstep, or "
                              "COMMAND (as 'superstep COMMAND --help').\n");
  app->add_option("COMMAND", *wanted)->group("");
  add_help(*app);
  return {app, [app, wanted, &root]() -> command {
            if (!app->remaining().empty()) throw usage_error("help: one COMMAND at most");
            if (wanted->empty()) return help_request{main_usage()};
            for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; }))
              if (sub->get_name() == *wanted) return help_request{sub->help()};
            unknown_command(root, *wanted);
          }};
}

// CLI11's own errors (an option without its value, a switch given a value it cannot read),
// said as the program says its others.
std::string usage_message(const CLI::ParseError& e) {
  std::string text = e.what();
  if (e.get_name() == "ArgumentMismatch") {
    // "--model: 1 required TEXT missing"
    auto colon = text.find(": ");
    if (colon != std::string::npos && text.find(" required ", colon) != std::string::npos &&
        text.ends_with(" missing"))
      return text.substr(0, colon) + " needs a value";
  }
  return text;
}

}  // namespace

std::string main_usage() {
  return "usage: superstep COMMAND [options]\n"
         "\n"
         "commands:\n"
         "  run GRAPH.json --input JSON       run a graph spec in this process, with checkpoints\n"
         "  run --thread ID                   continue a thread (after an interrupt, a failure\n"
         "                                    or a crash)\n"
         "  state --thread ID                 print a thread's state at its last checkpoint\n"
         "  history --thread ID               print a thread's checkpoints, newest first\n"
         "  update --thread ID --values JSON  change a thread's state as a node would\n"
         "  delete --thread ID                delete a thread's checkpoints\n"
         "  threads                           list the threads, with their last step and status\n"
         "  graph GRAPH.json --mermaid        draw a graph spec (--json-schema: its schemas)\n"
         "  store put|get|delete|search|namespaces\n"
         "                                    the long-term store (memory across threads)\n"
         "  check                             verify the database (--data); 'repair' salvages\n"
         "                                    a damaged one, saying what was lost\n"
         "  schema                            print the JSON Schema of graph specs\n"
         "  help [COMMAND]                    describe superstep, or a command\n"
         "  version                           print superstep's version (also --version)\n"
         "\n"
         "a cluster:\n"
         "  head --listen HOST:PORT           start a head: coordinators and the database\n"
         "  worker --join HOST:PORT           start a worker: runs the tasks of the head's runs\n"
         "  serve --config superstep.json     serve the LangGraph Server API (SDKs, Studio)\n"
         "  submit --head HOST:PORT GRAPH.json --input JSON\n"
         "                                    run a graph on a cluster\n"
         "  state|history|update|delete --head HOST:PORT --thread ID\n"
         "                                    the same commands on a head's threads\n"
         "  threads --head HOST:PORT          list a head's threads, with their last step and\n"
         "                                    status\n"
         "  cancel --head HOST:PORT --thread ID --run RUN_ID\n"
         "                                    cancel a run in progress on a head\n"
         "\n"
         "Checkpoints are kept in the folder given by --data (default: .superstep).\n"
         "'superstep COMMAND --help' describes a command. The head, workers and the commands\n"
         "sent to a head log on stderr at the level --log-level gives.\n"
         "\n"
         "exit status: 0 done, 1 failed, 2 usage error, 3 interrupted\n";
}

command parse_command_line(int argc, const char* const* argv) {
  CLI::App root("superstep", "superstep");
  root.formatter(std::make_shared<detail::help_formatter>());
  root.set_help_flag("-h,--help", "show this help");
  // One command; what follows it that it does not take is its to report (take_extras).
  root.require_subcommand(0, 1);
  root.allow_extras();
  bool version_flag = false;
  root.add_flag("--version", version_flag, "print superstep's version")->group("");

  std::vector<subcommand> commands;
  commands.push_back(detail::run_command(root, false));
  commands.push_back(detail::run_command(root, true));
  for (subcommand& c : detail::thread_commands(root)) commands.push_back(std::move(c));
  commands.push_back(detail::graph_command(root));
  commands.push_back(detail::store_command(root));
  commands.push_back(detail::maintenance_command(root, false));
  commands.push_back(detail::maintenance_command(root, true));
  commands.push_back(detail::head_command(root));
  commands.push_back(detail::worker_command(root));
  commands.push_back(detail::serve_command(root));
  commands.push_back(schema_command(root));
  commands.push_back(help_command(root));
  commands.push_back(version_command(root));

  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return help_request{root.help()};  // the help of the command it was given to
  } catch (const CLI::ParseError& e) {
    throw usage_error(usage_message(e));
  }
  const std::vector<std::string> extras = root.remaining();
  for (subcommand& c : commands)
    if (c.app->parsed()) {
      if (version_flag) throw usage_error("--version: takes no arguments");
      command cmd = c.finish();
      if (const thread_args* where = where_of(cmd);
          where && !where->head.empty() && !where->saver.empty())
        throw usage_error(c.app->get_name() +
                          ": --saver is the head's option (the head's threads are where it "
                          "keeps them)");
      return cmd;
    }
  if (!extras.empty()) unknown_command(root, extras.front());
  if (version_flag) return help_request{std::string("superstep ") + superstep::version() + "\n"};
  throw usage_error("missing command");
}

std::string log_level_of(const command& cmd) {
  if (const auto* h = std::get_if<head_args>(&cmd)) return h->log_level;
  if (const auto* w = std::get_if<worker_args>(&cmd)) return w->log_level;
  if (const auto* s = std::get_if<serve_args>(&cmd)) return s->log_level;
  if (const auto* s = std::get_if<store_args>(&cmd)) return s->head.empty() ? "" : s->log_level;
  if (const thread_args* where = where_of(cmd); where && !where->head.empty())
    return where->log_level;
  return {};
}

}  // namespace superstep::cli
