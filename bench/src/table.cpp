// The benchmark table on stdout and the same figures as JSON.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>

#include "bench.hpp"
#include "superstep/core/value.hpp"

namespace superstep::bench {

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Three significant digits or so, whatever the magnitude.
std::string figure(double v) {
  if (v >= 100) return fixed(v, 0);
  if (v >= 10) return fixed(v, 1);
  if (v >= 1) return fixed(v, 2);
  return fixed(v, 3);
}

std::string mib(long kib) { return fixed(static_cast<double>(kib) / 1024.0, 1); }

std::string pad(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

void print_table(const std::vector<measurement>& rows, long process_peak_kib) {
  const std::vector<std::string> head = {
      "workload", "mode",          "runs",           "median",       "min",          "max",
      "unit",     "per-task/step", "total ms (med)", "peak RSS MiB", "proc peak MiB"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& m : rows) {
    cells.push_back(
        {m.name, m.mode, std::to_string(m.run_us.size()), figure(m.per_unit(m.median_us())),
         figure(m.per_unit(m.min_us())), figure(m.per_unit(m.max_us())), "us/" + m.unit,
         std::to_string(m.units_per_run) + " " + m.unit + (m.units_per_run > 1 ? "s" : ""),
         figure(m.median_us() / 1000.0),
         m.workload_peak_rss_kib ? mib(m.workload_peak_rss_kib) : "?", mib(m.peak_rss_kib)});
  }
  // Text columns align left, figures right.
  auto numeric = [](std::size_t c) { return c != 0 && c != 1 && c != 6 && c != 7; };
  std::vector<std::size_t> width(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& r : cells) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    std::string s = "|";
    for (std::size_t c = 0; c < r.size(); ++c) s += " " + pad(r[c], width[c], numeric(c)) + " |";
    std::cout << s << "\n";
  };
  line(head);
  std::string rule = "|";
  for (std::size_t c = 0; c < head.size(); ++c)
    rule +=
        (numeric(c) ? std::string(width[c] + 1, '-') + ":" : std::string(width[c] + 2, '-')) + "|";
  std::cout << rule << "\n";
  for (const auto& r : cells) line(r);
  std::cout << "\nprocess peak RSS: " << mib(process_peak_kib)
            << " MiB; allocator: " << allocator_name()
            << "\nmedian/min/max: per step, Send or round trip over " << rows.front().run_us.size()
            << " timed runs after a warm-up; peak RSS: high-water mark during the workload\n"
               "(VmHWM, reset before it); proc peak: the process's ru_maxrss after it\n";
  // The machine's limits measured in this run, as rates.
  std::string limits;
  for (const auto& m : rows) {
    const double us = m.per_unit(m.median_us());
    if (m.name == "caf_round_trip" || m.name == "caf_round_trip_polling" ||
        m.name == "caf_remote_round_trip")
      limits += "  " + m.name + " [" + m.mode + "]: " + figure(us) + " us a round trip\n";
    else if (m.name.rfind("rocksdb_writebatch", 0) == 0)
      limits += "  " + m.name + " [" + m.mode + "]: " + figure(1e6 / us) + " commits/s\n";
  }
  if (!limits.empty()) std::cout << "machine reference limits, this run:\n" << limits;
}

void write_json(const std::string& path, const std::vector<measurement>& rows,
                long process_peak_kib, const options& opts) {
  list workloads;
  for (const auto& m : rows) {
    list runs;
    for (double us : m.run_us) runs.emplace_back(us);
    workloads.emplace_back(
        object{{"workload", m.name},
               {"mode", m.mode},
               {"runs", static_cast<std::int64_t>(m.run_us.size())},
               {"unit", "us/" + m.unit},
               {"units_per_run", m.units_per_run},
               {"median", m.per_unit(m.median_us())},
               {"min", m.per_unit(m.min_us())},
               {"max", m.per_unit(m.max_us())},
               {"total_us_median", m.median_us()},
               {"run_total_us", value(std::move(runs))},
               {"workload_peak_rss_kib", static_cast<std::int64_t>(m.workload_peak_rss_kib)},
               {"process_peak_rss_kib", static_cast<std::int64_t>(m.peak_rss_kib)},
               {"rss_kib", static_cast<std::int64_t>(m.rss_kib)}});
  }
  value doc = object{{"program", "superstep_bench"},
                     {"timestamp", utc_now()},
                     {"host", host_name()},
                     {"cores", static_cast<std::int64_t>(sysconf(_SC_NPROCESSORS_ONLN))},
                     {"allocator", allocator_name()},
                     {"runs", opts.runs},
                     {"modes",
                      [&] {
                        list l;
                        for (const auto& mode : opts.modes) l.emplace_back(mode);
                        return value(std::move(l));
                      }()},
                     {"only", opts.only},
                     {"big", opts.big},
                     {"process_peak_rss_kib", static_cast<std::int64_t>(process_peak_kib)},
                     {"workloads", value(std::move(workloads))}};
  std::ofstream out(path);
  out << doc.to_json() << "\n";
  if (!out) {
    std::cerr << "superstep_bench: cannot write " << path << "\n";
    return;
  }
  std::cerr << "wrote " << path << "\n";
}

}  // namespace superstep::bench
