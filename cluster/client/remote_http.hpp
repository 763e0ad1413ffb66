#pragma once

// remote_graph over the LangGraph Server HTTP API (remote_graph_options::url): the calls as
// LangGraph's RemoteGraph makes them through its SDK client, and the server's answers as
// superstep's values; the transfers are client/remote_http_transfer.hpp's. Private to the
// remote_graph library; CAF-free.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/remote_http_transfer.hpp"
#include "net/command.hpp"
#include "net/headers.hpp"
#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/graph_description.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

struct remote_graph_options;

namespace remote_detail {

/// A run request of the API: the route (`/threads/{id}/runs/stream`, or `/runs/stream` for a
/// run on no thread), its JSON body and headers.
struct http_run_request {
  std::string path;
  std::string thread;  // empty: a stateless run
  value body;
  net::header_map headers;
};

/// A LangGraph Server, reached at a URL, serving a graph (an assistant): what remote_graph
/// asks of it. Shared by the copies of a remote_graph; thread-safe (each call takes an idle
/// libcurl handle of its own, and leaves it for the next call with its connection open).
class http_api {
 public:
  /// Checks the URL (http:// or https:// with a host) and the options a URL takes; throws
  /// error(invalid_argument) naming what does not fit.
  http_api(std::string graph_id, const remote_graph_options& options);
  http_api(const http_api&) = delete;
  http_api& operator=(const http_api&) = delete;

  /// The URL without a trailing '/'.
  const std::string& url() const noexcept { return url_; }

  /// The request of a run (LangGraph's `client.runs.stream` as RemoteGraph calls it) from the
  /// arguments the head would get: on `thread` (created if missing), or stateless when
  /// `thread` is empty.
  http_run_request run_request(const net::run_args& args, const std::string& thread,
                               net::header_map headers) const;

  /// Sends a run and hands its events to `on_line` as the head's lines are shaped
  /// ({"type", "ns", "data"}), as they arrive, then an output line ({"type": "output" or
  /// "interrupt", "data", "interrupts"}) with the last values the run streamed. `on_run_id`,
  /// when given, gets the run's id from the stream's `metadata` event. An `error` event is
  /// thrown as error with its code (node_error when the server's class is none of ours);
  /// what on_line throws stops the transfer and passes. With `stop` stopped, the transfer
  /// ends and the call returns without an output line.
  void stream_run(const http_run_request& request, const std::function<void(value)>& on_line,
                  const std::function<void(const std::string&)>& on_run_id = nullptr,
                  transfer_stop* stop = nullptr) const;

  state_snapshot get_state(const std::string& thread, const std::string& checkpoint_id,
                           bool subgraphs) const;
  std::vector<state_snapshot> get_state_history(const std::string& thread,
                                                const list_options& options) const;
  /// The new checkpoint as the server answers it ({thread_id, checkpoint_ns, checkpoint_id}).
  checkpoint_config update_state(const std::string& thread, const std::string& checkpoint_id,
                                 const value& values,
                                 const std::optional<std::string>& as_node) const;
  graph_description get_graph(int xray) const;
  void cancel(const std::string& thread, const std::string& run_id, bool wait) const;

 private:
  // One request with a whole answer (within answer_timeout): its JSON, null when empty.
  // Throws error with the code of the status for an answer that is not 2xx.
  value call(const char* method, const std::string& path, const value* body) const;
  std::vector<std::string> header_lines(const net::header_map& extra) const;

  std::string graph_id_;
  std::string url_;
  net::header_map headers_;  // the graph's, with x-api-key
  std::chrono::milliseconds connect_timeout_;
  std::chrono::milliseconds answer_timeout_;
  mutable handle_pool handles_;
};

/// A state of the API (LangGraph's ThreadState: values, next, tasks, metadata, created_at,
/// checkpoint, parent_checkpoint) as a state_snapshot (LangGraph's _create_state_snapshot).
/// `thread` fills the config of a thread without checkpoints. Throws error(protocol_error)
/// for one that is not an object.
state_snapshot snapshot_of_thread_state(const value& v, const std::string& thread);

/// The error a run's `error` event stands for: the server's class ({"error": "GraphRecursion
/// Error", ...}) as our code, its message.
error error_of_event(const value& data);

}  // namespace remote_detail
}  // namespace superstep
