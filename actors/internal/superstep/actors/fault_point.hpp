#pragma once

// A test hook: points of the two-phase step commit where a process can be made to die, so
// that tests kill a participant or the coordinator at an exact phase instead of at a time
// (RocksDB's sync points). Compiled only when the build has SUPERSTEP_FAULT_POINTS (CMake
// option of that name, on in builds with tests); otherwise every point is an empty inline
// function. Nothing here reads the environment: the `superstep` program arms a point from
// its SUPERSTEP_FAULT variable (cluster/cli/main.cpp).

#include <cstdint>
#include <string_view>

namespace superstep::actors {

/// Whether this build has fault points (SUPERSTEP_FAULT_POINTS).
#ifdef SUPERSTEP_FAULT_POINTS
inline constexpr bool fault_points_compiled = true;
#else
inline constexpr bool fault_points_compiled = false;
#endif

/// Arms the fault point `spec` names for the rest of the process: `WHERE@STEP` kills this
/// process with SIGKILL when it reaches point WHERE at step STEP (after a line on stderr:
/// "fault point WHERE at step STEP: ..."); `WHERE@STEP~MS` pauses the calling thread MS
/// milliseconds there instead, the first time only. An empty `spec` arms nothing. Throws
/// error(invalid_argument) for a spec that names an unknown point or no step (so that a
/// mistyped fault never lets a test pass without its fault), and for any non-empty spec in
/// a build without fault points. Call it once, before the process starts the threads that
/// reach the points: the armed point is read without synchronisation.
///
/// The points (docs/channel_actors.md): channel.before_vote, channel.before_finish,
/// channel.after_vote, channel.after_commit, channel.before_placement, channel.after_placement,
/// coordinator.after_votes, coordinator.after_checkpoint, saver.before_save. One more,
/// channel.stop_on_writes, stops the channel actor taking a step's writes (the process goes
/// on): its caller checks `detail::fault_armed && fault_armed_at(...)`, one branch unarmed.
void arm_fault_point(std::string_view spec);

#ifdef SUPERSTEP_FAULT_POINTS

namespace detail {
/// Whether `arm_fault_point` armed a point.
extern bool fault_armed;
[[gnu::cold]] void fault_reached(std::string_view where, std::int64_t step) noexcept;
}  // namespace detail

/// Whether the armed point is `where` at `step` (for a point reached later, elsewhere).
bool fault_armed_at(std::string_view where, std::int64_t step) noexcept;

/// Kills this process, or pauses, when the armed point is `where` at `step` (see
/// `arm_fault_point`). Unarmed, a call costs one branch.
inline void fault_point(std::string_view where, std::int64_t step) noexcept {
  if (detail::fault_armed) [[unlikely]]
    detail::fault_reached(where, step);
}

#else

namespace detail {
inline constexpr bool fault_armed = false;
}  // namespace detail

inline bool fault_armed_at(std::string_view, std::int64_t) noexcept { return false; }
inline void fault_point(std::string_view, std::int64_t) noexcept {}

#endif

}  // namespace superstep::actors
