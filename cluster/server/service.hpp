#pragma once

// The LangGraph Server API over a data folder (server/service.cpp: meta, assistants, threads;
// server/runs.cpp: runs and their streams; server/store_routes.cpp: the long-term store). The
// HTTP layer hands each request over on its loop thread; the service answers from its own
// threads: requests on a small pool, runs on a pool of their own.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ops/data_dir.hpp"
#include "ops/operations.hpp"
#include "server/config.hpp"
#include "server/http.hpp"
#include "server/records.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/core/value.hpp"

namespace superstep::server {

/// Threads that run queued jobs, in order.
class job_pool {
 public:
  explicit job_pool(unsigned threads);
  ~job_pool();
  void post(std::function<void()> job);

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

/// An error answer: the status and the message (sent as {"detail": message}).
struct api_error {
  int status;
  std::string message;
};

/// What a route answers: a JSON body with a status and headers.
struct api_response {
  int status = 200;
  value body;
  header_list headers = {};
};

struct active_run;  // server/runs.cpp

/// How the service loads a graph spec for its runs and reads: `superstep serve` runs them in
/// this process (cluster::load_graph with the registry); a head puts their nodes on its
/// workers. Called from the service's threads, under the service's lock of its graphs; what
/// it returns is kept while the service lives.
using graph_loader =
    std::function<cluster::loaded_graph(const value& spec, runtime_options options)>;

class service {
 public:
  /// The API on `data`: its records beside the checkpoints (data_dir::records: the folder's
  /// database, flushed as it flushes, or its Redis server), encoded by `serde` (null: Cap'n
  /// Proto); graphs loaded with `load` (null: cluster::load_graph with `registry`).
  service(server_config config, ops::data_dir& data, const cluster::function_registry& registry,
          std::function<void(const std::string&)> log, unsigned run_threads,
          std::shared_ptr<const storage::serializer> serde, graph_loader load = nullptr);
  ~service();

  /// Called on the HTTP loop thread for each request.
  void handle(http_request request, std::shared_ptr<http_exchange> exchange);

  /// Where this server listens (http://HOST:PORT): a webhook given as a path posts there.
  void set_self_url(std::string url) { self_url_ = std::move(url); }

  /// Stops taking runs and waits for those in progress to stop at a step boundary.
  void shutdown();

 private:
  // Routing (service.cpp).
  void dispatch(const http_request& r, const std::shared_ptr<http_exchange>& x);
  api_response route(const http_request& r, const std::vector<std::string>& parts,
                     const std::shared_ptr<http_exchange>& x, bool& answered);
  header_list cors_headers(const http_request& r) const;
  void reply(const http_request& r, const std::shared_ptr<http_exchange>& x, api_response res);

  // Assistants (service.cpp).
  void make_system_assistants();
  value find_assistant(const std::string& id_or_graph) const;  // throws api_error 404
  api_response create_assistant(const value& body);
  api_response search_assistants(const value& body, bool count_only);
  api_response patch_assistant(const std::string& id, const value& body);
  api_response delete_assistant(const std::string& id, bool delete_threads);
  api_response assistant_graph(const std::string& id, const http_request& r);
  api_response assistant_schemas(const std::string& id);
  // The graph's subgraphs by namespace ("node", "node|inner" with `recurse`), each with its
  // schemas; `ns`: only those at or below that namespace.
  api_response assistant_subgraphs(const std::string& id, const std::string& ns, bool recurse);
  api_response assistant_versions(const std::string& id, const value& body);
  api_response set_latest(const std::string& id, const value& body);

  // Threads (service.cpp).
  value find_thread(const std::string& id) const;  // throws api_error 404
  api_response create_thread(const value& body);
  api_response search_threads(const value& body, bool count_only);
  api_response patch_thread(const std::string& id, const value& body);
  api_response delete_thread(const std::string& id);
  api_response copy_thread(const std::string& id);
  api_response prune_threads(const value& body);
  // A new thread's `supersteps`: applied with bulk_update_state on graph `graph_id`.
  void apply_supersteps(const std::string& id, const std::string& graph_id,
                        const value& supersteps);
  // `checkpoint_ns`: a subgraph's namespace (a task's `checkpoint`), "" for the thread's own.
  api_response thread_state(const std::string& id, const std::string& checkpoint_id, bool subgraphs,
                            const std::string& checkpoint_ns = "");
  api_response update_thread_state(const std::string& id, const value& body);
  api_response thread_history(const std::string& id, const value& body);
  api_response truncate(const value& body);

 public:  // for server/runs.cpp and server/store_routes.cpp
  // The state of a thread (of its subgraph `checkpoint_ns`) at a checkpoint as ThreadState,
  // nullopt when it has none.
  std::optional<value> read_state(const std::string& thread_id, const std::string& checkpoint_id,
                                  bool subgraphs, const std::string& checkpoint_ns = "") const;
  // The graph `graph_id`, loaded once with the folder's saver and store.
  cluster::loaded_graph graph_of(const std::string& graph_id) const;
  // The loader of ops' command_env: graphs by spec, loaded once.
  cluster::loaded_graph load_cached(const value& spec, runtime_options options) const;
  // The same, keyed by `key`, the spec's JSON text.
  cluster::loaded_graph load_cached(const std::string& key, const value& spec,
                                    runtime_options options) const;
  // The JSON text of graph `graph_id`'s spec (the key of its instances, what its threads
  // save), made once.
  const std::string& spec_text_of(const std::string& graph_id) const;
  // An ops/ operation's environment on the data folder, graphs loaded through load_cached;
  // its `print` is the caller's to set.
  ops::command_env ops_env() const;
  // Changes thread `id`'s record (nothing when there is none), updated_at too: written now, or
  // added to `batch` when one is given.
  void set_thread(const std::string& id, const std::function<void(object&)>& change,
                  record_batch* batch = nullptr);

  // Runs (runs.cpp).
  // `resumed`: the record of a run a stopped server left pending or running, carried out again
  // with its id on its thread (from its last checkpoint when it saved one).
  api_response create_run(const std::string& thread_id, const value& body, const std::string& mode,
                          const std::shared_ptr<http_exchange>& x, bool& answered,
                          const value* resumed = nullptr);
  bool run_saved_checkpoint(const std::string& thread_id, const std::string& run_id) const;
  void resume_runs();  // at start
  api_response list_runs(const std::string& thread_id, const http_request& r);
  api_response get_run(const std::string& thread_id, const std::string& run_id);
  api_response delete_run(const std::string& thread_id, const std::string& run_id);
  api_response cancel_run(const std::string& thread_id, const std::string& run_id,
                          const http_request& r, const std::shared_ptr<http_exchange>& x,
                          bool& answered);
  // POST /runs/cancel: the runs named, or those of a thread, or all with a status.
  api_response cancel_runs(const value& body, const http_request& r);
  // POST /runs/batch: stateless background runs.
  api_response create_batch(const std::string& body);
  // Cancels `run` (action interrupt or rollback); false when it had ended already. A run not
  // started yet ends now; one running is told to stop and ends at its next step boundary.
  bool cancel_active(const std::shared_ptr<active_run>& run, const std::string& action,
                     const std::string& reason = "cancelled through the API");
  api_response join_run(const std::string& thread_id, const std::string& run_id,
                        const std::shared_ptr<http_exchange>& x, bool& answered);
  // GET /threads/{id}/stream: the events of every run of the thread, the one going now (from
  // its start) and those after it, until the client goes.
  api_response join_thread_stream(const std::string& thread_id, const http_request& r,
                                  const std::shared_ptr<http_exchange>& x, bool& answered);
  api_response join_stream(const std::string& thread_id, const std::string& run_id,
                           const http_request& r, const std::shared_ptr<http_exchange>& x,
                           bool& answered);
  void execute(const std::shared_ptr<active_run>& run);
  // Posts `run` to the run pool, or holds it until its after_seconds (under runs_mutex_).
  void dispatch_locked(const std::shared_ptr<active_run>& run);
  void start_scheduled();  // the timer thread
  void heartbeat();        // the heartbeat thread: keeps idle streams and waits alive
  void finish_run(const std::shared_ptr<active_run>& run);
  // POSTs the ended run to its webhook, if it has one (on the webhook thread).
  void send_webhook(const std::shared_ptr<active_run>& run, const std::string& status,
                    const value& result, const std::optional<value>& state);
  std::shared_ptr<active_run> running(const std::string& run_id) const;

  // Crons (crons.cpp).
  api_response create_cron(const std::string& thread_id, const value& body);
  api_response search_crons(const value& body, bool count_only);
  api_response patch_cron(const std::string& id, const value& body);
  api_response delete_cron(const std::string& id);
  void fire_cron(const value& cron);  // creates its run
  void run_crons();                   // the cron timer thread
  void wake_crons();                  // after a cron record changed
  void stop_crons();

  // The store (store_routes.cpp).
  api_response store_route(const http_request& r, const std::vector<std::string>& parts,
                           const value& body);

  server_config config_;
  ops::data_dir& data_;
  const cluster::function_registry& registry_;
  graph_loader load_;
  std::function<void(const std::string&)> log_;
  unsigned run_threads_;
  // The data folder's (or its Redis server's), before the sets that use it.
  std::shared_ptr<storage::record_tables> records_;
  record_set assistants_, threads_, runs_, crons_;
  mutable std::mutex graphs_mutex_;
  // Instances of each graph, by spec JSON (load_cached).
  mutable std::map<std::string, std::vector<cluster::loaded_graph>> graphs_;
  mutable std::size_t next_instance_ = 0;
  mutable std::map<std::string, std::string> spec_texts_;  // by graph id (spec_text_of)
  mutable std::mutex runs_mutex_;
  std::map<std::string, std::shared_ptr<active_run>> active_;  // by run id
  // The events of runs with stream_resumable that ended, by run id, with when they go: a
  // client that reconnects (Last-Event-ID) or joins soon after the end gets the rest.
  struct kept_events {
    std::vector<std::string> frames;
    std::chrono::steady_clock::time_point until;
  };
  std::map<std::string, kept_events> kept_events_;
  // The open thread streams (GET /threads/{id}/stream), by thread, under runs_mutex_.
  std::map<std::string, std::vector<std::shared_ptr<http_exchange>>> thread_streams_;
  // Expires with the service: an exchange that goes after it (the HTTP server, destroyed
  // later, closes its connections) finds no thread streams to leave.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  // Gives `run`, starting, the streams open on its thread, each sent its events so far.
  void attach_thread_streams(const std::shared_ptr<active_run>& run);
  // How long they are kept (LangGraph Server's default for resumable streams).
  static constexpr std::chrono::seconds resumable_events_kept{120};
  // Keeps `frames` of the run that ended (under runs_mutex_), dropping those kept too long.
  void keep_events(const std::string& run_id, std::vector<std::string> frames);
  // The runs waiting for their thread, by thread: each is dispatched when the one before ends.
  std::map<std::string, std::deque<std::shared_ptr<active_run>>> waiting_;
  // Threads whose runs are being created (between the reject check and their registration in
  // active_), one entry per run: a reject run finds them busy, so of runs created at once on
  // an idle thread only one is taken.
  std::multiset<std::string> admitting_;
  bool stopping_ = false;
  // Runs waiting for their after_seconds, by when they may start (under runs_mutex_).
  std::multimap<std::chrono::steady_clock::time_point, std::shared_ptr<active_run>> scheduled_;
  std::condition_variable scheduled_changed_;
  std::string self_url_;
  // Destroyed in this order's reverse: the request jobs end first (they post runs), then the
  // runs (they post webhooks), then the webhooks.
  job_pool webhooks_{1};
  job_pool run_pool_;
  job_pool requests_;
  std::thread timer_;  // starts the scheduled runs
  std::condition_variable heartbeat_due_;
  std::thread heartbeat_;
  std::mutex crons_mutex_;
  std::condition_variable crons_changed_;
  bool stopping_crons_ = false;
  std::thread cron_timer_;  // creates the crons' runs (run_crons)
};

/// How often streams get a heartbeat and waits a newline.
inline constexpr std::chrono::seconds heartbeat_every{5};

/// Reads a JSON body: {} when empty; api_error 422 naming the problem when it is not an
/// object (or, with `any`, not JSON).
value parse_body(const std::string& body, bool any = false);

}  // namespace superstep::server
