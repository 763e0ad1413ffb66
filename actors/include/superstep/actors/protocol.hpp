#pragma once

// The message protocol between coordinator actors and node actors, declared in one place.
// Include only from actor translation units: it pulls in CAF.

#include <caf/all.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "superstep/actors/node_host.hpp"
#include "superstep/actors/task.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

// Inspectors live beside their types so CAF finds them by argument-dependent lookup.
// Values travel as JSON text between processes for now (Cap'n Proto with the cluster issue);
// inside one process CAF moves them without serializing.
template <class Inspector>
typename std::enable_if<Inspector::reads_state, typename Inspector::result_type>::type inspect(
    Inspector& f, value& x) {
  std::string s = x.to_json();
  return f(s);
}

template <class Inspector>
typename std::enable_if<Inspector::writes_state, typename Inspector::result_type>::type inspect(
    Inspector& f, value& x) {
  std::string s;
  return f(s, caf::meta::load_callback([&]() -> caf::error {
             try {
               x = value::parse_json(s);
             } catch (const std::exception&) {
               return caf::sec::invalid_argument;
             }
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_error& x) {
  auto code = static_cast<std::uint16_t>(x.code);
  return f(caf::meta::type_name("task_error"), code, x.message,
           caf::meta::load_callback([&]() -> caf::error {
             x.code = static_cast<error_code>(code);
             return caf::none;
           }));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, pregel_task& x) {
  bool has_error = x.error.has_value();
  task_error err = x.error.value_or(task_error{});
  return f(caf::meta::type_name("pregel_task"), x.id, x.node, x.name, x.push, x.push_index,
           x.triggers, x.input, x.writes, x.output, x.resume, x.interrupts, has_error, err, x.done,
           caf::meta::load_callback([&]() -> caf::error {
             if (has_error) x.error = err;
             return caf::none;
           }));
}

}  // namespace superstep

namespace superstep::actors {

/// A channel's new checkpoint value for a replica (`present` false: the channel is empty).
struct channel_delta {
  std::string channel;
  bool present = false;
  value v;
};

/// Coordinator → node actor: run these tasks of one step. `slots` are the tasks' positions in
/// the step, echoed back so the coordinator files results without searching.
struct task_batch {
  std::uint64_t id = 0;  ///< the coordinator's number for the batch, echoed back
  batch_header header;
  std::vector<channel_delta> deltas;
  std::vector<std::uint32_t> slots;
  std::vector<pregel_task> tasks;
};

/// Node actor → coordinator: the batch's tasks with writes, outputs and errors filled in.
struct task_batch_done {
  std::uint64_t id = 0;
  std::vector<std::uint32_t> slots;
  std::vector<pregel_task> tasks;
};

/// Node actor → coordinator: a stream event produced while a task ran.
struct stream_chunk {
  std::vector<std::string> ns;
  std::uint8_t mode = 0;
  value data;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, batch_header& x) {
  return f(caf::meta::type_name("batch_header"), x.step, x.stop, x.checkpoint_id, x.resuming,
           x.config, x.ns, x.modes, x.subgraphs);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, channel_delta& x) {
  return f(caf::meta::type_name("channel_delta"), x.channel, x.present, x.v);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_batch& x) {
  return f(caf::meta::type_name("task_batch"), x.id, x.header, x.deltas, x.slots, x.tasks);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, task_batch_done& x) {
  return f(caf::meta::type_name("task_batch_done"), x.id, x.slots, x.tasks);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stream_chunk& x) {
  return f(caf::meta::type_name("stream_chunk"), x.ns, x.mode, x.data);
}

/// Registers every message type of the protocol. Every process calls it on its config.
void register_message_types(caf::actor_system_config& cfg);

/// Tasks and batches the node actors of this process have run, for logs.
std::uint64_t tasks_run() noexcept;
std::uint64_t batches_run() noexcept;

/// Spawns the actor hosting `node` (one of several instances a process may run for it).
caf::actor spawn_node_actor(caf::actor_system& sys, std::shared_ptr<const node_host> node);

}  // namespace superstep::actors
