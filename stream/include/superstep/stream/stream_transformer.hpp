#pragma once

// The extension point of LangGraph's v3 event streaming (`langgraph.stream.StreamTransformer`):
// a transformer watches a run's protocol events and builds projections from them.

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "superstep/pregel/stream.hpp"
#include "superstep/stream/protocol_event.hpp"
#include "superstep/stream/stream_channel.hpp"

namespace superstep {

class stream_mux;

/// A transformer's projections by key: what `init` returns. Keys become the run stream's
/// `extensions()` (and, for a native transformer, its native projections).
using stream_projections = std::map<std::string, std::shared_ptr<stream_projection>>;

/// Observes the protocol events of a run and builds typed projections from them (LangGraph
/// `StreamTransformer`).
///
/// A stream_mux calls, on the consumer's thread: `init` once at registration, `process` for
/// every event in registration order, then `finalize` when the run ends normally or `fail`
/// when it ends with an error. The stream channels of the projection are closed (failed)
/// by the mux after `finalize` (`fail`), so most transformers override neither. LangGraph's
/// async lane (`aprocess`, `schedule`) has no equivalent: a C++ transformer that needs other
/// threads owns them and pushes results on the next `process`.
class stream_transformer {
 public:
  /// `scope`: the namespace of the mux the transformer serves ([] for the run itself,
  /// ["node:<task id>"] in a subgraph handle's mux): a transformer projects what happens at
  /// (or below) its scope.
  explicit stream_transformer(std::vector<std::string> scope = {}) : scope_(std::move(scope)) {}
  virtual ~stream_transformer() = default;

  /// The projections, by key (LangGraph `init`). A null projection is rejected by the mux.
  virtual stream_projections init() = 0;
  /// Observes (and may change) one event; false drops it from the main log (every
  /// transformer still sees it). An exception fails the run stream.
  virtual bool process(protocol_event& event) = 0;
  /// The run ended normally. An exception is rethrown once the mux closed everything else.
  virtual void finalize() {}
  /// The run ended with `err`. Exceptions are swallowed: the other transformers and every
  /// channel are failed regardless.
  virtual void fail(const std::exception_ptr& err) { (void)err; }
  /// Told the mux that registered it (LangGraph `_on_register`): for transformers that build
  /// child muxes (`stream_mux::make_child`).
  virtual void on_register(stream_mux& mux) { (void)mux; }

  /// The stream modes the graph must emit for this transformer (LangGraph
  /// `required_stream_modes`); a v3 run asks the graph for the union over its transformers.
  virtual std::vector<stream_mode> required_stream_modes() const { return {}; }
  /// Registered ahead of the others (LangGraph `before_builtins`): for transformers that
  /// change events (redaction) before the built-ins copy their contents. Within each lane the
  /// given order is kept. Do not change the namespace or the task fields of `tasks` events:
  /// the lifecycle and subgraph transformers read them after.
  virtual bool before_builtins() const { return false; }
  /// Native (LangGraph `_native`): the projections are the run stream's own
  /// (`run_stream::native`), and its named channels forward under their bare name, not
  /// "custom:<name>".
  virtual bool native() const { return false; }
  /// The name error messages give the transformer (its C++ type by default).
  virtual std::string name() const;

  const std::vector<std::string>& scope() const noexcept { return scope_; }

 private:
  std::vector<std::string> scope_;
};

/// The factory of a transformer type whose constructor takes the scope.
template <class T>
transformer_factory factory_of() {
  return [](const std::vector<std::string>& scope) -> std::shared_ptr<stream_transformer> {
    return std::make_shared<T>(scope);
  };
}

}  // namespace superstep
