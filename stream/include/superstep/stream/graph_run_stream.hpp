#pragma once

// The run handle of LangGraph's v3 event streaming (`langgraph.stream.run_stream`):
// `pregel::stream_events` returns a graph_run_stream whose projections the caller iterates.
//
// Design. LangGraph's run stream is pull-based: the caller's iteration of any projection pumps
// the graph one event forward, so nothing runs ahead of the consumer, buffers stay at what one
// event produced, errors surface where the consumer reads, and closing the stream cancels the
// run. Our engine is push-based (`pregel::stream` calls a sink as events happen, from the
// threads of the run). The bridge: the run executes on a thread of its own, started by the
// first pump, and its sink hands each event over a queue of capacity one to the consumer,
// blocking while the consumer has not taken the previous one. So the graph is at most one
// event ahead of the caller (LangGraph's pacing), and everything of the v3 layer (mux,
// transformers, channels) runs on the caller's thread with no locks, as in LangGraph. Per
// event: one handoff (a mutex and a condition variable) plus the transformers' work.
//
// `abort()` (and the destructor) stop the run: the sink drops what comes after, the run is
// asked to drain (`run_control::request_drain` on `stream_options::control` when the caller
// gave one, else on a control of its own; its subgraphs obey it too), so it ends at its next
// step boundary, its checkpoints so far kept, and abort returns once the run's thread ended. C++
// cannot cancel a running function: tasks in flight finish (LangGraph's asyncio cancellation stops
// them at their next await), nothing starts after them.

#include <exception>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "superstep/pregel/stream.hpp"
#include "superstep/stream/protocol_event.hpp"
#include "superstep/stream/stream_channel.hpp"
#include "superstep/stream/stream_mux.hpp"

namespace superstep {

class subgraph_run_stream;
class chat_model_stream;

/// Where a graph_run_stream pulls a run's events from (LangGraph's graph iterator).
class stream_event_source {
 public:
  virtual ~stream_event_source() = default;
  /// The next event; nullopt once the run ended normally. Throws the run's error.
  virtual std::optional<stream_event> next() = 0;
  /// Stops the run early (abort); `next` is not called after. Idempotent.
  virtual void close() noexcept {}
};

/// An item of an interleave: a value, or (from the messages projection) a chat model stream.
/// Converts to the value it holds; `chat_stream()` gives the stream.
class interleaved_value : public value {
 public:
  interleaved_value(value v) : value(std::move(v)) {}
  explicit interleaved_value(std::shared_ptr<chat_model_stream> s) : stream_(std::move(s)) {}
  /// The chat model stream of a messages item, else null.
  const std::shared_ptr<chat_model_stream>& chat_stream() const noexcept { return stream_; }

 private:
  std::shared_ptr<chat_model_stream> stream_;
};

/// Iterates several projections in arrival order (`run_stream::interleave`).
class interleaved_stream {
 public:
  using item = std::pair<std::string, interleaved_value>;
  /// One projection: its channel, and how its front item is taken as an interleaved_value.
  struct source {
    std::string name;
    stream_channel_base* channel;
    std::function<std::optional<std::uint64_t>()> front_stamp;
    std::function<interleaved_value()> pop_front;
  };
  interleaved_stream(std::vector<source> channels, std::function<bool()> pump);
  interleaved_stream(interleaved_stream&& other) noexcept;
  interleaved_stream(const interleaved_stream&) = delete;
  /// Gives the channels' subscriptions back.
  ~interleaved_stream();
  /// The next (projection name, item) in push order across the channels; nullopt once every
  /// channel ended. Throws the error a channel failed with.
  std::optional<item> next();
  stream_iterator<interleaved_stream, item> begin() {
    return stream_iterator<interleaved_stream, item>(this);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  void release() noexcept;
  std::vector<source> channels_;
  std::vector<bool> done_;
  std::function<bool()> pump_;
};

/// What a run stream and a subgraph handle share: projections, output, interrupts, raw events
/// (LangGraph `GraphRunStream`). Single consumer, on one thread.
class run_stream {
 public:
  virtual ~run_stream() = default;
  run_stream(const run_stream&) = delete;
  run_stream& operator=(const run_stream&) = delete;

  /// The values projection (LangGraph `run.values`): the state after each step of this
  /// run's own graph (not its subgraphs'). Throws `superstep::error` (not_found) when no
  /// transformer provides "values"; the other accessors likewise.
  stream_channel<value>& values() const { return native<stream_channel<value>>("values"); }
  /// The messages projection (LangGraph `run.messages`): a chat_model_stream per chat model
  /// call of this run's own graph (not its subgraphs'), pushed as the call starts, and one
  /// per whole message a node returns (stream_transformers.hpp `messages_transformer`).
  stream_channel<std::shared_ptr<chat_model_stream>>& messages() const {
    return native<stream_channel<std::shared_ptr<chat_model_stream>>>("messages");
  }
  /// Subgraphs starting and ending below this run (LangGraph `run.lifecycle`):
  /// {event: started|completed|failed|interrupted|drained, namespace, graph_name?,
  /// trigger_call_id?, cause?, error?}; also in the main log as "lifecycle" events.
  stream_channel<value>& lifecycle() const { return native<stream_channel<value>>("lifecycle"); }
  /// A handle per direct child subgraph as it starts (LangGraph `run.subgraphs`).
  stream_channel<std::shared_ptr<subgraph_run_stream>>& subgraphs() const {
    return native<stream_channel<std::shared_ptr<subgraph_run_stream>>>("subgraphs");
  }

  /// Every transformer's projections by key (read-only, LangGraph `run.extensions`).
  const stream_projections& extensions() const noexcept { return mux_->extensions(); }
  /// The keys of native projections (LangGraph's direct attributes of the run stream).
  const std::set<std::string>& native_keys() const noexcept { return mux_->native_keys(); }
  /// The projection `key` as a P. Throws `superstep::error`: not_found when no transformer
  /// provides it, type_error when it is not a P.
  template <class P>
  P& extension(const std::string& key) const {
    auto it = mux_->extensions().find(key);
    if (it == mux_->extensions().end())
      throw superstep::error(error_code::not_found,
                             "no projection '" + key + "' in the run stream");
    auto* p = dynamic_cast<P*>(it->second.get());
    if (!p)
      throw superstep::error(error_code::type_error,
                             "projection '" + key + "' is not of the type asked for");
    return *p;
  }
  /// A native projection (LangGraph's `run.<key>` attribute): as `extension`, and not_found
  /// for a key of a non-native transformer.
  template <class P>
  P& native(const std::string& key) const {
    if (!mux_->native_keys().count(key))
      throw superstep::error(error_code::not_found,
                             "no native projection '" + key + "' in the run stream");
    return extension<P>(key);
  }

  /// Runs to the end and returns the last values event of this run's graph (null when none);
  /// throws the run's error. LangGraph `run.output`.
  value output();
  /// Runs to the end; whether a values event came with interrupts. Throws the run's error.
  bool interrupted();
  /// Runs to the end; the interrupts of this run's values events. Throws the run's error.
  const list& interrupts();

  /// Subscribes to the main event log (LangGraph `iter(run)`): every event that no
  /// transformer dropped, numbered by `seq`, then the end or the run's error.
  stream_cursor<protocol_event> events() { return mux_->events().cursor(); }
  /// Iterates the projections `names` together in arrival order (LangGraph
  /// `run.interleave`), holding their subscriptions until it is destroyed: stream_channel<value>
  /// projections, and the messages projection (its items hold their chat_model_stream). Throws
  /// `superstep::error`: not_found for an unknown name, type_error for a projection of another
  /// kind, invalid_argument for one already subscribed.
  interleaved_stream interleave(const std::vector<std::string>& names);

  /// Stops reading early (LangGraph `abort`): marks the stream exhausted and closes its mux
  /// normally (its channels end after what they hold). A run stream also stops its run; a
  /// subgraph handle only stops getting events (the run goes on). Idempotent, noexcept.
  virtual void abort() noexcept;

  /// Whether the run stream has ended (the run ended, failed, or was aborted).
  bool exhausted() const noexcept { return exhausted_; }
  /// The mux (its main log, transformers, projections).
  stream_mux& mux() const noexcept { return *mux_; }

  /// Tracks a values event of this run's graph for output/interrupted/interrupts.
  void observe_event(const protocol_event& event);

 protected:
  explicit run_stream(std::unique_ptr<stream_mux> mux);
  /// Produces one more event; false when there is none (LangGraph `_pump_next`).
  virtual bool pump_next() = 0;
  void drive_until_done();

  std::unique_ptr<stream_mux> mux_;
  bool exhausted_ = false;
  value latest_;
  bool interrupted_ = false;
  list interrupts_;
};

/// The run stream of `pregel::stream_events` (LangGraph `GraphRunStream`): the caller's reads
/// pump the run (see the design notes at the top of this header). Destroying it aborts the run.
class graph_run_stream : public run_stream {
 public:
  /// A run stream over `source`, dispatching through `mux` (whose pump becomes this stream's).
  graph_run_stream(std::unique_ptr<stream_mux> mux, std::unique_ptr<stream_event_source> source);
  /// Aborts.
  ~graph_run_stream() override;

  /// Stops the run early: stops the source (the run drains and its thread is joined), then
  /// as `run_stream::abort`.
  void abort() noexcept override;

 protected:
  bool pump_next() override;

 private:
  std::unique_ptr<stream_event_source> source_;
};

/// How a subgraph ended, as its handle and lifecycle events tell it (LangGraph
/// `SubgraphStatus`).
enum class subgraph_status : std::uint8_t { started, completed, failed, interrupted, drained };
std::string_view subgraph_status_name(subgraph_status s) noexcept;
/// Writes the status's name (for test output and logs).
std::ostream& operator<<(std::ostream& os, subgraph_status s);

/// A handle on a subgraph of a run (LangGraph `SubgraphRunStream`), from `run.subgraphs()`:
/// projections scoped to the subgraph, filled as the root run is pumped (its reads pump the
/// root). Subscribe to its projections before reading on, as for the root's.
class subgraph_run_stream : public run_stream {
 public:
  subgraph_run_stream(std::unique_ptr<stream_mux> mux, std::vector<std::string> path,
                      std::optional<std::string> graph_name,
                      std::optional<std::string> trigger_call_id);

  /// The subgraph's namespace.
  const std::vector<std::string>& path() const noexcept { return path_; }
  /// The node running it (or the agent's lc_agent_name), when known.
  const std::optional<std::string>& graph_name() const noexcept { return graph_name_; }
  /// The id of the task that runs it.
  const std::optional<std::string>& trigger_call_id() const noexcept { return trigger_call_id_; }
  subgraph_status status() const noexcept { return status_; }
  /// Its error message when it failed.
  const std::optional<std::string>& error() const noexcept { return error_; }

  /// Sets the terminal status once (the subgraph transformer); false when already set.
  bool mark_terminal(subgraph_status s, const std::optional<std::string>& error);
  bool seen_terminal() const noexcept { return seen_terminal_; }

 protected:
  bool pump_next() override;

 private:
  std::vector<std::string> path_;
  std::optional<std::string> graph_name_;
  std::optional<std::string> trigger_call_id_;
  subgraph_status status_ = subgraph_status::started;
  std::optional<std::string> error_;
  bool seen_terminal_ = false;
};

}  // namespace superstep
