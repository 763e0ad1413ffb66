// `superstep head`: the gate actor that workers and clients talk to, the store operations it
// hands to their own threads, and the head's start and shutdown. Clients' commands are served
// in head/requests.cpp.
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <caf/io/middleman.hpp>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "head/head_context.hpp"
#include "head/request_pool.hpp"
#include "head/run_registry.hpp"
#include "head/worker_registry.hpp"
#include "net/auth.hpp"
#include "net/headers.hpp"
#include "net/protocol.hpp"
#include "net/remote_store.hpp"
#include "net/transport.hpp"
#include "server/api_server.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/node_directory.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_counters.hpp"

namespace superstep::net {

namespace {

constexpr std::size_t store_threads = 4;

// Runs store operations for the gate (detached: blocking here holds up no other actor).
store_runner_actor::behavior_type store_op_runner(store_runner_actor::pointer, head_context* h,
                                                  std::size_t index) {
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
const store_runner_actor& least_busy_store_runner(head_context& h) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < h.store_ops.size(); ++i)
    if (h.store_queued[i].load() < h.store_queued[best].load()) best = i;
  ++h.store_queued[best];
  return h.store_ops[best];
}

std::string peer_name(const caf::node_id& n) { return caf::to_string(n).substr(0, 12); }

struct gate_state {
  head_context* h = nullptr;
  std::map<caf::node_id, std::string> nonces;
  std::set<caf::node_id> admitted;
};

using gate_self = gate_actor::stateful_pointer<gate_state>;

// Whether the current message comes from a process that proved it has the key.
bool admitted(gate_self self) {
  const auto& sender = self->current_sender();
  if (!sender) return false;
  if (!self->state.h->key || sender->node() == self->node()) return true;
  return self->state.admitted.count(sender->node()) > 0;
}

caf::node_id sender_node(gate_self self) {
  const auto& sender = self->current_sender();
  return sender ? sender->node() : caf::node_id{};
}

// Sends every graph the head knows to a worker that just joined.
void load_all(gate_self self, const host_actor& host, const std::string& name) {
  head_context& h = *self->state.h;
  for (auto& [key, spec] : h.workers.specs()) {
    auto id = host.address();
    self->request(host, answer_timeout, load_atom::value, graph_load{key, spec})
        .then(
            [&h, id, key = key, name](graph_hosts& hosts) {
              if (hosts.error.empty())
                h.workers.set_hosts(id, key, hosts);
              else
                h.log.error("worker " + name + " cannot load graph " + key + ": " + hosts.error);
            },
            [&h, name](caf::error&) { h.log.warn("worker " + name + " did not load a graph"); });
  }
}

gate_actor::behavior_type gate(gate_self self, head_context* h) {
  self->state.h = h;
  self->set_down_handler([self](caf::down_msg& msg) {
    if (auto name = self->state.h->workers.remove(msg.source))
      self->state.h->log.info("worker " + *name + " left (" + self->system().render(msg.reason) +
                              ")");
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
    self->state.h->log.warn("the gate ignored an exit message (" +
                            self->system().render(msg.reason) + ")");
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
          self->state.h->log.warn("refused " + peer_name(node) +
                                  ": it does not have the cluster's key");
        }
        return ok;
      },
      [self](offer_atom, worker_offer& offer) -> bool {
        if (!admitted(self)) {
          self->state.h->log.warn("ignored a worker that did not prove the key");
          return false;
        }
        host_actor host = host_of(offer);
        if (!host) return false;
        self->monitor(host);
        std::string name = offer.name.empty() ? peer_name(sender_node(self)) : offer.name;
        self->state.h->log.info("worker " + name + " joined (" +
                                std::to_string(offer.functions.size()) + " functions, " +
                                std::to_string(offer.threads) + " threads)");
        worker_record w{
            name, host, std::set<std::string>(offer.functions.begin(), offer.functions.end()), {}};
        self->state.h->workers.add(host.address(), std::move(w));
        load_all(self, host, name);
        return true;
      },
      // A node on a worker using the store: run on the head's (the data folder's) store.
      // The runner answers the sender itself.
      [self](store_atom, const std::string& op, const value& args) -> caf::result<value> {
        if (!admitted(self))
          return store_error_answer(error(error_code::unauthorized, "not admitted"));
        return self->delegate(least_busy_store_runner(*self->state.h), store_atom::value, op, args);
      },
      // The answer is empty when the command was taken, else why not.
      [self](request_atom, client_request& req) -> std::string {
        if (!admitted(self)) {
          self->state.h->log.warn("ignored a request from a client that did not prove the key");
          return "not admitted: prove the cluster's key first";
        }
        auto client = caf::actor_cast<caf::actor>(self->current_sender());
        if (!client) return "no client to answer";
        // Logged before the client hears that the request was taken.
        if (self->state.h->log_requests && req.malformed.empty())
          self->state.h->log.info("request: " + describe_request(req));
        if (req.malformed.empty() && std::holds_alternative<cancel_args>(req.cmd)) {
          // Not queued: a cancel must reach a run even when every request thread is busy.
          serve_cancel(*self->state.h, client, req);
          return {};
        }
        auto refusal = queue_request(*self->state.h, std::move(client), std::move(req));
        if (!refusal) return {};
        self->state.h->log.warn("refused a request: " + *refusal);
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

int run_head(const head_args& args, const cluster::function_registry& registry,
             head_services services) {
  install_stop_handlers();
  head_context h;
  h.log.sink = std::move(services.log);
  actors::on_protocol_error(
      [log = h.log](const std::string& why) { log.warn("refused a malformed message: " + why); });
  if (!args.key_file.empty()) h.key = read_key_file(args.key_file);
  cluster::function_registry head_registry = registry;
  head_registry.allow_missing(true);
  h.registry = &head_registry;
  h.policy.wait = std::chrono::seconds(args.worker_wait);
  h.policy.task_loss_limit = args.task_loss_limit;
  h.max_graphs = args.max_graphs;
  h.spread_channels = args.spread_channels;
  h.coordinator_channels = args.coordinator_channels;
  h.log_requests = args.log_requests;
  // The graphs served by name: --serve's and --config's (whose plugins load here first).
  server::server_config api_config =
      server::serve_config(args.config_path, {}, "--serve", head_registry);
  for (const auto& [name, path] : args.served) {
    value spec = cluster::read_spec_file(path);  // names the file
    try {
      (void)cluster::load_graph(spec, head_registry, runtime_options{});  // fails here, not later
    } catch (const error& e) {
      throw error(e.code(), "--serve " + name + "=" + path + ": " + e.what());
    }
    if (api_config.graphs.count(name))
      throw error(error_code::invalid_argument, "--serve " + name + ": " + api_config.source +
                                                    " names a graph '" + name + "' too");
    h.served[name] = std::move(spec);
  }
  for (const auto& [name, spec] : api_config.graphs) {
    try {
      (void)cluster::load_graph(spec, head_registry, runtime_options{});
    } catch (const error& e) {
      throw error(e.code(), api_config.source + ": graph '" + name + "': " + e.what());
    }
    h.served[name] = spec;
  }
  api_config.graphs = h.served;
  if (args.http && api_config.graphs.empty())
    throw error(error_code::invalid_argument,
                "head --http: no graphs to serve: give --config superstep.json or --serve "
                "NAME=GRAPH.json");
  ops::data_dir data(args.data_dir, {.fsync = args.fsync,
                                     .index = ops::store_index(args.embedder, head_registry),
                                     .saver_url = args.saver,
                                     .serde = services.serde});
  h.data = &data;
  h.rt = std::make_shared<actors::runtime>(cluster_runtime(args.threads));
  auto& sys = h.rt->internals().system;
  raise_descriptor_limit();
  link_options links;
  links.key = h.key;
  links.tls = args.tls;
  links.log = [log = h.log](const std::string& text) { log.warn(text); };
  links.max_connections = args.limits.max_connections;
  links.max_pending = args.limits.max_pending;
  links.handshake_timeout = std::chrono::milliseconds(args.limits.handshake_timeout_ms);
  links.max_frame = std::uint64_t{args.limits.max_frame_mb} << 20;
  link_transport transport(sys, std::move(links));
  h.sys = &sys;
  h.transport = &transport;
  h.client_backlog = std::size_t{args.limits.client_backlog_mb} << 20;
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
  h.commands =
      std::make_unique<request_pool>(args.command_threads, args.command_queue, "other commands");
  // The LangGraph Server API (--http), as `superstep serve` serves it, its graphs loaded here
  // and on the workers as clients' graphs are, each held while the service keeps it. Made
  // before the gate listens (a graph that does not load stops the head now), it takes
  // requests once the gate does.
  std::unique_ptr<server::api_server> api;
  if (args.http)
    api = std::make_unique<server::api_server>(
        api_config, data, head_registry,
        server::api_server_options{
            .host = args.http_host,
            .port = args.http_port,
            .run_threads = args.run_threads,
            .serde = services.serde,
            .log = [log = h.log](const std::string& line) { log.info(line); },
            .load = [&h](const value& spec,
                         runtime_options o) { return load_held_graph(h, spec, std::move(o)); }});
  auto g = sys.spawn(gate, &h);
  auto port = transport.publish(caf::actor_cast<caf::actor>(g), args.host, args.port);
  if (!port) {
    caf::anon_send_exit(g, caf::exit_reason::user_shutdown);
    stop_store_runners();
    throw error(error_code::invalid_argument, "cannot listen on " + args.host + ":" +
                                                  std::to_string(args.port) + ": " +
                                                  sys.render(port.error()));
  }
  h.log.info("listening on " + args.host + ":" + std::to_string(*port) + " (data " + args.data_dir +
             (args.saver.empty() ? "" : ", checkpoints " + data.checkpoints_place()) +
             ", links: " + transport.describe() +
             (h.key ? ")" : "; without a key, anyone who reaches the port may join)"));
  std::thread api_loop;
  if (api) {
    api_loop = std::thread([&api] { api->run(); });
    h.log.info(api->listening());
  }
  while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Stopping: the gate stays up (workers' store calls and clients' answers go on) but takes
  // no new command; waiting ones are refused; runs stop once their current step is saved.
  h.log.info("stopping: new commands are refused; waiting up to " +
             std::to_string(args.shutdown_wait) + " s for running commands");
  h.stopping = true;
  h.requests->stop("head shutting down");
  h.commands->stop("head shutting down");
  // The HTTP API takes no more requests; its runs stop once their current step is saved,
  // within the same wait as the clients' (its service is gone once they have).
  std::future<void> api_down;
  std::thread api_stopper;
  if (api) {
    api->stop();
    api_loop.join();
    std::packaged_task<void()> down([&api] { api->shutdown(); });
    api_down = down.get_future();
    api_stopper = std::thread(std::move(down));
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(args.shutdown_wait);
  const auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::max(until - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration{}));
  };
  bool drained = h.requests->wait_idle(left());
  drained = h.commands->wait_idle(left()) && drained;
  const bool api_drained = !api || api_down.wait_for(left()) == std::future_status::ready;
  if (api_drained && api) {
    api_stopper.join();
    api.reset();  // releases its graphs while the actor system is up
  }
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
  if (!drained || !api_drained || store_busy() > 0) {
    if (!api_drained)
      h.log.warn(
          "the HTTP API's runs did not stop in time; each thread resumes from its last "
          "checkpoint when the head is back");
    if (!drained) {
      std::string threads;
      {
        std::lock_guard lock(h.runs_m);
        for (const auto& t : h.runs) threads += (threads.empty() ? "" : ", ") + t;
      }
      h.log.warn(std::to_string(h.requests->running() + h.commands->running()) +
                 " commands still running were interrupted" +
                 (threads.empty() ? "" : " (runs of threads " + threads + ")") +
                 "; each thread resumes from its last checkpoint when run again");
    }
    if (store_busy() > 0)
      h.log.warn(std::to_string(store_busy()) + " store operations interrupted");
    std::fflush(nullptr);
    std::_Exit(0);
  }
  h.requests.reset();
  h.commands.reset();
  h.log.info("stopped");
  stop_store_runners();
  return 0;
}

}  // namespace superstep::net
