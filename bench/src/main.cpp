// superstep_bench: LangGraph-style benchmark workloads on the superstep runtime, one table.
//
//   superstep_bench [--runs N] [--only PREFIX[,PREFIX...]] [--mode actors|threads|both]
//                   [--savers memory,rocksdb|none] [--all-savers] [--big] [--json PATH]
//
// Every workload runs once as a warm-up, then N times (default 5); the table shows the median,
// min and max per step, per Send or per round trip, with the CAF local round trip measured in
// the same process as the reference. sequential_1000, fanout_10^4 and wide_state_25x300 also
// run with each saver (rows "actors+memory", "actors+rocksdb"...). A wrong result stops the
// program with exit status 2.
#include <dlfcn.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "bench.hpp"

namespace superstep::bench {

namespace {

double nth(std::vector<double> v, std::size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

void usage(std::ostream& os) {
  os << "usage: superstep_bench [--runs N] [--only PREFIXES] [--mode M] [--savers S]\n"
        "                       [--all-savers] [--big] [--json PATH]\n"
        "  --runs N       timed repetitions per workload after one warm-up (default 5)\n"
        "  --only P[,P]   run only the workloads whose name starts with one of the prefixes\n"
        "                 ('caf' selects the CAF reference)\n"
        "  --mode M[,M]   actors (a coordinator actor, node actors and a channel actor\n"
        "                 owning the channels), actors_coordinator (the same with the\n"
        "                 coordinator applying writes to channels of its own: the path\n"
        "                 before channel actors), threads (the caller drives the loop on a\n"
        "                 thread pool), or both (actors,threads: the default)\n"
        "  --savers S     savers of the extra checkpointed rows of sequential_1000,\n"
        "                 fanout_10^4 and wide_state_25x300: memory, rocksdb (no fsync),\n"
        "                 memory,rocksdb (default) or none\n"
        "  --all-savers   give every graph workload those rows\n"
        "  --big          also run fanout_10^6\n"
        "  --json PATH    where to write the JSON results (default bench_results.json)\n";
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "superstep_bench: " << a << " needs a value\n";
        std::exit(64);
      }
      return argv[++i];
    };
    if (a == "--runs") {
      o.runs = std::atoi(next().c_str());
      if (o.runs < 1) {
        std::cerr << "superstep_bench: --runs must be a positive integer\n";
        std::exit(64);
      }
    } else if (a == "--only") {
      o.only = next();
    } else if (a == "--mode") {
      const std::string m = next();
      o.modes.clear();
      std::size_t from = 0;
      while (from <= m.size()) {
        std::size_t comma = std::min(m.find(',', from), m.size());
        const std::string one = m.substr(from, comma - from);
        if (one == "both") {
          o.modes.insert(o.modes.end(), {"actors", "threads"});
        } else if (one == "actors" || one == "actors_coordinator" || one == "threads") {
          o.modes.push_back(one);
        } else {
          std::cerr << "superstep_bench: --mode is a list of actors, actors_coordinator and "
                       "threads, or both\n";
          std::exit(64);
        }
        from = comma + 1;
      }
    } else if (a == "--savers") {
      const std::string v = next();
      o.savers.clear();
      std::size_t from = 0;
      while (v != "none" && from <= v.size()) {
        std::size_t comma = v.find(',', from);
        if (comma == std::string::npos) comma = v.size();
        const std::string saver = v.substr(from, comma - from);
        if (saver != "memory" && saver != "rocksdb") {
          std::cerr << "superstep_bench: --savers takes memory, rocksdb (comma-separated) or "
                       "none\n";
          std::exit(64);
        }
        o.savers.push_back(saver);
        from = comma + 1;
      }
    } else if (a == "--all-savers") {
      o.all_savers = true;
    } else if (a == "--big") {
      o.big = true;
    } else if (a == "--json") {
      o.json_path = next();
    } else if (a == "-h" || a == "--help") {
      usage(std::cout);
      std::exit(0);
    } else {
      std::cerr << "superstep_bench: unknown argument '" << a << "'\n";
      usage(std::cerr);
      std::exit(64);
    }
  }
  return o;
}

}  // namespace

double measurement::median_us() const {
  const std::size_t n = run_us.size();
  if (n % 2) return nth(run_us, n / 2);
  return (nth(run_us, n / 2 - 1) + nth(run_us, n / 2)) / 2;
}
double measurement::min_us() const { return *std::min_element(run_us.begin(), run_us.end()); }
double measurement::max_us() const { return *std::max_element(run_us.begin(), run_us.end()); }

long peak_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // KiB on Linux
}

long current_rss_kib() {
  long pages_total = 0, pages_resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
    std::fclose(f);
  }
  return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

std::string allocator_name() { return dlsym(RTLD_DEFAULT, "mi_version") ? "mimalloc" : "system"; }

bool reset_rss_high_water() {
  // Give freed heap back to the kernel first: the mark restarts from the RSS now, which would
  // otherwise still hold what the previous workload freed. mimalloc, when linked in (see
  // superstep_use_allocator), keeps its own pages until collected.
  using mi_collect_fn = void (*)(bool);
  if (void* collect = dlsym(RTLD_DEFAULT, "mi_collect"))
    reinterpret_cast<mi_collect_fn>(collect)(true);
  malloc_trim(0);
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

long rss_high_water_kib() {
  long kib = 0;
  if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    std::fclose(f);
  }
  return kib;
}

measurement measure(std::string mode, std::string name, std::string unit,
                    std::int64_t units_per_run, int runs, const std::function<void()>& once,
                    const std::function<void()>& after_each) {
  using clock = std::chrono::steady_clock;
  measurement m;
  m.mode = std::move(mode);
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.units_per_run = units_per_run;
  const bool hwm = reset_rss_high_water();
  once();  // warm-up: allocator pools, thread pool, caches
  if (after_each) after_each();
  for (int r = 0; r < runs; ++r) {
    const auto t0 = clock::now();
    once();
    const auto t1 = clock::now();
    m.run_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    if (after_each) after_each();
  }
  m.workload_peak_rss_kib = hwm ? rss_high_water_kib() : 0;
  m.peak_rss_kib = peak_rss_kib();  // since the reset, where there was one
  m.rss_kib = current_rss_kib();
  return m;
}

}  // namespace superstep::bench

int main(int argc, char** argv) {
  using namespace superstep::bench;
  const options opts = parse(argc, argv);
  std::vector<std::pair<workload, std::string>> plan;
  for (const auto& w : graph_workloads(opts)) {
    for (const auto& mode : opts.modes) plan.emplace_back(w, mode);
    if (w.with_savers || opts.all_savers)
      for (const auto& mode : opts.modes)
        for (const auto& saver : opts.savers) plan.emplace_back(w, mode + "+" + saver);
  }
  for (const auto& w : checkpoint_workloads()) {
    if (w.name.rfind("state_", 0) == 0 || w.name.rfind("messages_", 0) == 0)
      plan.emplace_back(w, "actors");
    else if (w.name.rfind("rocksdb_", 0) == 0)
      for (const char* m : {"rocksdb", "rocksdb_sync"}) plan.emplace_back(w, m);
    else
      for (const char* m : {"memory", "rocksdb", "rocksdb_sync", "redis", "redis_aof"})
        if (std::string(m).rfind("redis", 0) != 0 || have_redis()) plan.emplace_back(w, m);
  }
  for (const auto& w : state_read_workloads())
    for (const char* m : {"memory", "rocksdb"}) plan.emplace_back(w, m);
  for (bool busy_poll : {false, true})
    plan.emplace_back(workload{busy_poll ? "caf_round_trip_polling" : "caf_round_trip",
                               [busy_poll](const options& o, const std::string&) {
                                 return caf_round_trip(o, busy_poll);
                               }},
                      "-");
  plan.emplace_back(
      workload{"caf_remote_round_trip",
               [](const options& o, const std::string&) { return caf_remote_round_trip(o); }},
      "-");

  std::vector<measurement> rows;
  long process_peak = peak_rss_kib();
  for (const auto& [w, mode] : plan) {
    if (!selected(opts, w.name)) continue;
    const std::string label = w.name + (mode == "-" ? "" : " [" + mode + "]");
    std::cerr << "running " << label << " ..." << std::endl;
    try {
      rows.push_back(w.run(opts, mode));
      // Resetting VmHWM also resets ru_maxrss, so the process peak is kept here.
      measurement& m = rows.back();
      process_peak = std::max({process_peak, m.workload_peak_rss_kib, m.peak_rss_kib});
      m.peak_rss_kib = process_peak;
    } catch (const wrong_result& e) {
      std::cerr << "\n*** BENCHMARK FAILED: " << label << " produced a wrong result: " << e.what()
                << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "\n*** BENCHMARK FAILED: " << label << " threw: " << e.what() << "\n";
      return 2;
    }
  }
  if (rows.empty()) {
    std::cerr << "superstep_bench: no workload matches --only '" << opts.only << "'\n";
    return 64;
  }
  process_peak = std::max(process_peak, peak_rss_kib());
  print_table(rows, process_peak);
  write_json(opts.json_path, rows, process_peak, opts);
  return 0;
}
