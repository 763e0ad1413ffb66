#pragma once

// The dispatcher of LangGraph's v3 event streaming (`langgraph.stream._mux.StreamMux`).

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "superstep/stream/protocol_event.hpp"
#include "superstep/stream/stream_channel.hpp"
#include "superstep/stream/stream_transformer.hpp"

namespace superstep {

/// Routes protocol events through a pipeline of stream transformers into a main event log
/// (LangGraph `StreamMux`).
///
/// Registration (the constructor): transformers whose `before_builtins()` is true first,
/// then the others, each lane in the order given; factories before pre-built instances. Each
/// transformer's `init` projections are merged into `extensions()`; a key two transformers
/// claim is an error naming both. Stream channels found in projections are bound to the mux
/// (push stamps, the pump), and named ones wired: each push also enters the main log as a
/// protocol event, method "<name>" (native transformer) or "custom:<name>", without passing
/// through the transformers.
///
/// `push` runs every transformer's `process` in order, then appends the event to the main
/// log unless one returned false. The root mux numbers events (`seq`) as they enter its log,
/// so events a transformer's channel forwards while processing an event come before it.
/// `close`/`fail` end the transformers, then close/fail every projection channel and the log,
/// even when a transformer throws.
///
/// Not thread-safe: it runs on the consumer's thread (see graph_run_stream.hpp). Per event,
/// the cost is the transformers' `process` calls; nothing is kept beyond what a subscribed
/// channel holds.
class stream_mux {
 public:
  /// A mux of fresh transformers made by `factories` for `scope` (and again for each child
  /// mux, `make_child`), then the pre-built `transformers` (this mux only). `assign_seq`:
  /// number the events of the main log (the root); child muxes do not. Throws
  /// `superstep::error` (invalid_argument) naming the transformer: an empty factory, a factory
  /// that made nothing, a null projection, a projection key already taken (and by whom), a
  /// named channel whose items are not values.
  explicit stream_mux(std::vector<transformer_factory> factories,
                      std::vector<std::string> scope = {},
                      std::vector<std::shared_ptr<stream_transformer>> transformers = {},
                      bool assign_seq = true);
  /// A mux of pre-built transformers only (cannot make child muxes).
  explicit stream_mux(std::vector<std::shared_ptr<stream_transformer>> transformers)
      : stream_mux({}, {}, std::move(transformers)) {}
  stream_mux(const stream_mux&) = delete;
  stream_mux& operator=(const stream_mux&) = delete;

  /// Runs `event` through the transformers, then appends it to the main log unless one
  /// dropped it. An exception of a transformer propagates (the run stream fails with it).
  void push(protocol_event event);
  /// Ends normally: every transformer's `finalize`, then closes the projection channels and
  /// the main log; rethrows the first `finalize` error after all that.
  void close();
  /// Ends with `err`: every transformer's `fail` (their exceptions swallowed), then fails
  /// the projection channels and the main log with `err`.
  void fail(const std::exception_ptr& err);

  /// The main event log (LangGraph `_events`): what `run_stream::events` reads.
  stream_channel<protocol_event>& events() noexcept { return events_; }
  /// Every projection by key (read-only).
  const stream_projections& extensions() const noexcept { return extensions_; }
  /// The keys of native transformers' projections.
  const std::set<std::string>& native_keys() const noexcept { return native_keys_; }
  /// The transformer that contributed `key`, or null.
  stream_transformer* transformer_by_key(const std::string& key) const;
  /// The transformers in registration order.
  const std::vector<std::shared_ptr<stream_transformer>>& transformers() const noexcept {
    return transformers_;
  }
  const std::vector<std::string>& scope() const noexcept { return scope_; }
  /// The union of the transformers' `required_stream_modes`, in stream_mode order.
  std::vector<stream_mode> required_stream_modes() const;

  /// Sets the pump of the main log and of every projection channel (LangGraph `bind_pump`);
  /// child muxes made after inherit it.
  void bind_pump(std::function<bool()> pump);
  const std::function<bool()>& pump() const noexcept { return pump_; }
  /// A mux for the subgraph at `scope`: fresh transformers from the same factories, the same
  /// pump, no seq numbers (LangGraph `_make_child`). Throws `superstep::error`
  /// (invalid_argument) when this mux was built without factories.
  std::unique_ptr<stream_mux> make_child(std::vector<std::string> scope) const;

  /// The next push stamp (arrival order across this mux's channels).
  std::uint64_t next_push_stamp() noexcept { return ++push_seq_; }

 private:
  void register_transformer(std::shared_ptr<stream_transformer> t);
  void forward(const std::string& method, const value& item);

  std::vector<std::string> scope_;
  bool assign_seq_;
  std::vector<transformer_factory> factories_;
  stream_channel<protocol_event> events_;
  std::vector<std::shared_ptr<stream_transformer>> transformers_;
  std::vector<stream_channel_base*> channels_;
  stream_projections extensions_;
  std::set<std::string> native_keys_;
  std::map<std::string, stream_transformer*> owners_;
  std::function<bool()> pump_;
  std::int64_t seq_ = 0;
  std::uint64_t push_seq_ = 0;
};

}  // namespace superstep
