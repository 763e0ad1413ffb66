// `superstep run` and `superstep graph`.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep::ops {

namespace {

// The config of the run: the caller's, with the thread, the checkpoint and the durability
// of the command line, and the spec's recursion limit unless the caller sets one.
value run_config(const run_args& args, const std::string& thread_id,
                 const cluster::loaded_graph& graph) {
  object cfg = args.config.is_object() ? args.config.as_object() : object{};
  const value& given = args.config.get("configurable");
  object configurable = given.is_object() ? given.as_object() : object{};
  configurable.set("thread_id", thread_id);
  if (!args.checkpoint.empty()) configurable.set("checkpoint_id", args.checkpoint);
  cfg.set("configurable", value(std::move(configurable)));
  if (!args.durability.empty()) cfg.set("durability", args.durability);
  if (graph.recursion_limit && !cfg.contains("recursion_limit"))
    cfg.set("recursion_limit", *graph.recursion_limit);
  if (!args.context.is_null()) cfg.set("context", args.context);  // node_context::context()
  if (!args.run_id.empty()) cfg.set("run_id", args.run_id);       // thread_runs names it
  return value(std::move(cfg));
}

// What the graph is invoked with: the input, Command(resume=...), or null to continue.
value run_input(const run_args& args) {
  if (args.input) return *args.input;
  if (!args.resume && !args.update && args.go_to.empty()) return value();
  superstep::command c;  // LangGraph Command, not the command line
  c.resume = args.resume;
  if (args.update) c.update = *args.update;
  c.go_to = args.go_to;
  return make_command(c);
}

stream_sink event_printer(const command_env& env, const run_args& args) {
  if (args.modes.empty()) return {};
  const bool with_ns = args.subgraphs;
  return [with_ns, print = env.print](const stream_event& e) {
    object line{{"type", std::string(stream_mode_name(e.mode))}};
    if (with_ns) {
      list ns(e.ns.begin(), e.ns.end());
      line.set("ns", value(std::move(ns)));
    }
    line.set("data", e.data);
    print(value(std::move(line)));
  };
}

void note(const command_env& env, const std::string& text) {
  if (env.note)
    env.note(text);
  else
    std::fprintf(stderr, "note: %s\n", text.c_str());
}

}  // namespace

int run_graph(command_env& env, const run_args& args) {
  data_dir& data = env.data;
  thread_args where = args.where;
  if (where.thread.empty()) where.thread = new_thread_id();
  // Continuing and resuming need what the thread saved; without it the engine would run an
  // empty graph (or report a missing interrupt) and hide a mistyped thread id or folder.
  if (!args.input) data.require_thread(where.thread);
  cluster::loaded_graph graph =
      env.graph && env.spec_text ? *env.graph : detail::load_thread_graph(env, where);

  value config = run_config(args, where.thread, graph);
  const value& durability = config.get("durability");
  const bool exit_run = durability.is_string() && durability.as_string() == "exit";
  struct exit_run_end {  // the run ended, whichever way, and saved what it ran
    const data_dir& data;
    const std::string& thread;
    bool on = false;
    ~exit_run_end() {
      if (on) data.end_exit_run(thread);
    }
  } end_exit{data, where.thread};

  stream_options options{args.modes, args.subgraphs};
  options.progress = env.progress;
  options.stop = env.stop;
  if (!args.multitask.empty()) options.multitask = parse_multitask_strategy(args.multitask);
  options.control = env.control;
  options.interrupt_before = args.interrupt_before;
  options.interrupt_after = args.interrupt_after;
  // What concerns the thread's files is done once the run holds the thread: a run refused or
  // cancelled while another runs leaves that run's spec and records in place.
  options.started = [&] {
    // A run with durability exit saves its steps only when it ends: one whose process died
    // left a record and nothing else, which the next run on the thread reports.
    if (auto started = data.unfinished_exit_run(where.thread)) {
      note(env, "thread " + where.thread + ": its run with durability exit that started at " +
                    *started +
                    " never finished (its process ended first), so none of that run's steps "
                    "were saved; the thread goes on from the checkpoint before that run");
      data.end_exit_run(where.thread);
    }
    if (env.spec_text)
      data.save_graph_text(where.thread, *env.spec_text);
    else if (!where.graph_path.empty())
      data.save_graph(where.thread, where.graph_path);
    if (exit_run) {
      data.begin_exit_run(where.thread);
      end_exit.on = true;
    }
  };
  // The thread's newest checkpoint: after a fork, the end of the new branch. Read while the
  // run holds the thread: once it lets go, a run waiting for the thread may have begun.
  state_snapshot now;
  options.finished = [&] {
    if (end_exit.on) data.end_exit_run(where.thread);  // before a run waiting may begin its own
    end_exit.on = false;
    now = graph.graph->get_state(detail::thread_config(where.thread));
  };
  value output = graph.graph->stream(run_input(args), config, options, event_printer(env, args));
  if (env.final_state) env.final_state(now);
  const value* interrupts = output.find("__interrupt__");
  if (!interrupts && now.next.empty()) {
    env.print(object{{"type", "output"},
                     {"thread", where.thread},
                     {"checkpoint", now.config.checkpoint_id},
                     {"data", output}});
    return exit_done;
  }
  // Interrupted: by interrupt() in a node (listed in the output), or before or after a node
  // named in interrupt_before/after (nothing listed; the thread has nodes left to run).
  object values = output.is_object() ? output.as_object() : object{};
  values.erase("__interrupt__");
  env.print(object{{"type", "interrupt"},
                   {"thread", where.thread},
                   {"checkpoint", now.config.checkpoint_id},
                   {"interrupts", interrupts ? *interrupts : value(list{})},
                   {"next", value(list(now.next.begin(), now.next.end()))},
                   {"data", output.is_object() ? value(std::move(values)) : output}});
  return exit_interrupted;
}

namespace {

// Runs Graphviz's dot on `source`, writing a PNG image to `path`.
void render_png(const std::string& source, const std::string& path) {
  int in[2];
  if (::pipe(in) != 0) throw error(error_code::unavailable, "--png: cannot make a pipe to dot");
  const std::string out_arg = "-o" + path;
  const char* argv[] = {"dot", "-Tpng", out_arg.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, in[1]);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, "dot", &actions, nullptr, const_cast<char* const*>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  if (rc != 0) {
    ::close(in[1]);
    throw error(error_code::unavailable,
                "--png needs Graphviz's dot, which cannot be run here (" +
                    std::string(std::strerror(rc)) +
                    "): apt-get install graphviz (make deps does), or use --dot and draw it "
                    "elsewhere");
  }
  // dot reads all of its input before it writes; a write error shows as its exit status.
  std::signal(SIGPIPE, SIG_IGN);
  for (std::size_t done = 0; done < source.size();) {
    ssize_t n = ::write(in[1], source.data() + done, source.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(in[1]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw error(error_code::invalid_argument,
                "--png: dot failed to write " + path + " (exit status " +
                    std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
}

}  // namespace

int draw_graph(const graph_args& args, const cluster::function_registry& registry) {
  std::shared_ptr<pregel> graph = cluster::load_graph_spec_file(args.graph_path, registry);
  std::string drawing;
  switch (args.what) {
    case graph_args::format::json_schema:
      drawing = value(object{{"input", graph->input_json_schema()},
                             {"output", graph->output_json_schema()}})
                    .to_json() +
                "\n";
      break;
    case graph_args::format::dot: drawing = graph->get_graph().draw_dot(); break;
    case graph_args::format::ascii: drawing = graph->get_graph().draw_ascii(); break;
    case graph_args::format::png:
      render_png(graph->get_graph().draw_dot(), args.png_path);
      return exit_done;
    case graph_args::format::mermaid: drawing = graph->draw_mermaid(); break;
  }
  std::fwrite(drawing.data(), 1, drawing.size(), stdout);
  return exit_done;
}

}  // namespace superstep::ops
