#pragma once

// Where a run sits in a trace: LangSmith's run tree reduced to what crosses a process (the
// `langsmith-trace` and `baggage` headers of its distributed tracing). A caller starts one
// and puts it in a run's config; the run carries its own under it; a remote_graph with
// distributed_tracing sends it to the head, whose run carries it on.

#include <map>
#include <optional>
#include <string>

#include "superstep/core/value.hpp"

namespace superstep {

/// A run's place in a trace (LangSmith's `RunTree`: its trace id, id, parent and dotted order,
/// and the metadata its baggage carries). A plain value: copy it freely; thread-safe as one.
///
/// It travels in a run's config under "trace" (`in`, `of`). A run given a config with one
/// (the caller's) carries its own, a child named by the run's id, in the config its nodes
/// read (node_context::config()), so a node sees the run it belongs to and the caller's run
/// as its parent. remote_graph sends the caller's context as headers (`to_headers`) when its
/// options ask for distributed tracing; the head reads them back (`from_headers`) into the
/// config of the run it serves.
struct trace_context {
  /// The id of the trace's root run.
  std::string trace_id;
  /// The id of this run.
  std::string run_id;
  /// The id of the run this one runs under; empty at the root.
  std::string parent_run_id;
  /// LangSmith's dotted order: one "<UTC start, %Y%m%dT%H%M%S and microseconds>Z<run id>"
  /// segment per run from the root to this one, joined by '.'.
  std::string dotted_order;
  /// What the trace carries along (LangSmith's baggage metadata): an object.
  value metadata = object{};

  /// A new trace whose root run is `run_id` (a fresh uuid when empty), started now
  /// (LangSmith's `ls.trace(...)` with no run around it).
  static trace_context start(std::string run_id = {}, value metadata = object{});

  /// The run `run_id` started now under this one: the same trace and metadata.
  trace_context child(std::string run_id) const;

  /// The headers that propagate this context (LangSmith's `RunTree.to_headers`):
  /// "langsmith-trace" (the dotted order) and "baggage" ("langsmith-metadata=" and the
  /// metadata as percent-encoded JSON).
  std::map<std::string, std::string> to_headers() const;

  /// The context `headers` propagate (LangSmith's `RunTree.from_headers`): the sender's run,
  /// to start a child under. nullopt without a "langsmith-trace" header. Throws
  /// `superstep::error` (invalid_argument) naming the header when it is malformed.
  static std::optional<trace_context> from_headers(
      const std::map<std::string, std::string>& headers);

  /// As a value: {"trace_id", "run_id", "parent_run_id", "dotted_order", "metadata"}.
  value to_value() const;

  /// The context in `config` (its "trace"), nullopt when it has none. Throws
  /// `superstep::error` (invalid_argument) when "trace" is not such a value.
  static std::optional<trace_context> of(const value& config);

  /// `config` (an object, or null) with this context as its "trace".
  value in(const value& config) const;

  bool operator==(const trace_context&) const = default;
};

}  // namespace superstep
