#pragma once

#include <cstddef>
#include <string_view>

namespace superstep::storage {

/// The channel of a write that marks a task as scheduled (LangGraph `SCHEDULED`).
inline constexpr std::string_view SCHEDULED = "__scheduled__";

/// The index under which a saver keys a pending write (LangGraph `WRITES_IDX_MAP`): special
/// channels get a fixed negative index (__error__ -1, __scheduled__ -2, __interrupt__ -3,
/// __resume__ -4), so a task has at most one of each and a newer one replaces it; any other
/// write is keyed by its position in its batch, so saving the same batch twice stores it once.
int write_index(std::string_view channel, std::size_t position) noexcept;

}  // namespace superstep::storage
