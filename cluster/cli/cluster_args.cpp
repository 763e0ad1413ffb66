// The command lines of `superstep head` and `superstep worker`, and the options of a
// cluster's links (TLS, addresses).
#include <memory>

#include "cli/args_support.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* head_usage =
    "usage: superstep head --listen HOST:PORT [--data DIR] [--key-file FILE]\n"
    "                      [--http HOST:PORT --config superstep.json] [options]\n"
    "\n"
    "Starts a cluster's head: it accepts workers and clients on HOST:PORT, runs a coordinator\n"
    "for each submitted run and keeps every thread's checkpoints in the database DIR. The\n"
    "tasks run on the workers that provide their node functions (nodes running subgraphs run\n"
    "here, and so does the input node when its routers are the std library's). With --http it\n"
    "also serves the LangGraph Server API there, as 'superstep serve' does, on the graphs of\n"
    "--config and --serve, its runs' tasks on the workers. Runs until interrupted (SIGINT or\n"
    "SIGTERM). Logs one line per event on stderr (--log-level): links, workers joining and\n"
    "leaving, each run's start, end (its steps and duration) and failure.\n";

constexpr const char* worker_usage =
    "usage: superstep worker --join HOST:PORT [--plugin LIB.so]... [--threads N] [options]\n"
    "\n"
    "Starts a worker: it joins the head at HOST:PORT, offers the node functions of the std\n"
    "library and of its plugins, and runs the tasks the head sends it. When the head goes\n"
    "away it tries to join again every second. Runs until interrupted (SIGINT or SIGTERM).\n";

// Seconds, with up to three decimals ("10", "0.5"), as milliseconds (at least 1).
unsigned parse_seconds_ms(const std::string& option, const std::string& text) {
  auto dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || frac.size() > 3 || (dot != std::string::npos && frac.empty()))
    throw usage_error(option + ": expected seconds such as 10 or 0.5, not '" + text + "'");
  unsigned ms = number_arg(option, whole, 86400) * 1000;
  if (!frac.empty()) {
    frac.resize(3, '0');
    ms += number_arg(option, frac, 999);
  }
  if (ms == 0) throw usage_error(option + ": more than 0 seconds");
  return ms;
}

// An option taking a number up to `max` (at least `min`) into `out`.
void add_number(CLI::App& app, const std::string& name, const std::string& value_name,
                const std::string& help, unsigned& out, unsigned max, unsigned min = 0) {
  add_value(app, name, value_name, help, [&out, name, max, min](const std::string& v) {
    out = number_arg(name, v, max);
    if (out < min) throw usage_error(name + ": at least " + std::to_string(min));
  });
}

constexpr const char* tls_help =
    "encrypt traffic (TLS, no certificates: every process of the\n"
    "cluster gives --tls)";

}  // namespace

void add_tls_options(CLI::App& app, tls_args& out, const std::string& group) {
  add_switch(
      app, "--tls", tls_help, [&out] { out.on = true; }, group);
  add_value(
      app, "--tls-cert", "F",
      "with --tls-key F --tls-ca F: TLS where both ends present a\n"
      "certificate signed by the CA (instead of --key-file)",
      [&out](const std::string& v) { out.cert = v, out.on = true; }, group);
  add_value(
      app, "--tls-key", "F", "the key of --tls-cert",
      [&out](const std::string& v) { out.key = v, out.on = true; }, group);
  add_value(
      app, "--tls-ca", "F", "the CA that signs the cluster's certificates",
      [&out](const std::string& v) { out.ca = v, out.on = true; }, group);
}

void check_tls(const tls_args& tls) {
  const int given = !tls.cert.empty() + !tls.key.empty() + !tls.ca.empty();
  if (given != 0 && given != 3)
    throw usage_error("--tls-cert, --tls-key and --tls-ca go together (or --tls alone)");
}

void parse_address(const std::string& option, const std::string& text, std::string& host,
                   std::uint16_t& port) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw usage_error(option + ": expected HOST:PORT, not '" + text + "'");
  host = text.substr(0, colon);
  port = static_cast<std::uint16_t>(number_arg(option, text.substr(colon + 1), 65535));
}

subcommand head_command(CLI::App& root) {
  auto out = std::make_shared<head_args>();
  auto listen = std::make_shared<bool>(false);
  head_args& h = *out;
  CLI::App* app = add_command(root, "head", head_usage);
  add_value(*app, "--listen", "HOST:PORT",
            "where to accept workers and clients (port 0: any free port; the\n"
            "port is logged as 'listening on HOST:PORT')",
            [&h, listen](const std::string& v) {
              parse_address("--listen", v, h.host, h.port);
              *listen = true;
            });
  add_value(*app, "--data", "DIR", "the database (default: .superstep, created if missing)",
            [&h](const std::string& v) {
              if (v.empty()) throw usage_error("--data: the folder name is empty");
              h.data_dir = v;
            });
  add_value(*app, "--saver", "URL",
            "keep the checkpoints on a Redis server instead (redis://[USER:\n"
            "PASSWORD@]HOST[:PORT][/DB]); --data keeps specs and the store",
            [&h](const std::string& v) { h.saver = saver_arg("--saver", v); });
  add_value(*app, "--key-file", "FILE",
            "the cluster's key: every link is TLS keyed by it, so workers and\n"
            "clients prove they have it (and the head proves it to them)\n"
            "before anything they send is read; without it, anyone who\n"
            "reaches the port may join",
            [&h](const std::string& v) { h.key_file = v; });
  add_value(*app, "--plugin", "LIB.so",
            "a node library, for the reducers its graphs use and the\n"
            "embedder --embedder names (repeatable)",
            [&h](const std::string& v) { h.plugins.push_back(v); });
  add_number(*app, "--worker-wait", "SECONDS",
             "how long a step waits for a worker able to run a node before\n"
             "the run fails (default 30)",
             h.worker_wait, 86400);
  add_number(*app, "--task-loss-limit", "N",
             "a task whose worker went away while it ran there N times, the\n"
             "last time alone on it, fails the run as a task that crashes its\n"
             "worker instead of going to the next one (after a loss, each lost\n"
             "batch goes again alone on a worker; default 2; 1: at the first\n"
             "loss of a task alone on its worker; 0: never)",
             h.task_loss_limit, 255);
  add_number(*app, "--threads", "N", "scheduler threads (default: one per core)", h.threads, 1024);
  add_switch(*app, "--fsync", "flush every database write to disk before going on",
             [&h] { h.fsync = true; });
  add_number(*app, "--request-threads", "N", "clients' runs going at once (default 8)",
             h.request_threads, 1024, 1);
  add_number(*app, "--request-queue", "N",
             "runs that may wait for one of those threads (default 16);\n"
             "past that a client is refused at once with 'head busy'",
             h.request_queue, 1u << 20);
  add_number(*app, "--command-threads", "N",
             "clients' other commands (state, history, threads, graph,\n"
             "update, delete) run at once, on threads of their own, so that\n"
             "long runs do not hold them up (default 4)",
             h.command_threads, 1024, 1);
  add_number(*app, "--command-queue", "N",
             "those commands that may wait for one of those threads\n"
             "(default 64); past that 'head busy'",
             h.command_queue, 1u << 20);
  add_number(*app, "--max-graphs", "N",
             "distinct graph specs kept loaded here and on the workers\n"
             "(default 32); the least recently used one no run uses goes\n"
             "first, and is loaded again when a run needs it",
             h.max_graphs, 1u << 20, 1);
  add_switch(*app, "--spread-channels",
             "keep each run's channels in channel actors on the workers, one\n"
             "group per worker (split by channel name), instead of beside the\n"
             "coordinator: the step's writes and state are applied there and\n"
             "each step commits over them in two phases (docs/channel_actors.md)",
             [&h] { h.spread_channels = true; });
  add_switch(*app, "--coordinator-channels",
             "keep each run's channels in its coordinator, which applies the\n"
             "step's writes itself: the path before channel actors, kept to\n"
             "compare against (BENCHMARKS.md); ignores --spread-channels",
             [&h] { h.coordinator_channels = true; });
  add_number(*app, "--shutdown-wait", "SECONDS",
             "on SIGINT or SIGTERM: new commands are refused ('head shutting\n"
             "down'), running runs stop once their current step is saved,\n"
             "and the head waits this long for them (default 10); runs still\n"
             "going then are logged and resume from their last checkpoint",
             h.shutdown_wait, 86400);
  add_tls_options(*app, h.tls);
  add_number(*app, "--max-connections", "N", "links open at once, at most (default 1024)",
             h.limits.max_connections, 1u << 20, 1);
  add_number(*app, "--max-pending", "N", "links still in their handshake, at most (default 64)",
             h.limits.max_pending, 1u << 20, 1);
  add_value(*app, "--handshake-timeout", "S",
            "seconds a new link has to finish its handshake (default 10)",
            [&h](const std::string& v) {
              h.limits.handshake_timeout_ms = parse_seconds_ms("--handshake-timeout", v);
            });
  add_number(*app, "--max-frame", "MB", "the largest message a peer may send (default 1024)",
             h.limits.max_frame_mb, 4095, 1);
  add_number(*app, "--client-backlog", "MB",
             "what may wait unsent for a client that does not read its\n"
             "command's lines (a stream): more, with nothing read for 10 s,\n"
             "or four times as much, and its link is closed, its run going\n"
             "on (default 64; 0: no bound; workers' links are not bounded)",
             h.limits.client_backlog_mb, 1u << 20);
  add_value(*app, "--serve", "NAME=GRAPH.json",
            "serve the graph under NAME to clients that name it instead of\n"
            "sending a spec (superstep::remote_graph; repeatable)",
            [&h](const std::string& v) {
              auto eq = v.find('=');
              if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
                throw usage_error("--serve: expected NAME=GRAPH.json, not '" + v + "'");
              std::string name = v.substr(0, eq);
              for (const auto& [served, path] : h.served)
                if (served == name) throw usage_error("--serve: graph '" + name + "' given twice");
              h.served.emplace_back(std::move(name), v.substr(eq + 1));
            });
  add_value(*app, "--http", "HOST:PORT",
            "also serve the LangGraph Server API there (as 'superstep serve'),\n"
            "on the graphs of --config and --serve, with the data of --data;\n"
            "its runs' tasks run on the workers (port 0: any free port,\n"
            "logged as 'listening on http://HOST:PORT')",
            [&h](const std::string& v) {
              parse_address("--http", v, h.http_host, h.http_port);
              h.http = true;
            });
  add_value(*app, "--config", "FILE",
            "superstep.json: graphs served by name (as --serve's), the plugins\n"
            "they need here, and the HTTP API's settings (CORS, body limit)",
            [&h](const std::string& v) { h.config_path = v; });
  add_number(*app, "--run-threads", "N",
             "the HTTP API's runs carried out at once (default 16); others\n"
             "wait their turn",
             h.run_threads, 4096, 1);
  add_log_level_option(*app, h.log_level, "info");
  add_switch(*app, "--log-requests",
             "log each client request as received (thread, graph, config,\n"
             "context, stream modes)",
             [&h] { h.log_requests = true; });
  add_embedder_options(*app, h.embedder);
  add_model_options(*app, h.model);
  add_help(*app);
  return {app, [app, out, listen]() -> command {
            take_extras(*app);
            if (!*listen) throw usage_error("head: missing --listen HOST:PORT");
            if (out->http && out->config_path.empty() && out->served.empty())
              throw usage_error(
                  "head --http: no graphs to serve: give --config superstep.json or --serve "
                  "NAME=GRAPH.json");
            check_tls(out->tls);
            check_embedder(out->embedder);
            return *out;
          }};
}

subcommand worker_command(CLI::App& root) {
  auto out = std::make_shared<worker_args>();
  auto join = std::make_shared<bool>(false);
  worker_args& w = *out;
  CLI::App* app = add_command(root, "worker", worker_usage);
  add_value(*app, "--join", "HOST:PORT", "the head", [&w, join](const std::string& v) {
    parse_address("--join", v, w.host, w.port);
    if (w.port == 0) throw usage_error("--join: the port is 0");
    *join = true;
  });
  add_value(*app, "--plugin", "LIB.so", "a node library to load (repeatable)",
            [&w](const std::string& v) { w.plugins.push_back(v); });
  add_number(*app, "--threads", "N", "threads running tasks (default: one per core)", w.threads,
             1024);
  add_value(*app, "--key-file", "FILE", "the cluster's key",
            [&w](const std::string& v) { w.key_file = v; });
  add_value(*app, "--name", "NAME", "this worker's name in the head's log (default: host:pid)",
            [&w](const std::string& v) { w.name = v; });
  add_tls_options(*app, w.tls);
  add_log_level_option(*app, w.log_level, "info");
  add_model_options(*app, w.model);
  add_help(*app);
  return {app, [app, out, join]() -> command {
            take_extras(*app);
            if (!*join) throw usage_error("worker: missing --join HOST:PORT");
            check_tls(out->tls);
            return *out;
          }};
}

}  // namespace detail

}  // namespace superstep::cli
