// Errors shared by the channel implementations. Private to the channels library.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "superstep/core/value.hpp"

namespace superstep::channels::detail {

/// Throws error(invalid_update, "At key '<key>': <what>"), LangGraph's InvalidUpdateError.
[[noreturn]] void throw_invalid_update(const std::string& key, std::string_view what);

/// Throws error(empty_channel, ...) naming the key, LangGraph's EmptyChannelError.
[[noreturn]] void throw_empty(const std::string& key);

/// Throws error(invalid_argument, ...) for a checkpoint value of the wrong shape.
[[noreturn]] void throw_bad_checkpoint(const std::string& key, std::string_view channel_type,
                                       std::string_view expected, const value& got);

/// The value carried by the one Overwrite among a step's `writes` of a reducer channel, or
/// null when none is; two are an invalid_update naming `key`.
const value* single_overwrite(const std::string& key, std::span<const value> writes);

}  // namespace superstep::channels::detail
