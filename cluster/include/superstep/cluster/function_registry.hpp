#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/agents/tool.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/core/key_source.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/node_context.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::cluster {

/// Makes a node function from the `params` a spec gives it (null when the spec has none).
/// Throws `invalid_param` (see function_params.hpp) or `superstep::error` (invalid_spec) when
/// the params are missing or malformed, so specs fail when loaded, not when run.
using node_factory = std::function<node_function(const value& params)>;

/// Makes a router (for conditional edges) from its params, likewise.
using router_factory = std::function<router_function(const value& params)>;

/// Makes an embedding function for the store's semantic search from its params: an object
/// that holds at least "dims", the length of the vectors it must return (the store checks).
/// Throws `invalid_param` or `superstep::error` when the params are missing or malformed.
using embedder_factory = std::function<storage::embed_fn(const value& params)>;

class function_registry;

/// Makes a node function from its params with the registry at hand: nodes that call a model
/// or tools (`llm.chat`, `tools.run`) find the registry's tools and model settings there.
/// Errors as `node_factory`.
using registry_node_factory =
    std::function<node_function(const value& params, const function_registry& registry)>;

/// The named functions a graph spec may refer to: node factories, router factories and
/// reducers; and the embedders that index the store for semantic search.
///
/// A spec names node code ("fn": "std.template"); the registry turns the name and its params
/// into a function. `main()` (or a test) builds one registry, fills it (the `std` library,
/// node libraries loaded as plugins) and passes it to the spec loader: there is no global
/// registry and no static registration.
///
/// Built-in reducers (append, add, max, min, merge, add_messages) and embedders ("hashing" and
/// "openai", see `make_embedder`) are always known and cannot be registered again. Names are unique
/// per kind: registering a name twice throws `superstep::error` (invalid_argument), so two
/// libraries cannot silently shadow each other.
///
/// Thread-safety: fill it on one thread; afterwards, concurrent const lookups are safe.
/// Functions it returns may be called concurrently by tasks of several runs.
class function_registry {
 public:
  void add_node(std::string name, node_factory factory);
  void add_router(std::string name, router_factory factory);
  void add_reducer(std::string name, channels::reducer reducer);
  void add_embedder(std::string name, embedder_factory factory);
  /// A node whose factory also gets the registry (see registry_node_factory). Its name is
  /// unique among all node functions.
  void add_registry_node(std::string name, registry_node_factory factory);
  /// A tool that `llm.chat` nodes may offer a model and `tools.run` nodes run, by its name
  /// (which models see: [A-Za-z0-9_-]). Throws `superstep::error` (invalid_argument) when
  /// its name is empty, taken, or it has no function.
  void add_tool(agents::tool t);
  /// The tools registered by name.
  const agents::tool_registry& tools() const noexcept { return tools_; }
  /// The chat model the command line gives (`--model`, `--model-url`, `--model-key-env`):
  /// an object {"name", "url", "key_env"} (fields absent when not given), or null. `llm.chat`
  /// nodes take these fields over their own "model" params.
  void set_model_settings(value settings) { model_settings_ = std::move(settings); }
  const value& model_settings() const noexcept { return model_settings_; }
  /// Where the API keys that models and embedders name (`key_env`, SUPERSTEP_MODEL_KEY,
  /// OPENAI_API_KEY, ...) are found: none by default, so that no key is sent unless the caller
  /// gives one. The library reads no environment variable; the `superstep` program passes a
  /// source that reads its environment.
  void set_key_source(key_source keys) { keys_ = std::move(keys); }
  const key_source& keys() const noexcept { return keys_; }

  /// True for nodes of `add_node` and of `add_registry_node`.
  bool has_node(std::string_view name) const noexcept;
  bool has_router(std::string_view name) const noexcept;
  /// True for registered and built-in reducers.
  bool has_reducer(std::string_view name) const noexcept;
  /// True for registered and built-in embedders.
  bool has_embedder(std::string_view name) const noexcept;

  /// The node function `name` made with `params`, carrying them (`origin_of`,
  /// named_function.hpp: a graph holding it exports to a spec). Throws `superstep::error`
  /// (unknown_function) naming `name` when it is not registered; the factory's own errors
  /// propagate.
  node_function make_node(std::string_view name, const value& params) const;
  /// The router `name` made with `params`, likewise.
  router_function make_router(std::string_view name, const value& params) const;
  /// A registered or built-in reducer; throws `superstep::error` (unknown_function) otherwise.
  const channels::reducer& reducer(std::string_view name) const;
  /// The embedder `name` made with `params`. Built in:
  ///  - "hashing" {dims}: storage::make_hashing_embedder, offline and deterministic;
  ///  - "openai" {dims, model, url, key_env, batch, timeout_ms, send_dims}: an
  ///    OpenAI-compatible HTTP endpoint (storage::make_openai_embedder; model and dims
  ///    required, the rest as openai_embedder_options has them).
  /// Throws `superstep::error` (unknown_function) listing the known names when `name` is not
  /// one; (invalid_argument) naming the embedder when its params are bad; the factory's
  /// other errors propagate.
  storage::embed_fn make_embedder(std::string_view name, const value& params) const;

  /// Lets node functions and routers that are not registered resolve to stand-ins that fail
  /// with `unavailable` when called: a cluster's head loads graphs whose node code only its
  /// workers have (tasks run there), and a worker loads graphs of which it can host only
  /// some nodes. Their params are then validated where the code is. Reducers run where the
  /// graph's channels are and must be registered.
  void allow_missing(bool on) noexcept { allow_missing_ = on; }
  /// Whether `allow_missing` is on (an llm.chat node without a model name then loads as a
  /// stand-in too: a head loads specs whose models only its workers are given).
  bool missing_allowed() const noexcept { return allow_missing_; }

  /// Registered names, sorted (built-in reducers are not listed).
  std::vector<std::string> node_names() const;
  std::vector<std::string> router_names() const;
  std::vector<std::string> reducer_names() const;
  /// Built-in and registered embedders.
  std::vector<std::string> embedder_names() const;

 private:
  node_function make_unnamed_node(std::string_view name, const value& params) const;
  router_function make_unnamed_router(std::string_view name, const value& params) const;

  std::map<std::string, node_factory, std::less<>> nodes_;
  std::map<std::string, router_factory, std::less<>> routers_;
  std::map<std::string, channels::reducer, std::less<>> reducers_;
  bool allow_missing_ = false;
  // Last, so that node libraries built before embedders find the members they use in place.
  std::map<std::string, embedder_factory, std::less<>> embedders_;
  std::map<std::string, registry_node_factory, std::less<>> registry_nodes_;
  agents::tool_registry tools_;
  value model_settings_;
  key_source keys_;
};

}  // namespace superstep::cluster
