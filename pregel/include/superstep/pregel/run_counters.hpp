#pragma once

// Process-wide counters of what this process's run coordinators did, for logs and tests.

#include <cstdint>

namespace superstep {

/// Channels whose values a coordinator of this process left to their owners, keeping only
/// their versions (channel actors on other processes, `--spread-channels`), summed over runs.
std::uint64_t channels_held_as_versions() noexcept;

}  // namespace superstep
