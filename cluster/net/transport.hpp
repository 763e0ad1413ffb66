#pragma once

// The links between a cluster's processes, under CAF's BASP: every connection a head accepts
// or a worker or client opens goes through here, so that nothing a peer sends reaches an actor
// before the peer is authenticated.
//
// A link starts with a hello each way (a magic, a version and the link's security), so that a
// mismatch gets a message saying which side lacks what. Then, by the process's options:
// - a cluster key (--key-file): TLS 1.3 with a pre-shared key derived from the cluster key;
//   each side proves it holds the key before a byte of BASP is read, and traffic is encrypted;
// - certificates (--tls-cert/--tls-key/--tls-ca): mutual TLS, each side's certificate signed
//   by the CA;
// - --tls alone: TLS with a throwaway certificate (encrypted, nobody authenticated);
// - nothing: plain TCP (an open cluster: whoever reaches the port may use it).
// On every link a BASP frame may not exceed a bound, a far smaller one for the peer's first
// frame (its BASP handshake). A listening process accepts on a thread of its own: it caps the
// connections waiting for their handshake and all connections, closes those that do not
// finish their handshakes in time, and backs off when out of file descriptors. Short of room,
// it keeps the connections that have shown more of their handshake -- a peer with the key
// proves it with its first bytes (the ClientHello goes with its hello) and is never pushed
// out -- and turns a newcomer away (a reset, which the connecting side retries) rather than
// cut a handshake under way. Every refusal is logged with the peer's address. Include only
// from actor translation units.

#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>
#include <caf/node_id.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "net/command.hpp"

namespace superstep::net {

/// What a process's links require and allow.
struct link_options {
  /// The cluster key (the bytes of --key-file); nullopt: none.
  std::optional<std::string> key;
  net::tls_args tls;
  /// Where refusals are logged (the process's log: head, worker NAME, client).
  std::function<void(const std::string&)> log;
  /// The largest BASP payload of the peer's first frame, its handshake (bytes).
  std::uint32_t max_handshake_frame = 64 * 1024;
  /// The largest BASP payload of any later frame (bytes).
  std::uint64_t max_frame = std::uint64_t{1} << 30;
  /// Time a new link has for its hellos, TLS and BASP handshakes.
  std::chrono::milliseconds handshake_timeout{10000};
  /// Links accepted that said their hello and have not finished their handshakes, at most
  /// (as many again that have not said hello are kept apart).
  std::size_t max_pending = 64;
  /// Links accepted and open, at most.
  std::size_t max_connections = 1024;
};

/// What connecting gave: the actor, or why not. `refused`: the other side answered and the
/// two do not agree on security (a key or certificates on one side only, another key), which
/// trying again will not change. `cut`: the other side took the connection but did not finish
/// its handshake: `busy` when it cut it off or let it time out (short of room or CPU: trying
/// again may do), `closed` when it closed the link in CAF's handshake (busy too, or it refused
/// this side's certificate, which TLS 1.3 lets it do after this side finished).
struct link_connect_result {
  enum class handshake_cut { none, busy, closed };
  caf::actor actor;
  std::string error;
  bool refused = false;
  handshake_cut cut = handshake_cut::none;
};

/// The transport of one actor system. Create it after the system and destroy it before;
/// publish and connect through it instead of CAF's middleman. Thread-safe.
class link_transport {
 public:
  /// Throws superstep::error (invalid_argument) naming a certificate or key file that cannot
  /// be used, or options that do not go together.
  link_transport(caf::actor_system& sys, link_options options);
  ~link_transport();
  link_transport(const link_transport&) = delete;
  link_transport& operator=(const link_transport&) = delete;

  /// Publishes `whom` on host:port (port 0: any free port); returns the port.
  caf::expected<std::uint16_t> publish(const caf::actor& whom, const std::string& host,
                                       std::uint16_t port);

  /// The actor published at host:port, within `timeout` (hellos, TLS and BASP included).
  link_connect_result connect(const std::string& host, std::uint16_t port,
                              std::chrono::milliseconds timeout);

  /// How the links are secured, for a log line ("TLS with the cluster key", ...).
  std::string describe() const;

  /// Bounds the bytes held unsent for the link this process accepted from `peer` (a client):
  /// over `bytes` with nothing taken by its socket for links::backlog_grace, or over four
  /// times `bytes`, the link is closed instead of the bytes piling up in memory. Blocks for
  /// the middleman's answer (where the peer's link is): call it off the actors' threads.
  /// Whether there is such a link.
  bool limit_backlog(const caf::node_id& peer, std::size_t bytes);

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::net
