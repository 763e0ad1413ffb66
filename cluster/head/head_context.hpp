// The head's state shared by its gate (head/head.cpp) and the serving of clients' commands
// (head/requests.cpp). Include only in the head's translation units.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "head/head.hpp"
#include "head/request_pool.hpp"
#include "head/run_registry.hpp"
#include "head/worker_registry.hpp"
#include "net/protocol.hpp"
#include "ops/operations.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/node_directory.hpp"

namespace superstep::net {

class link_transport;

/// The answer to a cancel request: the run is cancelled (or, with wait, has ended).
void answer_cancel(const caf::actor& client, const std::string& thread, const std::string& run);

/// The head's log: lines to the function head_services gives (none without one).
struct head_log {
  std::function<void(log_level, const std::string&)> sink;
  void info(const std::string& line) const { write(log_level::info, line); }
  void warn(const std::string& line) const { write(log_level::warning, line); }
  void error(const std::string& line) const { write(log_level::error, line); }
  void write(log_level level, const std::string& line) const {
    if (sink) sink(level, line);
  }
};

struct head_context {
  head_log log;
  caf::actor_system* sys = nullptr;
  std::shared_ptr<actors::runtime> rt;
  std::optional<std::string> key;
  ops::data_dir* data = nullptr;
  const cluster::function_registry* registry = nullptr;  // allows missing node code
  worker_registry workers;
  actors::dispatch_policy policy;
  /// Clients' runs run on its threads (created in run_head); their other commands (state,
  /// history, threads, graph, update, delete: short ones) on `commands`' own, so that long
  /// runs filling every thread of the first leave them answered. Cancel is on the gate.
  std::unique_ptr<request_pool> requests;
  std::unique_ptr<request_pool> commands;
  /// Distinct specs kept loaded while no run uses them (--max-graphs).
  std::size_t max_graphs = 32;
  /// Runs place their channels on the workers (--spread-channels).
  bool spread_channels = false;
  /// Runs keep their channels in the coordinator, without channel actors
  /// (--coordinator-channels).
  bool coordinator_channels = false;
  /// Set on SIGINT/SIGTERM: new commands are refused, runs stop before their next step.
  std::atomic<bool> stopping{false};
  /// The threads of the runs going now, for the log of a shutdown.
  std::mutex runs_m;
  std::multiset<std::string> runs;
  /// The runs going now (or waiting for their thread), by thread and run id: what a client's
  /// cancel request reaches.
  run_registry run_ids{answer_cancel};
  /// Store operations of workers and clients run on these actors, each on a thread of its own
  /// (an embedder may wait on an HTTP endpoint for seconds): never on the gate, which must keep
  /// answering. `store_queued[i]` counts the operations given to `store_ops[i]` not yet done.
  std::vector<store_runner_actor> store_ops;
  std::unique_ptr<std::atomic<int>[]> store_queued;
  /// Instances load_held_graph made of each spec, by key: where the next one starts its
  /// choice of node actors.
  std::mutex held_m;
  std::map<std::string, std::size_t> held_instances;
  /// The graphs served by name (--serve, --config), read when the head starts.
  std::map<std::string, value> served;
  bool log_requests = false;
  /// The head's links, and the bytes a client's link may hold unsent (--client-backlog; 0:
  /// no bound): serve_request bounds each client's link before its first line goes.
  link_transport* transport = nullptr;
  std::size_t client_backlog = 0;
};

/// What a request asks, for the log of --log-requests: its kind, thread, graph and the fields
/// a remote_graph sends (config, context, stream modes, headers).
std::string describe_request(const client_request& req);

/// A client's cancel request (LangGraph's runs.cancel with wait=False), answered on the gate:
/// the run named by thread and run id is asked to stop through its run_control (its running
/// nodes finish or observe the cancellation, no new step starts, what it saved stays) and the
/// answer goes out at once, before the run has ended. Any client let in may cancel a run whose
/// thread and run id it names, as LangGraph's server lets any authorized caller.
void serve_cancel(head_context& h, const caf::actor& client, const client_request& req);

/// Loads a graph here and on the workers, as a client's run loads it, for as long as the
/// graph lives: its spec stays held in the worker registry (never evicted, and loaded on each
/// worker that joins) until the last copy of the returned `graph` pointer goes, which releases
/// it (and evicts what --max-graphs then leaves over). That last copy must go before the
/// head's actor system does. Throws as a client's load does (a worker that cannot load it).
cluster::loaded_graph load_held_graph(head_context& h, const value& spec, runtime_options options);

/// Queues a client's command on the request pool; the refusal when it cannot be taken (the
/// pool is full, or the head is stopping).
std::optional<std::string> queue_request(head_context& h, caf::actor client, client_request req);

}  // namespace superstep::net
