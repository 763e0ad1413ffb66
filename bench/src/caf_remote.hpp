#pragma once

// The machine's remote message round trip: an echo actor in one CAF actor system, asked from a
// second one over loopback TCP through CAF's middleman, both in this process. Shared by
// superstep_bench (its reference rows) and superstep_cluster_bench.

#include <memory>

namespace superstep::bench {

class remote_echo {
 public:
  /// Publishes the echo actor on a free loopback port and connects to it. Throws
  /// std::runtime_error when either fails.
  remote_echo();
  ~remote_echo();
  remote_echo(const remote_echo&) = delete;
  remote_echo& operator=(const remote_echo&) = delete;

  /// `n` request/response round trips, one outstanding at a time. Throws std::runtime_error
  /// when one fails or answers wrong.
  void round_trips(int n);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::bench
