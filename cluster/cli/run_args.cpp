// The command lines of `superstep run`, `submit` (a run on a head) and `graph`.
#include <memory>

#include "cli/args_support.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cli::detail {

namespace {

constexpr const char* run_usage =
    "usage: superstep run [GRAPH.json] [--input JSON | --resume JSON] [options]\n"
    "\n"
    "Runs the graph in this process, keeping its checkpoints in a database (--data), and\n"
    "prints one JSON object per line: each stream event as {\"type\": MODE, \"ns\": [...],\n"
    "\"data\": ...} (\"ns\" only with --subgraphs), then the result as\n"
    "{\"type\": \"output\", \"thread\": ID, \"checkpoint\": ID, \"data\": ...}. A run that stops\n"
    "at an interrupt (interrupt() in a node, or interrupt_before/after) ends instead with\n"
    "{\"type\": \"interrupt\", \"thread\": ID, \"checkpoint\": ID, \"interrupts\": [{\"value\",\n"
    "\"id\"}...], \"next\": [NODE...]}.\n"
    "\n"
    "Without --input the thread continues from its last checkpoint: after a crash or a failed\n"
    "node it resumes the unfinished step, where tasks whose writes were saved do not run again;\n"
    "a finished thread prints its output again. GRAPH.json may be left out for a thread that\n"
    "ran before: the spec it last ran with is kept in the data folder.\n";

constexpr const char* run_usage_end =
    "environment:\n"
    "  SUPERSTEP_AES_KEY     encrypt checkpoints with AES-256-GCM under this key (64 hex digits\n"
    "                        or 44 base64 characters); reading them needs the same key\n"
    "\n"
    "exit status: 0 done, 1 failed (graph, spec or database), 2 usage error, 3 interrupted\n";

constexpr const char* submit_usage =
    "usage: superstep submit --head HOST:PORT [GRAPH.json] [--input JSON | --resume JSON]\n"
    "                        [--key-file FILE] [options of 'superstep run']\n"
    "\n"
    "Runs the graph on a cluster: the head keeps the checkpoints and its workers run the\n"
    "tasks. Prints what 'superstep run' prints, as the events arrive, and exits with the same\n"
    "statuses. The options are those of 'superstep run' except --data, --saver and --fsync,\n"
    "which are the head's, and the embedder and model options (the head's and the workers').\n"
    "A thread runs one run at a time on the head: --multitask reject|enqueue|interrupt|\n"
    "rollback says what a submit does when its thread is busy (default reject: it fails,\n"
    "naming the running run).\n";

constexpr const char* submit_usage_end =
    "exit status: 0 done, 1 failed, 2 usage error, 3 interrupted\n";

constexpr const char* graph_usage =
    "usage: superstep graph GRAPH.json [--mermaid | --ascii | --dot | --png FILE |\n"
    "                                    --json-schema] [--plugin LIB]...\n"
    "\n"
    "Loads the graph spec and prints it as a Mermaid flowchart (the default format).\n";

// Whether `s` names one of the engine's stream modes.
bool is_stream_mode(const std::string& s) {
  for (unsigned m = 0; m <= static_cast<unsigned>(last_stream_mode); ++m)
    if (stream_mode_name(static_cast<stream_mode>(m)) == s) return true;
  return false;
}

stream_mode stream_mode_of(const std::string& name) {
  try {
    return parse_stream_mode(name);
  } catch (const error& e) {
    throw usage_error(std::string("--stream: ") + e.what());
  }
}

// The thread id --config names in configurable.thread_id, if any.
std::string thread_in_config(const value& config) {
  const value& c = config.get("configurable");
  if (!c.is_null() && !c.is_object()) throw usage_error("--config: configurable must be an object");
  const value& id = c.get("thread_id");
  if (id.is_null()) return {};
  return id.is_string() ? id.as_string() : id.to_json();
}

// GRAPH.json given as the command's argument: at most one, and not beside --graph.
void take_graph_paths(std::string& path, const std::vector<std::string>& given) {
  for (const std::string& arg : given) {
    if (!path.empty()) throw usage_error("unexpected argument '" + arg + "' (one GRAPH.json only)");
    path = arg;
  }
}

// The arguments of `run` and `submit` as they are parsed.
struct run_parse {
  run_args out;
  std::vector<std::string> graphs;  // GRAPH.json arguments
};

struct graph_parse {
  graph_args out;
  std::vector<std::string> graphs;
  std::string chosen;  // the format option given, to refuse a second one
};

}  // namespace

subcommand run_command(CLI::App& root, bool submit) {
  auto p = std::make_shared<run_parse>();
  run_args& out = p->out;
  CLI::App* app = submit ? add_command(root, "submit", submit_usage, submit_usage_end)
                         : add_command(root, "run", run_usage, run_usage_end);
  app->add_option_function<std::vector<std::string>>("GRAPH.json",
                                                     [p](const std::vector<std::string>& v) {
                                                       p->graphs.insert(p->graphs.end(), v.begin(),
                                                                        v.end());
                                                     })
      ->group("");
  if (submit) {
    add_value(*app, "--head", "HOST:PORT", "the head to run on (required)",
              [&out](const std::string& v) {
                if (v.empty()) throw usage_error("--head: the address is empty");
                out.where.head = v;
              });
    add_value(*app, "--key-file", "FILE", "the cluster's key, when the head has one",
              [&out](const std::string& v) { out.where.key_file = v; });
  }
  add_value(*app, "--input", "JSON|@FILE", "the graph's input: starts a new run on the thread",
            [&out](const std::string& v) { out.input = read_json_arg("--input", v); });
  add_thread_options(*app, out.where, opt_thread);
  app->get_option("--thread")
      ->description("the thread (default: a new thread id, printed in the result)");
  add_value(*app, "--resume", "JSON|@FILE",
            "answer the pending interrupt: Command(resume=JSON); when several\n"
            "are pending, an object of interrupt id -> answer",
            [&out](const std::string& v) { out.resume = read_json_arg("--resume", v); });
  add_value(*app, "--update", "JSON|@FILE",
            "with --resume: a state update sent with the answer,\n"
            "Command(resume=..., update=JSON)",
            [&out](const std::string& v) {
              out.update = read_json_arg("--update", v);
              if (!out.update->is_object()) throw usage_error("--update: expected a JSON object");
            });
  add_value(*app, "--checkpoint", "ID",
            "replay the thread from this checkpoint (with --input: fork it)",
            [&out](const std::string& v) { out.checkpoint = v; });
  add_value(*app, "--durability", "MODE",
            "when checkpoints are written: sync (each step, before the next\n"
            "starts; the default), async (each step, in the background) or\n"
            "exit (once, when the run ends: a crash or a kill before then\n"
            "loses every step of the run, and the next run on the thread\n"
            "says so and goes on from the checkpoint before it)",
            [&out](const std::string& v) {
              if (v != "sync" && v != "async" && v != "exit")
                throw usage_error("--durability: expected sync, async or exit, not '" + v + "'");
              out.durability = v;
            });
  add_value(
      *app, "--multitask", "STRATEGY",
      "when the thread has a run in progress (in this process, or on the\n"
      "head with --head): reject (fail, naming the running run; the\n"
      "default), enqueue (run after it), interrupt (stop it at its next\n"
      "step, keeping its checkpoints, then run) or rollback (stop it and\n"
      "remove what it saved, then run)",
      [&out](const std::string& v) {
        if (v != "reject" && v != "enqueue" && v != "interrupt" && v != "rollback")
          throw usage_error("--multitask: expected reject, enqueue, interrupt or rollback, not '" +
                            v + "'");
        out.multitask = v;
      });
  // --data, --saver and --fsync are the head's with submit: refused after parsing (--data,
  // as always, ignored).
  const std::string mine = submit ? "" : "options";
  add_value(
      *app, "--data", "DIR", "the checkpoint database (default: .superstep, created if missing)",
      [&out](const std::string& v) {
        if (v.empty()) throw usage_error("--data: the folder name is empty");
        out.where.data_dir = v;
      },
      mine);
  add_value(
      *app, "--saver", "URL",
      "keep the checkpoints on a Redis server instead:\n"
      "redis://[USER:PASSWORD@]HOST[:PORT][/DB] (no TLS: rediss:// is\n"
      "refused). --data still holds the threads' specs and the store",
      [&out](const std::string& v) { out.where.saver = saver_arg("--saver", v); }, mine);
  add_switch(
      *app, "--fsync",
      "flush every write to disk before going on (survives power loss;\n"
      "without it writes survive the process being killed)",
      [&out] { out.fsync = true; }, mine);
  add_value(*app, "--graph", "GRAPH.json", "the same as GRAPH.json", [&out](const std::string& v) {
    if (!out.where.graph_path.empty()) throw usage_error("--graph: one GRAPH.json only");
    out.where.graph_path = v;
  });
  // --stream takes the stream modes that follow it; the first argument after them that is
  // not a mode is GRAPH.json.
  app->add_option_function<std::vector<std::string>>(
         "--stream",
         [p](const std::vector<std::string>& v) {
           for (std::size_t i = 0; i < v.size(); ++i) {
             if (i > 0 && !is_stream_mode(v[i])) {
               p->graphs.insert(p->graphs.end(), v.begin() + static_cast<std::ptrdiff_t>(i),
                                v.end());
               return;
             }
             p->out.modes.push_back(stream_mode_of(v[i]));
           }
         },
         "stream modes: values, updates, custom, messages, debug,\n"
         "tasks, checkpoints, tools\n"
         "(several after one --stream, or --stream repeated)")
      ->option_text("MODE...")
      ->allow_extra_args()
      ->trigger_on_parse()
      ->group("options");
  add_switch(*app, "--subgraphs", "also stream events of subgraphs, with their namespace",
             [&out] { out.subgraphs = true; });
  add_value(*app, "--config", "JSON|@FILE", "the run's config object",
            [&out](const std::string& v) {
              out.config = read_json_arg("--config", v);
              if (!out.config.is_object()) throw usage_error("--config: expected a JSON object");
            });
  add_thread_options(*app, out.where,
                     opt_plugin | opt_progress | (submit ? 0u : unsigned(opt_head)),
                     submit ? unsigned(opt_plugin) : unsigned(opt_head));
  app->get_option("--plugin")
      ->description(
          "a node library whose functions the spec names, or whose\n"
          "embedder --embedder names (repeatable)");
  if (submit) {
    add_tls_options(*app, out.where.tls);
    app->get_option("--tls")->description(
        "encrypt traffic as the head does (see 'superstep head --help';\n"
        "with a certificate: --tls-cert F --tls-key F --tls-ca F)");
    add_log_level_option(*app, out.where.log_level, "warn");
  }
  // The embedder and the model: the head's and the workers' with submit (refused).
  add_embedder_options(*app, out.embedder, submit ? "" : "semantic search (the store's index)");
  add_model_options(*app, out.model, submit ? "" : "chat model (llm.chat nodes)");
  add_help(*app);

  return {
      app, [p, app, submit]() -> command {
        take_extras(*app);
        run_args& out = p->out;
        take_graph_paths(out.where.graph_path, p->graphs);
        const char* cmd = submit ? "submit" : "run";
        if (out.where.thread.empty()) out.where.thread = thread_in_config(out.config);
        const bool continues = !out.input && !out.resume;
        if (out.where.thread.empty()) {
          if (out.resume) throw usage_error(std::string(cmd) + ": --resume needs --thread ID");
          if (!out.checkpoint.empty())
            throw usage_error(std::string(cmd) + ": --checkpoint needs --thread ID");
          if (continues)
            throw usage_error(std::string(cmd) +
                              ": missing --input (or --thread ID to continue a thread)");
          if (out.where.graph_path.empty())
            throw usage_error(std::string(cmd) + ": missing GRAPH.json");
        }
        if (out.input && out.resume)
          throw usage_error(std::string(cmd) + ": give either --input or --resume, not both");
        if (out.update && !out.resume)
          throw usage_error(std::string(cmd) + ": --update goes with --resume");
        if (!submit) {
          if (!out.where.head.empty())
            throw usage_error("run: --head is for 'superstep submit' (run works in this process)");
          check_embedder(out.embedder);
          return out;
        }
        if (out.where.head.empty()) throw usage_error("submit: missing --head HOST:PORT");
        if (out.fsync) throw usage_error("submit: --fsync is the head's option");
        if (!out.where.saver.empty()) throw usage_error("submit: --saver is the head's option");
        if (out.embedder.given())
          throw usage_error(
              "submit: the store's embedder is the head's (--embedder, --dims, --distance)");
        if (!out.model.is_null())
          throw usage_error("submit: the model is the workers' (superstep worker --model ...)");
        check_tls(out.where.tls);
        return out;
      }};
}

subcommand graph_command(CLI::App& root) {
  auto p = std::make_shared<graph_parse>();
  CLI::App* app = add_command(root, "graph", graph_usage);
  app->add_option_function<std::vector<std::string>>("GRAPH.json",
                                                     [p](const std::vector<std::string>& v) {
                                                       p->graphs.insert(p->graphs.end(), v.begin(),
                                                                        v.end());
                                                     })
      ->group("");
  auto choose = [p](const std::string& option, graph_args::format f) {
    if (!p->chosen.empty() && p->chosen != option)
      throw usage_error(
          "graph: give one of --mermaid, --ascii, --dot, --png and --json-schema, not both " +
          p->chosen + " and " + option);
    p->chosen = option;
    p->out.what = f;
  };
  add_switch(*app, "--mermaid", "print a Mermaid flowchart",
             [choose] { choose("--mermaid", graph_args::format::mermaid); });
  add_switch(*app, "--ascii", "print the graph as text: its nodes in rows, then its edges",
             [choose] { choose("--ascii", graph_args::format::ascii); });
  add_switch(*app, "--dot", "print the graph in Graphviz's DOT language",
             [choose] { choose("--dot", graph_args::format::dot); });
  add_value(*app, "--png", "FILE",
            "draw the graph into FILE as a PNG image, through Graphviz's dot\n"
            "(Debian package graphviz, which make deps installs)",
            [p, choose](const std::string& v) {
              choose("--png", graph_args::format::png);
              if (v.empty()) throw usage_error("--png: the file name is empty");
              p->out.png_path = v;
            });
  add_switch(*app, "--json-schema",
             "print the JSON schemas of the graph's input and output as one JSON\n"
             "object {\"input\": ..., \"output\": ...} (LangGraph's\n"
             "get_input_jsonschema/get_output_jsonschema; a state key's \"schema\"\n"
             "and \"required\" describe it)",
             [choose] { choose("--json-schema", graph_args::format::json_schema); });
  add_value(*app, "--plugin", "LIB", "load a node library first, for specs that use its functions",
            [p](const std::string& v) { p->out.plugins.push_back(v); });
  add_help(*app);
  return {app, [p, app]() -> command {
            take_extras(*app);
            take_graph_paths(p->out.graph_path, p->graphs);
            if (p->out.graph_path.empty()) throw usage_error("graph: missing GRAPH.json");
            return p->out;
          }};
}

}  // namespace superstep::cli::detail
