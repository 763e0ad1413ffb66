// The `superstep` program. Builds the function registry (the std library and the node
// libraries given with --plugin) and dispatches to a subcommand.
//
// Exit statuses: 0 done, 1 failed (graph, spec or database), 2 usage error, 3 interrupted
// (cli::exit_status).
#include <pthread.h>
#include <unistd.h>
#ifdef SUPERSTEP_MIMALLOC
#include <mimalloc.h>
#endif

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "cli/args.hpp"
#include "cli/env.hpp"
#include "cli/log.hpp"
#include "cli/processes.hpp"
#include "cli/progress_line.hpp"
#include "head/head.hpp"
#include "ops/operations.hpp"
#include "ops/support.hpp"
#include "server/serve.hpp"
#include "superstep/cluster/plugin.hpp"
#include "superstep/cluster/std_library.hpp"

namespace {

template <class... Fs>
struct overloaded : Fs... {
  using Fs::operator()...;
};

// The head holds each step's tasks (10^6 in a big fan-out) and lets go of much of what one
// phase made before the next (a step's Sends once its tasks are planned, a task's argument
// once it ran): mimalloc gives the pages it freed back to the system after 2 ms rather than
// its default 25. At a 10^6-Send fan-out the head's peak falls by 30-50 MiB, in the same
// time; at 0 it falls by as much but the run takes half as long again (BENCHMARKS.md). The
// environment's MIMALLOC_DECOMMIT_DELAY still decides when set.
void return_freed_memory_soon() {
#ifdef SUPERSTEP_MIMALLOC
  mi_option_set_default(mi_option_decommit_delay, 2);
#endif
}

// What an allocation that cannot be served throws (the program's operator new calls the
// new_handler, operator_new.cpp): the run whose task or step asked for the memory fails with
// this (its node's error, or the run's), instead of the process dying unheard.
struct out_of_memory : std::bad_alloc {
  const char* what() const noexcept override {
    return "out of memory: an allocation failed (the process reached its memory limit or the "
           "machine's memory)";
  }
};

void throw_out_of_memory() { throw out_of_memory(); }

// The data folder's records: encrypted with SUPERSTEP_AES_KEY when it is set.
std::shared_ptr<const superstep::storage::serializer> serde() {
  return superstep::cli::serializer_from_env(superstep::storage::make_capnp_serializer());
}

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace superstep;
  std::set_new_handler(throw_out_of_memory);
  // The program alone reads the environment (cli/env.hpp): first the fault point a failure
  // test arms (docs/channel_actors.md), before anything could reach it.
  if (const int status = cli::arm_fault_point_from_env()) return status;
  cli::check_version_deltas_from_env();
  cli::command cmd;
  try {
    cmd = cli::parse_command_line(argc, argv);
  } catch (const cli::usage_error& e) {
    fail(e.what(), cli::exit_usage);
    std::fputs("(see 'superstep --help' or 'superstep COMMAND --help')\n", stderr);
    return cli::exit_usage;
  }
  if (auto* help = std::get_if<cli::help_request>(&cmd)) {
    std::fputs(help->text.c_str(), stdout);
    return cli::exit_done;
  }
  // `serve` takes SIGINT and SIGTERM on a thread of its own (sigwait, server/serve.cpp): every
  // thread blocks them, those made before serve() too (the log's, RocksDB's), or the kernel
  // would hand the signal to one of them and end the process without a shutdown.
  if (std::holds_alternative<cli::serve_args>(cmd)) {
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  }
  // The head, workers and the commands sent to a head log (on stderr); the others print
  // only their results and errors.
  if (const std::string level = cli::log_level_of(cmd); !level.empty())
    cli::start_log(std::holds_alternative<cli::head_args>(cmd)     ? "head"
                   : std::holds_alternative<cli::worker_args>(cmd) ? "worker"
                   : std::holds_alternative<cli::serve_args>(cmd)  ? "server"
                                                                   : "client",
                   level);
  try {
    cluster::function_registry registry;
    registry.set_key_source(cli::environment_keys());
    cluster::register_std_library(registry);
    // A command on a head's thread runs there.
    if (const cli::thread_args* where = cli::where_of(cmd); where && !where->head.empty())
      return cli::run_on_head(cmd);
    if (auto* head = std::get_if<cli::head_args>(&cmd)) {
      return_freed_memory_soon();
      registry.set_model_settings(head->model);
      for (const auto& p : head->plugins) cluster::load_plugin(p, registry);
      return net::run_head(*head, registry,
                           {serde(), [](net::log_level level, const std::string& line) {
                              if (level == net::log_level::info)
                                cli::log_info(line);
                              else if (level == net::log_level::warning)
                                cli::log_warning(line);
                              else
                                cli::log_error(line);
                            }});
    }
    if (auto* serve = std::get_if<cli::serve_args>(&cmd)) {
      registry.set_model_settings(serve->model);
      for (const auto& p : serve->plugins) cluster::load_plugin(p, registry);
      return server::serve(*serve, registry,
                           {serde(), [](const std::string& line) { cli::log_info(line); }});
    }
    if (auto* worker = std::get_if<cli::worker_args>(&cmd)) {
      registry.set_model_settings(worker->model);
      for (const auto& p : worker->plugins) cluster::load_plugin(p, registry);
      return cli::run_worker(*worker, registry);
    }
    if (auto* graph = std::get_if<cli::graph_args>(&cmd)) {
      for (const auto& p : graph->plugins) cluster::load_plugin(p, registry);
      return ops::draw_graph(*graph, registry);
    }
    if (auto* m = std::get_if<cli::maintenance_args>(&cmd)) {
      for (const auto& p : m->plugins) cluster::load_plugin(p, registry);
      return ops::run_maintenance(*m, registry, serde());
    }
    if (auto* st = std::get_if<cli::store_args>(&cmd)) {
      if (!st->head.empty()) return cli::run_store_on_head(*st);
      for (const auto& p : st->plugins) cluster::load_plugin(p, registry);
      return ops::run_store(*st, registry, serde(), ops::detail::print_line);
    }
    // The commands on this process's own database.
    const cli::thread_args& where = *cli::where_of(cmd);
    for (const auto& p : where.plugins) cluster::load_plugin(p, registry);
    const auto* run = std::get_if<cli::run_args>(&cmd);
    if (run) registry.set_model_settings(run->model);
    // Only a run uses the store's index; the others read and list with the default. The
    // commands that only read open the database read-only, beside a process that writes.
    const bool reads = std::holds_alternative<cli::state_args>(cmd) ||
                       std::holds_alternative<cli::history_args>(cmd) ||
                       std::holds_alternative<cli::threads_args>(cmd);
    ops::data_dir data(
        where.data_dir,
        {.fsync = run && run->fsync,
         .index = run ? std::optional(ops::store_index(run->embedder, registry)) : std::nullopt,
         .read_only = reads,
         .saver_url = where.saver,
         .serde = serde()});
    ops::command_env env{data, registry, ops::detail::print_line};
    cli::progress_line progress(where.progress, ::isatty(STDERR_FILENO));
    env.progress = [&](std::int64_t step, std::size_t done, std::size_t total) {
      progress.show(step, done, total);
    };
    return std::visit(
        overloaded{[&](const cli::run_args& a) { return ops::run_graph(env, a); },
                   [&](const cli::state_args& a) { return ops::show_state(env, a); },
                   [&](const cli::history_args& a) { return ops::show_history(env, a); },
                   [&](const cli::update_args& a) { return ops::update_state(env, a); },
                   [&](const cli::delete_args& a) { return ops::delete_thread(env, a); },
                   [&](const cli::threads_args& a) { return ops::list_threads(env, a); },
                   [](const auto&) { return int(cli::exit_usage); }},
        cmd);
  } catch (const cli::usage_error& e) {
    return fail(e.what(), cli::exit_usage);
  } catch (const std::exception& e) {
    return fail(e.what(), cli::exit_failed);
  }
}
