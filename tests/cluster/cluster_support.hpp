#pragma once

// A cluster of real processes for tests: a head and its workers started as `superstep head`
// and `superstep worker` in a scratch folder, bounded in time, killed when it goes.

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cli_support.hpp"
#include "cluster/process_support.hpp"

namespace superstep::test {

/// The example spec NAME (examples/specs/NAME.json).
inline std::string example_spec(const std::string& name) {
  return std::string(SUPERSTEP_EXAMPLE_SPECS) + "/" + name + ".json";
}

/// The peak resident memory of a process (VmHWM), in MiB.
inline std::uint64_t peak_mib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) / 1024;
  return 0;
}

class test_cluster {
 public:
  /// `head_env`: variables the head gets on top of the test's environment.
  explicit test_cluster(scratch& s, std::vector<std::string> head_options = {}, int port = 0,
                        const environment& head_env = {})
      : s_(s) {
    start_head(std::move(head_options), port, head_env);
  }

  /// Starts the head (again, after it was stopped: `port` keeps its address).
  void start_head(std::vector<std::string> options, int port = 0, const environment& env = {}) {
    using namespace std::chrono_literals;
    std::vector<std::string> args{"head", "--listen", "127.0.0.1:" + std::to_string(port), "--data",
                                  s_.path("head-data")};
    args.insert(args.end(), options.begin(), options.end());
    head_ = std::make_unique<child>(args, s_, env);
    BOOST_REQUIRE_MESSAGE(head_->wait_for_err("listening on", 10s),
                          "the head did not start: " + head_->err_text());
    // "listening on 127.0.0.1:PORT (...)"
    std::string err = head_->err_text();
    const std::string marker = "listening on 127.0.0.1:";
    auto at = err.find(marker);
    BOOST_REQUIRE(at != std::string::npos);
    port_ = std::stoi(err.substr(at + marker.size()));
  }

  /// Starts a worker and, unless told not to, waits until the head logs it joined.
  child& add_worker(const std::string& name, std::vector<std::string> options = {},
                    bool wait_joined = true, const environment& env = {}) {
    using namespace std::chrono_literals;
    std::vector<std::string> args{"worker", "--join", address(), "--name", name, "--threads", "2"};
    args.insert(args.end(), options.begin(), options.end());
    workers_.push_back(std::make_unique<child>(args, s_, env));
    if (wait_joined)
      BOOST_REQUIRE_MESSAGE(
          head_->wait_for_err("worker " + name + " joined", 10s),
          "worker " + name + " did not join: " + head_->err_text() + workers_.back()->err_text());
    return *workers_.back();
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  child& head() { return *head_; }

  /// `args` (a client command) given --head: after the command's name, or after the store's
  /// action (`store get --head ...`).
  std::vector<std::string> with_head(std::vector<std::string> args) const {
    const std::size_t at = args.size() > 1 && args[0] == "store" ? 2 : 1;
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(at), {"--head", address()});
    return args;
  }
  /// The client command against this head, to its end.
  cli_result client(std::vector<std::string> args) { return run_to_end(with_head(args), s_); }
  /// The client command against this head, running.
  std::unique_ptr<child> start_client(std::vector<std::string> args) {
    return std::make_unique<child>(with_head(args), s_);
  }

 private:
  scratch& s_;
  std::unique_ptr<child> head_;
  std::vector<std::unique_ptr<child>> workers_;
  int port_ = 0;
};

/// Example specs (examples/specs) with an input each: what a cluster must run as an embedded
/// run does.
inline const std::vector<std::pair<std::string, std::string>>& example_runs() {
  static const std::vector<std::pair<std::string, std::string>> runs{
      {"jokes", R"({"subjects": ["cats", "dogs", "owls"]})"},
      {"map_reduce", "{}"},
      {"seed_reducers_b", R"({"foo": "a", "bar": ["a"]})"},
      {"loop", "{}"},
      {"subgraph", R"({"text": "hi"})"},
      {"seed_persistence", R"({"foo": ""})"},
      {"pregel_cycle", R"({"value": "a"})"},
      {"pregel_topic", R"({"a": "foo"})"},
  };
  return runs;
}

/// The output line's data of `superstep run ARGS` (an embedded run, in its own data folder):
/// what a cluster's run of the same command must give.
inline value embedded_run(scratch& s, std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--data", s.path("embedded-data")});
  cli_result r = run_to_end(args, s);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  return r.last().get("data");
}

/// A graph of 20 steps of one node over a 100 KB key it never changes (`doc`): what the
/// node's inputs cost to send. Writes its spec and input into `s`.
struct loop_over_doc {
  explicit loop_over_doc(scratch& s)
      : doc(100000, 'x'),
        spec(s.write("loop.json", R"({"spec": "superstep.graph/1",
    "state": {"doc": {}, "count": {"default": 0}},
    "nodes": {"step": {"fn": "std.increment", "params": {"key": "count"}}},
    "edges": [["__start__", "step"]],
    "conditional_edges": [{"from": "step", "router": "std.route",
      "params": {"key": "count", "less_than": 20, "then": "again", "else": "done"},
      "path_map": {"again": "step", "done": "__end__"}}]})")),
        input(s.write("input.json", value(object{{"doc", doc}}).to_json())) {}
  std::string doc, spec, input;
};

/// Runs `loop` on `c`, checks its output, and returns the bytes of task batches the head sent
/// (its log's "ended:" line).
inline std::uint64_t head_batch_bytes(test_cluster& c, const loop_over_doc& loop) {
  using namespace std::chrono_literals;
  cli_result r = c.client({"submit", loop.spec, "--input", "@" + loop.input});
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("count").as_int() == 20);
  BOOST_TEST(r.last().get("data").get("doc").as_string() == loop.doc);
  BOOST_REQUIRE(c.head().wait_for_err(" ended: ", 5s));
  const std::string log = c.head().err_text();
  const auto at = log.find("task batches out (", log.rfind(" ended: "));
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, log);
  return std::stoull(log.substr(at + 18));
}

}  // namespace superstep::test
