#pragma once

// Internal: removing what a stopped run saved (multitask strategy rollback).

#include "superstep/checkpoint/checkpoint_saver.hpp"

namespace superstep::detail {

/// Puts back the pending writes of the checkpoint the run started from as they were, then
/// removes the checkpoints the run saved. Checkpoints saved before the run are not touched.
void roll_back_run(checkpoint_saver& saver, const std::string& thread_id,
                   const run_footprint& footprint);

}  // namespace superstep::detail
