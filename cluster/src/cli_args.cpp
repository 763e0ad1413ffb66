#include "cli_args.hpp"

#include <fstream>
#include <sstream>

#include "superstep/core/error.hpp"

namespace superstep::cli {

namespace {

constexpr const char* run_usage =
    "usage: superstep run GRAPH.json --input JSON [options]\n"
    "\n"
    "Runs the graph in this process and prints one JSON object per line: each stream event\n"
    "as {\"type\": MODE, \"ns\": [...], \"data\": ...} (\"ns\" only with --subgraphs), then\n"
    "the result as {\"type\": \"output\", \"data\": ...}.\n"
    "\n"
    "options:\n"
    "  --input JSON|@FILE    the graph's input (required)\n"
    "  --thread ID           thread id, set as config.configurable.thread_id\n"
    "  --stream MODE...      stream modes: values, updates, custom, messages, debug\n"
    "                        (several after one --stream, or --stream repeated)\n"
    "  --subgraphs           also stream events of subgraphs, with their namespace\n"
    "  --config JSON|@FILE   the run's config object\n"
    "  --help                show this help\n"
    "\n"
    "exit status: 0 on success, 1 when the graph fails, 2 for usage errors\n";

constexpr const char* graph_usage =
    "usage: superstep graph GRAPH.json [--mermaid]\n"
    "\n"
    "Loads the graph spec and prints it as a Mermaid flowchart (the default format).\n"
    "\n"
    "options:\n"
    "  --mermaid   print a Mermaid flowchart\n"
    "  --help      show this help\n";

bool is_help(std::string_view a) { return a == "--help" || a == "-h"; }

// JSON given inline or, as "@path", in a file.
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

// Walks the arguments after the subcommand.
class arg_cursor {
 public:
  arg_cursor(int argc, const char* const* argv, int first) : argv_(argv + first, argv + argc) {}
  bool done() const { return i_ >= argv_.size(); }
  std::string next() { return argv_[i_++]; }
  std::optional<std::string> peek() const {
    if (done()) return std::nullopt;
    return std::string(argv_[i_]);
  }
  std::string value_of(const std::string& option) {
    if (done()) throw usage_error(option + " needs a value");
    return next();
  }

 private:
  std::vector<const char*> argv_;
  std::size_t i_ = 0;
};

void set_graph_path(std::string& path, const std::string& arg) {
  if (!arg.empty() && arg[0] == '-') throw usage_error("unknown option '" + arg + "'");
  if (!path.empty()) throw usage_error("unexpected argument '" + arg + "' (one GRAPH.json only)");
  path = arg;
}

bool is_stream_mode(const std::string& s) {
  for (const char* m : {"values", "updates", "custom", "messages", "debug"})
    if (s == m) return true;
  return false;
}

stream_mode stream_mode_of(const std::string& name) {
  try {
    return parse_stream_mode(name);
  } catch (const error& e) {
    throw usage_error(std::string("--stream: ") + e.what());
  }
}

command parse_run(arg_cursor args) {
  run_args out;
  std::optional<std::string> thread;
  bool has_input = false;
  value config;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{run_usage};
    if (a == "--input") {
      out.input = read_json_arg(a, args.value_of(a));
      has_input = true;
    } else if (a == "--thread") {
      thread = args.value_of(a);
    } else if (a == "--config") {
      config = read_json_arg(a, args.value_of(a));
      if (!config.is_object()) throw usage_error("--config: expected a JSON object");
    } else if (a == "--subgraphs") {
      out.subgraphs = true;
    } else if (a == "--stream") {
      out.modes.push_back(stream_mode_of(args.value_of(a)));
      while (args.peek() && is_stream_mode(*args.peek()))
        out.modes.push_back(stream_mode_of(args.next()));
    } else {
      set_graph_path(out.graph_path, a);
    }
  }
  if (out.graph_path.empty()) throw usage_error("run: missing GRAPH.json");
  if (!has_input) throw usage_error("run: missing --input");
  if (thread) {
    object cfg = config.is_object() ? config.as_object() : object{};
    value c = config.get("configurable");
    if (!c.is_null() && !c.is_object())
      throw usage_error("--config: configurable must be an object");
    object configurable = c.is_object() ? c.as_object() : object{};
    configurable.set("thread_id", *thread);
    cfg.set("configurable", value(std::move(configurable)));
    config = value(std::move(cfg));
  }
  out.config = std::move(config);
  return out;
}

command parse_graph(arg_cursor args) {
  graph_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{graph_usage};
    if (a == "--mermaid") continue;
    set_graph_path(out.graph_path, a);
  }
  if (out.graph_path.empty()) throw usage_error("graph: missing GRAPH.json");
  return out;
}

}  // namespace

std::string main_usage() {
  return "usage: superstep COMMAND [options]\n"
         "\n"
         "commands:\n"
         "  run GRAPH.json --input JSON   run a graph spec in this process\n"
         "  graph GRAPH.json --mermaid    draw a graph spec\n"
         "\n"
         "'superstep COMMAND --help' describes a command.\n";
}

command parse_command_line(int argc, const char* const* argv) {
  if (argc < 2) throw usage_error("missing command");
  std::string cmd = argv[1];
  if (is_help(cmd)) return help_request{main_usage()};
  if (cmd == "run") return parse_run(arg_cursor(argc, argv, 2));
  if (cmd == "graph") return parse_graph(arg_cursor(argc, argv, 2));
  throw usage_error("unknown command '" + cmd + "'");
}

}  // namespace superstep::cli
