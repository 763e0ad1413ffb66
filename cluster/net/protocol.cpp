#include "net/protocol.hpp"

#include <atomic>
#include <caf/io/middleman.hpp>
#include <csignal>
#include <set>

#include "net/auth.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/core/error.hpp"

namespace superstep::net {

actors::runtime_options cluster_runtime(unsigned threads) {
  actors::runtime_options ro;
  ro.threads = threads;
  ro.network = true;
  ro.configure = [](caf::actor_system_config& cfg) { register_cluster_types(cfg); };
  return ro;
}

void register_cluster_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<worker_offer>("superstep.worker_offer");
  cfg.add_message_type<graph_load>("superstep.graph_load");
  cfg.add_message_type<graph_hosts>("superstep.graph_hosts");
  cfg.add_message_type<client_request>("superstep.client_request");
  cfg.add_message_type<value>("superstep.value");
}

namespace {
std::atomic<bool> stop_flag{false};
extern "C" void on_stop_signal(int) { stop_flag.store(true); }
}  // namespace

void install_stop_handlers() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGPIPE, SIG_IGN);
}

bool stop_requested() noexcept { return stop_flag.load(); }

// Proves the key to the gate (when there is one); throws error(unauthorized) when refused.
void join_gate(caf::scoped_actor& self, const gate_actor& gate,
               const std::optional<std::string>& key) {
  std::string nonce;
  std::optional<std::string> failure;
  // Short: a handle to a head that just died (CAF may hand one out while it notices) never
  // answers, and the caller tries again.
  self->request(gate, handshake_timeout, hello_atom::value)
      .receive([&](std::string& n) { nonce = std::move(n); },
               [&](caf::error& e) { failure = self->system().render(e); });
  if (failure) throw error(error_code::unavailable, "the head did not answer: " + *failure);
  bool ok = false;
  self->request(gate, handshake_timeout, prove_atom::value,
                key ? prove(*key, nonce) : std::string())
      .receive([&](bool b) { ok = b; }, [&](caf::error& e) { failure = self->system().render(e); });
  if (failure) throw error(error_code::unavailable, "the head did not answer: " + *failure);
  if (!ok)
    throw error(error_code::unauthorized,
                key ? "the head refused the key (is it the cluster's key file?)"
                    : "the head requires the cluster's key (--key-file FILE)");
}

}  // namespace superstep::net
