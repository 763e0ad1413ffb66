#pragma once

// IANA time zones as the system's tz database holds them (Debian's tzdata package,
// /usr/share/zoneinfo): TZif files (RFC 8536, version 1 or 2+), their transitions with the UTC
// offset each starts, and the POSIX TZ rule in their footer for the times after the last one
// ("EST5EDT,M3.2.0,M11.1.0": std offset dst [offset],start[/time],end[/time], dates as
// Mm.w.d, Jn or n). GCC 12's libstdc++ has no std::chrono::tzdb, hence this reader.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::server {

class time_zone {
 public:
  /// The system's zone database, where locate() reads by default.
  static constexpr const char* system_directory = "/usr/share/zoneinfo";

  /// The zone named `name` ("America/New_York") in `directory`, read once and kept for the
  /// process (zones do not change while it runs); "UTC" needs no file. Throws
  /// std::invalid_argument naming the zone when the name is not a zone's (empty, absolute,
  /// with "..", no such file, not a TZif file). Thread-safe.
  static std::shared_ptr<const time_zone> locate(const std::string& name,
                                                 const std::string& directory = system_directory);

  /// UTC: no offset, ever.
  static const time_zone& utc();

  /// A zone from the bytes of a TZif file; throws std::invalid_argument naming `name`.
  static time_zone from_tzif(std::string_view bytes, std::string name);

  /// A zone that only follows a POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"); throws
  /// std::invalid_argument when it is not one.
  static time_zone from_posix(const std::string& rule);

  const std::string& name() const { return name_; }

  /// The UTC offset (seconds east of Greenwich) in effect at `t` (seconds since the epoch).
  int offset_at(std::int64_t t) const;

  /// The instants whose local time is `wall` (a wall-clock time written as seconds since the
  /// epoch as if it were UTC). `first` is the one instant, or the earlier of two when the
  /// clocks were set back over it (`second` the later); when they were set forward over it
  /// (a gap) it is read with the offset before the gap, so moved later by the gap's length,
  /// as Python's zoneinfo (fold 0) and so croniter do.
  struct local_instants {
    std::int64_t first = 0;
    std::optional<std::int64_t> second;
  };
  local_instants instants_of(std::int64_t wall) const;

 private:
  // A date of a POSIX rule: Jn (1..365, February 29 never counted), n (0..365), Mm.w.d.
  struct rule_date {
    enum class kind { julian_no_leap, zero_based, month_week_day } form = kind::zero_based;
    int day = 0, month = 0, week = 0, weekday = 0;
    int time = 7200;  // seconds after local midnight, may be negative or past a day
  };
  struct posix_rule {
    int std_offset = 0, dst_offset = 0;  // east positive
    bool has_dst = false;
    rule_date start, end;
  };

  static posix_rule parse_posix(const std::string& rule);
  static std::int64_t start_of(const rule_date& date, int year);
  int rule_offset_at(std::int64_t t) const;

  std::string name_;
  std::vector<std::int64_t> transitions_;  // ascending
  std::vector<int> offsets_;               // offsets_[i] from transitions_[i] on
  int initial_offset_ = 0;                 // before the first transition
  std::optional<posix_rule> rule_;         // after the last one, when the file has a footer
};

}  // namespace superstep::server
