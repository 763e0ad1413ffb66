#pragma once

// Cron schedules as LangGraph Server reads them (croniter): five fields "minute hour
// day-of-month month day-of-week", or six with seconds last ("* * * * * */10": every ten
// seconds); each field `*`, a number, a range `a-b`, a step `/n` on either, lists of those with
// commas, month and weekday names (jan..dec, sun..sat; weekday 7 is Sunday too); and the
// shorthands @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly. When both
// day-of-month and day-of-week are restricted, a day matching either is taken (as cron does).
// The fields are read on the clocks of a time zone (UTC unless one is given), as croniter reads
// them from a zone-aware start: a wall-clock time the clocks skip when they are set forward
// comes that much later (02:30 on the night New York goes from 02:00 to 03:00 is 03:30), one
// they show twice when they are set back comes once, the first time.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

#include "server/time_zone.hpp"

namespace superstep::server {

class cron_schedule {
 public:
  /// Parses `text`; throws std::invalid_argument naming the field that is wrong.
  explicit cron_schedule(const std::string& text);

  /// The first time strictly after `after` (seconds since the epoch, UTC) that the schedule
  /// matches; nullopt when none comes within the next eight years (e.g. "0 0 30 2 *").
  std::optional<std::int64_t> next_after(std::int64_t after) const;

  /// The same, the fields read on the clocks of `zone`: the first instant strictly after
  /// `after` whose local time matches, a skipped time moved by the gap, a repeated one taken
  /// the first time only.
  std::optional<std::int64_t> next_after(std::int64_t after, const time_zone& zone) const;

 private:
  // The first wall-clock time (seconds since the epoch as if UTC) after `after` that matches.
  std::optional<std::int64_t> next_wall_after(std::int64_t after) const;

  bool day_matches(int mday, int wday) const;

  std::bitset<60> seconds_, minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<8> weekdays_;  // 0..6, Sunday 0
  bool any_day_ = true, any_weekday_ = true;
};

/// `t` (seconds since the epoch) as LangGraph Server writes times: ISO 8601, UTC, "+00:00".
std::string iso_of_time(std::int64_t t);

/// The time an ISO 8601 text names ("YYYY-MM-DDTHH:MM[:SS[.fraction]]" with "Z", "+HH:MM" or
/// no offset for UTC; a space for the "T" too), in seconds since the epoch; nullopt when it is
/// not one.
std::optional<std::int64_t> time_of_iso(const std::string& text);

}  // namespace superstep::server
