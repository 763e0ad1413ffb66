#pragma once

// A graph served elsewhere, used like a local one (LangGraph's RemoteGraph). Two kinds of
// server: a cluster's head (`superstep head --serve NAME=GRAPH.json`), spoken to in the
// client requests of cluster/schema/request.capnp over the cluster's links; or any LangGraph
// Server (`superstep serve`, LangGraph's own), spoken to in its HTTP API as LangGraph's
// RemoteGraph speaks to it through the SDK. Runs, streams, state, history, updates, cancels
// and the drawing travel to the server and its events come back as they happen. CAF-free:
// the link lives in client/remote_graph.cpp, the HTTP client in client/remote_http.cpp.

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/cluster/remote_run_stream.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/graph_description.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/pregel/pregel.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

/// Where a remote_graph's server is and how to be let in: a head (the options of the
/// `superstep` client commands given --head) or a LangGraph Server at a URL (LangGraph's
/// RemoteGraph `url=`, `api_key=`, `headers=`). Exactly one of `head` and `url` is given.
struct remote_graph_options {
  /// A cluster's head, "HOST:PORT".
  std::string head;
  /// A LangGraph Server, "http://HOST[:PORT]" or "https://HOST[:PORT]" (a path prefix may
  /// follow, as behind a proxy): every call is a request of its HTTP API (see remote_graph).
  /// https:// checks the server's certificate against the system's authorities.
  std::string url;
  /// With `url`: the key sent as the `x-api-key` header, as the SDK sends it (a header of
  /// that name in `headers` wins). Empty: none. Not read from the environment.
  std::string api_key;
  /// With `head`: the cluster's key file (--key-file): the link is TLS keyed by it and the
  /// key is proven to the head. Empty: none.
  std::string key_file;
  /// With `head`: TLS without certificates (--tls), or with a certificate, its key and the
  /// CA's (--tls-cert, --tls-key, --tls-ca: all three or none). A `url` takes none of these.
  bool tls = false;
  std::string tls_cert, tls_key, tls_ca;
  /// The config every call merges its own over (LangGraph's `config=`); null: none.
  value config;
  /// The name the graph goes by as a node (LangGraph's `name=`); empty: the graph's name.
  std::string name;
  /// Headers sent with every request (LangGraph's `headers=`, the SDK client's default
  /// headers): a head logs them (--log-requests) and a run sees its `x-...` headers in its
  /// config's configurable, as LangGraph's server passes headers to configurable; with `url`
  /// they are the HTTP requests' headers. Names must not be empty.
  std::map<std::string, std::string> headers;
  /// Send the caller's trace (the trace_context in the config a run is called with: a node's
  /// is its run's) with each run as LangSmith's `langsmith-trace` and `baggage` headers
  /// (LangGraph's `distributed_tracing=`); the run on the head carries its own trace under
  /// the caller's run. A call whose config has no trace sends none.
  bool distributed_tracing = false;
  /// How long connecting waits for the head's link and handshakes, or for the server's TCP
  /// (and TLS) connection.
  std::chrono::milliseconds connect_timeout{10000};
  /// How long any call waits for the head to take its request. With `url`: how long a call
  /// other than a run (state, history, update, graph, cancel) waits for its whole answer; a
  /// run's stream has no limit, as runs may be long.
  std::chrono::milliseconds answer_timeout{30000};
};

/// Options of one remote run (LangGraph's `stream` and `invoke` keyword arguments).
struct remote_run_options {
  /// The modes the caller's sink receives; empty: updates (LangGraph's default).
  std::vector<stream_mode> modes;
  /// Also stream the events of the remote graph's subgraphs, with their namespace.
  bool subgraphs = false;
  /// The run's context (LangGraph's `context=`), sent apart from the config and read by the
  /// remote nodes as node_context::context(); null: none.
  value context;
  /// Headers of this run (LangGraph's `headers=` of stream and stream_events), sent with the
  /// graph's (remote_graph_options::headers), replacing those of the same name; the tracing
  /// headers are added to them (remote_graph_options::distributed_tracing).
  std::map<std::string, std::string> headers;
};

/// A graph a server serves under a name, used like a local `pregel` (LangGraph
/// `RemoteGraph`): a head's graph (remote_graph_options::head) or a LangGraph Server's
/// assistant or graph (remote_graph_options::url).
///
/// With a head, each call is one request over one link per remote_graph (shared by its
/// copies, opened on the first call and again after it is lost). With a url, each call is one
/// HTTP request on libcurl (idle connections kept for the next call, shared by the copies),
/// as LangGraph's RemoteGraph makes it through the SDK:
///   - invoke, stream, as_node, stream_events: POST /threads/{thread_id}/runs/stream
///     (if_not_exists "create"), or POST /runs/stream for a stream or invoke without a
///     thread_id (a stateless run), with {assistant_id: graph id, input or command {resume,
///     update}, config, context, stream_mode (messages as "messages-tuple"; values and
///     updates always added, to see the output and interrupts), stream_subgraphs}; the
///     answer's server-sent events are read as they arrive (`mode` or `mode|ns|...` events
///     as stream events, `: heartbeat` comments skipped, `metadata` giving the run id, an
///     `error` event thrown with its class as our code: GraphRecursionError as
///     graph_recursion, ValueError as invalid_argument, CancelledError as cancelled, ...,
///     any other as node_error, with the server's message);
///   - get_state: GET /threads/{id}/state[/{checkpoint_id}][?subgraphs=true];
///     get_state_history: POST /threads/{id}/history {limit, before, metadata};
///     update_state: POST /threads/{id}/state {values, as_node, checkpoint_id};
///     get_graph: GET /assistants/{graph id}/graph[?xray=N];
///     cancel: POST /threads/{id}/runs/{run_id}/cancel?wait=0|1&action=interrupt.
///
/// The config a call sends is the graph's config merged with the call's, sanitised as
/// LangGraph's `_sanitize_config`: only recursion_limit, tags (strings), metadata and
/// configurable (nulls and bytes dropped, checkpoint_id, checkpoint_ns, checkpoint_map and
/// task_id dropped from configurable); its thread_id travels as the request's thread. A call
/// without a thread_id runs on a fresh thread (with a url: stream and invoke run stateless,
/// stream_events on a fresh thread). Thread-safe: calls may overlap, from any thread.
///
/// Errors are `superstep::error`: unavailable when the server cannot be reached, does not
/// answer or is lost mid-call ("cannot reach the head at HOST:PORT: ...", "cannot reach the
/// server at URL: ..."); unauthorized when the key is refused (HTTP 401 or 403); not_found for
/// a graph the server does not serve or a thread it does not have (HTTP 404); with a url,
/// thread_busy for HTTP 409 and invalid_argument for the other 4xx answers (422: a body the
/// server refused), with the server's message; the remote graph's own errors with their codes
/// (node_error, invalid_update, ...).
class remote_graph {
 public:
  /// The graph the server serves as `graph_id` (with a url: an assistant id or a graph's
  /// name), through `options`. Connects on the first call. Throws `superstep::error`
  /// (invalid_argument) for an empty graph id, options with both or neither of head and url,
  /// a head that is not HOST:PORT, a url that is not http:// or https://, TLS options that do
  /// not go together or come with a url.
  remote_graph(std::string graph_id, remote_graph_options options);
  ~remote_graph();
  remote_graph(const remote_graph&);
  remote_graph& operator=(const remote_graph&);

  /// The name the server serves the graph under (LangGraph's `assistant_id`).
  const std::string& graph_id() const noexcept;
  /// Its name as a node: the options' name, else the graph id.
  const std::string& name() const noexcept;
  /// The config each call merges its own over.
  const value& config() const noexcept;

  /// A copy whose config is this one's merged with `config` (LangGraph `with_config`):
  /// configurable and metadata merged key by key, other keys replaced. Shares the link.
  remote_graph with_config(const value& config) const;

  /// Runs the graph on the head and returns the last `values` chunk (LangGraph `invoke`):
  /// the run's output, with "__interrupt__" when it stopped at an interrupt.
  value invoke(const value& input, const value& config = value(),
               const value& context = value()) const;

  /// Runs the graph on the head, sending its events of `options.modes` to `sink` as the head
  /// sends them (namespaces inside the remote graph; LangGraph's `stream`), and returns the
  /// last `values` chunk. `input` may be a Command (make_command): its resume, update and
  /// goto go to the head. Besides the modes asked for, `updates` is always streamed from the
  /// head (not to the sink) to see interrupts: called with a config whose configurable has a
  /// checkpoint_ns (as a node, or as LangGraph's test pretends), an interrupt ends the stream
  /// there with error::interrupt carrying the interrupts ([{"value", "id"}] its payload), as
  /// a local subgraph's interrupt pauses its parent.
  value stream(const value& input, const value& config, const remote_run_options& options,
               const stream_sink& sink) const;

  /// A run of the graph read event by event, started by its `enter` (LangGraph's
  /// `stream_events(version="v3")`): the same request as `stream` sends, with a fresh run
  /// id (with a url: the id the server gives it, read from the stream's `metadata` event),
  /// so that the stream's `abort` can cancel it. Checks the input and config as `stream`
  /// does (throws before anything reaches the server); sends nothing until `enter`.
  remote_run_stream stream_events(const value& input, const value& config = value(),
                                  const remote_run_options& options = {}) const;

  /// Cancels the run `run_id` of thread `thread_id` on the head (LangGraph's
  /// `client.runs.cancel(thread_id, run_id, wait=False)`): the head asks it to stop through
  /// its run_control (its running nodes finish or observe the cancellation, no new step
  /// starts, the checkpoints it saved stay: the thread continues from its last one, status
  /// "pending"), and answers without waiting for the run to end. The run fails with error
  /// (cancelled) to whoever reads it. Any client the head lets in may cancel a run whose
  /// thread and run id it names, as LangGraph's server lets an authorized caller. Throws
  /// `superstep::error`: not_found when the thread has no such run in progress on the head
  /// (it ended already), invalid_argument for an empty thread or run id, and as the other
  /// calls when the head cannot be reached. With `wait` (LangGraph's `wait=True`), returns
  /// once the run has ended. With a url, the server decides: `superstep serve` answers a run
  /// of the thread that has ended already without an error, and not_found for a run id the
  /// thread never had.
  void cancel(const std::string& thread_id, const std::string& run_id, bool wait = false) const;

  /// The thread's state at its latest checkpoint, or at configurable.checkpoint_id
  /// (LangGraph `get_state`); with `subgraphs`, the states of the tasks' subgraphs too.
  /// Throws `superstep::error` (invalid_argument) without a thread_id.
  state_snapshot get_state(const value& config, bool subgraphs = false) const;

  /// The thread's checkpoints, newest first (LangGraph `get_state_history`): those whose
  /// metadata matches `options.filter`, older than `options.before`, at most
  /// `options.limit` (LangGraph's default: 10).
  std::vector<state_snapshot> get_state_history(const value& config,
                                                const list_options& options = {}) const;

  /// Updates the thread's state as node `as_node` would (LangGraph `update_state`) at its
  /// latest checkpoint or configurable.checkpoint_id; returns the new checkpoint's config
  /// {"configurable": {thread_id, checkpoint_ns, checkpoint_id, checkpoint_map}}.
  value update_state(const value& config, const value& values,
                     const std::optional<std::string>& as_node = std::nullopt) const;

  /// The graph's nodes and edges as the head draws them (LangGraph `get_graph(xray=...)`).
  graph_description get_graph(int xray = 0) const;

  /// The graph as a node of a local graph (`state_graph::add_node(g.name(), g.as_node())`,
  /// LangGraph's `add_node("agent", remote_graph)`): the node runs the remote graph on the
  /// parent's thread id with the node's input and its run's context, its output the last
  /// `values` chunk. When the parent streams subgraphs, the remote events of the parent's
  /// modes join the parent's stream under the task's namespace ("node:task id" first); an
  /// interrupt in the remote graph pauses the parent with the remote interrupts, and resuming
  /// the parent (Command(resume=...)) resumes the remote thread with the value.
  node_function as_node() const;

  /// The config as sent to the head (LangGraph `_sanitize_config`), thread_id included.
  static value sanitize_config(const value& config);

  struct impl;

 private:
  value run(const value& input, const value& config, const remote_run_options& options,
            const stream_sink& sink, node_context* parent) const;
  friend class remote_run_stream;

  std::shared_ptr<impl> impl_;
};

}  // namespace superstep
