// `superstep head`: the gate actor that workers and clients talk to, the record of workers
// and of the graphs loaded on them, the node directory coordinators dispatch through, and
// the threads running clients' commands against the head's database.
#include <sys/resource.h>

#include <atomic>
#include <caf/io/middleman.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cli_commands.hpp"
#include "net.hpp"
#include "net_auth.hpp"
#include "net_headers.hpp"
#include "net_protocol.hpp"
#include "net_request_pool.hpp"
#include "net_run_registry.hpp"
#include "net_store.hpp"
#include "net_transport.hpp"
#include "net_worker_registry.hpp"
#include "spdlog/spdlog.h"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/node_directory.hpp"
#include "superstep/coordinator/run_counters.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

// The directory of one loaded graph: nodes running subgraphs stay on the head; every other
// node runs on the workers that loaded the graph and host the node.
class cluster_directory final : public actors::node_directory {
 public:
  cluster_directory(worker_registry& workers, std::string key, actors::dispatch_policy policy,
                    bool spread_channels)
      : workers_(workers), key_(std::move(key)), policy_(policy), spread_(spread_channels) {}

  void bind(const value& spec, const pregel_graph& g) {
    auto fns = cluster::functions_by_node(spec);
    for (const auto& n : g.nodes) {
      auto f = fns.find(n.name);
      std::set<std::string> code = f == fns.end() ? std::set<std::string>{} : f->second;
      local_.push_back(code.count("graph") > 0);
      names_.push_back(n.name);
      code_.push_back(std::move(code));
    }
  }

  std::optional<std::vector<actors::node_actor>> instances(std::uint32_t node) override {
    if (node < local_.size() && local_[node]) return std::nullopt;
    return workers_.instances(key_, node);
  }

  std::string unavailable(std::uint32_t node) const override {
    std::string what = node < names_.size() ? "node '" + names_[node] + "'" : "a node";
    std::string code;
    if (node < code_.size())
      for (const auto& c : code_[node]) code += (code.empty() ? "" : ", ") + c;
    return "no connected worker can run " + what + (code.empty() ? "" : " (it needs " + code + ")");
  }

  actors::dispatch_policy policy() const override { return policy_; }

  std::vector<caf::actor> channel_hosts() override {
    if (!spread_) return {};
    return workers_.hosts_of(key_);
  }
  std::string graph_key() const override { return key_; }

 private:
  worker_registry& workers_;
  std::string key_;
  actors::dispatch_policy policy_;
  bool spread_;
  std::vector<bool> local_;
  std::vector<std::string> names_;
  std::vector<std::set<std::string>> code_;
};

// The answer to a cancel request: the run is cancelled (or, with wait, has ended).
void answer_cancel(const caf::actor& client, const std::string& thread, const std::string& run) {
  caf::anon_send(client, line_atom::value,
                 value(object{{"thread", thread}, {"run", run}, {"cancelled", true}}).to_json());
  caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(cli::exit_done),
                 std::string());
}

struct head_context {
  caf::actor_system* sys = nullptr;
  std::shared_ptr<actors::runtime> rt;
  std::optional<std::string> key;
  cli::data_dir* data = nullptr;
  const cluster::function_registry* registry = nullptr;  // allows missing node code
  worker_registry workers;
  actors::dispatch_policy policy;
  /// Clients' commands run on its threads (created in run_head).
  std::unique_ptr<request_pool> requests;
  /// Distinct specs kept loaded while no run uses them (--max-graphs).
  std::size_t max_graphs = 32;
  /// Runs place their channels on the workers (--spread-channels).
  bool spread_channels = false;
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
  std::vector<caf::actor> store_ops;
  std::unique_ptr<std::atomic<int>[]> store_queued;
  /// The graphs served by name (--serve), read when the head starts.
  std::map<std::string, value> served;
  bool log_requests = false;
};

constexpr std::size_t store_threads = 4;

// Runs store operations for the gate (detached: blocking here holds up no other actor).
caf::behavior store_op_runner(caf::event_based_actor*, head_context* h, std::size_t index) {
  return {
      [h, index](store_atom, const std::string& op, const value& args) -> value {
        struct done {
          std::atomic<int>& queued;
          ~done() { --queued; }
        } guard{h->store_queued[index]};
        try {
          return run_store_op(*h->data->store(), op, args);
        } catch (const std::exception& e) {
          return store_error_answer(e);
        }
      },
  };
}

// The store runner with the fewest operations waiting, counted as given one more.
const caf::actor& least_busy_store_runner(head_context& h) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < h.store_ops.size(); ++i)
    if (h.store_queued[i].load() < h.store_queued[best].load()) best = i;
  ++h.store_queued[best];
  return h.store_ops[best];
}

std::string peer_name(const caf::node_id& n) { return caf::to_string(n).substr(0, 12); }

// Forgets the specs past --max-graphs that no run uses, least recently used first, and tells
// the workers to unload them. A later load of the same spec is sent after (the registry's
// lock orders them) over the same connection to the worker, so it arrives after the unload.
void evict_graphs(head_context& h, caf::scoped_actor& self) {
  auto [gone, hosts] = h.workers.evict(h.max_graphs);
  for (const auto& key : gone) {
    spdlog::info("unloaded graph " + key + " (the least recently used beyond --max-graphs " +
                 std::to_string(h.max_graphs) + ")");
    for (const auto& host : hosts) self->send(host, unload_atom::value, key);
  }
}

// Asks every worker that lacks the graph to load it; throws when one cannot. The spec counts
// as used until the caller releases `key`.
void load_on_workers(head_context& h, const std::string& key, const value& spec) {
  auto lacking = h.workers.acquire(key, spec);
  caf::scoped_actor self{*h.sys};
  evict_graphs(h, self);  // first: a worker then never holds more than it must
  for (auto& [id, w] : lacking) {
    std::string failure;
    self->request(w.host, answer_timeout, load_atom::value, graph_load{key, spec})
        .receive(
            [&](graph_hosts& hosts) {
              if (!hosts.error.empty())
                failure = hosts.error;
              else
                h.workers.set_hosts(id, key, hosts);
            },
            [&](caf::error& e) { failure = "no answer (" + h.sys->render(e) + ")"; });
    if (!failure.empty())
      throw error(error_code::unavailable,
                  "worker " + w.name + " cannot load the graph: " + failure);
  }
}

// Loads the graph here and on the workers; its key goes to `held` (released by the caller).
cluster::loaded_graph load_graph(head_context& h, const value& spec, runtime_options options,
                                 std::vector<std::string>& held) {
  std::string text = spec.to_json();
  std::string key = spec_key(text);
  auto dir = std::make_shared<cluster_directory>(h.workers, key, h.policy, h.spread_channels);
  options.runtime = h.rt;
  options.directory = dir;
  cluster::loaded_graph g = cluster::load_graph(spec, *h.registry, std::move(options));
  dir->bind(spec, g.graph->graph());
  held.push_back(key);
  load_on_workers(h, key, spec);
  return g;
}

// The specs a command used are no longer in use by it.
void release_graphs(head_context& h, const std::vector<std::string>& held) {
  for (const auto& key : held) h.workers.release(key);
  caf::scoped_actor self{*h.sys};
  evict_graphs(h, self);
}

// Runs a client's command (on a thread of the request pool), sending its lines back to the
// client. The command comes as typed fields: nothing here parses arguments or opens a file
// the client names.
// What a run's coordinator exchanged with workers, as the head's wire counters moved during
// the run (runs at the same time add theirs).
std::string traffic_since(const actors::wire_traffic& a) {
  const actors::wire_traffic b = actors::traffic();
  return std::to_string(b.batches_out - a.batches_out) + " task batches out (" +
         std::to_string(b.batch_bytes_out - a.batch_bytes_out) + " bytes), " +
         std::to_string(b.results_in - a.results_in) + " results in (" +
         std::to_string(b.result_bytes_in - a.result_bytes_in) + " bytes), " +
         std::to_string(b.writes_in - a.writes_in) + " pending writes in (" +
         std::to_string(b.write_bytes_in - a.write_bytes_in) + " bytes), " +
         std::to_string(b.chunks_in - a.chunks_in) + " stream events in (" +
         std::to_string(b.chunk_bytes_in - a.chunk_bytes_in) + " bytes), " +
         std::to_string(b.channel_out - a.channel_out) + " channel messages out (" +
         std::to_string(b.channel_bytes_out - a.channel_bytes_out) + " bytes), " +
         std::to_string(b.channel_in - a.channel_in) + " channel messages in (" +
         std::to_string(b.channel_bytes_in - a.channel_bytes_in) + " bytes)";
}

// The spec of the graph a request names (--serve), or the one it sent.
std::optional<value> spec_of(const head_context& h, const client_request& req) {
  if (req.graph.empty()) return req.spec;
  auto it = h.served.find(req.graph);
  if (it != h.served.end()) return it->second;
  std::string names;
  for (const auto& [name, spec] : h.served) names += (names.empty() ? "" : ", ") + name;
  throw error(error_code::not_found,
              "this head serves no graph '" + req.graph + "' (" +
                  (names.empty() ? std::string("it serves none") : "it serves " + names) + ")");
}

// What a request asks, for the log of --log-requests: its kind, thread, graph and the fields
// a remote_graph sends (config, context, stream modes, headers).
std::string describe_request(const client_request& req) {
  const cli::thread_args* where = cli::where_of(req.cmd);
  std::string out = std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, cli::run_args>) {
          list modes;
          for (auto m : a.modes) modes.emplace_back(std::string(stream_mode_name(m)));
          return "run" +
                 std::string(a.input    ? " with input"
                             : a.resume ? " with resume"
                                        : "") +
                 " config " + a.config.to_json() + " context " + a.context.to_json() + " stream " +
                 value(std::move(modes)).to_json() + (a.subgraphs ? " subgraphs" : "") +
                 (a.run_id.empty() ? "" : " id '" + a.run_id + "'");
        } else if constexpr (std::is_same_v<A, cli::state_args>) {
          return "state checkpoint '" + a.checkpoint + "'" + (a.subgraphs ? " subgraphs" : "");
        } else if constexpr (std::is_same_v<A, cli::history_args>) {
          return "history limit " + (a.limit ? std::to_string(*a.limit) : std::string("none")) +
                 " before '" + a.before + "' filter " + value(a.filter).to_json();
        } else if constexpr (std::is_same_v<A, cli::update_args>) {
          return "update as_node " + (a.as_node ? "'" + *a.as_node + "'" : std::string("none")) +
                 " checkpoint '" + a.checkpoint + "'";
        } else if constexpr (std::is_same_v<A, cli::graph_args>) {
          return "graph xray " + std::to_string(a.xray);
        } else if constexpr (std::is_same_v<A, cli::delete_args>) {
          return "delete";
        } else if constexpr (std::is_same_v<A, cli::cancel_args>) {
          return "cancel run '" + a.run_id + "'" + (a.wait ? " wait" : "");
        } else if constexpr (std::is_same_v<A, cli::threads_args>) {
          return "threads";
        } else {
          return "other";
        }
      },
      req.cmd);
  if (where) out += " thread '" + where->thread + "'";
  if (!req.graph.empty()) out += " graph '" + req.graph + "'";
  if (!req.headers.empty()) {
    object headers;
    for (const auto& [name, text] : req.headers) headers.set(name, text);
    out += " headers " + value(std::move(headers)).to_json();
  }
  return out;
}

// The graph's nodes and edges, as remote_graph::get_graph reads them.
int describe_graph(head_context& h, const cli::command_env& env, const cli::graph_args& a) {
  if (!env.spec_text) throw error(error_code::invalid_argument, "a graph request names no graph");
  cluster::loaded_graph g =
      cluster::load_graph(value::parse_json(*env.spec_text), *h.registry, runtime_options{});
  env.print(g.graph->get_graph(a.xray).to_json());
  return cli::exit_done;
}

// The engine's run id of a run request: the request's, else its config's "run_id", else a
// fresh one.
std::string run_id_of(const cli::run_args& run) {
  if (!run.run_id.empty()) return run.run_id;
  const value& given = run.config.get("run_id");
  return given.is_string() && !given.as_string().empty() ? given.as_string() : cli::new_thread_id();
}

// A client's cancel request (LangGraph's runs.cancel with wait=False), answered on the gate:
// the run named by thread and run id is asked to stop through its run_control (its running
// nodes finish or observe the cancellation, no new step starts, what it saved stays) and the
// answer goes out at once, before the run has ended. Any client let in may cancel a run whose
// thread and run id it names, as LangGraph's server lets any authorized caller.
void serve_cancel(head_context& h, const caf::actor& client, const client_request& req) {
  const auto& a = std::get<cli::cancel_args>(req.cmd);
  // With wait, the client is answered when the run ends.
  if (!h.run_ids.cancel(a.where.thread, a.run_id, "cancelled by a client's cancel request",
                        a.wait ? client : caf::actor())) {
    const std::string why = "thread '" + a.where.thread + "' has no run '" + a.run_id +
                            "' in progress on this head (it ended, or never started here)";
    if (req.typed_errors)
      caf::anon_send(client, failure_atom::value, static_cast<std::uint16_t>(error_code::not_found),
                     why);
    caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(cli::exit_failed), why);
    return;
  }
  spdlog::info("run {} of thread {} cancelled by a client", a.run_id, a.where.thread);
  if (!a.wait) answer_cancel(client, a.where.thread, a.run_id);
}

// `superstep threads --head`: the head's threads as `superstep threads` lists a folder's.
// Their graphs are loaded here only, to read their status: no worker needs them.
int list_head_threads(head_context& h, cli::command_env& env, const cli::threads_args& a) {
  env.load = [&h](const value& spec, runtime_options o) {
    return cluster::load_graph(spec, *h.registry, std::move(o));
  };
  return cli::list_threads(env, a);
}

void serve_request(head_context& h, const caf::actor& client, const client_request& req) {
  int status = cli::exit_failed;
  std::string failure;
  error_code failure_code = error_code::internal;
  std::vector<std::string> held;
  const cli::thread_args* where = cli::where_of(req.cmd);
  const std::string thread = where ? where->thread : std::string();
  const bool is_run = std::holds_alternative<cli::run_args>(req.cmd);
  const actors::wire_traffic traffic_before = actors::traffic();
  const std::uint64_t held_before = channels_held_as_versions();
  const auto started = std::chrono::steady_clock::now();
  // The steps the run went through, as its progress reports them.
  std::int64_t steps = 0, last_step = -2;
  if (is_run) {
    std::lock_guard lock(h.runs_m);
    h.runs.insert(thread);
  }
  if (is_run)
    spdlog::info("run of thread {} started ({})", thread,
                 !req.graph.empty() ? "graph '" + req.graph + "'"
                 : req.spec         ? "a spec sent by the client"
                                    : "the thread's saved spec");
  try {
    cli::command_env env{*h.data, *h.registry, [&](const value& v) {
                           caf::anon_send(client, line_atom::value, v.to_json());
                         }};
    env.load = [&](const value& spec, runtime_options o) { return load_graph(h, spec, o, held); };
    if (auto spec = spec_of(h, req)) env.spec_text = spec->to_json();
    auto last = std::chrono::steady_clock::now();
    env.progress = [&](std::int64_t step, std::size_t done, std::size_t total) {
      if (step != last_step) ++steps, last_step = step;
      auto now = std::chrono::steady_clock::now();
      if (done != total && now - last < std::chrono::milliseconds(200)) return;
      last = now;
      caf::anon_send(client, progress_atom::value, step, static_cast<std::uint64_t>(done),
                     static_cast<std::uint64_t>(total));
    };
    env.stop = [&h] { return h.stopping.load(); };
    cli::command cmd = req.cmd;
    std::optional<run_registry::registration> registered;
    if (auto* run = std::get_if<cli::run_args>(&cmd)) {
      run->config = run_config_with_headers(run->config, req.headers);
      run->run_id = run_id_of(*run);
      registered.emplace(h.run_ids, thread, run->run_id);
      env.control = registered->control();
    }
    env.note = [&](const std::string& text) {
      spdlog::warn(text);
      caf::anon_send(client, note_atom::value, text);
    };
    status = std::visit(
        [&](const auto& a) -> int {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, cli::run_args>)
            return cli::run_graph(env, a);
          else if constexpr (std::is_same_v<A, cli::state_args>)
            return cli::show_state(env, a);
          else if constexpr (std::is_same_v<A, cli::history_args>)
            return cli::show_history(env, a);
          else if constexpr (std::is_same_v<A, cli::update_args>)
            return cli::update_state(env, a);
          else if constexpr (std::is_same_v<A, cli::delete_args>)
            return cli::delete_thread(env, a);
          else if constexpr (std::is_same_v<A, cli::graph_args>)
            return describe_graph(h, env, a);
          else if constexpr (std::is_same_v<A, cli::threads_args>)
            return list_head_threads(h, env, a);
          else
            throw cli::usage_error(
                "a head runs run, state, history, update, delete, graph, cancel and threads");
        },
        cmd);
  } catch (const cli::usage_error& e) {
    status = cli::exit_usage;
    failure = e.what();
    failure_code = error_code::invalid_argument;
  } catch (const std::exception& e) {
    status = cli::exit_failed;
    failure = e.what();
    if (const auto* se = dynamic_cast<const error*>(&e)) failure_code = se->code();
    if (is_run && h.stopping) {
      failure = "head shutting down: " + failure + " ('superstep submit --thread " + thread +
                "' continues it once a head is back)";
      spdlog::warn("run of thread " + thread + " stopped by the shutdown: " + e.what());
    }
  }
  if (is_run) {
    std::lock_guard lock(h.runs_m);
    h.runs.erase(h.runs.find(thread));
  }
  if (is_run) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (failure.empty())
      // The wire counters first: the cluster benchmark reads them after " ended: ".
      spdlog::info(
          "run of thread {} ended: {}, {} channels held as versions; {} after {} step{} "
          "in {:.3f} s",
          thread, traffic_since(traffic_before), channels_held_as_versions() - held_before,
          status == cli::exit_interrupted ? "interrupted" : "done", steps, steps == 1 ? "" : "s",
          seconds);
    else
      spdlog::error("run of thread {} failed after {} step{} in {:.3f} s: {}", thread, steps,
                    steps == 1 ? "" : "s", seconds, failure);
  }
  release_graphs(h, held);
  if (req.typed_errors && !failure.empty())
    caf::anon_send(client, failure_atom::value, static_cast<std::uint16_t>(failure_code), failure);
  caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(status), failure);
}

// Queues a client's command on the request pool; the refusal when it cannot be taken (the
// pool is full, or the head is stopping).
std::optional<std::string> queue_request(head_context& h, caf::actor client, client_request req) {
  if (!req.malformed.empty()) return req.malformed;
  if (h.stopping) return std::string("head shutting down");
  auto shared =
      std::make_shared<std::pair<caf::actor, client_request>>(std::move(client), std::move(req));
  return h.requests->submit(request_pool::job{
      [&h, shared] {
        serve_request(h, shared->first, shared->second);
        shared->first = caf::actor();  // released before the head may shut its system down
      },
      [shared](const std::string& why) {
        caf::anon_send(shared->first, finished_atom::value,
                       static_cast<std::int32_t>(cli::exit_failed), why);
        shared->first = caf::actor();
      }});
}

struct gate_state {
  head_context* h = nullptr;
  std::map<caf::node_id, std::string> nonces;
  std::set<caf::node_id> admitted;
};

using gate_actor = caf::stateful_actor<gate_state>;

// Whether the current message comes from a process that proved it has the key.
bool admitted(gate_actor* self) {
  const auto& sender = self->current_sender();
  if (!sender) return false;
  if (!self->state.h->key || sender->node() == self->node()) return true;
  return self->state.admitted.count(sender->node()) > 0;
}

caf::node_id sender_node(gate_actor* self) {
  const auto& sender = self->current_sender();
  return sender ? sender->node() : caf::node_id{};
}

// Sends every graph the head knows to a worker that just joined.
void load_all(gate_actor* self, const caf::actor& host, const std::string& name) {
  head_context& h = *self->state.h;
  for (auto& [key, spec] : h.workers.specs()) {
    auto id = host.address();
    self->request(host, answer_timeout, load_atom::value, graph_load{key, spec})
        .then(
            [&h, id, key = key, name](graph_hosts& hosts) {
              if (hosts.error.empty())
                h.workers.set_hosts(id, key, hosts);
              else
                spdlog::error("worker " + name + " cannot load graph " + key + ": " + hosts.error);
            },
            [name](caf::error&) { spdlog::warn("worker " + name + " did not load a graph"); });
  }
}

caf::behavior gate(gate_actor* self, head_context* h) {
  self->state.h = h;
  self->set_down_handler([self](caf::down_msg& msg) {
    if (auto name = self->state.h->workers.remove(msg.source))
      spdlog::info("worker " + *name + " left (" + self->system().render(msg.reason) + ")");
  });
  // Messages of unknown types (or from a newer protocol) are dropped, not fatal.
  self->set_default_handler(caf::drop);
  // The gate is linked to nothing: the only exit it obeys is the head's own shutdown. Any
  // other would leave every client with request_receiver_down until a restart.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    if (msg.reason == caf::exit_reason::user_shutdown) {
      self->quit(msg.reason);
      return;
    }
    spdlog::warn("the gate ignored an exit message (" + self->system().render(msg.reason) + ")");
  });
  return {
      [self](hello_atom) -> std::string {
        std::string nonce = make_nonce();
        self->state.nonces[sender_node(self)] = nonce;
        return nonce;
      },
      [self](prove_atom, const std::string& proof) -> bool {
        auto& st = self->state;
        if (!st.h->key) return true;
        auto node = sender_node(self);
        auto it = st.nonces.find(node);
        bool ok = it != st.nonces.end() && verify(*st.h->key, it->second, proof);
        if (it != st.nonces.end()) st.nonces.erase(it);
        if (ok) {
          st.admitted.insert(node);
        } else {
          spdlog::warn("refused " + peer_name(node) + ": it does not have the cluster's key");
        }
        return ok;
      },
      [self](offer_atom, worker_offer& offer) -> bool {
        if (!admitted(self)) {
          spdlog::warn("ignored a worker that did not prove the key");
          return false;
        }
        if (!offer.host) return false;
        self->monitor(offer.host);
        std::string name = offer.name.empty() ? peer_name(sender_node(self)) : offer.name;
        spdlog::info("worker " + name + " joined (" + std::to_string(offer.functions.size()) +
                     " functions, " + std::to_string(offer.threads) + " threads)");
        worker_record w{name,
                        offer.host,
                        std::set<std::string>(offer.functions.begin(), offer.functions.end()),
                        {}};
        self->state.h->workers.add(offer.host.address(), std::move(w));
        load_all(self, offer.host, name);
        return true;
      },
      // A node on a worker using the store: run on the head's (the data folder's) store.
      // The runner answers the sender itself.
      [self](store_atom, const std::string& op, const value& args) -> caf::result<value> {
        if (!admitted(self))
          return store_error_answer(error(error_code::unauthorized, "not admitted"));
        self->delegate(least_busy_store_runner(*self->state.h), store_atom::value, op, args);
        return caf::delegated<value>{};
      },
      // The answer is empty when the command was taken, else why not.
      [self](request_atom, client_request& req) -> std::string {
        if (!admitted(self)) {
          spdlog::warn("ignored a request from a client that did not prove the key");
          return "not admitted: prove the cluster's key first";
        }
        auto client = caf::actor_cast<caf::actor>(self->current_sender());
        if (!client) return "no client to answer";
        // Logged before the client hears that the request was taken.
        if (self->state.h->log_requests && req.malformed.empty())
          spdlog::info("request: " + describe_request(req));
        if (req.malformed.empty() && std::holds_alternative<cli::cancel_args>(req.cmd)) {
          // Not queued: a cancel must reach a run even when every request thread is busy.
          serve_cancel(*self->state.h, client, req);
          return {};
        }
        auto refusal = queue_request(*self->state.h, std::move(client), std::move(req));
        if (!refusal) return {};
        spdlog::warn("refused a request: " + *refusal);
        return *refusal;
      },
  };
}

// The head holds a descriptor per link and per database file: use the hard limit.
void raise_descriptor_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
}

}  // namespace

int run_head(const cli::head_args& args, const cluster::function_registry& registry) {
  install_stop_handlers();
  actors::on_protocol_error(
      [](const std::string& why) { spdlog::warn("refused a malformed message: " + why); });
  head_context h;
  if (!args.key_file.empty()) h.key = read_key_file(args.key_file);
  cluster::function_registry head_registry = registry;
  head_registry.allow_missing(true);
  h.registry = &head_registry;
  h.policy.wait = std::chrono::seconds(args.worker_wait);
  h.max_graphs = args.max_graphs;
  h.spread_channels = args.spread_channels;
  h.log_requests = args.log_requests;
  for (const auto& [name, path] : args.served) {
    value spec = cluster::read_spec_file(path);  // names the file
    try {
      (void)cluster::load_graph(spec, head_registry, runtime_options{});  // fails here, not later
    } catch (const error& e) {
      throw error(e.code(), "--serve " + name + "=" + path + ": " + e.what());
    }
    h.served[name] = std::move(spec);
  }
  cli::data_dir data(args.data_dir, args.fsync, cli::store_index(args.embedder, registry), false,
                     args.saver);
  h.data = &data;
  h.rt = std::make_shared<actors::runtime>(cluster_runtime(args.threads));
  auto& sys = h.rt->internals().system;
  raise_descriptor_limit();
  link_options links;
  links.key = h.key;
  links.tls = args.tls;
  links.log = [](const std::string& text) { spdlog::warn(text); };
  links.max_connections = args.limits.max_connections;
  links.max_pending = args.limits.max_pending;
  links.handshake_timeout = std::chrono::milliseconds(args.limits.handshake_timeout_ms);
  links.max_frame = std::uint64_t{args.limits.max_frame_mb} << 20;
  link_transport transport(sys, std::move(links));
  h.sys = &sys;
  h.store_queued = std::make_unique<std::atomic<int>[]>(store_threads);
  for (std::size_t i = 0; i < store_threads; ++i) {
    h.store_queued[i] = 0;
    h.store_ops.push_back(sys.spawn<caf::detached>(store_op_runner, &h, i));
  }
  const auto stop_store_runners = [&] {
    caf::scoped_actor self{sys};
    for (auto& r : h.store_ops) self->send_exit(r, caf::exit_reason::user_shutdown);
    for (auto& r : h.store_ops) self->wait_for(r);
  };
  h.requests = std::make_unique<request_pool>(args.request_threads, args.request_queue);
  auto g = sys.spawn(gate, &h);
  auto port = transport.publish(g, args.host, args.port);
  if (!port) {
    caf::anon_send_exit(g, caf::exit_reason::user_shutdown);
    stop_store_runners();
    throw error(error_code::invalid_argument, "cannot listen on " + args.host + ":" +
                                                  std::to_string(args.port) + ": " +
                                                  sys.render(port.error()));
  }
  spdlog::info("listening on " + args.host + ":" + std::to_string(*port) + " (data " +
               args.data_dir +
               (args.saver.empty() ? "" : ", checkpoints " + data.checkpoints_place()) +
               ", links: " + transport.describe() +
               (h.key ? ")" : "; without a key, anyone who reaches the port may join)"));
  while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Stopping: the gate stays up (workers' store calls and clients' answers go on) but takes
  // no new command; waiting ones are refused; runs stop once their current step is saved.
  spdlog::info("stopping: new commands are refused; waiting up to " +
               std::to_string(args.shutdown_wait) + " s for running commands");
  h.stopping = true;
  h.requests->stop("head shutting down");
  const bool drained = h.requests->wait_idle(std::chrono::seconds(args.shutdown_wait));
  {
    // Once the gate is gone no store call can start; then the running ones are counted.
    caf::scoped_actor self{sys};
    self->send_exit(g, caf::exit_reason::user_shutdown);
    self->wait_for(g);
  }
  // A store operation still going (an embedder waiting on its endpoint) has written nothing.
  const auto store_busy = [&] {
    int n = 0;
    for (std::size_t i = 0; i < h.store_ops.size(); ++i) n += h.store_queued[i].load();
    return n;
  };
  for (int i = 0; i < 20 && store_busy() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!drained || store_busy() > 0) {
    if (!drained) {
      std::string threads;
      {
        std::lock_guard lock(h.runs_m);
        for (const auto& t : h.runs) threads += (threads.empty() ? "" : ", ") + t;
      }
      spdlog::warn(std::to_string(h.requests->running()) +
                   " commands still running were interrupted" +
                   (threads.empty() ? "" : " (runs of threads " + threads + ")") +
                   "; each thread resumes from its last checkpoint when run again");
    }
    if (store_busy() > 0)
      spdlog::warn(std::to_string(store_busy()) + " store operations interrupted");
    std::fflush(nullptr);
    std::_Exit(0);
  }
  h.requests.reset();
  spdlog::info("stopped");
  stop_store_runners();
  return 0;
}

}  // namespace superstep::net
