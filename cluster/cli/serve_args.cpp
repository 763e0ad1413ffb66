// The command line of `superstep serve`.
#include <memory>

#include "cli/args_support.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* serve_usage =
    "usage: superstep serve [--config superstep.json] [--graph NAME=GRAPH.json]...\n"
    "                       [--listen HOST:PORT] [--data DIR | --saver URL] [options]\n"
    "\n"
    "Serves the LangGraph Server API (the one LangGraph's SDKs, RemoteGraph and Studio speak)\n"
    "over this process's runtime: the graphs of superstep.json (\"graphs\": name -> spec file)\n"
    "or of --graph, one system assistant each, threads, runs (streamed as server-sent events),\n"
    "and the long-term store, all kept in the database DIR. Listens on 127.0.0.1:8123 (the\n"
    "SDK's default) unless --listen says otherwise, and logs its URL once it listens. Runs\n"
    "until interrupted (SIGINT or SIGTERM).\n";

}  // namespace

subcommand serve_command(CLI::App& root) {
  auto out = std::make_shared<serve_args>();
  serve_args& s = *out;
  CLI::App* app = add_command(root, "serve", serve_usage);
  add_value(*app, "--config", "FILE", "superstep.json: graphs, plugins, http (CORS, body limit)",
            [&s](const std::string& v) { s.config_path = v; });
  add_value(*app, "--graph", "NAME=GRAPH.json", "serve a graph spec under NAME (repeatable)",
            [&s](const std::string& v) {
              auto eq = v.find('=');
              if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
                throw usage_error("--graph: expected NAME=GRAPH.json, not '" + v + "'");
              std::string name = v.substr(0, eq);
              for (const auto& [given, path] : s.graphs)
                if (given == name) throw usage_error("--graph: graph '" + name + "' given twice");
              s.graphs.emplace_back(std::move(name), v.substr(eq + 1));
            });
  add_value(*app, "--listen", "HOST:PORT",
            "where to accept HTTP clients (default 127.0.0.1:8123; port 0:\n"
            "any free port, logged as 'listening on http://HOST:PORT')",
            [&s](const std::string& v) { parse_address("--listen", v, s.host, s.port); });
  add_value(*app, "--data", "DIR", "the database (default: .superstep, created if missing)",
            [&s](const std::string& v) {
              if (v.empty()) throw usage_error("--data: the folder name is empty");
              s.data_dir = v;
            });
  add_value(*app, "--saver", "URL",
            "keep the checkpoints on a Redis server instead (redis://[USER:\n"
            "PASSWORD@]HOST[:PORT][/DB]); --data keeps the rest",
            [&s](const std::string& v) { s.saver = saver_arg("--saver", v); });
  add_value(*app, "--plugin", "LIB.so", "a node library to load (repeatable)",
            [&s](const std::string& v) { s.plugins.push_back(v); });
  add_value(*app, "--run-threads", "N", "runs carried out at once (default 16); others wait",
            [&s](const std::string& v) {
              s.run_threads = number_arg("--run-threads", v, 4096);
              if (s.run_threads == 0) throw usage_error("--run-threads: at least 1");
            });
  add_switch(*app, "--fsync", "flush every database write to disk before going on",
             [&s] { s.fsync = true; });
  add_log_level_option(*app, s.log_level, "info");
  add_embedder_options(*app, s.embedder);
  add_model_options(*app, s.model);
  add_help(*app);
  return {app, [app, out]() -> command {
            take_extras(*app);
            if (out->config_path.empty() && out->graphs.empty())
              throw usage_error("serve: give --config superstep.json or --graph NAME=GRAPH.json");
            check_embedder(out->embedder);
            return *out;
          }};
}

}  // namespace detail

}  // namespace superstep::cli
