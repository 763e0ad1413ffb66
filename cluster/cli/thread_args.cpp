// The command lines of `superstep state|history|update|delete|threads`: commands on the
// checkpoints of one stored thread, and the list of a folder's threads.

#include <memory>

#include "cli/args_support.hpp"

namespace superstep::cli::detail {

namespace {

constexpr const char* usage_footer =
    "SUPERSTEP_AES_KEY must hold the key the checkpoints were written with, if any.\n"
    "exit status: 0 done, 1 failed (no such thread or checkpoint, unreadable database),\n"
    "2 usage error\n";

constexpr const char* state_usage =
    "usage: superstep state --thread ID [--checkpoint ID] [options]\n"
    "\n"
    "Prints the thread's state at its last checkpoint (or at --checkpoint) as one JSON object:\n"
    "{values, next, config, metadata, created_at, parent_config, tasks}. Each task of the\n"
    "step that would run next has its error, its pending interrupts and, when it finished\n"
    "before the step was interrupted or failed, its saved \"result\" (null otherwise).\n";

constexpr const char* history_usage =
    "usage: superstep history --thread ID [--limit N] [--before ID] [--filter JSON] [options]\n"
    "\n"
    "Prints the thread's checkpoints newest first, one state object per line (as\n"
    "'superstep state' prints them).\n";

constexpr const char* update_usage =
    "usage: superstep update --thread ID --values JSON [--as-node NODE] [options]\n"
    "\n"
    "Applies the values to the thread's state as if node NODE had returned them: through the\n"
    "reducers and NODE's edges, so NODE's successors run next when the thread continues\n"
    "('superstep run --thread ID'). Saves a checkpoint and prints its config.\n";

constexpr const char* delete_usage =
    "usage: superstep delete --thread ID [--data DIR]\n"
    "\n"
    "Deletes every checkpoint and pending write of the thread, and its saved graph spec.\n"
    "Prints {\"thread\": ID, \"deleted\": true}.\n";

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
    "cannot be loaded (a node library missing: give --plugin).\n";

constexpr const char* cancel_usage =
    "usage: superstep cancel --head HOST:PORT --thread ID --run RUN_ID [--wait]\n"
    "\n"
    "Cancels a run in progress on a cluster head (LangGraph's runs.cancel): the run starts no\n"
    "new step and fails as cancelled once its running nodes have returned; its thread keeps\n"
    "its last checkpoint ('superstep submit --thread ID' continues it). 'superstep threads\n"
    "--head' shows the run holding each busy thread. Prints {\"thread\", \"run\",\n"
    "\"cancelled\": true}; fails when the thread has no such run in progress.\n";

// The options every command on one stored thread has (--thread, --data, --saver, --head,
// --key-file, TLS, --log-level, --plugin; --graph unless `with_graph` is false) and its own,
// which `own` adds first.
template <class Args, class Own, class Check>
subcommand thread_command(CLI::App& root, const char* name, const char* usage, bool with_graph,
                          Own own, Check check) {
  auto out = std::make_shared<Args>();
  CLI::App* app = add_command(root, name, usage, usage_footer);
  own(*app, *out);
  add_thread_options(*app, out->where,
                     opt_thread | opt_data | opt_head | opt_plugin | opt_progress |
                         (with_graph ? unsigned(opt_graph) : 0u),
                     opt_progress);
  add_help(*app);
  return {app, [app, out, name, check]() -> command {
            take_extras(*app);
            if (out->where.thread.empty())
              throw usage_error(std::string(name) + ": missing --thread ID");
            check(*out);
            return *out;
          }};
}

}  // namespace

std::vector<subcommand> thread_commands(CLI::App& root) {
  std::vector<subcommand> out;
  auto nothing = [](const auto&) {};
  out.push_back(thread_command<state_args>(
      root, "state", state_usage, true,
      [](CLI::App& app, state_args& a) {
        add_value(app, "--checkpoint", "ID", "the state at this checkpoint",
                  [&a](const std::string& v) { a.checkpoint = v; });
      },
      nothing));
  out.push_back(thread_command<history_args>(
      root, "history", history_usage, true,
      [](CLI::App& app, history_args& a) {
        add_value(app, "--limit", "N", "at most N checkpoints",
                  [&a](const std::string& v) { a.limit = count_arg("--limit", v); });
        add_value(app, "--before", "ID", "only checkpoints older than checkpoint ID",
                  [&a](const std::string& v) { a.before = v; });
        add_value(app, "--filter", "JSON|@FILE",
                  "only checkpoints whose metadata has these keys and values,\n"
                  "e.g. '{\"source\": \"loop\", \"step\": 1}'",
                  [&a](const std::string& v) {
                    value f = read_json_arg("--filter", v);
                    if (!f.is_object()) throw usage_error("--filter: expected a JSON object");
                    a.filter = f.as_object();
                  });
      },
      nothing));
  auto has_values = std::make_shared<bool>(false);
  out.push_back(thread_command<update_args>(
      root, "update", update_usage, true,
      [has_values](CLI::App& app, update_args& a) {
        add_value(app, "--values", "JSON|@FILE", "the update (required)",
                  [&a, has_values](const std::string& v) {
                    a.values = read_json_arg("--values", v);
                    *has_values = true;
                  });
        add_value(app, "--as-node", "NODE",
                  "the node the update comes from (default: the node that ran last)",
                  [&a](const std::string& v) { a.as_node = v; });
        add_value(app, "--checkpoint", "ID",
                  "update the state at this checkpoint, forking the thread",
                  [&a](const std::string& v) { a.checkpoint = v; });
      },
      [has_values](const update_args&) {
        if (!*has_values) throw usage_error("update: missing --values");
      }));
  out.push_back(thread_command<delete_args>(
      root, "delete", delete_usage, false, [](CLI::App&, delete_args&) {}, nothing));

  // threads: the folder's (or Redis server's) threads, or a head's.
  auto threads = std::make_shared<threads_args>();
  CLI::App* app = add_command(root, "threads", threads_usage);
  add_thread_options(*app, threads->where, opt_data | opt_plugin | opt_head);
  app->get_option("--data")->description("the checkpoint folder (default: .superstep)");
  app->get_option("--saver")->description(
      "list the threads of this Redis server (redis://...) instead");
  app->get_option("--plugin")
      ->description("load a node library the threads' specs use (repeatable)");
  app->get_option("--head")->description("list a cluster head's threads instead (its database)");
  add_help(*app);
  out.push_back(
      {app, [app, threads]() -> command {
         take_extras(*app);
         if (!threads->where.head.empty() && !threads->where.plugins.empty())
           throw usage_error(
               "threads: --plugin: not with --head (the head loads its threads' graphs itself)");
         return *threads;
       }});

  // cancel: a run in progress on a head.
  auto cancel = std::make_shared<cancel_args>();
  CLI::App* cancel_app = add_command(root, "cancel", cancel_usage);
  add_thread_options(*cancel_app, cancel->where, opt_thread | opt_head);
  cancel_app->get_option("--head")->description("the head that runs it (required)");
  cancel_app->get_option("--thread")->description("the run's thread (required)");
  add_value(*cancel_app, "--run", "RUN_ID", "the run (required)", [cancel](const std::string& v) {
    if (v.empty()) throw usage_error("--run: the run id is empty");
    cancel->run_id = v;
  });
  add_switch(*cancel_app, "--wait", "return once the run has ended, not as soon as it was told",
             [cancel] { cancel->wait = true; });
  add_help(*cancel_app);
  out.push_back({cancel_app, [cancel_app, cancel]() -> command {
                   take_extras(*cancel_app);
                   if (cancel->where.head.empty())
                     throw usage_error(
                         "cancel: missing --head HOST:PORT (the head that runs the run)");
                   if (cancel->where.thread.empty())
                     throw usage_error("cancel: missing --thread ID");
                   if (cancel->run_id.empty()) throw usage_error("cancel: missing --run RUN_ID");
                   return *cancel;
                 }});
  return out;
}

}  // namespace superstep::cli::detail
