// `superstep worker`: joins a head, offers its node code, and hosts node actors for the
// graphs the head sends it: for each graph, `threads` actors per node it has the code of.
#include <unistd.h>

#include <caf/io/middleman.hpp>
#include <map>
#include <mutex>
#include <thread>

#include "cli_log.hpp"
#include "net.hpp"
#include "net_auth.hpp"
#include "net_protocol.hpp"
#include "net_store.hpp"
#include "net_transport.hpp"
#include "spdlog/spdlog.h"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/coordinator/node_actors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

namespace {

// The head this worker is joined to, for the store calls of its nodes.
struct head_link {
  std::mutex m;
  caf::actor gate;
  caf::actor get() {
    std::lock_guard lock(m);
    return gate;
  }
  void set(caf::actor g) {
    std::lock_guard lock(m);
    gate = std::move(g);
  }
};

struct host_state {
  const cluster::function_registry* registry = nullptr;  // allows missing code
  std::shared_ptr<storage::store> store;                 // the head's, through messages
  const cluster::function_registry* own = nullptr;       // what this worker really has
  std::shared_ptr<actors::runtime> rt;
  unsigned threads = 1;
  std::string name;
  // Graphs loaded, by key: kept until the head unloads them (a head that comes back sends
  // the same keys and gets the same actors).
  std::map<std::string, std::pair<std::shared_ptr<pregel>, graph_hosts>> graphs;
};

using host_actor = caf::stateful_actor<host_state>;

// Whether this worker has all the code `node` runs (and the node is no subgraph).
bool can_host(const host_state& st, const std::set<std::string>& code) {
  for (const auto& c : code) {
    if (c == "graph") return false;
    if (!st.own->has_node(c) && !st.own->has_router(c)) return false;
  }
  return true;
}

graph_hosts load(host_state& st, const graph_load& req) {
  auto known = st.graphs.find(req.key);
  if (known != st.graphs.end()) return known->second.second;
  graph_hosts out;
  try {
    const value& spec = req.spec;
    runtime_options options;
    options.runtime = st.rt;
    options.store = st.store;
    auto loaded = cluster::load_graph(spec, *st.registry, options);
    auto code = cluster::functions_by_node(spec);
    const auto& nodes = loaded.graph->graph().nodes;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      auto c = code.find(nodes[i].name);
      if (!can_host(st, c == code.end() ? std::set<std::string>{} : c->second)) continue;
      for (auto& a : spawn_node_actors(*loaded.graph, *st.rt, i, st.threads)) {
        out.nodes.push_back(i);
        out.actors.push_back(caf::actor_cast<caf::actor>(std::move(a)));
      }
    }
    spdlog::info("loaded graph " + req.key + ": " +
                 std::to_string(out.actors.size() / std::max(1u, st.threads)) + " of " +
                 std::to_string(nodes.size()) + " nodes here (" +
                 std::to_string(st.graphs.size() + 1) + " graphs loaded)");
    st.graphs.emplace(req.key, std::make_pair(loaded.graph, out));
  } catch (const std::exception& e) {
    out = graph_hosts{};
    out.error = e.what();
    spdlog::error("cannot load graph " + req.key + ": " + e.what());
  }
  return out;
}

caf::behavior host(host_actor* self, host_state init) {
  self->state = std::move(init);
  self->set_default_handler(caf::drop);
  return {
      [self](load_atom, const graph_load& req) -> graph_hosts { return load(self->state, req); },
      // The head forgot the graph (no run uses it): its node actors and graph go.
      [self](unload_atom, const std::string& key) {
        auto& st = self->state;
        auto it = st.graphs.find(key);
        if (it == st.graphs.end()) return;
        for (const auto& a : it->second.second.actors)
          self->send_exit(a, caf::exit_reason::user_shutdown);
        st.graphs.erase(it);
        spdlog::info("unloaded graph " + key + " (" + std::to_string(st.graphs.size()) +
                     " graphs loaded)");
      },
  };
}

std::string default_name() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return std::string(buf) + ":" + std::to_string(::getpid());
}

}  // namespace

int run_worker(const cli::worker_args& args, const cluster::function_registry& registry) {
  install_stop_handlers();
  // Named before any thread can log: spdlog's default logger is swapped unguarded.
  const std::string name = args.name.empty() ? default_name() : args.name;
  const std::string me = "worker " + name;
  cli::rename_log(me);
  actors::on_protocol_error(
      [](const std::string& why) { spdlog::warn("refused a malformed message: " + why); });
  std::optional<std::string> key;
  if (!args.key_file.empty()) key = read_key_file(args.key_file);
  cluster::function_registry lenient = registry;
  lenient.allow_missing(true);
  auto rt = std::make_shared<actors::runtime>(cluster_runtime(args.threads));
  auto& sys = rt->internals().system;
  auto link = std::make_shared<head_link>();
  caf::actor_system* system = &sys;
  host_state init;
  init.store = std::make_shared<remote_store>(
      [link, system](const std::string& op, const value& args) -> value {
        caf::actor gate = link->get();
        if (!gate)
          throw error(error_code::unavailable, "store: this worker is not joined to a head");
        caf::scoped_actor self{*system};
        value answer;
        std::string failure;
        self->request(gate, answer_timeout, store_atom::value, op, args)
            .receive([&](value& v) { answer = std::move(v); },
                     [&](caf::error& e) { failure = system->render(e); });
        if (!failure.empty())
          throw error(error_code::unavailable, "store: the head did not answer: " + failure);
        throw_if_store_error(answer);
        return answer;
      });
  init.registry = &lenient;
  init.own = &registry;
  init.rt = rt;
  init.threads = rt->threads();
  init.name = name;
  link_options links;
  links.key = key;
  links.tls = args.tls;
  links.log = [](const std::string& text) { spdlog::warn(text); };
  link_transport transport(sys, std::move(links));
  auto host_handle = sys.spawn(host, std::move(init));
  std::vector<std::string> functions = registry.node_names();
  for (auto& r : registry.router_names()) functions.push_back(r);
  const std::string where = args.host + ":" + std::to_string(args.port);

  int status = 0;
  bool said_waiting = false;
  while (!stop_requested()) {
    auto linked = transport.connect(args.host, args.port, connect_timeout);
    if (linked.refused) {
      spdlog::error("cannot join the head at " + where + ": " + linked.error);
      status = 1;
      break;
    }
    std::optional<caf::actor> gate;
    if (linked.actor) gate = linked.actor;
    if (!gate) {
      if (!said_waiting)
        spdlog::warn("cannot reach the head at " + where + " (" + linked.error +
                     "); retrying every second");
      said_waiting = true;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    said_waiting = false;
    caf::scoped_actor self{sys};
    try {
      join_gate(self, *gate, key);
    } catch (const error& e) {
      if (e.code() == error_code::unauthorized) {
        spdlog::error(e.what());
        status = 1;
        break;
      }
      spdlog::warn(e.what());
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    bool accepted = false;
    self->request(*gate, handshake_timeout, offer_atom::value,
                  worker_offer{host_handle, me.substr(7), functions, rt->threads()})
        .receive([&](bool ok) { accepted = ok; }, [&](caf::error&) {});
    if (!accepted) {
      spdlog::warn("the head did not accept this worker; retrying");
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    link->set(*gate);
    spdlog::info("joined the head at " + where + " (" + std::to_string(functions.size()) +
                 " functions, " + std::to_string(rt->threads()) + " threads)");
    self->monitor(*gate);
    bool lost = false;
    auto last_report = std::chrono::steady_clock::now();
    std::uint64_t reported = actors::tasks_run();
    while (!lost && !stop_requested()) {
      self->receive([&](caf::down_msg&) { lost = true; },
                    caf::after(std::chrono::milliseconds(200)) >> [] {});
      // Every few seconds of activity: how much this worker has run.
      auto now = std::chrono::steady_clock::now();
      if (now - last_report >= std::chrono::seconds(2) && actors::tasks_run() != reported) {
        reported = actors::tasks_run();
        last_report = now;
        spdlog::info("ran " + std::to_string(reported) + " tasks in " +
                     std::to_string(actors::batches_run()) + " batches");
      }
    }
    link->set(caf::actor());
    if (lost) spdlog::warn("lost the head; joining again");
  }
  caf::anon_send_exit(host_handle, caf::exit_reason::user_shutdown);
  std::fflush(nullptr);
  // Node actors of running graphs may still hold tasks; nothing here needs saving.
  std::_Exit(status);
}

}  // namespace superstep::net
