#pragma once

// The messages between a cluster's processes besides the task protocol of
// superstep/actors/protocol.hpp: joining (proof of the key), workers offering node code,
// graphs loaded onto workers, and clients' requests with their answers. Every process
// registers them with register_cluster_types. Include only from actor translation units.

#include <caf/all.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "net_request.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/actors/runtime.hpp"

namespace superstep::net {

using hello_atom = caf::atom_constant<caf::atom("hello")>;        // -> nonce
using prove_atom = caf::atom_constant<caf::atom("prove")>;        // (mac) -> bool
using offer_atom = caf::atom_constant<caf::atom("offer")>;        // (worker_offer) -> bool
using load_atom = caf::atom_constant<caf::atom("load")>;          // (graph_load) -> graph_hosts
using request_atom = caf::atom_constant<caf::atom("request")>;    // (client_request) -> refusal
using line_atom = caf::atom_constant<caf::atom("line")>;          // (text)
using progress_atom = caf::atom_constant<caf::atom("progress")>;  // (step, done, total)
using finished_atom = caf::atom_constant<caf::atom("finished")>;  // (status, error text)
using store_atom = caf::atom_constant<caf::atom("store")>;        // (op, args) -> value
using unload_atom = caf::atom_constant<caf::atom("unload")>;      // (graph key): head -> worker
using note_atom = caf::atom_constant<caf::atom("note")>;          // (text): head -> client
// (code, text, payload): head -> a client that asked for typed errors, before `finished`;
// the payload is the JSON of the value the error carries (error::payload), empty if none.
using failure_atom = caf::atom_constant<caf::atom("failure")>;

/// Worker -> head, once it is let in: the actor to send graphs to, and what it can run.
struct worker_offer {
  caf::actor host;
  std::string name;
  std::vector<std::string> functions;  ///< node functions and routers it has
  std::uint32_t threads = 0;
};

/// Head -> worker: host the nodes you can of this graph. `key` names the spec (a hash).
struct graph_load {
  std::string key;
  value spec;
};

/// Worker -> head: the node actors it spawned, `actors[i]` running node `nodes[i]`; or why
/// it could not load the graph.
struct graph_hosts {
  std::vector<std::uint32_t> nodes;
  std::vector<caf::actor> actors;
  std::string error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, worker_offer& x) {
  return f(caf::meta::type_name("worker_offer"), x.host, x.name, x.functions, x.threads);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, graph_load& x) {
  return f(caf::meta::type_name("graph_load"), x.key, x.spec);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, graph_hosts& x) {
  return f(caf::meta::type_name("graph_hosts"), x.nodes, x.actors, x.error);
}

/// A client_request travels as its Cap'n Proto bytes (net_request.hpp). Bytes that are not a
/// request are delivered all the same, with `malformed` saying why, so that the head can
/// refuse them with a reason instead of the client waiting for an answer that never comes.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, client_request& x) {
  if constexpr (Inspector::reads_state) {
    std::string bytes;
    try {
      bytes = encode_request(x);  // the client encoded it once already, to report errors
    } catch (const std::exception& e) {
      actors::report_protocol_error(std::string("cannot send a request: ") + e.what());
    }
    return f(caf::meta::type_name("client_request"), bytes);
  } else {
    std::string bytes;
    return f(caf::meta::type_name("client_request"), bytes,
             caf::meta::load_callback([&]() -> caf::error {
               try {
                 x = decode_request(bytes);
               } catch (const std::exception& e) {
                 x = client_request{};
                 x.malformed = e.what();
               }
               return caf::none;
             }));
  }
}

/// Registers the cluster's message types (and the task protocol's).
void register_cluster_types(caf::actor_system_config& cfg);

/// The actor runtime of a cluster process: the network layer and the cluster's message
/// types; `threads` scheduler threads (0: one per core). Its links go through a
/// `link_transport` (net_transport.hpp).
actors::runtime_options cluster_runtime(unsigned threads);

/// Proves the key to a head's gate (an empty proof without a key). Throws
/// error(unauthorized) when refused, error(unavailable) when the head does not answer.
void join_gate(caf::scoped_actor& self, const caf::actor& gate,
               const std::optional<std::string>& key);

/// How long a process waits for an answer from another one.
inline constexpr std::chrono::seconds answer_timeout{30};
/// How long joining a head waits for each answer before trying again.
inline constexpr std::chrono::seconds handshake_timeout{3};
/// How long connecting to a head waits for its connection and handshakes
/// (`link_transport::connect`).
inline constexpr std::chrono::seconds connect_timeout{10};

}  // namespace superstep::net
