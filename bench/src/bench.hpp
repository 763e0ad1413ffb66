// Shared pieces of the benchmark program: one measured workload, its timing and its output.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "superstep/graph/state_graph.hpp"

namespace superstep::bench {

/// Options from the command line.
struct options {
  int runs = 5;
  bool big = false;
  /// Execution modes to run every graph workload in: "actors", "threads" (compile_options).
  std::vector<std::string> modes = {"actors", "threads"};
  /// Savers of the extra rows of the graph workloads that have them ("memory", "rocksdb"):
  /// each such workload also runs as "<mode>+<saver>" for every mode.
  std::vector<std::string> savers = {"memory", "rocksdb"};
  /// Give every graph workload the saver rows, not only those marked `with_savers`.
  bool all_savers = false;
  /// Comma-separated name prefixes; empty: everything.
  std::string only;
  std::string json_path = "bench_results.json";
};

/// One row of the table: a workload timed `run_us.size()` times after a warm-up.
struct measurement {
  std::string name;
  /// How the graph ran ("actors", "threads"), or "-" for the reference.
  std::string mode = "-";
  /// What one timed unit is: "step", "Send", "round trip".
  std::string unit;
  /// Units per run (steps of a chain, Sends of a fan-out...).
  std::int64_t units_per_run = 0;
  /// Wall time of each timed run, in microseconds.
  std::vector<double> run_us;
  /// In KiB: the peak RSS during this workload (VmHWM, reset before it; 0 where the kernel
  /// cannot reset it), the process peak (ru_maxrss) after it, and the RSS then.
  long workload_peak_rss_kib = 0;
  long peak_rss_kib = 0;
  long rss_kib = 0;

  double median_us() const;
  double min_us() const;
  double max_us() const;
  double per_unit(double total_us) const { return total_us / static_cast<double>(units_per_run); }
};

/// A result that is not what the workload must produce: the benchmark stops with it.
struct wrong_result : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws wrong_result with `what` unless `ok`.
inline void check(bool ok, const std::string& what) {
  if (!ok) throw wrong_result(what);
}

/// Peak RSS of the process so far and current RSS, in KiB.
long peak_rss_kib();
long current_rss_kib();
/// "mimalloc" when the process runs on mimalloc, else "system".
std::string allocator_name();
/// Resets the kernel's RSS high-water mark (VmHWM); false where that is not supported.
bool reset_rss_high_water();
/// VmHWM in KiB (0 when unknown).
long rss_high_water_kib();

/// Runs `once` one time as a warm-up, then `runs` times timed; fills in the RSS figures.
/// `after_each`, when set, runs untimed after each of them (e.g. to drop a run's checkpoints).
measurement measure(std::string mode, std::string name, std::string unit,
                    std::int64_t units_per_run, int runs, const std::function<void()>& once,
                    const std::function<void()>& after_each = nullptr);

/// Whether `name` matches one of the comma-separated prefixes of --only (all when empty).
bool selected(const options& opts, const std::string& name);

/// A workload the program can run, selected by name prefix with --only. Graph workloads run
/// once per mode; the references get "-".
struct workload {
  std::string name;
  std::function<measurement(const options&, const std::string& mode)> run;
  /// A graph workload that also runs with each saver of --savers (mode "actors+memory"...).
  bool with_savers = false;
};

/// A fresh folder under the temp directory, removed (with what is in it) when this goes.
struct scratch_dir {
  std::filesystem::path path;
  explicit scratch_dir(const std::string& name);
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
};

/// A saver by name: "memory", "rocksdb" (WAL, no fsync) or "rocksdb_sync" (fsync per write),
/// the RocksDB ones in `dir`.
std::shared_ptr<checkpoint_saver> open_saver(const std::string& saver, const scratch_dir& dir);

/// Whether redis-server is on the PATH (the "redis" and "redis_aof" savers start one: without
/// persistence, and with every write fsynced to its append-only file).
bool have_redis();

/// How a graph workload compiles and runs for a mode label: "actors" or "threads", optionally
/// with a saver, "actors+memory", "threads+rocksdb"... (graph_setup.cpp). Declare it before
/// the graph it compiles, so that the graph goes first and the saver's folder last.
class graph_setup {
 public:
  explicit graph_setup(const std::string& mode);
  ~graph_setup();
  graph_setup(const graph_setup&) = delete;
  graph_setup& operator=(const graph_setup&) = delete;

  /// The execution mode and the checkpointer, if any.
  compile_options compile() const;
  /// The config of one run: with a saver, a thread of its own (runs do not share state);
  /// `recursion_limit` when positive.
  value config(std::int64_t recursion_limit = 0);
  bool has_saver() const { return saver_ != nullptr; }
  /// Deletes the threads of the runs since the last call from the saver, so that every run
  /// starts from an empty saver as LangGraph.js' harness does (a fresh MemorySaver per run).
  /// Pass it to `measure` as `after_each`; without a saver it does nothing.
  std::function<void()> forget_runs(std::shared_ptr<const pregel> graph);

 private:
  execution exec_ = execution::actors;
  bool channel_actors_ = true;  // "actors_coordinator": false
  std::unique_ptr<scratch_dir> dir_;
  std::shared_ptr<checkpoint_saver> saver_;
  std::int64_t threads_ = 0;
  std::vector<std::string> live_threads_;
  std::optional<value> cached_;
  std::int64_t cached_limit_ = 0;
};

/// fanout_N's graph (workloads.cpp): fan -> (router) n x Send("work", {i}) with n the input's
/// "n" -> work returns {"results": [i]} folded by append -> sum into "total".
state_graph fanout_builder();

/// The graph workloads (workloads.cpp) and the CAF reference (caf_reference.cpp).
std::vector<workload> graph_workloads(const options& opts);
/// fanout_to_subgraph_{10,100}x (subgraph_workloads.cpp).
std::vector<workload> subgraph_workloads();
/// LangGraph's wide_state_{25x300,15x600,9x1200} (wide_state_workloads.cpp).
std::vector<workload> wide_state_workloads();
/// Saver operations and checkpointed steps (checkpoint_workloads.cpp). Their "mode" is the
/// saver: memory, rocksdb (WAL, no fsync), rocksdb_sync; the state_* and messages_* ones run
/// on actors with RocksDB.
std::vector<workload> checkpoint_workloads();
/// get_state and get_state_history of a fan-out of 10^5 Sends (state_read_workloads.cpp). Their
/// "mode" is the saver: memory, rocksdb.
std::vector<workload> state_read_workloads();
/// A scoped_actor requesting an echo actor, one request outstanding; `busy_poll`: one CAF
/// worker that polls instead of sleeping when idle.
measurement caf_round_trip(const options& opts, bool busy_poll);
/// The same between two actor systems over loopback TCP (CAF's middleman).
measurement caf_remote_round_trip(const options& opts);

/// Prints the table to stdout and writes it as JSON (table.cpp).
void print_table(const std::vector<measurement>& rows, long process_peak_kib);
void write_json(const std::string& path, const std::vector<measurement>& rows,
                long process_peak_kib, const options& opts);

}  // namespace superstep::bench
