// SUPERSTEP_FAULT, read once when the process starts: the fault point, if any, at which this
// process dies.
#include "superstep/actors/fault_point.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>

namespace superstep::actors {

namespace {

constexpr std::array<std::string_view, 6> known_points{
    "channel.before_vote",      "channel.after_vote",      "channel.after_commit",
    "channel.before_placement", "coordinator.after_votes", "coordinator.after_checkpoint"};

struct armed_point {
  std::string where;
  std::int64_t step = 0;
};

void say(const std::string& line) {
  const std::string text = line + "\n";
  // Unbuffered and allocation-free past this point: the process is about to go.
  (void)!::write(2, text.data(), text.size());
}

// `WHERE@STEP`, or nothing when the variable is unset or empty; anything else ends the
// process, so that a mistyped fault never lets a test pass without its fault.
std::optional<armed_point> read_fault() {
  const char* spec = std::getenv("SUPERSTEP_FAULT");
  if (!spec || !*spec) return std::nullopt;
  const std::string_view text(spec);
  const auto at = text.rfind('@');
  armed_point p;
  if (at != std::string_view::npos) {
    p.where = std::string(text.substr(0, at));
    const std::string_view n = text.substr(at + 1);
    const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), p.step);
    if (ec == std::errc() && end == n.data() + n.size() && !n.empty() &&
        std::find(known_points.begin(), known_points.end(), p.where) != known_points.end())
      return p;
  }
  say("SUPERSTEP_FAULT: expected POINT@STEP with POINT one of channel.before_vote, "
      "channel.after_vote, channel.after_commit, channel.before_placement, "
      "coordinator.after_votes, "
      "coordinator.after_checkpoint, not '" +
      std::string(text) + "'");
  std::_Exit(2);
}

const std::optional<armed_point> armed = read_fault();

}  // namespace

const bool detail::fault_armed = armed.has_value();

void detail::fault_reached(std::string_view where, std::int64_t step) noexcept {
  if (!armed || step != armed->step || where != armed->where) return;
  say("fault point " + armed->where + " at step " + std::to_string(step) +
      ": killing this process (SUPERSTEP_FAULT)");
  ::raise(SIGKILL);
}

}  // namespace superstep::actors
