#pragma once

// What the subcommands share: JSON lines on stdout and the graph a stored thread runs on.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli_args.hpp"
#include "cli_commands.hpp"
#include "cli_data_dir.hpp"
#include "superstep/cluster/graph_spec.hpp"

namespace superstep::cli::detail {

/// Writes one JSON line and flushes, so a reader of a pipe sees each event when it happens.
void print_line(const value& v);

/// The config that names a thread and, unless empty, one of its checkpoints.
value thread_config(const std::string& thread_id, const std::string& checkpoint_id = "");

/// The graph of env.spec_text, or of `where.graph_path`, or else of the spec saved for the
/// thread, with the data folder's saver as its checkpointer. Throws error(not_found) when
/// there is none.
cluster::loaded_graph load_thread_graph(const command_env& env, const thread_args& where);

/// The snapshot as JSON (state_snapshot::to_value), where each task also has its "result":
/// the state updates it saved before its step stopped (LangGraph PregelTask.result), or null
/// when it has not finished. `pending` are the checkpoint's saved writes.
value snapshot_json(const state_snapshot& snapshot, const pregel_graph& graph,
                    const std::vector<pending_write>& pending);

/// The progress line of long steps on stderr: "\r[step 3] 51234/100000 tasks  48211/s".
class progress_line {
 public:
  /// `asked`: --progress was given, so every step of several tasks gets a line; otherwise
  /// (a terminal) only steps that run longer than 0.3 s.
  progress_line(bool asked, bool terminal) : on_(asked || terminal), eager_(asked) {}
  void show(std::int64_t step, std::uint64_t done, std::uint64_t total) {
    if (!on_ || total < 2) return;
    auto now = std::chrono::steady_clock::now();
    if (step != step_) step_ = step, start_ = now, first_ = done;
    double secs = std::chrono::duration<double>(now - start_).count();
    if (!shown_ && !eager_ && secs < 0.3) return;  // short steps go by without a line
    char buf[160];
    std::snprintf(buf, sizeof buf, "\r[step %lld] %llu/%llu tasks  %.0f/s   ",
                  static_cast<long long>(step), static_cast<unsigned long long>(done),
                  static_cast<unsigned long long>(total), secs > 0 ? (done - first_) / secs : 0.0);
    std::fputs(buf, stderr);
    shown_ = true;
    if (done == total) end();
  }
  void end() {
    if (shown_) std::fputs("\n", stderr);
    shown_ = false;
  }

 private:
  bool on_;
  bool eager_;
  bool shown_ = false;
  std::int64_t step_ = -2;
  std::uint64_t first_ = 0;  // tasks done when the step's first report came
  std::chrono::steady_clock::time_point start_;
};

}  // namespace superstep::cli::detail
