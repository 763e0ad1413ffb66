#pragma once

// The thread operations (net/command.hpp) carried out on a data folder, printing JSON lines:
// the `superstep` program calls them for its commands, a cluster's head for its clients'
// requests. Each returns the exit status; errors of the graph (bad spec, failing node) and of
// the database propagate as exceptions for the caller to report.

#include <functional>
#include <optional>
#include <string>

#include "net/command.hpp"
#include "ops/data_dir.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/pregel/run_control.hpp"

namespace superstep::storage {
class store;
}

namespace superstep::ops {

/// What a command works with: the data folder, the named functions, where its JSON lines go
/// and how it loads a graph. The program fills it for one command; a cluster's head for each
/// request, with lines going back to the client and graphs loaded onto its workers too.
struct command_env {
  data_dir& data;
  const cluster::function_registry& registry;
  /// Receives each JSON line of output.
  std::function<void(const value&)> print;
  /// Loads a spec (default: cluster::load_graph with `options`).
  std::function<cluster::loaded_graph(const value& spec, runtime_options options)> load = nullptr;
  /// The text of the spec, when it came without a file (a request to a head); it takes the
  /// place of the command's GRAPH.json.
  std::optional<std::string> spec_text = std::nullopt;
  /// The graph of `spec_text`, loaded by the caller (a server keeps its graphs loaded): run
  /// takes it instead of parsing and loading the text again (run only).
  std::optional<cluster::loaded_graph> graph = std::nullopt;
  /// Told as a step's tasks finish (run only).
  std::function<void(std::int64_t step, std::size_t done, std::size_t total)> progress = nullptr;
  /// Asked before each step of a run: true stops it there, once its last step is saved (a
  /// head shutting down; see stream_options::stop).
  std::function<bool()> stop = nullptr;
  /// Receives a remark for the person who gave the command (stderr; a head's go to the
  /// client). Default: "note: TEXT" on stderr.
  std::function<void(const std::string&)> note = nullptr;
  /// The run's control (run only): a head cancels a client's run through it
  /// (run_control::request_cancel). Null: none.
  std::shared_ptr<run_control> control = nullptr;
  /// Told the thread's state as the run left it, read while the run still held the thread
  /// (run only; not called when the run failed): a server keeps it as the thread's, with no
  /// second read of the checkpoint.
  std::function<void(const state_snapshot&)> final_state = nullptr;
};

/// Runs the graph on a thread of the data folder and prints the stream events and the output
/// (or the interrupts) as JSON lines on stdout (ops/run.cpp).
int run_graph(command_env& env, const run_args& args);

/// Prints the graph as a Mermaid flowchart, or its input and output JSON schemas (ops/run.cpp).
int draw_graph(const graph_args& args, const cluster::function_registry& registry);

/// Prints the thread's state at one checkpoint (ops/state.cpp).
int show_state(command_env& env, const state_args& args);

/// Prints the thread's checkpoints, newest first, one per line (ops/state.cpp).
int show_history(command_env& env, const history_args& args);

/// Updates the thread's state as a node would and prints the new config (ops/state.cpp).
int update_state(command_env& env, const update_args& args);

/// The long-term store in the data folder, indexed by the embedder of `args` found in
/// `registry`, records encoded with `serde` (ops/store.cpp).
int run_store(const store_args& args, const cluster::function_registry& registry,
              std::shared_ptr<const storage::serializer> serde,
              const std::function<void(const value&)>& print);

/// The same command on `store` (a head's, through net::remote_store).
int run_store_with(storage::store& store, const store_args& args,
                   const std::function<void(const value&)>& print);

/// Verifies (or repairs) the database of the data folder, and loads each saved graph spec with
/// `registry` as `state` loads it, and prints what it found as one JSON line; exit_done when
/// it is sound (after repairing), exit_failed otherwise (ops/maintenance.cpp).
int run_maintenance(const maintenance_args& args, const cluster::function_registry& registry,
                    std::shared_ptr<const storage::serializer> serde);

/// `superstep threads`: one line per thread of the folder, with its last checkpoint's step,
/// id and time, and its status (done, interrupted, pending; unknown when its graph cannot be
/// loaded, with the error; busy, with the run's id, while a run of this process holds it: a
/// head's client's run).
int list_threads(command_env& env, const threads_args& args);

/// Deletes the thread's checkpoints and saved spec (ops/state.cpp).
int delete_thread(command_env& env, const delete_args& args);

}  // namespace superstep::ops
