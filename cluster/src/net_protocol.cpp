#include "net_protocol.hpp"

#include <atomic>
#include <caf/io/middleman.hpp>
#include <caf/openssl/all.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <set>

#include "net.hpp"
#include "superstep/actors/protocol.hpp"

namespace superstep::net {

actors::runtime_options cluster_runtime(unsigned threads, const cli::tls_args& tls) {
  actors::runtime_options ro;
  ro.threads = threads;
  ro.network = true;
  ro.configure = [tls](caf::actor_system_config& cfg) {
    register_cluster_types(cfg);
    configure_tls(cfg, tls);
  };
  return ro;
}

void configure_tls(caf::actor_system_config& cfg, const cli::tls_args& tls) {
  if (!tls.on) return;
  cfg.openssl_certificate = tls.cert;
  cfg.openssl_key = tls.key;
  cfg.openssl_cafile = tls.ca;
  cfg.load<caf::openssl::manager>();
}

caf::expected<std::uint16_t> publish_gate(caf::actor_system& sys, const caf::actor& gate,
                                          const std::string& host, std::uint16_t port,
                                          const cli::tls_args& tls) {
  if (tls.on) return caf::openssl::publish(gate, port, host.c_str(), true);
  return sys.middleman().publish(gate, port, host.c_str(), true);
}

caf::expected<caf::actor> connect_gate(caf::actor_system& sys, const std::string& host,
                                       std::uint16_t port, const cli::tls_args& tls) {
  // CAF's remote_actor waits for the connection without a time limit: a head that accepts it
  // and never finishes the handshake (one restarting on the port) would hold a worker or a
  // client forever. The same request to the middleman (or its TLS twin), bounded.
  const caf::io::middleman_actor manager =
      tls.on ? sys.openssl_manager().actor_handle() : sys.middleman().actor_handle();
  caf::expected<caf::actor> out{caf::sec::cannot_connect_to_node};
  caf::scoped_actor self{sys};
  self->request(manager, connect_timeout, caf::connect_atom::value, host, port)
      .receive(
          [&](const caf::node_id&, caf::strong_actor_ptr& gate, const std::set<std::string>&) {
            if (gate)
              out = caf::actor_cast<caf::actor>(std::move(gate));
            else
              out = caf::make_error(caf::sec::no_actor_published_at_port, port);
          },
          [&](caf::error& e) { out = std::move(e); });
  return out;
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

void log(const std::string& who, const std::string& text) {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  std::fprintf(stderr, "%s.%03d %s: %s\n", stamp, static_cast<int>(ms.count()), who.c_str(),
               text.c_str());
  std::fflush(stderr);
}

}  // namespace superstep::net
