#pragma once

// The envelope of LangGraph's v3 event streaming (`langgraph.stream._types.ProtocolEvent`):
// what `pregel::stream_events` hands to stream transformers and to a run stream's raw event
// log (graph_run_stream.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

/// The parameters of a protocol event (LangGraph `_ProtocolEventParams`).
struct protocol_event_params {
  /// The graph that produced the event: [] at the top level, ["node:<task id>", ...] inside
  /// subgraphs (the stream_event's `ns`).
  std::vector<std::string> ns;
  /// Wall-clock milliseconds since the Unix epoch. It can go backwards (clock adjustments):
  /// order events by `protocol_event::seq`.
  std::int64_t timestamp = 0;
  /// The payload: the stream mode's data, or what a named stream_channel was pushed.
  value data;
  /// The interrupts of a `values` event that came with them (taken out of `data`'s
  /// "__interrupt__", as LangGraph's stream(version="v2") does); unset otherwise.
  std::optional<list> interrupts;
};

/// One event of a v3 run (LangGraph `ProtocolEvent`, whose "type" is always "event").
struct protocol_event {
  /// The stream mode ("values", "updates", "messages", "custom", "tasks", "checkpoints", "tools",
  /// "debug"), or the name a stream_channel forwards under: "<name>" for a native
  /// transformer's channel (e.g. "lifecycle"), "custom:<name>" for any other.
  std::string method;
  /// Position in the root mux's main log (1, 2, ...), set when the event enters it; the total
  /// order of a run's events. Unset on events of child muxes and on events not logged.
  std::optional<std::int64_t> seq;
  /// The wire id of the event (langchain-protocol's `event_id`); unset in process.
  std::optional<std::string> event_id;
  protocol_event_params params;
};

/// The protocol event of a stream event (LangGraph `convert_to_protocol_event` of a v2
/// stream part): method = the mode's name, namespace = `e.ns`, timestamp = now, data =
/// `e.data`. A `values` event whose data is an object with "__interrupt__" has it moved into
/// `params.interrupts` (the data keeps the other keys). O(1) apart from copying the namespace.
protocol_event to_protocol_event(const stream_event& e);

/// Milliseconds since the Unix epoch, as protocol events carry them.
std::int64_t protocol_timestamp_now() noexcept;

}  // namespace superstep
