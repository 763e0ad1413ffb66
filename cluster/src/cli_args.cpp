#include "cli_args.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <utility>

#include "cli_args_support.hpp"
#include "suggest.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/redis_client.hpp"
#include "superstep/version.hpp"

namespace superstep::cli {

namespace detail {

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

std::string saver_arg(const std::string& option, const std::string& url) {
  try {
    static_cast<void>(storage::redis_url::parse(url));
  } catch (const error& e) {
    throw usage_error(option + ": " + e.what() +
                      " (the saver is RocksDB in --data unless --saver gives a redis:// URL)");
  }
  return url;
}

bool take_thread_option(const std::string& arg, arg_cursor& args, thread_args& out) {
  if (arg == "--thread") {
    out.thread = args.value_of(arg);
    if (out.thread.empty()) throw usage_error("--thread: the thread id is empty");
  } else if (arg == "--data") {
    out.data_dir = args.value_of(arg);
    if (out.data_dir.empty()) throw usage_error("--data: the folder name is empty");
  } else if (arg == "--saver") {
    out.saver = saver_arg(arg, args.value_of(arg));
  } else if (arg == "--graph") {
    if (!out.graph_path.empty()) throw usage_error("--graph: one GRAPH.json only");
    out.graph_path = args.value_of(arg);
  } else if (arg == "--head") {
    out.head = args.value_of(arg);
    if (out.head.empty()) throw usage_error("--head: the address is empty");
  } else if (arg == "--key-file") {
    out.key_file = args.value_of(arg);
  } else if (arg == "--progress") {
    out.progress = true;
  } else if (take_tls_option(arg, args, out.tls)) {
  } else if (arg == "--plugin") {
    out.plugins.push_back(args.value_of(arg));
  } else {
    return false;
  }
  return true;
}

std::size_t count_arg(const std::string& option, const std::string& text) {
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw usage_error(option + ": expected a count, not '" + text + "'");
  return n;
}

const char* const embedder_usage =
    "semantic search (the store's index):\n"
    "  --embedder NAME       what turns values and queries into vectors: hashing (the\n"
    "                        default: offline, deterministic), openai (an OpenAI-compatible\n"
    "                        HTTP endpoint) or one that a --plugin library registers\n"
    "  --dims N              the length of its vectors (default 384 with hashing; required\n"
    "                        with the others). A database records the embedder and dims of\n"
    "                        its first vector and refuses to embed with others\n"
    "  --distance TYPE       how a query scores items: cosine (the default: cosine\n"
    "                        similarity), inner_product (the dot product) or l2 (the\n"
    "                        Euclidean distance, negated). A database records it with the\n"
    "                        embedder and refuses to embed under another\n"
    "  --embedder-url URL    openai: the endpoint (default:\n"
    "                        https://api.openai.com/v1/embeddings)\n"
    "  --embedder-model M    openai: the model, such as text-embedding-3-small (required)\n"
    "  --embedder-key-env V  openai: the environment variable holding the API key (default:\n"
    "                        SUPERSTEP_EMBEDDINGS_KEY, else OPENAI_API_KEY, else no key)\n"
    "  --embedder-send-dims  openai: ask the model for --dims dimensions (text-embedding-3)\n"
    "  --embedder-batch N    openai: texts per request (default 256)\n"
    "  --embedder-timeout MS openai: the time limit of a request (default 30000)\n"
    "  --embedder-params JSON|@FILE\n"
    "                        the embedder's params as an object (a plugin embedder's own)\n";

bool take_embedder_option(const std::string& arg, arg_cursor& args, embedder_args& out) {
  static const std::pair<const char*, const char*> string_params[] = {
      {"--embedder-url", "url"}, {"--embedder-model", "model"}, {"--embedder-key-env", "key_env"}};
  static const std::pair<const char*, const char*> count_params[] = {
      {"--embedder-batch", "batch"}, {"--embedder-timeout", "timeout_ms"}};
  if (arg == "--embedder") {
    out.name = args.value_of(arg);
    if (out.name.empty()) throw usage_error("--embedder: the name is empty");
    return true;
  }
  if (arg == "--dims") {
    out.dims = count_arg(arg, args.value_of(arg));
    if (out.dims == 0) throw usage_error("--dims: must be at least 1");
    return true;
  }
  if (arg == "--distance") {
    try {
      out.distance = storage::parse_distance_type(args.value_of(arg));
    } catch (const error& e) {
      throw usage_error("--distance: " + std::string(e.what()));
    }
    return true;
  }
  if (arg == "--embedder-send-dims") {
    out.params.set("send_dims", true);
    return true;
  }
  if (arg == "--embedder-params") {
    value params = read_json_arg(arg, args.value_of(arg));
    if (!params.is_object()) throw usage_error("--embedder-params: expected a JSON object");
    for (const auto& [name, v] : params.as_object()) out.params.set(name, v);
    return true;
  }
  for (const auto& [option, param] : string_params) {
    if (arg != option) continue;
    out.params.set(param, args.value_of(arg));
    return true;
  }
  for (const auto& [option, param] : count_params) {
    if (arg != option) continue;
    out.params.set(param, count_arg(arg, args.value_of(arg)));
    return true;
  }
  return false;
}

void check_embedder(const embedder_args& embedder) {
  if (embedder.name.empty() && !embedder.params.empty())
    throw usage_error("the --embedder-* options need --embedder NAME");
  if (!embedder.name.empty() && embedder.name != "hashing" && embedder.dims == 0)
    throw usage_error("--embedder " + embedder.name +
                      " needs --dims N (the length of its vectors)");
}

void unexpected_argument(const std::string& arg, std::string_view usage) {
  if (!arg.empty() && arg[0] == '-') {
    // The options the command's usage text names.
    std::vector<std::string> options;
    for (std::size_t i = usage.find("--"); i != std::string_view::npos;
         i = usage.find("--", i + 2)) {
      std::size_t end = i + 2;
      while (end < usage.size() &&
             (std::isalnum(static_cast<unsigned char>(usage[end])) || usage[end] == '-'))
        ++end;
      if (end > i + 2) options.emplace_back(usage.substr(i, end - i));
    }
    throw usage_error("unknown option '" + arg + "'" + cluster::did_you_mean(arg, options));
  }
  throw usage_error("unexpected argument '" + arg + "'");
}

}  // namespace detail

namespace {

using detail::arg_cursor;
using detail::is_help;
using detail::read_json_arg;

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
    "ran before: the spec it last ran with is kept in the data folder.\n"
    "\n"
    "options:\n"
    "  --input JSON|@FILE    the graph's input: starts a new run on the thread\n"
    "  --thread ID           the thread (default: a new thread id, printed in the result)\n"
    "  --resume JSON|@FILE   answer the pending interrupt: Command(resume=JSON); when several\n"
    "                        are pending, an object of interrupt id -> answer\n"
    "  --update JSON|@FILE   with --resume: a state update sent with the answer,\n"
    "                        Command(resume=..., update=JSON)\n"
    "  --checkpoint ID       replay the thread from this checkpoint (with --input: fork it)\n"
    "  --durability MODE     when checkpoints are written: sync (each step, before the next\n"
    "                        starts; the default), async (each step, in the background) or\n"
    "                        exit (once, when the run ends: a crash or a kill before then\n"
    "                        loses every step of the run, and the next run on the thread\n"
    "                        says so and goes on from the checkpoint before it)\n"
    "  --multitask STRATEGY  when the thread has a run in progress (in this process, or on the\n"
    "                        head with --head): reject (fail, naming the running run; the\n"
    "                        default), enqueue (run after it), interrupt (stop it at its next\n"
    "                        step, keeping its checkpoints, then run) or rollback (stop it and\n"
    "                        remove what it saved, then run)\n"
    "  --data DIR            the checkpoint database (default: .superstep, created if missing)\n"
    "  --saver URL           keep the checkpoints on a Redis server instead:\n"
    "                        redis://[USER:PASSWORD@]HOST[:PORT][/DB] (no TLS: rediss:// is\n"
    "                        refused). --data still holds the threads' specs and the store\n"
    "  --fsync               flush every write to disk before going on (survives power loss;\n"
    "                        without it writes survive the process being killed)\n"
    "  --graph GRAPH.json    the same as GRAPH.json\n"
    "  --stream MODE...      stream modes: values, updates, custom, messages, debug,\n"
    "                        tasks, checkpoints, tools\n"
    "                        (several after one --stream, or --stream repeated)\n"
    "  --subgraphs           also stream events of subgraphs, with their namespace\n"
    "  --config JSON|@FILE   the run's config object\n"
    "  --plugin LIB.so       a node library whose functions the spec names, or whose\n"
    "                        embedder --embedder names (repeatable)\n"
    "  --progress            show a progress line on stderr during long steps (the default\n"
    "                        when stderr is a terminal)\n"
    "  --help                show this help\n"
    "\n";

constexpr const char* run_usage_end =
    "\n"
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
    "statuses. The options are those of 'superstep run' (see 'superstep run --help') except\n"
    "--data and --fsync, which are the head's. A thread runs one run at a time on the head:\n"
    "--multitask reject|enqueue|interrupt|rollback says what a submit does when its thread is\n"
    "busy (default reject: it fails, naming the running run).\n"
    "\n"
    "  --head HOST:PORT      the head to run on (required)\n"
    "  --key-file FILE       the cluster's key, when the head has one\n"
    "  --tls, --tls-cert F --tls-key F --tls-ca F\n"
    "                        TLS, as the head has it (see 'superstep head --help')\n"
    "\n"
    "exit status: 0 done, 1 failed, 2 usage error, 3 interrupted\n";

constexpr const char* graph_usage =
    "usage: superstep graph GRAPH.json [--mermaid | --ascii | --dot | --png FILE |\n"
    "                                    --json-schema] [--plugin LIB]...\n"
    "\n"
    "Loads the graph spec and prints it as a Mermaid flowchart (the default format).\n"
    "\n"
    "options:\n"
    "  --mermaid       print a Mermaid flowchart\n"
    "  --ascii         print the graph as text: its nodes in rows, then its edges\n"
    "  --dot           print the graph in Graphviz's DOT language\n"
    "  --png FILE      draw the graph into FILE as a PNG image, through Graphviz's dot\n"
    "                  (Debian package graphviz, which make deps installs)\n"
    "  --json-schema   print the JSON schemas of the graph's input and output as one JSON\n"
    "                  object {\"input\": ..., \"output\": ...} (LangGraph's\n"
    "                  get_input_jsonschema/get_output_jsonschema; a state key's \"schema\"\n"
    "                  and \"required\" describe it)\n"
    "  --plugin LIB    load a node library first, for specs that use its functions\n"
    "  --help          show this help\n";

void set_graph_path(std::string& path, const std::string& arg, std::string_view usage) {
  if (!arg.empty() && arg[0] == '-') detail::unexpected_argument(arg, usage);
  if (!path.empty()) throw usage_error("unexpected argument '" + arg + "' (one GRAPH.json only)");
  path = arg;
}

bool is_stream_mode(const std::string& s) {
  for (const char* m :
       {"values", "updates", "custom", "messages", "debug", "tasks", "checkpoints", "tools"})
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

// The thread id --config names in configurable.thread_id, if any.
std::string thread_in_config(const value& config) {
  const value& c = config.get("configurable");
  if (!c.is_null() && !c.is_object()) throw usage_error("--config: configurable must be an object");
  const value& id = c.get("thread_id");
  if (id.is_null()) return {};
  return id.is_string() ? id.as_string() : id.to_json();
}

command parse_run(arg_cursor args, bool submit_usage_wanted = false) {
  run_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a))
      return help_request{submit_usage_wanted ? std::string(submit_usage)
                                              : std::string(run_usage) + detail::embedder_usage +
                                                    detail::model_usage + run_usage_end};
    if (detail::take_thread_option(a, args, out.where)) continue;
    if (detail::take_embedder_option(a, args, out.embedder)) continue;
    if (detail::take_model_option(a, args, out.model)) continue;
    if (a == "--input") {
      out.input = read_json_arg(a, args.value_of(a));
    } else if (a == "--resume") {
      out.resume = read_json_arg(a, args.value_of(a));
    } else if (a == "--update" && !submit_usage_wanted) {
      out.update = read_json_arg(a, args.value_of(a));
      if (!out.update->is_object()) throw usage_error("--update: expected a JSON object");
    } else if (a == "--checkpoint") {
      out.checkpoint = args.value_of(a);
    } else if (a == "--durability") {
      out.durability = args.value_of(a);
      if (out.durability != "sync" && out.durability != "async" && out.durability != "exit")
        throw usage_error("--durability: expected sync, async or exit, not '" + out.durability +
                          "'");
    } else if (a == "--multitask") {
      out.multitask = args.value_of(a);
      if (out.multitask != "reject" && out.multitask != "enqueue" && out.multitask != "interrupt" &&
          out.multitask != "rollback")
        throw usage_error("--multitask: expected reject, enqueue, interrupt or rollback, not '" +
                          out.multitask + "'");
    } else if (a == "--config") {
      out.config = read_json_arg(a, args.value_of(a));
      if (!out.config.is_object()) throw usage_error("--config: expected a JSON object");
    } else if (a == "--fsync") {
      out.fsync = true;
    } else if (a == "--subgraphs") {
      out.subgraphs = true;
    } else if (a == "--stream") {
      out.modes.push_back(stream_mode_of(args.value_of(a)));
      while (args.peek() && is_stream_mode(*args.peek()))
        out.modes.push_back(stream_mode_of(args.next()));
    } else {
      set_graph_path(out.where.graph_path, a,
                     submit_usage_wanted
                         ? std::string(submit_usage)
                         : std::string(run_usage) + detail::embedder_usage + run_usage_end);
    }
  }
  if (out.where.thread.empty()) out.where.thread = thread_in_config(out.config);
  const bool continues = !out.input && !out.resume;
  if (out.where.thread.empty()) {
    if (out.resume) throw usage_error("run: --resume needs --thread ID");
    if (!out.checkpoint.empty()) throw usage_error("run: --checkpoint needs --thread ID");
    if (continues) throw usage_error("run: missing --input (or --thread ID to continue a thread)");
    if (out.where.graph_path.empty()) throw usage_error("run: missing GRAPH.json");
  }
  if (out.input && out.resume) throw usage_error("run: give either --input or --resume, not both");
  if (out.update && !out.resume) throw usage_error("run: --update goes with --resume");
  detail::check_embedder(out.embedder);
  return out;
}

command parse_graph(arg_cursor args) {
  graph_args out;
  std::string chosen;  // the format option given, to refuse a second one
  auto choose = [&](const std::string& option, graph_args::format f) {
    if (!chosen.empty() && chosen != option)
      throw usage_error(
          "graph: give one of --mermaid, --ascii, --dot, --png and --json-schema, "
          "not both " +
          chosen + " and " + option);
    chosen = option;
    out.what = f;
  };
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{graph_usage};
    if (a == "--mermaid") {
      choose(a, graph_args::format::mermaid);
    } else if (a == "--json-schema") {
      choose(a, graph_args::format::json_schema);
    } else if (a == "--dot") {
      choose(a, graph_args::format::dot);
    } else if (a == "--ascii") {
      choose(a, graph_args::format::ascii);
    } else if (a == "--png") {
      choose(a, graph_args::format::png);
      out.png_path = args.value_of(a);
      if (out.png_path.empty()) throw usage_error("--png: the file name is empty");
    } else if (a == "--plugin") {
      out.plugins.push_back(args.value_of(a));
    } else {
      set_graph_path(out.graph_path, a, graph_usage);
    }
  }
  if (out.graph_path.empty()) throw usage_error("graph: missing GRAPH.json");
  return out;
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
         "  submit --head HOST:PORT GRAPH.json --input JSON\n"
         "                                    run a graph on a cluster\n"
         "  state|history|update|delete --head HOST:PORT --thread ID\n"
         "                                    the same commands on a head's threads\n"
         "\n"
         "Checkpoints are kept in the folder given by --data (default: .superstep).\n"
         "'superstep COMMAND --help' describes a command.\n"
         "\n"
         "exit status: 0 done, 1 failed, 2 usage error, 3 interrupted\n";
}

command parse_command_line(int argc, const char* const* argv) {
  if (argc < 2) throw usage_error("missing command");
  std::string cmd = argv[1];
  if (is_help(cmd)) return help_request{main_usage()};
  if (cmd == "--version" || cmd == "version") {
    if (argc > 2) throw usage_error(cmd + ": takes no arguments");
    return help_request{std::string("superstep ") + superstep::version() + "\n"};
  }
  if (cmd == "schema") {
    // The JSON Schema of graph specs, printed as is.
    if (argc > 2 && !is_help(argv[2])) throw usage_error("schema: takes no arguments");
    if (argc > 2)
      return help_request{
          "usage: superstep schema\n\nPrints the JSON Schema (draft 2020-12) of graph specs, for "
          "editors to validate\nand complete them: e.g. superstep schema > graph_spec.schema.json"
          " and \"$schema\"\nin a spec, or a json.schemas setting of the editor.\n"};
    return help_request{std::string(cluster::graph_spec_json_schema())};
  }
  if (cmd == "help") {
    // `superstep help COMMAND` is `superstep COMMAND --help`.
    if (argc > 3) throw usage_error("help: one COMMAND at most");
    if (argc == 2) return help_request{main_usage()};
    const char* again[] = {argv[0], argv[2], "--help"};
    return parse_command_line(3, again);
  }
  arg_cursor rest(argc, argv, 2);
  if (cmd == "run") {
    command c = parse_run(rest);
    if (auto* r = std::get_if<run_args>(&c); r && !r->where.head.empty())
      throw usage_error("run: --head is for 'superstep submit' (run works in this process)");
    return c;
  }
  if (cmd == "submit") {
    command c = parse_run(rest, true);
    auto* r = std::get_if<run_args>(&c);
    if (!r) return help_request{submit_usage};
    if (r->where.head.empty()) throw usage_error("submit: missing --head HOST:PORT");
    if (r->fsync) throw usage_error("submit: --fsync is the head's option");
    if (!r->where.saver.empty()) throw usage_error("submit: --saver is the head's option");
    if (r->embedder.given())
      throw usage_error(
          "submit: the store's embedder is the head's (--embedder, --dims, --distance)");
    if (!r->model.is_null())
      throw usage_error("submit: the model is the workers' (superstep worker --model ...)");
    return c;
  }
  if (cmd == "store") return detail::parse_store(rest);
  if (cmd == "check" || cmd == "repair") return detail::parse_maintenance(rest, cmd == "repair");
  if (cmd == "head") return detail::parse_head(rest);
  if (cmd == "worker") return detail::parse_worker(rest);
  if (cmd == "graph") return parse_graph(rest);
  command c;
  if (cmd == "state")
    c = detail::parse_state(rest);
  else if (cmd == "history")
    c = detail::parse_history(rest);
  else if (cmd == "update")
    c = detail::parse_update(rest);
  else if (cmd == "delete")
    c = detail::parse_delete(rest);
  else if (cmd == "threads")
    c = detail::parse_threads(rest);
  else
    throw usage_error(
        "unknown command '" + cmd + "'" +
        cluster::did_you_mean(
            cmd, {"run", "submit", "state", "history", "update", "delete", "graph", "store",
                  "check", "repair", "head", "worker", "help", "version", "schema", "threads"}));
  if (const thread_args* where = where_of(c);
      where && !where->head.empty() && !where->saver.empty())
    throw usage_error(
        cmd + ": --saver is the head's option (the head's threads are where it keeps them)");
  return c;
}

}  // namespace superstep::cli
