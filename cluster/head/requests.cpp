// The head's serving of clients' commands: loading their graphs here and on the workers,
// running them on the request pool's threads and answering cancel requests.
#include <algorithm>
#include <chrono>
#include <set>

#include "fmt/format.h"
#include "head/head_context.hpp"
#include "net/auth.hpp"
#include "net/headers.hpp"
#include "net/remote_store.hpp"
#include "net/transport.hpp"
#include "superstep/actors/node_directory.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/cluster/std_library.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_counters.hpp"

namespace superstep::net {

namespace {

// The directory of one loaded graph: nodes running subgraphs stay on the head, and so does
// the input node when the head has its routers; every other node runs on the workers that
// loaded the graph and host the node.
class cluster_directory final : public actors::node_directory {
 public:
  // `preference`: where in the list of a node's actors this instance starts looking for an
  // idle one (a coordinator takes the first of its least loaded).
  cluster_directory(worker_registry& workers, std::string key, actors::dispatch_policy policy,
                    bool spread_channels, std::size_t preference = 0)
      : workers_(workers),
        key_(std::move(key)),
        policy_(policy),
        spread_(spread_channels),
        preference_(preference) {}

  void bind(const value& spec, const pregel_graph& g, const cluster::function_registry& here) {
    auto fns = cluster::functions_by_node(spec);
    for (const auto& n : g.nodes) {
      auto f = fns.find(n.name);
      std::set<std::string> code = f == fns.end() ? std::set<std::string>{} : f->second;
      local_.push_back(code.count("graph") > 0 ||
                       (n.name == superstep::START && routes_here(code, here)));
      names_.push_back(n.name);
      code_.push_back(std::move(code));
    }
  }

  // The input node writes the input and routes: no user code, unless a router is the user's.
  // With the std library's routers (or none), it runs where the run is coordinated: what it
  // writes goes to the channels from there (a fan-out's Sends to the tasks topic, which the
  // coordinator plans from, staying in this process instead of coming back from a worker).
  static bool routes_here(const std::set<std::string>& code,
                          const cluster::function_registry& here) {
    return std::all_of(code.begin(), code.end(), [&](const std::string& c) {
      return cluster::is_std_name(c) && here.has_router(c);
    });
  }

  std::optional<std::vector<actors::node_actor>> instances(std::uint32_t node) override {
    if (node < local_.size() && local_[node]) return std::nullopt;
    auto found = workers_.instances(key_, node);
    if (!found.empty())
      std::rotate(found.begin(),
                  found.begin() + static_cast<std::ptrdiff_t>(preference_ % found.size()),
                  found.end());
    return found;
  }

  std::string unavailable(std::uint32_t node) const override {
    std::string what = node < names_.size() ? "node '" + names_[node] + "'" : "a node";
    std::string code;
    if (node < code_.size())
      for (const auto& c : code_[node]) code += (code.empty() ? "" : ", ") + c;
    return "no connected worker can run " + what + (code.empty() ? "" : " (it needs " + code + ")");
  }

  actors::dispatch_policy policy() const override { return policy_; }

  std::vector<actors::channel_host> channel_hosts() override {
    if (!spread_) return {};
    auto hosts = workers_.hosts_of(key_);
    return std::vector<actors::channel_host>(hosts.begin(), hosts.end());
  }
  std::string graph_key() const override { return key_; }

  bool claim_host(const caf::node_id& host) override { return workers_.claim_host(host); }
  void release_host(const caf::node_id& host) override { workers_.release_host(host); }

 private:
  worker_registry& workers_;
  std::string key_;
  actors::dispatch_policy policy_;
  bool spread_;
  std::size_t preference_;
  std::vector<bool> local_;
  std::vector<std::string> names_;
  std::vector<std::set<std::string>> code_;
};

// Forgets the specs past --max-graphs that no run uses, least recently used first, and tells
// the workers to unload them. A later load of the same spec is sent after (the registry's
// lock orders them) over the same connection to the worker, so it arrives after the unload.
void evict_graphs(head_context& h, caf::scoped_actor& self) {
  auto [gone, hosts] = h.workers.evict(h.max_graphs);
  for (const auto& key : gone) {
    h.log.info("unloaded graph " + key + " (the least recently used beyond --max-graphs " +
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
// `preference`: the directory's (cluster_directory).
cluster::loaded_graph load_graph(head_context& h, const value& spec, runtime_options options,
                                 std::vector<std::string>& held, std::size_t preference = 0) {
  std::string text = spec.to_json();
  std::string key = spec_key(text);
  auto dir =
      std::make_shared<cluster_directory>(h.workers, key, h.policy, h.spread_channels, preference);
  options.driver = make_actor_driver({h.rt, dir, !h.coordinator_channels});
  cluster::loaded_graph g = cluster::load_graph(spec, *h.registry, std::move(options));
  dir->bind(spec, g.graph->graph(), *h.registry);
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

// A graph whose spec stays held as long as the graph lives: the last copy of its pointer
// releases the spec.
struct held_graph {
  head_context& h;
  std::shared_ptr<pregel> graph;
  std::vector<std::string> held;
  ~held_graph() { release_graphs(h, held); }
};

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

}  // namespace

cluster::loaded_graph load_held_graph(head_context& h, const value& spec, runtime_options options) {
  std::vector<std::string> held;
  // The instances kept of one spec each run one run at a time; the workers hold one set of
  // node actors per spec, each taking one batch at a time, and a run's coordinator balances
  // only its own batches. Each instance starts its choice of a node's actors one further
  // than the one before, so runs at once of one graph spread over the actors (and workers)
  // instead of queuing on the first; runs one after another reuse an instance, and its place.
  std::size_t preference = 0;
  {
    std::lock_guard lock(h.held_m);
    preference = h.held_instances[spec_key(spec.to_json())]++;
  }
  cluster::loaded_graph g;
  try {
    g = load_graph(h, spec, std::move(options), held, preference);
  } catch (...) {
    release_graphs(h, held);
    throw;
  }
  auto holder = std::make_shared<held_graph>(h, std::move(g.graph), std::move(held));
  g.graph = std::shared_ptr<pregel>(holder, holder->graph.get());
  return g;
}

std::string describe_request(const client_request& req) {
  const thread_args* where = where_of(req.cmd);
  std::string out = std::visit(
      [](const auto& a) -> std::string {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, run_args>) {
          list modes;
          for (auto m : a.modes) modes.emplace_back(std::string(stream_mode_name(m)));
          return "run" +
                 std::string(a.input    ? " with input"
                             : a.resume ? " with resume"
                                        : "") +
                 " config " + a.config.to_json() + " context " + a.context.to_json() + " stream " +
                 value(std::move(modes)).to_json() + (a.subgraphs ? " subgraphs" : "") +
                 (a.run_id.empty() ? "" : " id '" + a.run_id + "'");
        } else if constexpr (std::is_same_v<A, state_args>) {
          return "state checkpoint '" + a.checkpoint + "'" + (a.subgraphs ? " subgraphs" : "");
        } else if constexpr (std::is_same_v<A, history_args>) {
          return "history limit " + (a.limit ? std::to_string(*a.limit) : std::string("none")) +
                 " before '" + a.before + "' filter " + value(a.filter).to_json();
        } else if constexpr (std::is_same_v<A, update_args>) {
          return "update as_node " + (a.as_node ? "'" + *a.as_node + "'" : std::string("none")) +
                 " checkpoint '" + a.checkpoint + "'";
        } else if constexpr (std::is_same_v<A, graph_args>) {
          return "graph xray " + std::to_string(a.xray);
        } else if constexpr (std::is_same_v<A, delete_args>) {
          return "delete";
        } else if constexpr (std::is_same_v<A, cancel_args>) {
          return "cancel run '" + a.run_id + "'" + (a.wait ? " wait" : "");
        } else if constexpr (std::is_same_v<A, threads_args>) {
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

namespace {

// The graph's nodes and edges, as remote_graph::get_graph reads them.
int describe_graph(head_context& h, const ops::command_env& env, const graph_args& a) {
  if (!env.spec_text) throw error(error_code::invalid_argument, "a graph request names no graph");
  cluster::loaded_graph g =
      cluster::load_graph(value::parse_json(*env.spec_text), *h.registry, runtime_options{});
  env.print(g.graph->get_graph(a.xray).to_json());
  return exit_done;
}

// The engine's run id of a run request: the request's, else its config's "run_id", else a
// fresh one.
std::string run_id_of(const run_args& run) {
  if (!run.run_id.empty()) return run.run_id;
  const value& given = run.config.get("run_id");
  return given.is_string() && !given.as_string().empty() ? given.as_string() : ops::new_thread_id();
}

}  // namespace

void serve_cancel(head_context& h, const caf::actor& client, const client_request& req) {
  const auto& a = std::get<cancel_args>(req.cmd);
  // With wait, the client is answered when the run ends.
  if (!h.run_ids.cancel(a.where.thread, a.run_id, "cancelled by a client's cancel request",
                        a.wait ? client : caf::actor())) {
    const std::string why = "thread '" + a.where.thread + "' has no run '" + a.run_id +
                            "' in progress on this head (it ended, or never started here)";
    if (req.typed_errors)
      caf::anon_send(client, failure_atom::value, static_cast<std::uint16_t>(error_code::not_found),
                     why, std::string());
    caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(exit_failed), why);
    return;
  }
  h.log.info(fmt::format("run {} of thread {} cancelled by a client", a.run_id, a.where.thread));
  if (!a.wait) answer_cancel(client, a.where.thread, a.run_id);
}

namespace {

// `superstep threads --head`: the head's threads as `superstep threads` lists a folder's.
// Their graphs are loaded here only, to read their status: no worker needs them.
int list_head_threads(head_context& h, ops::command_env& env, const threads_args& a) {
  env.load = [&h](const value& spec, runtime_options o) {
    return cluster::load_graph(spec, *h.registry, std::move(o));
  };
  return ops::list_threads(env, a);
}

// Runs a client's command (on a thread of the request pool), sending its lines back to the
// client. The command comes as typed fields: nothing here parses arguments or opens a file
// the client names.
void serve_request(head_context& h, const caf::actor& client, const client_request& req) {
  int status = exit_failed;
  std::string failure;
  error_code failure_code = error_code::internal;
  std::string failure_payload;  // the JSON of what the error carries, if it carries something
  std::vector<std::string> held;
  const thread_args* where = where_of(req.cmd);
  const std::string thread = where ? where->thread : std::string();
  const bool is_run = std::holds_alternative<run_args>(req.cmd);
  const actors::wire_traffic traffic_before = actors::traffic();
  const std::uint64_t held_before = channels_held_as_versions();
  const auto started = std::chrono::steady_clock::now();
  // The steps the run went through, as its progress reports them.
  std::int64_t steps = 0, last_step = -2;
  if (is_run) {
    std::lock_guard lock(h.runs_m);
    h.runs.insert(thread);
  }
  // What the command prints goes back over the client's link: a client that stops reading
  // has its link closed once too much waits for it (--client-backlog), and the command goes
  // on without it (as when a client goes away), instead of the head holding every line.
  // Not a worker's link: those carry task batches.
  if (h.transport && h.client_backlog > 0 && !h.workers.on_process(client.node()))
    h.transport->limit_backlog(client.node(), h.client_backlog);
  if (is_run)
    h.log.info(fmt::format("run of thread {} started ({})", thread,
                           !req.graph.empty() ? "graph '" + req.graph + "'"
                           : req.spec         ? "a spec sent by the client"
                                              : "the thread's saved spec"));
  try {
    ops::command_env env{*h.data, *h.registry, [&](const value& v) {
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
    command cmd = req.cmd;
    std::optional<run_registry::registration> registered;
    if (auto* run = std::get_if<run_args>(&cmd)) {
      run->config = run_config_with_headers(run->config, req.headers);
      run->run_id = run_id_of(*run);
      registered.emplace(h.run_ids, thread, run->run_id);
      env.control = registered->control();
    }
    env.note = [&](const std::string& text) {
      h.log.warn(text);
      caf::anon_send(client, note_atom::value, text);
    };
    status = std::visit(
        [&](const auto& a) -> int {
          using A = std::decay_t<decltype(a)>;
          if constexpr (std::is_same_v<A, run_args>)
            return ops::run_graph(env, a);
          else if constexpr (std::is_same_v<A, state_args>)
            return ops::show_state(env, a);
          else if constexpr (std::is_same_v<A, history_args>)
            return ops::show_history(env, a);
          else if constexpr (std::is_same_v<A, update_args>)
            return ops::update_state(env, a);
          else if constexpr (std::is_same_v<A, delete_args>)
            return ops::delete_thread(env, a);
          else if constexpr (std::is_same_v<A, graph_args>)
            return describe_graph(h, env, a);
          else if constexpr (std::is_same_v<A, threads_args>)
            return list_head_threads(h, env, a);
          else
            throw usage_error(
                "a head runs run, state, history, update, delete, graph, cancel and threads");
        },
        cmd);
  } catch (const usage_error& e) {
    status = exit_usage;
    failure = e.what();
    failure_code = error_code::invalid_argument;
  } catch (const std::exception& e) {
    status = exit_failed;
    failure = e.what();
    if (const auto* se = dynamic_cast<const error*>(&e)) {
      failure_code = se->code();
      if (se->payload()) failure_payload = se->payload()->to_json();
    }
    if (is_run && h.stopping) {
      failure = "head shutting down: " + failure + " ('superstep submit --thread " + thread +
                "' continues it once a head is back)";
      h.log.warn("run of thread " + thread + " stopped by the shutdown: " + e.what());
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
      h.log.info(fmt::format(
          "run of thread {} ended: {}, {} channels held as versions; {} after {} step{} "
          "in {:.3f} s",
          thread, traffic_since(traffic_before), channels_held_as_versions() - held_before,
          status == exit_interrupted ? "interrupted" : "done", steps, steps == 1 ? "" : "s",
          seconds));
    else
      h.log.error(fmt::format("run of thread {} failed after {} step{} in {:.3f} s: {}", thread,
                              steps, steps == 1 ? "" : "s", seconds, failure));
  }
  release_graphs(h, held);
  if (req.typed_errors && !failure.empty())
    caf::anon_send(client, failure_atom::value, static_cast<std::uint16_t>(failure_code), failure,
                   failure_payload);
  caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(status), failure);
}

}  // namespace

std::optional<std::string> queue_request(head_context& h, caf::actor client, client_request req) {
  if (!req.malformed.empty()) return req.malformed;
  if (h.stopping) return std::string("head shutting down");
  const bool is_run = std::holds_alternative<run_args>(req.cmd);
  auto shared =
      std::make_shared<std::pair<caf::actor, client_request>>(std::move(client), std::move(req));
  request_pool& pool = is_run || !h.commands ? *h.requests : *h.commands;
  return pool.submit(request_pool::job{
      [&h, shared] {
        serve_request(h, shared->first, shared->second);
        shared->first = caf::actor();  // released before the head may shut its system down
      },
      [shared](const std::string& why) {
        caf::anon_send(shared->first, finished_atom::value, static_cast<std::int32_t>(exit_failed),
                       why);
        shared->first = caf::actor();
      }});
}

void answer_cancel(const caf::actor& client, const std::string& thread, const std::string& run) {
  caf::anon_send(client, line_atom::value,
                 value(object{{"thread", thread}, {"run", run}, {"cancelled", true}}).to_json());
  caf::anon_send(client, finished_atom::value, static_cast<std::int32_t>(exit_done), std::string());
}

}  // namespace superstep::net
