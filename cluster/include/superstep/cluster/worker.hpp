#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "superstep/cluster/function_registry.hpp"

namespace superstep::cluster {

/// How much a line of a worker's log matters (`superstep worker --log-level` filters on it).
enum class worker_log_level : std::uint8_t {
  info,     ///< joined, loaded or unloaded a graph, tasks run
  warning,  ///< the head unreachable or lost, a link refused, a malformed message
  error,    ///< a graph that cannot be loaded
};

/// Where and how a worker joins a cluster (the options of `superstep worker`).
struct worker_options {
  /// The head's address (`--join HOST:PORT`).
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  /// The cluster's key file (`--key-file`): the link is TLS keyed by it and the key is proven
  /// to the head. Empty: none.
  std::string key_file;
  /// TLS without certificates (`--tls`), or with a certificate, its key and the CA's
  /// (`--tls-cert`, `--tls-key`, `--tls-ca`: all three or none).
  bool tls = false;
  std::string tls_cert, tls_key, tls_ca;
  /// How the head's log names this worker; empty: "<host name>:<pid>".
  std::string name;
  /// Task threads, and node actors per node of each graph (0: one per core).
  unsigned threads = 0;
  /// Gets each line the worker logs (joined, lost the head, loaded a graph, ...), without a
  /// line break, with how much it matters. Null: lines on stderr with the time and "worker
  /// NAME". Called from the worker's threads.
  std::function<void(worker_log_level level, const std::string& line)> log = nullptr;
  /// How long connecting waits for the head's link and handshakes.
  std::chrono::milliseconds connect_timeout{10000};
};

/// A process's in-process functions offered to a cluster (what `superstep worker` runs, as a
/// library): joins the head, offers the node functions and routers of its registry, and
/// hosts node actors for the graphs the head sends it, running the tasks of the nodes whose
/// code it has. A graph written in C++ thus runs on a cluster without a node library: the
/// program registers its functions (`function_registry::add_node`, the signature node
/// libraries use) and runs a worker.
///
/// `run` joins and serves until `stop`; when the head goes away it joins again (every second
/// while the head cannot be reached). Nothing here includes CAF or Cap'n Proto.
///
/// Thread-safety: `run` is called once, from one thread; `stop` and `joined` from any.
class worker {
 public:
  /// Keeps a copy of `registry` (the functions it offers). Throws `superstep::error`
  /// (invalid_argument) when the key file cannot be read or the TLS options do not go
  /// together, naming the file or option.
  worker(const function_registry& registry, worker_options options);
  /// Stops the worker and waits for `run` to return when it runs on another thread.
  ~worker();
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;

  /// Joins the head and serves it until `stop` is called, joining again whenever the link is
  /// lost. Returns once stopped, with the node actors it hosted stopped (the tasks they were
  /// running finish first). Throws `superstep::error` (unauthorized) when the head refuses
  /// this worker for good (another cluster key, TLS on one side only): trying again would
  /// not change it.
  void run();

  /// Asks `run` to return (within about 200 ms, once running tasks finish). Safe to call
  /// before `run`, several times, and from any thread, but not from a signal handler (it
  /// takes a lock): a handler sets a flag that a thread of the program turns into `stop()`.
  void stop() noexcept;

  /// Whether the worker is joined to the head now (its functions are offered).
  bool joined() const noexcept;

  /// The name the head's log gives this worker.
  const std::string& name() const noexcept;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::cluster
