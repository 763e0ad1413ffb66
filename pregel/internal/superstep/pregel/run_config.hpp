#pragma once

// Internal: reading checkpoint coordinates out of a run's config object, and where the ids of
// new checkpoints start.

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/core/value.hpp"

namespace superstep {

class checkpoint_id_generator;
class checkpoint_saver;

namespace detail {

/// The checkpoint coordinates in a run config: configurable.{thread_id, checkpoint_ns,
/// checkpoint_id}. Throws `superstep::error` (invalid_argument) when `need_thread` and there is
/// no thread_id.
checkpoint_config checkpoint_config_of(const value& config, bool need_thread);

/// {"configurable": {"thread_id", "checkpoint_ns", "checkpoint_id"}}.
value checkpoint_config_value(const checkpoint_config& c);

/// Makes `ids` issue ids after `at`'s checkpoint id and after the latest checkpoint of `at`'s
/// thread and namespace (a run that travels in time, an update of an older checkpoint): new
/// checkpoints sort last whatever the clock says. The latest is read only when `at` names a
/// checkpoint (without one, the caller's is the latest).
void ids_after_latest(checkpoint_id_generator& ids, checkpoint_saver& saver,
                      const checkpoint_config& at);

}  // namespace detail

}  // namespace superstep
