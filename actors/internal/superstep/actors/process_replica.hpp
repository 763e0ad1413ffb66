#pragma once

// The replica of a run's channels in one process, for the node actors there when the run's
// channels live on channel actors in other processes (--spread-channels): it subscribes to
// the channel actors for the channels those node actors read, and the channel actors push
// every commit that changes them. Each change crosses the network once per process, not once
// per node actor, and never through the coordinator. Include only from actor translation
// units: it pulls in CAF.

#include <caf/all.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "superstep/actors/channel_actor.hpp"

namespace superstep::actors {

/// Node actor → its process's replica: the committed values of `channels` once the replica
/// holds each at `versions[i]` or later (in-process only).
struct replica_wait {
  std::vector<std::string> channels;
  std::vector<std::uint64_t> versions;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replica_wait& x) {
  return f(caf::meta::type_name("superstep.replica_wait"), x.channels, x.versions);
}

using await_atom = caf::atom_constant<caf::atom("rp_await")>;

/// The protocol of a process replica: a wait answered with the values (and their versions),
/// and the channel actors' pushes.
using process_replica =
    caf::typed_actor<caf::replies_to<await_atom, replica_wait>::with<channel_push>,
                     caf::reacts_to<channel_push>,
                     caf::reacts_to<regroup_atom, std::vector<caf::actor>>>;

/// The replica of the run coordinated by `coordinator` in this process, subscribed to
/// `groups` (the run's channel actors, a channel's owner being `channel_owner`), made on first
/// use; it stops when the coordinator goes down. Thread-safe.
process_replica replica_of_run(caf::actor_system& sys, const caf::actor& coordinator,
                               const std::vector<caf::actor>& groups);

/// Tells this process's replica of the run coordinated by `coordinator`, when it has one, the
/// run's channel actors after a lost one's channels were placed again (`regroup_atom`): the
/// coordinator's own process has no remote node actor to pass it on. Thread-safe.
void regroup_replica(const caf::actor& coordinator, std::vector<caf::actor> groups);

/// Runs this process has kept a replica of so far, for logs.
std::uint64_t replicas_made() noexcept;

}  // namespace superstep::actors
