#pragma once

// What a client asks of a head, one struct per operation (run a graph, read a thread's state,
// its history, update it, delete it, list threads, cancel a run, the store), with where it runs
// and how it is secured: the cluster's request contract. The program's command line parses
// into these (cli/args.hpp); the head decodes requests into them (net/request.hpp); ops/ carries
// them out.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep::net {

/// Exit statuses of the program.
enum exit_status : int {
  exit_done = 0,
  exit_failed = 1,       ///< the graph, its spec or the database failed
  exit_usage = 2,        ///< a command line that does not make sense
  exit_interrupted = 3,  ///< the run stopped at an interrupt; resume it with --resume or no input
};

/// A command line that does not make sense; the program prints it and exits with status 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `--help` anywhere: print `text` to stdout and exit 0.
struct help_request {
  std::string text;
};

/// The folder of the checkpoint database when --data is not given.
inline constexpr const char* default_data_dir = ".superstep";

/// TLS between a cluster's processes (--tls, --tls-cert, --tls-key, --tls-ca). With `on`
/// alone, traffic is encrypted but peers are not authenticated (the cluster's key does that);
/// with a certificate, its key and a CA file, both ends must present a certificate the CA
/// signed. Every process of a cluster must agree.
struct tls_args {
  bool on = false;
  std::string cert, key, ca;
};

/// The embedder that indexes the data folder's store for semantic search (--embedder NAME,
/// --dims N, --distance TYPE and the embedder's options), for the commands that open the
/// store to use it:
/// run, head and store. Others open it with the default, which is enough to read and list.
struct embedder_args {
  /// --embedder: a built-in embedder (hashing, openai) or one a --plugin registers; empty:
  /// hashing.
  std::string name;
  /// --dims: the length of its vectors; 0: 384 (given without --embedder or with hashing;
  /// the parsers require it with any other embedder).
  std::size_t dims = 0;
  /// --distance: how queries score items (cosine, inner_product or l2); nullopt: cosine.
  std::optional<storage::distance_type> distance;
  /// The embedder's params: --embedder-params JSON, with what --embedder-url, -model,
  /// -key-env, -batch, -timeout and -send-dims set on it (later options win).
  object params;

  /// Whether any of these options was given.
  bool given() const noexcept { return !name.empty() || dims != 0 || distance || !params.empty(); }
};

/// Options of every command that works on one thread's checkpoints.
struct thread_args {
  /// --thread; empty only for `run`, which then makes up a fresh thread id.
  std::string thread;
  /// --data: the folder of the checkpoint database.
  std::string data_dir = default_data_dir;
  /// --saver redis://...: keep the checkpoints on that Redis server instead of in --data
  /// (which still holds the threads' specs and the store); empty: RocksDB in --data.
  std::string saver;
  /// GRAPH.json (or --graph); empty: the spec the thread was last run with.
  std::string graph_path;
  /// --head HOST:PORT: the command runs on a cluster's head (its data), not here.
  std::string head;
  /// --key-file: the cluster's shared key, to be let in by the head.
  std::string key_file;
  /// --progress: show a progress line on stderr during long steps (default: when stderr is a
  /// terminal).
  bool progress = false;
  tls_args tls;
  /// --log-level: what the client side of a command on a head logs (trace, debug, info,
  /// warn, error or off).
  std::string log_level = "warn";
  /// --plugin: node libraries to load (the commands that run here).
  std::vector<std::string> plugins;
};

/// `superstep head --listen HOST:PORT [--data DIR] [--key-file F] [--plugin LIB]...`.
/// A head's bounds on the links it accepts (net/transport.hpp's link_options).
struct link_limits {
  unsigned max_connections = 1024;        ///< --max-connections
  unsigned max_pending = 64;              ///< --max-pending: links still in their handshake
  unsigned handshake_timeout_ms = 10000;  ///< --handshake-timeout (given in seconds)
  unsigned max_frame_mb = 1024;           ///< --max-frame: the largest message, in MiB
  unsigned client_backlog_mb = 64;        ///< --client-backlog: a client's unsent MiB (0: any)
};

struct head_args {
  std::string host;
  std::uint16_t port = 0;
  std::string data_dir = default_data_dir;
  /// --saver redis://...: as thread_args::saver.
  std::string saver;
  std::string key_file;
  std::vector<std::string> plugins;
  /// --worker-wait: how long a step waits for a worker that can run a node (seconds).
  unsigned worker_wait = 30;
  /// --task-loss-limit: workers a task may see go away while it runs on them before it fails
  /// as one that crashes its worker (0: never).
  unsigned task_loss_limit = 2;
  /// --threads: scheduler threads of the head's actor system (0: one per core).
  unsigned threads = 0;
  bool fsync = false;
  /// --request-threads: clients' commands running at once.
  unsigned request_threads = 8;
  /// --request-queue: commands waiting for a thread; past that a client is told "head busy".
  unsigned request_queue = 16;
  /// --command-threads, --command-queue: the same for clients' commands other than runs
  /// (state, history, threads, graph, update, delete), on threads of their own.
  unsigned command_threads = 4;
  unsigned command_queue = 64;
  /// --max-graphs: distinct specs kept loaded (here and on workers) while no run uses them.
  unsigned max_graphs = 32;
  /// --spread-channels: runs keep their channels in channel actors on the workers (one group
  /// per worker that loaded the graph) instead of beside the coordinator.
  bool spread_channels = false;
  /// --coordinator-channels: runs keep their channels in the coordinator (no channel actors;
  /// the path before them, to compare against).
  bool coordinator_channels = false;
  /// --shutdown-wait: seconds a stopping head waits for its runs to save their step and end.
  unsigned shutdown_wait = 10;
  /// --serve NAME=GRAPH.json: graphs clients (superstep::remote_graph) name instead of
  /// sending a spec, in the order given.
  std::vector<std::pair<std::string, std::string>> served;
  /// --config superstep.json: more graphs served by name (as --serve's), with the file's
  /// plugins and the HTTP API's settings (CORS, body limit); empty: none.
  std::string config_path;
  /// --http HOST:PORT: the LangGraph Server API served there too (as `superstep serve`'s, on
  /// the served graphs), its runs' nodes on the workers.
  bool http = false;
  std::string http_host;
  std::uint16_t http_port = 0;
  /// --run-threads: the HTTP API's runs carried out at once.
  unsigned run_threads = 16;
  /// --log-requests: log each client request's fields (thread, graph, config, context,
  /// stream modes) as the head received them.
  bool log_requests = false;
  /// --log-level: trace, debug, info, warn, error or off.
  std::string log_level = "info";
  tls_args tls;
  /// The embedder of the store that nodes (here and on workers) use.
  embedder_args embedder;
  link_limits limits;
  /// --model, --model-url, --model-key-env: the chat model of llm.chat nodes (a head loads
  /// the specs it runs, so their llm.chat nodes need a model name), or null.
  value model;
};

/// `superstep serve [--config superstep.json] [--listen HOST:PORT] [--data DIR | --saver URL]`:
/// the LangGraph Server API over this process's runtime (server/serve.hpp).
struct serve_args {
  /// --config: superstep.json (graphs, plugins, http); empty: the graphs of --graph.
  std::string config_path;
  /// --graph NAME=GRAPH.json, in the order given (besides or instead of --config).
  std::vector<std::pair<std::string, std::string>> graphs;
  std::string host = "127.0.0.1";
  std::uint16_t port = 8123;
  std::string data_dir = default_data_dir;
  /// --saver redis://...: as thread_args::saver.
  std::string saver;
  std::vector<std::string> plugins;
  /// --run-threads: runs carried out at once (others wait their turn).
  unsigned run_threads = 16;
  bool fsync = false;
  std::string log_level = "info";
  embedder_args embedder;
  /// --model, --model-url, --model-key-env: the chat model of llm.chat nodes, or null.
  value model;
};

/// `superstep worker --join HOST:PORT [--plugin LIB]... [--threads N] [--key-file F]`.
struct worker_args {
  std::string host;
  std::uint16_t port = 0;
  std::vector<std::string> plugins;
  unsigned threads = 0;  ///< task threads, and node actors per node (0: one per core)
  std::string key_file;
  std::string name;  ///< how the head's log names this worker (default: host name and pid)
  std::string log_level = "info";  ///< --log-level: trace, debug, info, warn, error or off
  tls_args tls;
  /// --model, --model-url, --model-key-env: the chat model of the llm.chat nodes it runs.
  value model;
};

/// `superstep run [GRAPH.json] [--input JSON | --resume JSON] [--thread ID] [--checkpoint ID]
/// [--durability MODE] [--multitask STRATEGY] [--data DIR] [--stream MODE...] [--subgraphs]
/// [--config JSON]`.
struct run_args {
  thread_args where;
  /// --input; nullopt: continue the thread from its last checkpoint (LangGraph invoke(None)).
  std::optional<value> input;
  /// --resume: the answer to the pending interrupt(s), sent as Command(resume=...).
  std::optional<value> resume;
  /// --update (with --resume): a state update sent with the answer, Command(update=...).
  std::optional<value> update;
  /// Nodes (names) or Sends to run next, Command(goto=...): set by the server API's
  /// `command.goto`, not on the command line.
  std::vector<value> go_to;
  /// The run's breakpoints instead of the spec's (the server API's interrupt_before/after):
  /// node names or "*"; nullopt: the spec's. Not on the command line.
  std::optional<std::vector<std::string>> interrupt_before, interrupt_after;
  /// --checkpoint: replay or fork from this checkpoint of the thread.
  std::string checkpoint;
  /// --durability: sync, async or exit; empty: the engine's default (sync).
  std::string durability;
  /// --multitask: reject, enqueue, interrupt or rollback (LangGraph's multitask_strategy)
  /// when the thread has a run in progress; empty: the config's, else reject.
  std::string multitask;
  /// --fsync: every checkpoint and pending write is flushed to disk before the run goes on.
  bool fsync = false;
  /// --config: the caller's config object (null when not given).
  value config;
  std::vector<stream_mode> modes;
  bool subgraphs = false;
  /// The run's context (LangGraph's `context=`, read by nodes as node_context::context());
  /// null: none. Set by a remote_graph client, not on the command line.
  value context;
  /// The embedder of the store the nodes use (not with --head: the head's is the head's).
  embedder_args embedder;
  /// --model, --model-url, --model-key-env: the chat model of llm.chat nodes, or null.
  value model;
  /// The run's id (the engine's config "run_id"); empty: a fresh one. Set by a remote_graph
  /// client, which cancels the run by it (cancel_args), not on the command line.
  std::string run_id;
};

/// `superstep graph GRAPH.json [--mermaid | --json-schema]`.
struct graph_args {
  std::string graph_path;
  /// What to print: a Mermaid flowchart, the graph's input and output JSON schemas, the
  /// graph in Graphviz's DOT, as text; or `png`: draw it into `png_path` through `dot`.
  enum class format : std::uint8_t { mermaid, json_schema, dot, ascii, png };
  format what = format::mermaid;
  std::string png_path;
  /// Node libraries to load first (for specs that use their functions).
  std::vector<std::string> plugins;
  /// A request to a head (remote_graph::get_graph): the graph's nodes and edges as JSON,
  /// subgraphs drawn to this depth (LangGraph's xray).
  int xray = 0;
};

/// `superstep state --thread ID [--checkpoint ID] [--data DIR] [--graph GRAPH.json]`.
struct state_args {
  thread_args where;
  std::string checkpoint;
  /// The namespace of a subgraph's checkpoints ("node:task id", nested with '|'): the
  /// subgraph's state instead of the thread's root graph's (the server's checkpoint_ns).
  std::string checkpoint_ns;
  /// Each task's subgraph state too (a remote_graph client's get_state(config, true)).
  bool subgraphs = false;
};

/// `superstep history --thread ID [--limit N] [--before ID] [--filter JSON] [--data DIR]`.
struct history_args {
  thread_args where;
  std::optional<std::size_t> limit;
  std::string before;
  /// Metadata keys that must all match (e.g. {"source": "loop"}).
  object filter;
  /// The namespace of a subgraph's checkpoints ("node:task id", nested with '|'): the
  /// subgraph's state instead of the thread's root graph's (the server's checkpoint_ns).
  std::string checkpoint_ns;
};

/// `superstep update --thread ID --values JSON [--as-node NODE] [--checkpoint ID] [--data DIR]`.
struct update_args {
  thread_args where;
  value values;
  std::optional<std::string> as_node;
  std::string checkpoint;
  /// The namespace of a subgraph's checkpoints ("node:task id", nested with '|'): the
  /// subgraph's state instead of the thread's root graph's (the server's checkpoint_ns).
  std::string checkpoint_ns;
};

/// `superstep delete --thread ID [--data DIR]`.
struct delete_args {
  thread_args where;
};

/// `superstep store put|get|delete|search|namespaces [options]` (ops/store.cpp).
struct store_args {
  std::string action;
  std::string data_dir = default_data_dir;
  std::vector<std::string> ns;
  std::string key;
  std::optional<value> item_value;
  std::optional<double> ttl_minutes;
  bool index = true;
  std::optional<std::string> query;
  object filter;
  std::optional<std::size_t> limit;
  std::size_t offset = 0;
  std::vector<std::string> prefix, suffix;
  std::optional<std::size_t> max_depth;
  embedder_args embedder;
  /// --plugin: libraries whose embedders --embedder may name.
  std::vector<std::string> plugins;
  /// --head: the store of a cluster's head instead of the data folder's.
  std::string head, key_file;
  tls_args tls;
  std::string log_level = "warn";  ///< --log-level of the client side, with --head
};

/// `superstep threads [--data DIR] [--plugin LIB]...`: the folder's threads (ops/state.cpp).
struct threads_args {
  thread_args where;  ///< --data, --saver and --plugin only
};

/// A request to a head to cancel run `run_id` of thread `where.thread` (LangGraph's
/// `runs.cancel(thread_id, run_id)`; remote_graph::cancel). Not a command line.
struct cancel_args {
  thread_args where;
  std::string run_id;
  /// Answer once the run has ended (LangGraph's `wait=True`), not as soon as it was asked.
  bool wait = false;
};

/// `superstep check [--data DIR]` and `superstep repair [--data DIR]` (ops/maintenance.cpp).
struct maintenance_args {
  bool repair = false;  ///< repair; otherwise check
  std::string data_dir = default_data_dir;
  /// --plugin LIB: node libraries the saved graph specs need, to load them as `state` does.
  std::vector<std::string> plugins;
  /// repair --from-tables: let RocksDB's repair rebuild a database that does not open.
  bool from_tables = false;
};

using command = std::variant<help_request, run_args, graph_args, state_args, history_args,
                             update_args, delete_args, head_args, worker_args, store_args,
                             maintenance_args, threads_args, cancel_args, serve_args>;

/// The options of `cmd` about where it runs (--head, --key-file, --progress), if it has them
/// (net/request.cpp).
const thread_args* where_of(const command& cmd);

}  // namespace superstep::net
