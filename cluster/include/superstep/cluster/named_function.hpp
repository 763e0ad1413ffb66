#pragma once

#include <string>

#include "superstep/core/value.hpp"
#include "superstep/pregel/node_context.hpp"

namespace superstep::cluster {

/// Where a node or router function came from: the registered name and the params it was made
/// with, as a graph spec writes them ({"fn": name, "params": params}).
struct function_origin {
  std::string name;
  value params;  ///< null when the spec gives none
};

/// `fn` carrying its origin: it runs `fn` unchanged, and `origin_of` finds `name` and
/// `params` in it, so that a graph holding it can be exported to a graph spec
/// (graph_export.hpp). `function_registry::make_node` and `make_router` return functions
/// named this way; a program names its own functions with it when it registers them under
/// `name` too (a spec read back resolves the name in the registry). Router functions have
/// the same type, so this names them as well.
node_function name_function(std::string name, value params, node_function fn);

/// The origin `name_function` gave `fn`, or nullptr for a function that has none (a lambda
/// added to a graph as it is). The pointer lives as long as `fn`'s target.
const function_origin* origin_of(const node_function& fn) noexcept;

}  // namespace superstep::cluster
