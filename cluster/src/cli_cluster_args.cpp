// The command lines of `superstep head` and `superstep worker`.
#include <charconv>

#include "cli_args_support.hpp"

namespace superstep::cli {

namespace detail {

namespace {

constexpr const char* head_usage =
    "usage: superstep head --listen HOST:PORT [--data DIR] [--key-file FILE] [options]\n"
    "\n"
    "Starts a cluster's head: it accepts workers and clients on HOST:PORT, runs a coordinator\n"
    "for each submitted run and keeps every thread's checkpoints in the database DIR. The\n"
    "tasks run on the workers that provide their node functions (nodes running subgraphs run\n"
    "here). Runs until interrupted (SIGINT or SIGTERM). Logs one line per event on stderr.\n"
    "\n"
    "options:\n"
    "  --listen HOST:PORT    where to accept workers and clients (port 0: any free port; the\n"
    "                        port is logged as 'listening on HOST:PORT')\n"
    "  --data DIR            the database (default: .superstep, created if missing)\n"
    "  --saver URL           keep the checkpoints on a Redis server instead (redis://[USER:\n"
    "                        PASSWORD@]HOST[:PORT][/DB]); --data keeps specs and the store\n"
    "  --key-file FILE       the cluster's key: every link is TLS keyed by it, so workers and\n"
    "                        clients prove they have it (and the head proves it to them)\n"
    "                        before anything they send is read; without it, anyone who\n"
    "                        reaches the port may join\n"
    "  --plugin LIB.so       a node library, for the reducers its graphs use and the\n"
    "                        embedder --embedder names (repeatable)\n"
    "  --worker-wait SECONDS how long a step waits for a worker able to run a node before\n"
    "                        the run fails (default 30)\n"
    "  --threads N           scheduler threads (default: one per core)\n"
    "  --fsync               flush every database write to disk before going on\n"
    "  --request-threads N   clients' commands run at once (default 8)\n"
    "  --request-queue N     commands that may wait for one of those threads (default 16);\n"
    "                        past that a client is refused at once with 'head busy'\n"
    "  --max-graphs N        distinct graph specs kept loaded here and on the workers\n"
    "                        (default 32); the least recently used one no run uses goes\n"
    "                        first, and is loaded again when a run needs it\n"
    "  --shutdown-wait SECONDS\n"
    "                        on SIGINT or SIGTERM: new commands are refused ('head shutting\n"
    "                        down'), running runs stop once their current step is saved,\n"
    "                        and the head waits this long for them (default 10); runs still\n"
    "                        going then are logged and resume from their last checkpoint\n"
    "  --tls                 encrypt traffic (TLS, no certificates: every process of the\n"
    "                        cluster gives --tls)\n"
    "  --tls-cert F --tls-key F --tls-ca F\n"
    "                        TLS where both ends present a certificate signed by the CA\n"
    "                        (instead of --key-file)\n"
    "  --max-connections N   links open at once, at most (default 1024)\n"
    "  --max-pending N       links still in their handshake, at most (default 64)\n"
    "  --handshake-timeout S seconds a new link has to finish its handshake (default 10)\n"
    "  --max-frame MB        the largest message a peer may send (default 1024)\n"
    "  --serve NAME=GRAPH.json\n"
    "                        serve the graph under NAME to clients that name it instead of\n"
    "                        sending a spec (superstep::remote_graph; repeatable)\n"
    "  --log-requests        log each client request as received (thread, graph, config,\n"
    "                        context, stream modes)\n"
    "  --help                show this help\n"
    "\n";

constexpr const char* worker_usage =
    "usage: superstep worker --join HOST:PORT [--plugin LIB.so]... [--threads N] [options]\n"
    "\n"
    "Starts a worker: it joins the head at HOST:PORT, offers the node functions of the std\n"
    "library and of its plugins, and runs the tasks the head sends it. When the head goes\n"
    "away it tries to join again every second. Runs until interrupted (SIGINT or SIGTERM).\n"
    "\n"
    "options:\n"
    "  --join HOST:PORT      the head\n"
    "  --plugin LIB.so       a node library to load (repeatable)\n"
    "  --threads N           threads running tasks (default: one per core)\n"
    "  --key-file FILE       the cluster's key\n"
    "  --name NAME           this worker's name in the head's log (default: host:pid)\n"
    "  --tls                 encrypt traffic (TLS, no certificates: every process of the\n"
    "                        cluster gives --tls)\n"
    "  --tls-cert F --tls-key F --tls-ca F\n"
    "                        TLS where both ends present a certificate signed by the CA\n"
    "  --help                show this help\n";

unsigned number_of(const std::string& option, const std::string& text, unsigned max) {
  unsigned n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n > max)
    throw usage_error(option + ": expected a number up to " + std::to_string(max) + ", not '" +
                      text + "'");
  return n;
}

// Seconds, with up to three decimals ("10", "0.5"), as milliseconds (at least 1).
unsigned parse_seconds_ms(const std::string& option, const std::string& text) {
  auto dot = text.find('.');
  std::string whole = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (whole.empty() || frac.size() > 3 || (dot != std::string::npos && frac.empty()))
    throw usage_error(option + ": expected seconds such as 10 or 0.5, not '" + text + "'");
  unsigned ms = number_of(option, whole, 86400) * 1000;
  if (!frac.empty()) {
    frac.resize(3, '0');
    ms += number_of(option, frac, 999);
  }
  if (ms == 0) throw usage_error(option + ": more than 0 seconds");
  return ms;
}

}  // namespace

bool take_tls_option(const std::string& arg, arg_cursor& args, tls_args& out) {
  if (arg == "--tls")
    out.on = true;
  else if (arg == "--tls-cert")
    out.cert = args.value_of(arg), out.on = true;
  else if (arg == "--tls-key")
    out.key = args.value_of(arg), out.on = true;
  else if (arg == "--tls-ca")
    out.ca = args.value_of(arg), out.on = true;
  else
    return false;
  return true;
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
  port = static_cast<std::uint16_t>(number_of(option, text.substr(colon + 1), 65535));
}

command parse_head(arg_cursor args) {
  head_args out;
  bool listen = false;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{std::string(head_usage) + embedder_usage + model_usage};
    if (take_tls_option(a, args, out.tls)) continue;
    if (take_embedder_option(a, args, out.embedder)) continue;
    if (take_model_option(a, args, out.model)) continue;
    if (a == "--listen") {
      parse_address(a, args.value_of(a), out.host, out.port);
      listen = true;
    } else if (a == "--data") {
      out.data_dir = args.value_of(a);
      if (out.data_dir.empty()) throw usage_error("--data: the folder name is empty");
    } else if (a == "--saver") {
      out.saver = saver_arg(a, args.value_of(a));
    } else if (a == "--key-file") {
      out.key_file = args.value_of(a);
    } else if (a == "--plugin") {
      out.plugins.push_back(args.value_of(a));
    } else if (a == "--worker-wait") {
      out.worker_wait = number_of(a, args.value_of(a), 86400);
    } else if (a == "--threads") {
      out.threads = number_of(a, args.value_of(a), 1024);
    } else if (a == "--fsync") {
      out.fsync = true;
    } else if (a == "--max-connections") {
      out.limits.max_connections = number_of(a, args.value_of(a), 1u << 20);
      if (out.limits.max_connections == 0) throw usage_error(a + ": at least 1");
    } else if (a == "--max-pending") {
      out.limits.max_pending = number_of(a, args.value_of(a), 1u << 20);
      if (out.limits.max_pending == 0) throw usage_error(a + ": at least 1");
    } else if (a == "--handshake-timeout") {
      out.limits.handshake_timeout_ms = parse_seconds_ms(a, args.value_of(a));
    } else if (a == "--max-frame") {
      out.limits.max_frame_mb = number_of(a, args.value_of(a), 4095);
      if (out.limits.max_frame_mb == 0) throw usage_error(a + ": at least 1");
    } else if (a == "--request-threads") {
      out.request_threads = number_of(a, args.value_of(a), 1024);
      if (out.request_threads == 0) throw usage_error("--request-threads: at least 1");
    } else if (a == "--request-queue") {
      out.request_queue = number_of(a, args.value_of(a), 1u << 20);
    } else if (a == "--max-graphs") {
      out.max_graphs = number_of(a, args.value_of(a), 1u << 20);
      if (out.max_graphs == 0) throw usage_error("--max-graphs: at least 1");
    } else if (a == "--shutdown-wait") {
      out.shutdown_wait = number_of(a, args.value_of(a), 86400);
    } else if (a == "--serve") {
      std::string v = args.value_of(a);
      auto eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw usage_error("--serve: expected NAME=GRAPH.json, not '" + v + "'");
      std::string name = v.substr(0, eq);
      for (const auto& [served, path] : out.served)
        if (served == name) throw usage_error("--serve: graph '" + name + "' given twice");
      out.served.emplace_back(std::move(name), v.substr(eq + 1));
    } else if (a == "--log-requests") {
      out.log_requests = true;
    } else {
      unexpected_argument(a, std::string(head_usage) + embedder_usage);
    }
  }
  if (!listen) throw usage_error("head: missing --listen HOST:PORT");
  check_tls(out.tls);
  check_embedder(out.embedder);
  return out;
}

command parse_worker(arg_cursor args) {
  worker_args out;
  bool join = false;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{std::string(worker_usage) + model_usage};
    if (take_tls_option(a, args, out.tls)) continue;
    if (take_model_option(a, args, out.model)) continue;
    if (a == "--join") {
      parse_address(a, args.value_of(a), out.host, out.port);
      if (out.port == 0) throw usage_error("--join: the port is 0");
      join = true;
    } else if (a == "--plugin") {
      out.plugins.push_back(args.value_of(a));
    } else if (a == "--threads") {
      out.threads = number_of(a, args.value_of(a), 1024);
    } else if (a == "--key-file") {
      out.key_file = args.value_of(a);
    } else if (a == "--name") {
      out.name = args.value_of(a);
    } else {
      unexpected_argument(a, worker_usage);
    }
  }
  if (!join) throw usage_error("worker: missing --join HOST:PORT");
  check_tls(out.tls);
  return out;
}

}  // namespace detail

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};

}  // namespace

const thread_args* where_of(const command& cmd) {
  return std::visit(overloaded{[](const run_args& a) { return &a.where; },
                               [](const state_args& a) { return &a.where; },
                               [](const history_args& a) { return &a.where; },
                               [](const update_args& a) { return &a.where; },
                               [](const delete_args& a) { return &a.where; },
                               [](const threads_args& a) { return &a.where; },
                               [](const cancel_args& a) { return &a.where; },
                               [](const auto&) -> const thread_args* { return nullptr; }},
                    cmd);
}

}  // namespace superstep::cli
