// Shared pieces of the benchmark program: one measured workload, its timing and its output.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace superstep::bench {

/// Options from the command line.
struct options {
  int runs = 5;
  bool big = false;
  /// Execution modes to run every graph workload in: "actors", "threads" (compile_options).
  std::vector<std::string> modes = {"actors", "threads"};
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
measurement measure(std::string mode, std::string name, std::string unit,
                    std::int64_t units_per_run, int runs, const std::function<void()>& once);

/// A workload the program can run, selected by name prefix with --only. Graph workloads run
/// once per mode; the references get "-".
struct workload {
  std::string name;
  std::function<measurement(const options&, const std::string& mode)> run;
};

/// The graph workloads (workloads.cpp) and the CAF reference (caf_reference.cpp).
std::vector<workload> graph_workloads(const options& opts);
/// Saver operations and checkpointed steps (checkpoint_workloads.cpp). Their "mode" is the
/// saver: memory, rocksdb (WAL, no fsync), rocksdb_sync; the state_* ones run on actors.
std::vector<workload> checkpoint_workloads();
/// A scoped_actor requesting an echo actor, one request outstanding; `busy_poll`: one CAF
/// worker that polls instead of sleeping when idle.
measurement caf_round_trip(const options& opts, bool busy_poll);

/// Prints the table to stdout and writes it as JSON (table.cpp).
void print_table(const std::vector<measurement>& rows, long process_peak_kib);
void write_json(const std::string& path, const std::vector<measurement>& rows,
                long process_peak_kib, const options& opts);

}  // namespace superstep::bench
