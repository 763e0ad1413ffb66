#pragma once

// The messages between a cluster's processes besides the task protocol of
// superstep/actors/protocol.hpp: joining (proof of the key), workers offering node code,
// graphs loaded onto workers, and clients' requests with their answers; and the typed
// interfaces of the cluster's actors that receive them (the head's gate and store runners, a
// worker's host). Every process registers the messages with register_cluster_types. Include
// only from actor translation units.

#include <caf/all.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/command.hpp"
#include "net/request.hpp"
#include "superstep/actors/channel_actor.hpp"
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
// A worker asks its own host for every actor it hosts, before it is stopped (local only).
using hosted_atom = caf::atom_constant<caf::atom("hosted")>;

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

/// A client_request travels as its Cap'n Proto bytes (net/request.hpp). Bytes that are not a
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

/// A store runner of the head (head/head.cpp): runs a store operation on a thread of its own.
/// - `store_atom, op, args` → the operation's answer; an operation that throws answers with
///   a store error value (store_error_answer).
using store_runner_actor =
    caf::typed_actor<caf::replies_to<store_atom, std::string, value>::with<value>>;

/// The head's gate (head/head.cpp), published for workers and clients; checked by the
/// compiler here, matched by type at run time for what remote peers send it (they hold the
/// untyped handle a link gives them until gate_of). Messages of other types are dropped.
/// - `hello_atom` → a nonce for the sender's process.
/// - `prove_atom, proof` → whether the proof of that nonce shows the cluster's key (true
///   without a key); the process is then admitted.
/// - `offer_atom, worker_offer` → whether the worker is taken (an admitted one with a host).
/// - `store_atom, op, args` → the answer, from a store runner the gate delegates to.
/// - `request_atom, client_request` → empty when the command is taken, else why not; the
///   command's lines, progress and end go to the sender as line_atom, progress_atom, note_atom,
///   failure_atom and finished_atom messages.
using gate_actor =
    caf::typed_actor<caf::replies_to<hello_atom>::with<std::string>,
                     caf::replies_to<prove_atom, std::string>::with<bool>,
                     caf::replies_to<offer_atom, worker_offer>::with<bool>,
                     caf::replies_to<store_atom, std::string, value>::with<value>,
                     caf::replies_to<request_atom, client_request>::with<std::string>>;

/// A worker's host (worker.cpp): the channel host of actors::channel_host, and
/// - `load_atom, graph_load` → the node actors it spawned for the graph (graph_hosts; the
///   same ones for a key it has loaded already), or why it could not load it.
/// - `unload_atom, key`: the graph's node actors are stopped and the graph goes.
/// - `hosted_atom` → every node and channel actor it hosts (local only: the worker stopping;
///   no new node actors from then on).
using host_actor =
    actors::channel_host::extend<caf::replies_to<load_atom, graph_load>::with<graph_hosts>,
                                 caf::reacts_to<unload_atom, std::string>,
                                 caf::replies_to<hosted_atom>::with<std::vector<caf::actor>>>;

/// The gate behind the untyped handle a link gives (link_transport::connect): the one place
/// a cluster process takes a remote actor for the head's gate.
inline gate_actor gate_of(const caf::actor& linked) { return caf::actor_cast<gate_actor>(linked); }

/// The host a worker offers (worker_offer::host travels untyped, as it always has).
inline host_actor host_of(const worker_offer& offer) {
  return caf::actor_cast<host_actor>(offer.host);
}

/// Registers the cluster's message types (and the task protocol's).
void register_cluster_types(caf::actor_system_config& cfg);

/// The actor runtime of a cluster process: the network layer and the cluster's message
/// types; `threads` scheduler threads (0: one per core). Its links go through a
/// `link_transport` (net/transport.hpp).
actors::runtime_options cluster_runtime(unsigned threads);

/// Proves the key to a head's gate (an empty proof without a key). Throws
/// error(unauthorized) when refused, error(unavailable) when the head does not answer.
void join_gate(caf::scoped_actor& self, const gate_actor& gate,
               const std::optional<std::string>& key);

/// How long a process waits for an answer from another one.
inline constexpr std::chrono::seconds answer_timeout{30};
/// How long joining a head waits for each answer before trying again.
inline constexpr std::chrono::seconds handshake_timeout{3};
/// How long connecting to a head waits for its connection and handshakes
/// (`link_transport::connect`).
inline constexpr std::chrono::seconds connect_timeout{10};

/// Installs SIGINT/SIGTERM handlers that ask the process (a head, a worker) to stop;
/// `stop_requested` says whether one came.
void install_stop_handlers();
bool stop_requested() noexcept;

}  // namespace superstep::net
