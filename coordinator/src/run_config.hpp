#pragma once

// Internal: reading checkpoint coordinates out of a run's config object.

#include "superstep/coordinator/checkpoint.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

namespace detail {

/// The checkpoint coordinates in a run config: configurable.{thread_id, checkpoint_ns,
/// checkpoint_id}. Throws `superstep::error` (invalid_argument) when `need_thread` and there is
/// no thread_id.
checkpoint_config checkpoint_config_of(const value& config, bool need_thread);

/// {"configurable": {"thread_id", "checkpoint_ns", "checkpoint_id"}}.
value checkpoint_config_value(const checkpoint_config& c);

}  // namespace detail

}  // namespace superstep
