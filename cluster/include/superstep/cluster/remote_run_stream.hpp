#pragma once

// A remote run read event by event (remote_graph::stream_events, LangGraph's v3 run stream):
// started, read, closed or aborted (cancelled on the server). CAF-free:
// client/remote_run_stream.cpp holds the connection.

#include <memory>
#include <optional>
#include <string>

#include "superstep/core/value.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

class remote_graph;

/// A remote run read event by event (LangGraph's `RemoteGraph.stream_events(version="v3")`
/// run stream, over the SDK's thread stream): made by `remote_graph::stream_events`, started
/// by `enter`, read with `next` and `output`, and ended by `close` (the run goes on on the
/// head) or `abort` (the run is cancelled on the head, then the stream closes).
///
/// The run is sent with an id of its own (the engine's config "run_id"), by which `abort`
/// cancels it (`remote_graph::cancel`); from a LangGraph Server (remote_graph_options::url),
/// the run has the id the server gives it, read from its stream's `metadata` event before
/// `enter` returns. Not thread-safe, except `abort` and `close`, which may
/// be called from any thread while another waits in `next` (that call then throws). The
/// destructor closes the stream.
class remote_run_stream {
 public:
  remote_run_stream(remote_run_stream&&) noexcept;
  remote_run_stream& operator=(remote_run_stream&&) noexcept;
  remote_run_stream(const remote_run_stream&) = delete;
  remote_run_stream& operator=(const remote_run_stream&) = delete;
  /// Closes the stream (`close`).
  ~remote_run_stream();

  /// Starts the run on the head (LangGraph's `__enter__`: the SDK thread's `run.start`),
  /// which then has the run's id. Throws `superstep::error`: invalid_argument when the stream
  /// was entered or closed before; otherwise as remote_graph's calls (the head unreachable,
  /// refusing the request), and the stream is then closed (LangGraph unwinds its SDK thread).
  void enter();

  /// The next event of the modes asked for (remote_run_options::modes; updates by default),
  /// waiting for the head to send it; nullopt once the run ended. Throws the run's error with
  /// its code (cancelled, after a cancel), or error(invalid_argument) before `enter` and once
  /// the stream is closed.
  std::optional<stream_event> next();

  /// Reads the events left and returns the run's output: its last values, with
  /// "__interrupt__" when it stopped at an interrupt (as `remote_graph::stream` returns).
  /// Throws as `next`.
  value output();

  /// Cancels the run on the head (`remote_graph::cancel` with its thread and run id) when the
  /// stream was entered, then closes it (LangGraph's `abort`). Does nothing when the stream is
  /// closed already (idempotent: one cancel at most). A cancel that fails (the run ended
  /// already, the head is gone) is swallowed: the stream closes all the same. Never throws.
  void abort() noexcept;

  /// Stops reading the run's events (LangGraph's `__exit__`): what the head still sends is
  /// dropped; the run itself goes on on the head. Idempotent; never throws.
  void close() noexcept;

  /// Whether `enter` started the run.
  bool entered() const noexcept;
  /// Whether `close` or `abort` was called (or `enter` failed).
  bool closed() const noexcept;
  /// The run's thread (the config's thread_id, else a fresh one).
  const std::string& thread_id() const noexcept;
  /// The run's id once entered; empty before.
  std::string run_id() const;

  struct state;

 private:
  friend class remote_graph;
  explicit remote_run_stream(std::shared_ptr<state> s);
  std::shared_ptr<state> state_;
};

}  // namespace superstep
