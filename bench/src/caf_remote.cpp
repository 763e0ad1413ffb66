#include "caf_remote.hpp"

#include <caf/all.hpp>
#include <caf/io/middleman.hpp>
#include <chrono>
#include <stdexcept>
#include <string>

#include "caf_echo.hpp"

namespace superstep::bench {

namespace {

caf::actor_system_config with_middleman() {
  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  return cfg;
}

}  // namespace

struct remote_echo::impl {
  caf::actor_system_config server_cfg = with_middleman(), client_cfg = with_middleman();
  caf::actor_system server{server_cfg}, client{client_cfg};
  echo_actor echo = server.spawn<echo_impl>();
  echo_actor remote;

  impl() {
    auto port = server.middleman().publish(echo, 0, "127.0.0.1");
    if (!port)
      throw std::runtime_error("cannot publish the echo actor: " + server.render(port.error()));
    auto found = client.middleman().remote_actor<echo_actor>("127.0.0.1", *port);
    if (!found)
      throw std::runtime_error("cannot reach the echo actor: " + client.render(found.error()));
    remote = *found;
  }
  ~impl() { caf::anon_send_exit(echo, caf::exit_reason::user_shutdown); }
};

remote_echo::remote_echo() : impl_(std::make_unique<impl>()) {}

remote_echo::~remote_echo() = default;

void remote_echo::round_trips(int n) {
  caf::scoped_actor self{impl_->client};
  std::string failure;
  for (int i = 0; i < n && failure.empty(); ++i)
    self->request(impl_->remote, std::chrono::seconds(10), i)
        .receive(
            [&](int r) {
              if (r != i)
                failure = "the echo answered " + std::to_string(r) + " to " + std::to_string(i);
            },
            [&](caf::error& err) { failure = impl_->client.render(err); });
  if (!failure.empty()) throw std::runtime_error("remote round trip failed: " + failure);
}

}  // namespace superstep::bench
