#pragma once

// A switch for tests: savers check what they store as deltas of version maps.

#include <string_view>

namespace superstep::storage {

/// Turns on (or off) a check in every saver of this process that stores version maps as
/// deltas (memory_saver, rocksdb_saver): each checkpoint stored as a delta of its parent's
/// maps is read back and compared with what was put, and a difference fails the put with
/// `superstep::error` (internal) naming the entry (a caller of put_changes that left a change
/// out). Checking also stores small maps as deltas, so that every graph's are checked. Off by
/// default; for tests (the test programs turn it on, and the `superstep` program when its
/// environment has SUPERSTEP_CHECK_VERSION_DELTAS). Thread-safe; set it before savers run.
void check_version_deltas(bool on) noexcept;

/// Turns the check on when `setting` (the value of the variable the test suites set,
/// SUPERSTEP_CHECK_VERSION_DELTAS, as its reader found it) is neither empty nor "0"; leaves it
/// as it is otherwise.
void check_version_deltas_if(std::string_view setting) noexcept;

/// Whether `check_version_deltas` turned the check on.
[[nodiscard]] bool version_deltas_checked() noexcept;

}  // namespace superstep::storage
