// Helpers shared by the built-in reducers. Private to the channels library.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "superstep/core/value.hpp"

namespace superstep::channels::detail {

/// Throws error(invalid_update, "reducer '<reducer>': <why>").
[[noreturn]] void throw_reducer_error(std::string_view reducer, const std::string& why);

/// The kind of `v` as a string, for error messages.
std::string kind_of(const value& v);

/// The `add_messages` reducer over a whole step's updates (see add_messages.cpp).
value add_messages_fold(const value& current, std::span<const value> updates);

/// The `messages_delta` reducer (LangGraph's `_messages_delta_reducer`): add_messages over a
/// batch of writes, each a message or a list of messages, a [role, content] pair being one.
value messages_delta_fold(const value& current, std::span<const value> writes);

}  // namespace superstep::channels::detail
