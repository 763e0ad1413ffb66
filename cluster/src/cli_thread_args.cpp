// The command lines of `superstep state|history|update|delete`: commands on the checkpoints
// of one stored thread.

#include "cli_args_support.hpp"

namespace superstep::cli::detail {

namespace {

constexpr const char* thread_options =
    "  --thread ID           the thread (required)\n"
    "  --data DIR            the checkpoint database (default: .superstep)\n"
    "  --saver URL           the thread's checkpoints are on this Redis server (redis://...)\n"
    "  --head HOST:PORT      work on a cluster head's threads instead (its database)\n"
    "  --key-file FILE       the cluster's key, when the head has one\n"
    "  --plugin LIB.so       a node library the thread's graph needs (repeatable)\n";

constexpr const char* graph_option =
    "  --graph GRAPH.json    the graph spec to read the checkpoints with (default: the spec\n"
    "                        the thread last ran with, kept in the data folder)\n";

constexpr const char* usage_footer =
    "  --help                show this help\n"
    "\n"
    "SUPERSTEP_AES_KEY must hold the key the checkpoints were written with, if any.\n"
    "exit status: 0 done, 1 failed (no such thread or checkpoint, unreadable database),\n"
    "2 usage error\n";

// A command's usage: its description and own options, then the options all share.
help_request usage(const char* text, bool with_graph = true) {
  return help_request{std::string(text) + thread_options + (with_graph ? graph_option : "") +
                      usage_footer};
}

constexpr const char* state_usage =
    "usage: superstep state --thread ID [--checkpoint ID] [options]\n"
    "\n"
    "Prints the thread's state at its last checkpoint (or at --checkpoint) as one JSON object:\n"
    "{values, next, config, metadata, created_at, parent_config, tasks}. Each task of the\n"
    "step that would run next has its error, its pending interrupts and, when it finished\n"
    "before the step was interrupted or failed, its saved \"result\" (null otherwise).\n"
    "\n"
    "options:\n"
    "  --checkpoint ID       the state at this checkpoint\n";

constexpr const char* history_usage =
    "usage: superstep history --thread ID [--limit N] [--before ID] [--filter JSON] [options]\n"
    "\n"
    "Prints the thread's checkpoints newest first, one state object per line (as\n"
    "'superstep state' prints them).\n"
    "\n"
    "options:\n"
    "  --limit N             at most N checkpoints\n"
    "  --before ID           only checkpoints older than checkpoint ID\n"
    "  --filter JSON|@FILE   only checkpoints whose metadata has these keys and values,\n"
    "                        e.g. '{\"source\": \"loop\", \"step\": 1}'\n";

constexpr const char* update_usage =
    "usage: superstep update --thread ID --values JSON [--as-node NODE] [options]\n"
    "\n"
    "Applies the values to the thread's state as if node NODE had returned them: through the\n"
    "reducers and NODE's edges, so NODE's successors run next when the thread continues\n"
    "('superstep run --thread ID'). Saves a checkpoint and prints its config.\n"
    "\n"
    "options:\n"
    "  --values JSON|@FILE   the update (required)\n"
    "  --as-node NODE        the node the update comes from (default: the node that ran last)\n"
    "  --checkpoint ID       update the state at this checkpoint, forking the thread\n";

constexpr const char* delete_usage =
    "usage: superstep delete --thread ID [--data DIR]\n"
    "\n"
    "Deletes every checkpoint and pending write of the thread, and its saved graph spec.\n"
    "Prints {\"thread\": ID, \"deleted\": true}.\n"
    "\n"
    "options:\n";

constexpr const char* threads_usage =
    "usage: superstep threads [--data DIR] [--saver URL] [--plugin LIB]...\n"
    "       superstep threads --head HOST:PORT [--key-file FILE] [--tls ...]\n"
    "\n"
    "Lists the threads of the folder's database (or of a cluster head's), one JSON object\n"
    "per line, in thread id order: {\"thread\", \"step\", \"checkpoint\", \"updated_at\",\n"
    "\"status\", \"next\"}. status: \"done\" (nothing left to run), \"interrupted\" (waiting\n"
    "for --resume), \"pending\" (stopped with tasks left: failed, cancelled, stopped or\n"
    "crashed; 'superstep run --thread ID' continues it), \"busy\" with the \"run\" holding\n"
    "it (a head's run in progress), or \"unknown\" with an \"error\" when its graph spec\n"
    "cannot be loaded (a node library missing: give --plugin).\n"
    "\n"
    "options:\n"
    "  --data DIR            the checkpoint folder (default: .superstep)\n"
    "  --saver URL           list the threads of this Redis server (redis://...) instead\n"
    "  --plugin LIB          load a node library the threads' specs use (repeatable)\n"
    "  --head HOST:PORT      list a cluster head's threads instead (its database)\n"
    "  --key-file FILE       the cluster's key, when the head has one\n"
    "  --tls, --tls-cert F, --tls-key F, --tls-ca F\n"
    "                        the head's TLS, as the other commands given --head take it\n"
    "  --help                show this help\n";

constexpr const char* cancel_usage =
    "usage: superstep cancel --head HOST:PORT --thread ID --run RUN_ID [--wait]\n"
    "\n"
    "Cancels a run in progress on a cluster head (LangGraph's runs.cancel): the run starts no\n"
    "new step and fails as cancelled once its running nodes have returned; its thread keeps\n"
    "its last checkpoint ('superstep submit --thread ID' continues it). 'superstep threads\n"
    "--head' shows the run holding each busy thread. Prints {\"thread\", \"run\",\n"
    "\"cancelled\": true}; fails when the thread has no such run in progress.\n"
    "\n"
    "options:\n"
    "  --head HOST:PORT      the head that runs it (required)\n"
    "  --thread ID           the run's thread (required)\n"
    "  --run RUN_ID          the run (required)\n"
    "  --wait                return once the run has ended, not as soon as it was told\n"
    "  --key-file FILE       the cluster's key, when the head has one\n"
    "  --tls, --tls-cert F, --tls-key F, --tls-ca F\n"
    "                        the head's TLS, as the other commands given --head take it\n"
    "  --help                show this help\n";

void require_thread(const char* command, const thread_args& where) {
  if (where.thread.empty()) throw usage_error(std::string(command) + ": missing --thread ID");
}

}  // namespace

command parse_threads(arg_cursor args) {
  threads_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{threads_usage};
    if (a == "--data" || a == "--plugin" || a == "--saver") {
      take_thread_option(a, args, out.where);
      continue;
    }
    if (a == "--head" || a == "--key-file") {
      take_thread_option(a, args, out.where);
      continue;
    }
    if (take_tls_option(a, args, out.where.tls)) continue;
    unexpected_argument(a, threads_usage);
  }
  return out;
}

command parse_cancel(arg_cursor args) {
  cancel_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return help_request{cancel_usage};
    if (a == "--head" || a == "--key-file" || a == "--thread") {
      take_thread_option(a, args, out.where);
    } else if (take_tls_option(a, args, out.where.tls)) {
    } else if (a == "--run") {
      out.run_id = args.value_of(a);
      if (out.run_id.empty()) throw usage_error("--run: the run id is empty");
    } else if (a == "--wait") {
      out.wait = true;
    } else {
      unexpected_argument(a, cancel_usage);
    }
  }
  if (out.where.head.empty())
    throw usage_error("cancel: missing --head HOST:PORT (the head that runs the run)");
  require_thread("cancel", out.where);
  if (out.run_id.empty()) throw usage_error("cancel: missing --run RUN_ID");
  return out;
}

command parse_state(arg_cursor args) {
  state_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return usage(state_usage);
    if (take_thread_option(a, args, out.where)) continue;
    if (a == "--checkpoint")
      out.checkpoint = args.value_of(a);
    else
      unexpected_argument(a, std::string(state_usage) + thread_options + graph_option);
  }
  require_thread("state", out.where);
  return out;
}

command parse_history(arg_cursor args) {
  history_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return usage(history_usage);
    if (take_thread_option(a, args, out.where)) continue;
    if (a == "--limit") {
      out.limit = count_arg(a, args.value_of(a));
    } else if (a == "--before") {
      out.before = args.value_of(a);
    } else if (a == "--filter") {
      value f = read_json_arg(a, args.value_of(a));
      if (!f.is_object()) throw usage_error("--filter: expected a JSON object");
      out.filter = f.as_object();
    } else {
      unexpected_argument(a, std::string(history_usage) + thread_options + graph_option);
    }
  }
  require_thread("history", out.where);
  return out;
}

command parse_update(arg_cursor args) {
  update_args out;
  bool has_values = false;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return usage(update_usage);
    if (take_thread_option(a, args, out.where)) continue;
    if (a == "--values") {
      out.values = read_json_arg(a, args.value_of(a));
      has_values = true;
    } else if (a == "--as-node") {
      out.as_node = args.value_of(a);
    } else if (a == "--checkpoint") {
      out.checkpoint = args.value_of(a);
    } else {
      unexpected_argument(a, std::string(update_usage) + thread_options + graph_option);
    }
  }
  require_thread("update", out.where);
  if (!has_values) throw usage_error("update: missing --values");
  return out;
}

command parse_delete(arg_cursor args) {
  delete_args out;
  while (!args.done()) {
    std::string a = args.next();
    if (is_help(a)) return usage(delete_usage, false);
    if (a == "--graph") unexpected_argument(a);
    if (take_thread_option(a, args, out.where)) continue;
    unexpected_argument(a, std::string(delete_usage) + thread_options);
  }
  require_thread("delete", out.where);
  return out;
}

}  // namespace superstep::cli::detail
