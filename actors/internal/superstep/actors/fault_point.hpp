#pragma once

// A test hook: points of the two-phase step commit where a process can be made to die, so
// that tests kill a participant or the coordinator at an exact phase instead of at a time.

#include <cstdint>
#include <string_view>

namespace superstep::actors {

namespace detail {
/// Whether SUPERSTEP_FAULT named a fault point when the process started.
extern const bool fault_armed;
[[gnu::cold]] void fault_reached(std::string_view where, std::int64_t step) noexcept;
}  // namespace detail

/// Whether SUPERSTEP_FAULT names `where` at `step` (for a point reached later, elsewhere).
bool fault_armed_at(std::string_view where, std::int64_t step) noexcept;

/// Kills this process with SIGKILL when the environment variable SUPERSTEP_FAULT, read once
/// when the process starts, is `WHERE@STEP` for this `where` and `step` (after a line on
/// stderr: "fault point WHERE at step STEP: ..."); `WHERE@STEP~MS` pauses the calling thread
/// MS milliseconds there instead, the first time only. SUPERSTEP_FAULT naming an unknown point or
/// no step ends the process at start, with a message. Unarmed, a call costs one branch on a
/// constant. The points (docs/channel_actors.md): channel.before_vote, channel.before_finish,
/// channel.after_vote, channel.after_commit, channel.before_placement, channel.after_placement,
/// coordinator.after_votes, coordinator.after_checkpoint, saver.before_save. One more,
/// channel.stop_on_writes, stops the channel actor taking a step's writes (the process goes
/// on): its caller checks `detail::fault_armed && fault_armed_at(...)`, one branch unarmed.
inline void fault_point(std::string_view where, std::int64_t step) noexcept {
  if (detail::fault_armed) [[unlikely]]
    detail::fault_reached(where, step);
}

}  // namespace superstep::actors
