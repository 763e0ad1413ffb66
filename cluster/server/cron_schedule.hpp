#pragma once

// Cron schedules as LangGraph Server reads them (croniter): five fields "minute hour
// day-of-month month day-of-week", or six with seconds last ("* * * * * */10": every ten
// seconds); each field `*`, a number, a range `a-b`, a step `/n` on either, lists of those with
// commas, month and weekday names (jan..dec, sun..sat; weekday 7 is Sunday too); and the
// shorthands @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly. When both
// day-of-month and day-of-week are restricted, a day matching either is taken (as cron does).
// Times are UTC.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>

namespace superstep::server {

class cron_schedule {
 public:
  /// Parses `text`; throws std::invalid_argument naming the field that is wrong.
  explicit cron_schedule(const std::string& text);

  /// The first time strictly after `after` (seconds since the epoch, UTC) that the schedule
  /// matches; nullopt when none comes within the next eight years (e.g. "0 0 30 2 *").
  std::optional<std::int64_t> next_after(std::int64_t after) const;

 private:
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
