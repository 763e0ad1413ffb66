#pragma once

// The message protocol between coordinator actors and node actors, declared in one place.
// Include only from actor translation units: it pulls in CAF.

#include <caf/all.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "superstep/actors/node_host.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/channel_group.hpp"
#include "superstep/pregel/task.hpp"

namespace superstep {

// Between processes, values and the protocol's messages travel as Cap'n Proto
// (actors/schema/wire.capnp): each message is one encoded byte string inside CAF's frame.
// Inside one process CAF moves them without encoding. Inspectors live beside their types so
// CAF finds them by argument-dependent lookup.

namespace actors {
struct task_batch;
struct task_batch_done;
struct pending_writes;
struct result_part;
struct stream_chunk;
struct channel_writes;  // channel_actor.hpp
struct step_prepare;    // below
struct step_vote;
struct channel_push;
struct channel_placement;
}  // namespace actors

namespace actors::wire_codec {
// Encoders and decoders (wire.cpp). Decoders throw error(protocol_error) naming what is
// malformed.
std::string encode(const value& v);
void decode(std::string_view bytes, value& v);
std::string encode(const task_batch& b);
void decode(std::string_view bytes, task_batch& b);
std::string encode(const task_batch_done& d);
void decode(std::string_view bytes, task_batch_done& d);
std::string encode(const pending_writes& d);
void decode(std::string_view bytes, pending_writes& d);
std::string encode(const result_part& p);
void decode(std::string_view bytes, result_part& p);
std::string encode(const stream_chunk& c);
void decode(std::string_view bytes, stream_chunk& c);
std::string encode(const channel_writes& m);
void decode(std::string_view bytes, channel_writes& m);
std::string encode(const step_prepare& m);
void decode(std::string_view bytes, step_prepare& m);
std::string encode(const step_vote& m);
void decode(std::string_view bytes, step_vote& m);
std::string encode(const channel_push& m);
void decode(std::string_view bytes, channel_push& m);
std::string encode(const channel_placement& m);
void decode(std::string_view bytes, channel_placement& m);
}  // namespace actors::wire_codec

namespace actors {
/// Called with the reason whenever a message from another process is refused as malformed
/// (a cluster's processes log it); by default nothing is done. Set it before the runtime
/// starts; the handler may be called from any thread.
void on_protocol_error(std::function<void(const std::string&)> handler);
void report_protocol_error(const std::string& what) noexcept;
}  // namespace actors

namespace detail {

/// Inspects `x` as its Cap'n Proto encoding: written by serializers, read back (and checked)
/// by deserializers, which answer a malformed one with an error instead of a message.
/// `extra` are fields CAF serializes itself beside the bytes (actor handles).
template <class Inspector, class T, class... Extra>
typename Inspector::result_type inspect_encoded(Inspector& f, T& x, const char* name,
                                                Extra&... extra) {
  if constexpr (Inspector::reads_state) {
    // A message whose sender encoded it already (task_batch_done::encoded) goes as is.
    if constexpr (requires { x.encoded; })
      if (!x.encoded.empty()) return f(caf::meta::type_name(name), x.encoded, extra...);
    // This may run inside CAF's network layer, which an exception would bring down.
    std::string bytes;
    try {
      bytes = actors::wire_codec::encode(x);
    } catch (const std::exception& e) {
      actors::report_protocol_error(std::string("cannot send a message: ") + e.what());
      if constexpr (std::is_same_v<typename Inspector::result_type, void>)
        return f(caf::meta::type_name(name), bytes, extra...);
      else
        return caf::sec::invalid_argument;
    }
    return f(caf::meta::type_name(name), bytes, extra...);
  } else {
    std::string bytes;
    return f(caf::meta::type_name(name), bytes, extra...,
             caf::meta::load_callback([&]() -> caf::error {
               try {
                 actors::wire_codec::decode(bytes, x);
               } catch (const std::exception& e) {
                 actors::report_protocol_error(e.what());
                 return caf::sec::invalid_argument;
               }
               return caf::none;
             }));
  }
}

}  // namespace detail

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, value& x) {
  return detail::inspect_encoded(f, x, "superstep.value");
}

}  // namespace superstep

namespace superstep::actors {

/// Coordinator → channel actor: phase one of committing step `step`, as a message of its own
/// (answered with the vote) or riding with task batches and their writes (`task_batch::
/// prepares`, `channel_writes::prepare`: the vote goes to the actor's coordinator). The
/// actor waits until write messages of `expected` distinct chunks of the step arrived,
/// stages the step with those writes and the prepare's own `writes`
/// (channel_group::prepare) and votes. With `finish`, the second round
/// of a tentatively last step: deferred channels finish (channel_group::finish); `expected`,
/// `writes`, `consumed` and `bump_step` are then unused. `commits` (when not -1) is a step
/// whose checkpoint was written and whose commit travels with this message: the actor
/// commits it before anything else, as if `commit_atom, commits` had come first.
struct step_prepare {
  std::int64_t step = 0;
  std::uint32_t expected = 0;
  std::vector<std::string> consumed;
  bool bump_step = false;
  bool finish = false;
  std::vector<ordered_write> writes;
  std::int64_t commits = -1;
  std::uint64_t commits_version = 0;  ///< the version the `commits` step gave what it changed
};

/// Coordinator → node actor: run these tasks of one step. `slots` are the tasks' positions in
/// the step, echoed back so the coordinator files results without searching.
struct task_batch {
  std::uint64_t id = 0;  ///< the coordinator's number for the batch, echoed back
  batch_header header;
  std::vector<channel_delta> deltas;
  std::vector<std::uint32_t> slots;
  std::vector<pregel_task> tasks;
  /// Where the tasks' writes go once they ran, besides back to the coordinator in the
  /// result: the run's channel actors (channel_actor handles; a channel's owner is
  /// `channel_owner(name, groups.size())`), one `channel_writes` to each, numbered `chunk`
  /// (the batch's number in its step, the same when it is sent again), each write ordered by
  /// its task's position in the step's task-path order (`orders`, one per task). A group in
  /// the coordinator's process, when the batch runs in another, gets its message from there
  /// instead, made from the result (`result_takes_writes`). Empty `groups`: the writes go back
  /// to the coordinator only. The handles travel beside the Cap'n Proto bytes, as CAF
  /// serializes actor handles.
  std::vector<caf::actor> groups;
  std::vector<std::uint32_t> orders;
  std::uint32_t chunk = 0;
  /// The step's prepare for each of `groups`, riding with the writes: only in the step's
  /// chunk 0 (empty in the others, and without channel actors). One copy per step, not per
  /// batch: a prepare names every channel the step consumes, as many as its tasks.
  std::vector<step_prepare> prepares;
  /// With the run's channels on channel actors in other processes: the channels the node
  /// reads, at the versions the step saw. The node actor builds its replica from its
  /// process's replica of the run (subscribed to the channel actors) once that holds them,
  /// instead of from `deltas`.
  std::vector<std::string> need_channels;
  std::vector<std::uint64_t> need_versions;
  /// With `groups` in other processes and a checkpointer that keeps pending writes: the
  /// run's writes saver, in the coordinator's process. The node actor sends it the batch's
  /// result (`pending_writes`); the saver hands the writes for groups in its process on to
  /// them, saves the writes and answers the coordinator in the node actor's stead, with the
  /// result without the writes' values (the channels written stay named): no write value
  /// passes through the coordinator.
  caf::actor saver;
  /// The step's last batch out, run in the coordinator's process, whose run has one group,
  /// beside the coordinator: the node actor sends its result with its writes to the group,
  /// which hands it to the coordinator with its vote (channel_writes::result), so that the
  /// step takes one message to the coordinator rather than two. Never encoded: set only for
  /// a batch that stays in the coordinator's process.
  bool result_with_writes = false;
};

/// Node actor → coordinator: the batch's tasks with writes, outputs and errors filled in.
/// Encoded (for another process), only each task's outcome travels: its writes, interrupts,
/// errors and `done`, in the batch's order. The receiver holds the batch it sent, so a
/// decoded result's tasks have no id, name, input, output or path.
struct task_batch_done {
  std::uint64_t id = 0;
  std::vector<std::uint32_t> slots;
  std::vector<pregel_task> tasks;
  /// For a coordinator in another process: the Cap'n Proto bytes, made by the node actor so
  /// that results which cannot be sent become task errors instead of a lost message. Not
  /// itself sent.
  std::string encoded;
  /// Not 0 on a result too big for one message: its bytes came ahead in this many
  /// `result_part`s (result_parts.hpp), and this message only closes it.
  std::uint32_t parts = 0;
};

/// Node actor → a run's writes saver: a batch's result, to save the writes of as pending
/// writes before passing it on (the same encoding as a result, counted apart).
struct pending_writes : task_batch_done {};

/// Node actor → whoever takes a batch's result (coordinator or writes saver): a piece of the
/// encoded result of batch `batch`, when it is too big for one message (result_parts.hpp).
struct result_part {
  std::uint64_t batch = 0;
  std::uint32_t index = 0;
  std::string bytes;
};

/// Whoever takes a batch's result (the coordinator or a writes saver), as the node actor
/// sending it in parts sees it.
using result_taker = caf::typed_actor<caf::reacts_to<result_part>>;

/// A run's writes saver, as node actors see it: it answers a batch's result, delegated to it,
/// with the result the coordinator gets; a big result's parts come to it first.
using pending_writes_receiver =
    caf::typed_actor<caf::replies_to<pending_writes>::with<task_batch_done>,
                     caf::reacts_to<result_part>>;

/// Node actor → coordinator: a stream event produced while a task ran.
struct stream_chunk {
  std::vector<std::string> ns;
  std::uint8_t mode = 0;
  value data;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_batch& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.task_batch", x.groups, x.saver);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_batch_done& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.task_batch_done");
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pending_writes& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.pending_writes");
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, result_part& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.result_part");
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stream_chunk& x) {
  return superstep::detail::inspect_encoded(f, x, "superstep.stream_chunk");
}

/// Registers every message type of the protocol. Every process calls it on its config.
void register_message_types(caf::actor_system_config& cfg);

/// What the protocol's messages carried across this process's boundary, counted where they
/// are encoded to leave and decoded on arrival (messages inside one process are not). On a
/// head: task batches sent to workers, their results and stream events received back; the
/// channel actors' protocol apart (writes, prepares and placements out; writes and votes in).
struct wire_traffic {
  std::uint64_t batches_out = 0, batch_bytes_out = 0;
  std::uint64_t results_in = 0, result_bytes_in = 0;
  std::uint64_t chunks_in = 0, chunk_bytes_in = 0;
  std::uint64_t channel_out = 0, channel_bytes_out = 0;
  std::uint64_t channel_in = 0, channel_bytes_in = 0;
  std::uint64_t writes_in = 0, write_bytes_in = 0;  ///< pending writes, to a writes saver
};
wire_traffic traffic() noexcept;

/// Tasks and batches the node actors of this process have run, for logs.
std::uint64_t tasks_run() noexcept;
std::uint64_t batches_run() noexcept;

/// Coordinator → node actor (passed on to its process's replica of the run): the run's
/// channel actors now, after one lost with its process was placed again elsewhere.
using regroup_atom = caf::atom_constant<caf::atom("regroup")>;

/// The protocol of a PregelNode actor, checked by the compiler: a batch of tasks in, the
/// batch run out (sent back to the sender, after any stream_chunk of its tasks); the run's
/// channel actors, after one was placed again.
using node_actor = caf::typed_actor<caf::replies_to<task_batch>::with<task_batch_done>,
                                    caf::reacts_to<regroup_atom, std::vector<caf::actor>>>;

/// Spawns the actor hosting `node` (one of several instances a process may run for it).
node_actor spawn_node_actor(caf::actor_system& sys, std::shared_ptr<const node_host> node);

}  // namespace superstep::actors
