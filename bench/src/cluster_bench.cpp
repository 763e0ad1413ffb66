// superstep_cluster_bench: a fan-out of N Sends (std.map, folded by an append reducer, then
// summed) run by real processes: embedded (`superstep run`) and on a local cluster (`superstep
// head`, 1, 2, 4 `superstep worker`s, `superstep submit`), each with the default durability
// (every task's writes checkpointed) and with --durability exit (the cost of distribution
// alone). Beside them, the raw CAF remote request/response round trip over loopback, measured
// in this run. Prints a table (median of --runs after a warm-up, min-max) and writes JSON.
//
//   superstep_cluster_bench [--superstep PATH] [--sends N] [--workers 1,2,4] [--runs N]
//                           [--json PATH] [--spread-channels] [--coordinator-channels]
//                           [--durability sync,exit] [--no-embedded]
//
// With --spread-channels, each cluster row is run again with the head's --spread-channels
// (the run's channels in channel actors on the workers); with --coordinator-channels, again
// with the head's --coordinator-channels (no channel actors: the path before them), so that
// the three are measured side by side in one call.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "caf_remote.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct options {
  std::string bin;
  long sends = 100000;
  std::vector<int> workers{1, 2, 4};
  int runs = 3;
  std::string json = "cluster_bench.json";
  bool spread = false;       // also each cluster row with the head's --spread-channels
  bool coordinator = false;  // also each cluster row with the head's --coordinator-channels
  bool embedded = true;
  std::vector<std::string> durabilities{"sync", "exit"};
};

// Where a cluster run keeps its channels: the head's flag for it, and the row's name.
enum class placement { beside, spread, coordinator };

const char* head_flag(placement p) {
  return p == placement::spread        ? "--spread-channels"
         : p == placement::coordinator ? "--coordinator-channels"
                                       : nullptr;
}

const char* row_name(placement p) {
  return p == placement::spread        ? "cluster, spread channels"
         : p == placement::coordinator ? "cluster, coordinator's channels (no channel actors)"
                                       : "cluster";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

[[noreturn]] void die(const std::string& why) {
  std::cerr << "superstep_cluster_bench: " << why << "\n";
  std::exit(2);
}

// A child process of the superstep program, output to files; killed if still running.
class process {
 public:
  process(const options& o, std::vector<std::string> args, const fs::path& dir,
          const std::string& tag)
      : out_(dir / (tag + ".out")), err_(dir / (tag + ".err")) {
    args.insert(args.begin(), o.bin);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ < 0) die("fork failed");
    if (pid_ == 0) {
      int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~process() {
    if (!done_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  // Waits for the end; returns the exit status and the child's peak RSS in KiB.
  std::pair<int, long> wait() {
    int status = 0;
    rusage ru{};
    ::wait4(pid_, &status, 0, &ru);
    done_ = true;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, ru.ru_maxrss};
  }
  // Peak RSS so far (VmHWM), in KiB.
  long peak_kib() const {
    std::string status = slurp("/proc/" + std::to_string(pid_) + "/status");
    auto at = status.find("VmHWM:");
    return at == std::string::npos ? 0 : std::atol(status.c_str() + at + 6);
  }
  void stop() {
    ::kill(pid_, SIGTERM);
    wait();
  }
  std::string out() const { return slurp(out_); }
  std::string err() const { return slurp(err_); }
  bool wait_err(const std::string& text, int times) const {
    for (int i = 0; i < 1000; ++i) {
      std::string e = err();
      int n = 0;
      for (auto p = e.find(text); p != std::string::npos; p = e.find(text, p + 1)) ++n;
      if (n >= times) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

 private:
  fs::path out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
};

struct row {
  std::string name, durability;
  int workers = 0;  // 0: embedded
  std::vector<double> seconds;
  long head_peak_kib = 0, worker_peak_kib = 0;
  // Through the head's coordinator in the last run (its log's "ended:" line): messages and
  // bytes to and from workers.
  unsigned long long messages = 0, bytes_out = 0, bytes_in = 0;
  // Of bytes_in, the pending writes that went to the head's writes saver, not through the
  // coordinator (--spread-channels with a checkpointer keeping pending writes).
  unsigned long long write_bytes_in = 0;

  double median() const {
    auto v = seconds;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

std::string spec_text(long sends) {
  return R"({"spec": "superstep.graph/1", "name": "cluster_fanout",
  "state": {"results": {"reducer": "append"}, "total": {}}, "output": ["total"],
  "nodes": {"worker": {"fn": "std.map", "params": {"from": "item", "to": "results", "mul": 3, "add": 1, "wrap": "list"}},
            "reduce": {"fn": "std.sum", "params": {"from": "results", "to": "total"}}},
  "edges": [["worker", "reduce"], ["reduce", "__end__"]],
  "conditional_edges": [{"from": "__start__", "router": "std.send_each", "params": {"items": )" +
         std::to_string(sends) + R"(, "node": "worker", "as": "item"}}]})";
}

void check_output(const std::string& out, long sends) {
  long long n = sends, expected = 3 * (n * (n - 1) / 2) + n;
  if (out.find("\"total\":" + std::to_string(expected)) == std::string::npos)
    die("wrong result: " + out.substr(0, 300));
}

// The head's wire counters for the run that just ended (its log's last "ended:" line).
void read_traffic(const std::string& log, row& r) {
  const auto at = log.rfind(" ended: ");
  if (at == std::string::npos) return;
  unsigned long long batches = 0, results = 0, writes = 0, chunks = 0, chunk_bytes = 0,
                     channel_out = 0, channel_bytes_out = 0, channel_in = 0, channel_bytes_in = 0;
  std::sscanf(log.c_str() + at,
              " ended: %llu task batches out (%llu bytes), %llu results in (%llu bytes), %llu "
              "pending writes in (%llu bytes), %llu stream events in (%llu bytes), %llu channel "
              "messages out (%llu bytes), %llu channel messages in (%llu bytes)",
              &batches, &r.bytes_out, &results, &r.bytes_in, &writes, &r.write_bytes_in, &chunks,
              &chunk_bytes, &channel_out, &channel_bytes_out, &channel_in, &channel_bytes_in);
  r.messages = batches + results + writes + chunks + channel_out + channel_in;
  r.bytes_in += r.write_bytes_in + chunk_bytes + channel_bytes_in;
  r.bytes_out += channel_bytes_out;
}

// One timed fan-out; returns seconds, fills peaks (and the head's traffic, on a cluster).
double run_once(const options& o, const fs::path& dir, const fs::path& spec, int workers,
                const std::string& durability, placement where, long& head_peak, long& worker_peak,
                row* traffic = nullptr) {
  static int n = 0;
  ++n;
  const fs::path data = dir / ("data" + std::to_string(n));
  std::vector<std::string> tail{spec.string(), "--input", "{}", "--durability", durability};
  if (workers == 0) {
    std::vector<std::string> args{"run"};
    args.insert(args.end(), tail.begin(), tail.end());
    args.insert(args.end(), {"--data", data.string()});
    auto t0 = std::chrono::steady_clock::now();
    process p(o, args, dir, "embedded" + std::to_string(n));
    auto [status, peak] = p.wait();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (status != 0) die("superstep run failed: " + p.err());
    check_output(p.out(), o.sends);
    head_peak = std::max(head_peak, peak);
    fs::remove_all(data);
    return s;
  }
  std::vector<std::string> head_args{"head", "--listen", "127.0.0.1:0", "--data", data.string()};
  if (const char* flag = head_flag(where)) head_args.push_back(flag);
  process head(o, head_args, dir, "head" + std::to_string(n));
  if (!head.wait_err("listening on", 1)) die("the head did not start: " + head.err());
  // "listening on 127.0.0.1:PORT (...)" (std::regex trips GCC 12's warnings under ASan).
  std::string log = head.err();
  const std::string marker = "listening on ";
  auto at = log.find(marker);
  if (at == std::string::npos) die("no port in the head's log");
  at += marker.size();
  const std::string address = log.substr(at, log.find_first_of(" \n", at) - at);
  std::vector<std::unique_ptr<process>> ws;
  for (int i = 0; i < workers; ++i)
    ws.push_back(
        std::make_unique<process>(o,
                                  std::vector<std::string>{"worker", "--join", address, "--threads",
                                                           "1", "--name", "w" + std::to_string(i)},
                                  dir, "worker" + std::to_string(n) + "_" + std::to_string(i)));
  if (!head.wait_err(" joined", workers)) die("workers did not join: " + head.err());
  std::vector<std::string> args{"submit", "--head", address};
  args.insert(args.end(), tail.begin(), tail.end());
  auto t0 = std::chrono::steady_clock::now();
  process client(o, args, dir, "client" + std::to_string(n));
  auto [status, peak] = client.wait();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (status != 0) die("superstep submit failed: " + client.err());
  check_output(client.out(), o.sends);
  if (traffic && head.wait_err(" ended: ", 1)) read_traffic(head.err(), *traffic);
  head_peak = std::max(head_peak, head.peak_kib());
  for (auto& w : ws) worker_peak = std::max(worker_peak, w->peak_kib());
  for (auto& w : ws) w->stop();
  head.stop();
  fs::remove_all(data);
  return s;
}

// Two actor systems in this process, talking over loopback TCP through CAF's middleman.
std::vector<double> caf_remote_round_trip_us(int runs) {
  std::vector<double> per_trip;
  try {
    superstep::bench::remote_echo echo;
    constexpr int trips = 2000;
    for (int r = 0; r <= runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      echo.round_trips(trips);
      double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
          trips;
      if (r > 0) per_trip.push_back(us);  // the first is the warm-up
    }
  } catch (const std::exception& e) {
    die(e.what());
  }
  return per_trip;
}

options parse(int argc, char** argv) {
  options o;
  fs::path self = fs::read_symlink("/proc/self/exe");
  o.bin = (self.parent_path().parent_path() / "cluster" / "superstep").string();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--superstep")
      o.bin = next();
    else if (a == "--sends")
      o.sends = std::stol(next());
    else if (a == "--runs")
      o.runs = std::max(1, std::stoi(next()));
    else if (a == "--json")
      o.json = next();
    else if (a == "--spread-channels")
      o.spread = true;
    else if (a == "--coordinator-channels")
      o.coordinator = true;
    else if (a == "--no-embedded")
      o.embedded = false;
    else if (a == "--durability") {
      o.durabilities.clear();
      std::stringstream s(next());
      for (std::string d; std::getline(s, d, ',');) {
        if (d != "sync" && d != "exit") die("--durability takes sync, exit or both: " + d);
        o.durabilities.push_back(d);
      }
    } else if (a == "--workers") {
      o.workers.clear();
      std::stringstream s(next());
      for (std::string w; std::getline(s, w, ',');) o.workers.push_back(std::stoi(w));
    } else {
      die("usage: superstep_cluster_bench [--superstep PATH] [--sends N] [--workers 1,2,4] "
          "[--runs N] [--json PATH] [--spread-channels] [--coordinator-channels] "
          "[--durability sync,exit] [--no-embedded]");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  options o = parse(argc, argv);
  fs::path dir =
      fs::temp_directory_path() / ("superstep_cluster_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path spec = dir / "fanout.json";
  std::ofstream(spec) << spec_text(o.sends);

  std::vector<row> rows;
  for (const std::string& durability : o.durabilities) {
    std::vector<int> configs;
    if (o.embedded) configs.push_back(0);
    configs.insert(configs.end(), o.workers.begin(), o.workers.end());
    for (int w : configs)
      for (placement where : {placement::coordinator, placement::beside, placement::spread}) {
        if (w == 0 && where != placement::beside) continue;
        if (where == placement::spread && !o.spread) continue;
        if (where == placement::coordinator && !o.coordinator) continue;
        row r;
        r.name = w == 0 ? "embedded" : row_name(where);
        r.workers = w;
        r.durability = durability;
        std::cerr << "running " << r.name << " " << w << " workers, durability " << durability
                  << " ..." << std::endl;
        long hp = 0, wp = 0;
        run_once(o, dir, spec, w, durability, where, hp, wp);  // warm-up
        for (int i = 0; i < o.runs; ++i)
          r.seconds.push_back(
              run_once(o, dir, spec, w, durability, where, r.head_peak_kib, r.worker_peak_kib, &r));
        rows.push_back(r);
      }
  }
  auto remote = caf_remote_round_trip_us(o.runs);
  std::sort(remote.begin(), remote.end());
  fs::remove_all(dir);

  std::printf("fan-out of %ld Sends; %d timed runs after a warm-up; process start included\n\n",
              o.sends, o.runs);
  std::printf(
      "| run | workers | durability | median s | min s | max s | us/Send | Sends/s | "
      "peak RSS head (or process) MiB | peak RSS worker MiB | head messages/run | "
      "head bytes in/Send | of which pending writes/Send | head bytes out/Send |\n");
  std::printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::ostringstream json;
  json << "{\"sends\": " << o.sends << ", \"runs\": " << o.runs << ", \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row& r = rows[i];
    auto mm = std::minmax_element(r.seconds.begin(), r.seconds.end());
    double med = r.median();
    const bool cluster = r.workers > 0;
    auto per_send = [&](unsigned long long b) {
      return cluster ? std::to_string(static_cast<long>(b / static_cast<double>(o.sends)))
                     : std::string("-");
    };
    std::printf(
        "| %s | %d | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %.0f | %s | %s | %s | %s | %s |\n",
        r.name.c_str(), r.workers, r.durability.c_str(), med, *mm.first, *mm.second,
        med * 1e6 / o.sends, o.sends / med, r.head_peak_kib / 1024.0,
        cluster ? std::to_string(r.worker_peak_kib / 1024).c_str() : "-",
        cluster ? std::to_string(r.messages).c_str() : "-", per_send(r.bytes_in).c_str(),
        per_send(r.write_bytes_in).c_str(), per_send(r.bytes_out).c_str());
    json << (i ? ", " : "") << "{\"run\": \"" << r.name << "\", \"workers\": " << r.workers
         << ", \"durability\": \"" << r.durability << "\", \"median_s\": " << med
         << ", \"min_s\": " << *mm.first << ", \"max_s\": " << *mm.second
         << ", \"head_peak_kib\": " << r.head_peak_kib
         << ", \"worker_peak_kib\": " << r.worker_peak_kib << ", \"head_messages\": " << r.messages
         << ", \"head_bytes_in\": " << r.bytes_in
         << ", \"head_pending_write_bytes_in\": " << r.write_bytes_in
         << ", \"head_bytes_out\": " << r.bytes_out << "}";
  }
  json << "], \"caf_remote_round_trip_us\": {\"median\": " << remote[remote.size() / 2]
       << ", \"min\": " << remote.front() << ", \"max\": " << remote.back() << "}}\n";
  std::printf(
      "\nCAF remote request/response round trip over loopback (two actor systems in this "
      "process, one request outstanding): median %.1f us (min %.1f, max %.1f)\n",
      remote[remote.size() / 2], remote.front(), remote.back());
  std::ofstream(o.json) << json.str();
  std::printf("wrote %s\n", o.json.c_str());
  return 0;
}
