#include "cli_commands.hpp"

#include <cstdio>

#include "superstep/cluster/graph_spec.hpp"

namespace superstep::cli {

namespace {

// Writes one line and flushes, so a reader of a pipe sees each event when it happens.
void print_line(const value& v) {
  std::string line = v.to_json();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

// The config of the run: the caller's, plus the spec's recursion limit unless it sets one.
value run_config(const run_args& args, const cluster::loaded_graph& graph) {
  if (!graph.recursion_limit || args.config.find("recursion_limit")) return args.config;
  object cfg = args.config.is_object() ? args.config.as_object() : object{};
  cfg.set("recursion_limit", *graph.recursion_limit);
  return value(std::move(cfg));
}

}  // namespace

int run_graph(const run_args& args, const cluster::function_registry& registry) {
  cluster::loaded_graph graph = cluster::load_graph_file(args.graph_path, registry);
  stream_options options{args.modes, args.subgraphs};
  const bool with_ns = args.subgraphs;
  stream_sink sink = [with_ns](const stream_event& e) {
    object line{{"type", std::string(stream_mode_name(e.mode))}};
    if (with_ns) {
      list ns(e.ns.begin(), e.ns.end());
      line.set("ns", value(std::move(ns)));
    }
    line.set("data", e.data);
    print_line(value(std::move(line)));
  };
  value output = graph.graph->stream(args.input, run_config(args, graph), options,
                                     args.modes.empty() ? stream_sink() : sink);
  print_line(object{{"type", "output"}, {"data", output}});
  return 0;
}

int draw_graph(const graph_args& args, const cluster::function_registry& registry) {
  std::string drawing = cluster::load_graph_spec_file(args.graph_path, registry)->draw_mermaid();
  std::fwrite(drawing.data(), 1, drawing.size(), stdout);
  return 0;
}

}  // namespace superstep::cli
