// cluster::worker (superstep/cluster/worker.hpp): joins a head, offers the node code of its
// registry, and hosts node actors for the graphs the head sends it: for each graph, `threads`
// actors per node it has the code of. `superstep worker` runs one (cli/worker.cpp).
#include "superstep/cluster/worker.hpp"

#include <unistd.h>

#include <atomic>
#include <caf/io/middleman.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "net/auth.hpp"
#include "net/protocol.hpp"
#include "net/remote_store.hpp"
#include "net/transport.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/fault_point.hpp"
#include "superstep/actors/process_replica.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/cluster/graph_spec.hpp"
#include "superstep/coordinator/actor_driver.hpp"
#include "superstep/coordinator/node_actors.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cluster {

namespace {

// The head this worker is joined to, for the store calls of its nodes.
struct head_link {
  std::mutex m;
  net::gate_actor gate;
  net::gate_actor get() {
    std::lock_guard lock(m);
    return gate;
  }
  void set(net::gate_actor g) {
    std::lock_guard lock(m);
    gate = std::move(g);
  }
};

struct host_state {
  const function_registry* registry = nullptr;  // allows missing code
  std::shared_ptr<storage::store> store;        // the head's, through messages
  const function_registry* own = nullptr;       // what this worker really has
  std::shared_ptr<actors::runtime> rt;
  unsigned threads = 1;
  std::function<void(worker_log_level, const std::string&)> log;
  // Graphs loaded, by key: kept until the head unloads them (a head that comes back sends
  // the same keys and gets the same actors).
  std::map<std::string, std::pair<std::shared_ptr<pregel>, net::graph_hosts>> graphs;
  // Unloaded graphs, held for each of their node actors until it is down: an actor told to
  // exit may still be running a task (of a run the head cancelled or failed), which reads
  // the graph.
  std::unordered_map<caf::actor_addr, std::shared_ptr<pregel>> retiring;
  // Channel actors placed here by coordinators (--spread-channels), until they are down.
  std::unordered_map<caf::actor_addr, caf::actor> channel_actors;
  std::atomic<std::uint64_t>* placed = nullptr;  // counts them
  bool closing = false;                          // the worker stops: no new node actors
};

using host_self = net::host_actor::stateful_pointer<host_state>;

// Whether this worker has all the code `node` runs (and the node is no subgraph).
bool can_host(const host_state& st, const std::set<std::string>& code) {
  for (const auto& c : code) {
    if (c == "graph") return false;
    if (!st.own->has_node(c) && !st.own->has_router(c)) return false;
  }
  return true;
}

net::graph_hosts load(host_state& st, const net::graph_load& req) {
  auto known = st.graphs.find(req.key);
  if (known != st.graphs.end()) return known->second.second;
  net::graph_hosts out;
  if (st.closing) {
    out.error = "the worker is stopping";
    return out;
  }
  try {
    const value& spec = req.spec;
    runtime_options options;
    options.driver = make_actor_driver({.runtime = st.rt});
    options.store = st.store;
    auto loaded = load_graph(spec, *st.registry, options);
    auto code = functions_by_node(spec);
    const auto& nodes = loaded.graph->graph().nodes;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      auto c = code.find(nodes[i].name);
      if (!can_host(st, c == code.end() ? std::set<std::string>{} : c->second)) continue;
      for (auto& a : spawn_node_actors(*loaded.graph, *st.rt, i, st.threads)) {
        out.nodes.push_back(i);
        out.actors.push_back(caf::actor_cast<caf::actor>(std::move(a)));
      }
    }
    st.log(worker_log_level::info,
           "loaded graph " + req.key + ": " +
               std::to_string(out.actors.size() / std::max(1u, st.threads)) + " of " +
               std::to_string(nodes.size()) + " nodes here (" +
               std::to_string(st.graphs.size() + 1) + " graphs loaded)");
    st.graphs.emplace(req.key, std::make_pair(loaded.graph, out));
  } catch (const std::exception& e) {
    out = net::graph_hosts{};
    out.error = e.what();
    st.log(worker_log_level::error, "cannot load graph " + req.key + ": " + e.what());
  } catch (...) {
    out = net::graph_hosts{};
    out.error = "loading it threw an exception that is not a std::exception";
    st.log(worker_log_level::error, "cannot load graph " + req.key + ": " + out.error);
  }
  return out;
}

net::host_actor::behavior_type host(host_self self, host_state init) {
  self->state = std::move(init);
  self->set_default_handler(caf::drop);
  self->set_down_handler([self](caf::down_msg& m) {
    self->state.retiring.erase(m.source);
    self->state.channel_actors.erase(m.source);
  });
  return {
      [self](net::load_atom, const net::graph_load& req) -> net::graph_hosts {
        return load(self->state, req);
      },
      // The head forgot the graph (no run uses it): its node actors and graph go.
      [self](net::unload_atom, const std::string& key) {
        auto& st = self->state;
        auto it = st.graphs.find(key);
        if (it == st.graphs.end()) return;
        for (const auto& a : it->second.second.actors) {
          st.retiring.emplace(a.address(), it->second.first);
          self->monitor(a);
          self->send_exit(a, caf::exit_reason::user_shutdown);
        }
        st.graphs.erase(it);
        st.log(worker_log_level::info, "unloaded graph " + key + " (" +
                                           std::to_string(st.graphs.size()) + " graphs loaded)");
      },
      // A coordinator places a group of its run's channels here (--spread-channels): a
      // channel actor that stops with that coordinator.
      [self](actors::place_atom, actors::channel_placement& req) -> caf::result<caf::actor> {
        // A test hook: the worker dies when asked to host channels (at step -1: first placed).
        actors::fault_point("channel.before_placement", req.closed_through);
        auto& st = self->state;
        auto it = st.graphs.find(req.graph);
        if (st.closing || it == st.graphs.end())
          return caf::make_error(caf::sec::runtime_error,
                                 st.closing ? std::string("the worker is stopping")
                                            : "graph " + req.graph + " is not loaded here");
        try {
          std::unordered_map<std::string, std::uint64_t> versions;
          for (std::size_t i = 0; i < req.values.size() && i < req.versions.size(); ++i)
            versions.emplace(req.values[i].channel, req.versions[i]);
          auto group =
              actors::group_from(it->second.first->graph().channels, std::move(req.values));
          auto owner = caf::actor_cast<caf::actor>(self->current_sender());
          auto ch = caf::actor_cast<caf::actor>(actors::spawn_channel_actor(
              self->system(), std::move(group), owner, std::move(versions), req.closed_through));
          self->monitor(ch);
          st.channel_actors.emplace(ch.address(), ch);
          if (req.closed_through >= 0)
            st.log(worker_log_level::info,
                   "placed again the channels of a lost channel actor of a run at step " +
                       std::to_string(req.closed_through));
          if (st.placed) ++*st.placed;
          // A test hook: the worker dies a moment after its answer (the group placed, then
          // lost while the run's other groups may still be being placed).
          if (actors::fault_armed_at("channel.after_placement", req.closed_through))
            std::thread([step = req.closed_through] {
              std::this_thread::sleep_for(std::chrono::milliseconds(100));
              actors::fault_point("channel.after_placement", step);
            }).detach();
          return ch;
        } catch (const std::exception& e) {
          return caf::make_error(caf::sec::runtime_error, std::string(e.what()));
        } catch (...) {
          return caf::make_error(caf::sec::runtime_error,
                                 std::string("placing the channels threw an exception that is "
                                             "not a std::exception"));
        }
      },
      // The worker stops: the node actors to stop before the graphs they run go.
      [self](net::hosted_atom) {
        self->state.closing = true;
        std::vector<caf::actor> out;
        for (const auto& [key, g] : self->state.graphs)
          out.insert(out.end(), g.second.actors.begin(), g.second.actors.end());
        for (const auto& [_, ch] : self->state.channel_actors) out.push_back(ch);
        return out;
      },
  };
}

std::string default_name() {
  char buf[256] = {0};
  ::gethostname(buf, sizeof buf - 1);
  return std::string(buf) + ":" + std::to_string(::getpid());
}

}  // namespace

struct worker::impl {
  std::atomic<std::uint64_t> placed_groups{0};  // channel groups placed here, for the log
  function_registry own;
  function_registry lenient;  // `own`, letting nodes whose code is elsewhere load as stand-ins
  worker_options options;
  std::optional<std::string> key;
  std::string name;
  std::atomic<bool> stopping{false};
  std::atomic<bool> joined{false};
  std::mutex m;
  std::condition_variable changed;  // stopping, or run() returned
  bool running = false;

  void say(worker_log_level level, const std::string& text) const {
    if (options.log) {
      options.log(level, text);
      return;
    }
    // "HH:MM:SS.mmm worker NAME: text" (UTC) on stderr, one write per line.
    const auto now = std::chrono::system_clock::now();
    const std::time_t secs = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    std::tm utc{};
    gmtime_r(&secs, &utc);
    std::fprintf(stderr, "%02d:%02d:%02d.%03d worker %s: %s\n", utc.tm_hour, utc.tm_min, utc.tm_sec,
                 static_cast<int>(ms.count()), name.c_str(), text.c_str());
  }

  // Waits `d`, or less when stop() comes; true when stopping.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(m);
    return changed.wait_for(lock, d, [&] { return stopping.load(); });
  }

  void serve(caf::actor_system& sys, net::link_transport& transport,
             const net::host_actor& host_handle, const std::shared_ptr<head_link>& link,
             unsigned threads);
  void stop_hosted(caf::actor_system& sys, const net::host_actor& host_handle);
};

worker::worker(const function_registry& registry, worker_options options)
    : impl_(std::make_unique<impl>()) {
  impl_->own = registry;
  impl_->lenient = registry;
  impl_->lenient.allow_missing(true);
  if (!options.key_file.empty()) impl_->key = net::read_key_file(options.key_file);
  impl_->name = options.name.empty() ? default_name() : options.name;
  impl_->options = std::move(options);
}

worker::~worker() {
  stop();
  std::unique_lock lock(impl_->m);
  impl_->changed.wait(lock, [&] { return !impl_->running; });
}

void worker::stop() noexcept {
  {
    std::lock_guard lock(impl_->m);
    impl_->stopping = true;
  }
  impl_->changed.notify_all();
}

bool worker::joined() const noexcept { return impl_->joined; }

const std::string& worker::name() const noexcept { return impl_->name; }

void worker::impl::serve(caf::actor_system& sys, net::link_transport& transport,
                         const net::host_actor& host_handle, const std::shared_ptr<head_link>& link,
                         unsigned threads) {
  std::vector<std::string> functions = own.node_names();
  for (auto& r : own.router_names()) functions.push_back(r);
  const std::string where = options.host + ":" + std::to_string(options.port);
  bool said_waiting = false;
  while (!stopping) {
    auto linked = transport.connect(options.host, options.port, options.connect_timeout);
    if (linked.refused)
      throw error(error_code::unauthorized,
                  "cannot join the head at " + where + ": " + linked.error);
    if (!linked.actor) {
      if (!said_waiting)
        say(worker_log_level::warning,
            "cannot reach the head at " + where + " (" + linked.error + "); retrying every second");
      said_waiting = true;
      pause(std::chrono::seconds(1));
      continue;
    }
    said_waiting = false;
    net::gate_actor gate = net::gate_of(linked.actor);
    caf::scoped_actor self{sys};
    try {
      net::join_gate(self, gate, key);
    } catch (const error& e) {
      if (e.code() == error_code::unauthorized) throw;
      say(worker_log_level::warning, e.what());
      pause(std::chrono::seconds(1));
      continue;
    }
    bool accepted = false;
    self->request(
            gate, net::handshake_timeout, net::offer_atom::value,
            net::worker_offer{caf::actor_cast<caf::actor>(host_handle), name, functions, threads})
        .receive([&](bool ok) { accepted = ok; }, [&](caf::error&) {});
    if (!accepted) {
      say(worker_log_level::warning, "the head did not accept this worker; retrying");
      pause(std::chrono::seconds(1));
      continue;
    }
    link->set(gate);
    joined = true;
    say(worker_log_level::info, "joined the head at " + where + " (" +
                                    std::to_string(functions.size()) + " functions, " +
                                    std::to_string(threads) + " threads)");
    self->monitor(gate);
    bool lost = false;
    auto last_report = std::chrono::steady_clock::now();
    std::uint64_t reported = actors::tasks_run();
    std::uint64_t groups_reported = placed_groups.load();
    std::uint64_t replicas_reported = actors::replicas_made();
    while (!lost && !stopping) {
      self->receive([&](caf::down_msg&) { lost = true; },
                    caf::after(std::chrono::milliseconds(200)) >> [] {});
      // Every few seconds of activity: how much this worker has run.
      auto now = std::chrono::steady_clock::now();
      if (now - last_report >= std::chrono::seconds(2) &&
          (actors::tasks_run() != reported || placed_groups != groups_reported ||
           actors::replicas_made() != replicas_reported)) {
        reported = actors::tasks_run();
        groups_reported = placed_groups.load();
        replicas_reported = actors::replicas_made();
        last_report = now;
        std::string line = "ran " + std::to_string(reported) + " tasks in " +
                           std::to_string(actors::batches_run()) + " batches";
        if (groups_reported > 0)
          line += "; owned channel groups of " + std::to_string(groups_reported) + " runs";
        if (replicas_reported > 0)
          line += "; kept channel replicas of " + std::to_string(replicas_reported) + " runs";
        say(worker_log_level::info, line);
      }
    }
    joined = false;
    link->set(net::gate_actor());
    if (lost) say(worker_log_level::warning, "lost the head; joining again");
  }
}

// Stops the node actors (each finishing the task it runs), then the host and its graphs.
void worker::impl::stop_hosted(caf::actor_system& sys, const net::host_actor& host_handle) {
  caf::scoped_actor self{sys};
  std::vector<caf::actor> hosted;
  self->request(host_handle, caf::infinite, net::hosted_atom::value)
      .receive([&](std::vector<caf::actor>& a) { hosted = std::move(a); }, [&](caf::error&) {});
  for (const auto& a : hosted) {
    self->monitor(a);
    self->send_exit(a, caf::exit_reason::user_shutdown);
  }
  for (std::size_t i = 0; i < hosted.size(); ++i) self->receive([](caf::down_msg&) {});
  self->monitor(host_handle);
  self->send_exit(host_handle, caf::exit_reason::user_shutdown);
  self->receive([](caf::down_msg&) {});
}

void worker::run() {
  {
    std::lock_guard lock(impl_->m);
    if (impl_->running) throw error(error_code::invalid_argument, "worker::run: already running");
    impl_->running = true;
  }
  struct done_guard {
    impl* w;
    ~done_guard() {
      {
        std::lock_guard lock(w->m);
        w->running = false;
      }
      w->changed.notify_all();
    }
  } done{impl_.get()};

  // Destroyed last, after everything that runs on it.
  actors::runtime_options runtime = net::cluster_runtime(impl_->options.threads);
  // Tasks wait on the scheduler's threads for the head's answers to their store calls: the
  // answers are read on the network thread (CAF's BASP workers would need a scheduler thread,
  // and with every one waiting so, none would come until the calls timed out).
  runtime.configure = [configure = std::move(runtime.configure)](caf::actor_system_config& cfg) {
    if (configure) configure(cfg);
    cfg.set("middleman.workers", size_t{0});
  };
  auto rt = std::make_shared<actors::runtime>(std::move(runtime));
  auto& sys = rt->internals().system;
  auto link = std::make_shared<head_link>();
  caf::actor_system* system = &sys;
  host_state init;
  init.store = std::make_shared<net::remote_store>(
      [link, system](const std::string& op, const value& args) -> value {
        net::gate_actor gate = link->get();
        if (!gate)
          throw error(error_code::unavailable, "store: this worker is not joined to a head");
        caf::scoped_actor self{*system};
        value answer;
        std::string failure;
        self->request(gate, net::answer_timeout, net::store_atom::value, op, args)
            .receive([&](value& v) { answer = std::move(v); },
                     [&](caf::error& e) { failure = system->render(e); });
        if (!failure.empty())
          throw error(error_code::unavailable, "store: the head did not answer: " + failure);
        net::throw_if_store_error(answer);
        return answer;
      });
  init.registry = &impl_->lenient;
  init.own = &impl_->own;
  init.placed = &impl_->placed_groups;
  init.rt = rt;
  init.threads = rt->threads();
  init.log = [w = impl_.get()](worker_log_level level, const std::string& text) {
    w->say(level, text);
  };
  net::link_options links;
  links.key = impl_->key;
  links.tls = net::tls_args{impl_->options.tls, impl_->options.tls_cert, impl_->options.tls_key,
                            impl_->options.tls_ca};
  links.log = [w = impl_.get()](const std::string& text) {
    w->say(worker_log_level::warning, text);
  };
  auto transport = std::make_unique<net::link_transport>(sys, std::move(links));
  const unsigned threads = rt->threads();
  net::host_actor host_handle = sys.spawn(host, std::move(init));
  std::exception_ptr failure;
  try {
    impl_->serve(sys, *transport, host_handle, link, threads);
  } catch (...) {
    failure = std::current_exception();
  }
  impl_->joined = false;
  link->set(net::gate_actor());
  impl_->stop_hosted(sys, host_handle);
  host_handle = net::host_actor();
  transport.reset();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace superstep::cluster
