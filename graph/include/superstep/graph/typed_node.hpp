#pragma once

// Adapters between typed state (superstep/core/typed.hpp) and the dynamic node API.

#include <map>
#include <string>
#include <type_traits>

#include "superstep/core/typed.hpp"
#include "superstep/graph/state_graph.hpp"

namespace superstep {

/// A node from a function of typed state: `fn(const State&, node_context&)` returning a
/// `partial<State>`, a `value` (an update object or a Command) or a whole `State` (every
/// field becomes an update).
template <class State, class F>
node_function typed_node(F fn) {
  return [fn = std::move(fn)](const value& in, node_context& ctx) -> value {
    State s = from_value<State>(in);
    auto out = fn(static_cast<const State&>(s), ctx);
    using R = decltype(out);
    if constexpr (std::is_same_v<R, partial<State>>)
      return out.to_value();
    else if constexpr (std::is_same_v<R, value>)
      return out;
    else
      return to_value(out);
  };
}

/// A router from a function of typed state returning a node name, END, Sends (as `value`).
template <class State, class F>
router_function typed_router(F fn) {
  return [fn = std::move(fn)](const value& in, node_context& ctx) -> value {
    return value(fn(from_value<State>(in), ctx));
  };
}

/// Declares one state key per field of `State`: last-value keys, or folded with the reducer
/// named in `reducers` (field name → built-in reducer name).
template <class State>
state_graph& add_state_keys(state_graph& graph,
                            const std::map<std::string, std::string>& reducers = {}) {
  for (const auto& name : field_names<State>()) {
    auto r = reducers.find(name);
    if (r == reducers.end())
      graph.add_key(name);
    else
      graph.add_key(name, std::string_view(r->second));
  }
  return graph;
}

}  // namespace superstep
