#pragma once

// Internal: helpers shared by the files of the `std` library.

#include <string>
#include <string_view>

#include "superstep/cluster/function_params.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/core/error.hpp"

namespace superstep::cluster::detail {

/// Throws error(code, "<fn>: <message>") from a running std function.
[[noreturn]] void fail_run(std::string_view fn, std::string message,
                           error_code code = error_code::node_error);

/// The input's value at `key`; fails the run when the input is not an object or lacks it.
const value& input_field(std::string_view fn, const value& input, const std::string& key);

/// a + b or a * b (op '+' or '*'); ints stay ints, anything else but numbers fails the run.
value arithmetic(std::string_view fn, const value& a, char op, const value& b);

/// The `wrap` param: absent or null → false, "list" → true, anything else is invalid.
bool wrap_in_list(const function_params& p);

/// Registers the std nodes with effects or routing and the std routers (nodes/std_flow.cpp).
void register_std_flow(function_registry& registry);

/// Registers llm.chat, tools.run, tools.route, std.route_by and the std tools
/// (nodes/std_agents.cpp).
void register_std_agents(function_registry& registry);

}  // namespace superstep::cluster::detail
