#pragma once

// Internal: the builder's one way to refuse a graph.

#include <string>

#include "superstep/core/error.hpp"

namespace superstep::graph_detail {

/// Throws `superstep::error` (invalid_graph) with `msg`.
[[noreturn]] inline void invalid(const std::string& msg) {
  throw error(error_code::invalid_graph, msg);
}

}  // namespace superstep::graph_detail
