// The fault point, if any, at which this process dies: armed by the program
// (arm_fault_point), compiled only in builds with SUPERSTEP_FAULT_POINTS.
#include "superstep/actors/fault_point.hpp"

#include <string>

#include "superstep/core/error.hpp"

#ifdef SUPERSTEP_FAULT_POINTS

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>

namespace superstep::actors {

namespace {

constexpr std::array<std::string_view, 10> known_points{
    "channel.before_vote",     "channel.before_finish",        "channel.after_vote",
    "channel.after_commit",    "channel.before_placement",     "channel.after_placement",
    "coordinator.after_votes", "coordinator.after_checkpoint", "saver.before_save",
    "channel.stop_on_writes"};

struct armed_point {
  std::string where;
  std::int64_t step = 0;
  std::optional<std::int64_t> pause_ms;  ///< `~MS`: the process pauses there instead of dying
};

void say(const std::string& line) {
  const std::string text = line + "\n";
  // Unbuffered and allocation-free past this point: the process is about to go.
  (void)!::write(2, text.data(), text.size());
}

// `WHERE@STEP` or `WHERE@STEP~MS`; nullopt for anything else.
std::optional<armed_point> parse_point(std::string_view text) {
  const auto at = text.rfind('@');
  if (at == std::string_view::npos) return std::nullopt;
  armed_point p;
  const auto number = [](std::string_view n, std::int64_t& out) {
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), out);
    return ec == std::errc() && end == n.data() + n.size() && !n.empty();
  };
  p.where = std::string(text.substr(0, at));
  std::string_view n = text.substr(at + 1);
  if (const auto tilde = n.find('~'); tilde != std::string_view::npos) {
    std::int64_t ms = 0;
    if (!number(n.substr(tilde + 1), ms) || ms < 0) return std::nullopt;
    p.pause_ms = ms;
    n = n.substr(0, tilde);
  }
  if (!number(n, p.step) ||
      std::find(known_points.begin(), known_points.end(), p.where) == known_points.end())
    return std::nullopt;
  return p;
}

std::optional<armed_point> armed;

}  // namespace

bool detail::fault_armed = false;

void arm_fault_point(std::string_view spec) {
  if (spec.empty()) return;
  armed = parse_point(spec);
  detail::fault_armed = armed.has_value();
  if (!armed) {
    std::string points;
    for (std::string_view p : known_points) (points += points.empty() ? "" : ", ") += p;
    throw error(error_code::invalid_argument,
                "expected POINT@STEP (or POINT@STEP~MS to pause MS milliseconds there) with "
                "POINT one of " +
                    points + ", not '" + std::string(spec) + "'");
  }
}

bool fault_armed_at(std::string_view where, std::int64_t step) noexcept {
  return armed && step == armed->step && where == armed->where;
}

void detail::fault_reached(std::string_view where, std::int64_t step) noexcept {
  if (!fault_armed_at(where, step)) return;
  if (armed->pause_ms) {
    // The first time only, as a kill.
    static std::atomic<bool> paused{false};
    if (paused.exchange(true)) return;
    say("fault point " + armed->where + " at step " + std::to_string(step) + ": pausing " +
        std::to_string(*armed->pause_ms) + " ms (SUPERSTEP_FAULT)");
    std::this_thread::sleep_for(std::chrono::milliseconds(*armed->pause_ms));
    return;
  }
  say("fault point " + armed->where + " at step " + std::to_string(step) +
      ": killing this process (SUPERSTEP_FAULT)");
  ::raise(SIGKILL);
}

}  // namespace superstep::actors

#else

namespace superstep::actors {

void arm_fault_point(std::string_view spec) {
  if (!spec.empty())
    throw error(error_code::invalid_argument,
                "this build has no fault points (configure it with -DSUPERSTEP_FAULT_POINTS=ON), "
                "not arming '" +
                    std::string(spec) + "'");
}

}  // namespace superstep::actors

#endif
