// The server's cron schedules (cluster/server/cron_schedule.hpp): croniter's fields, ranges,
// steps, names and shorthands, the day-of-month/day-of-week rule, ISO times both ways, and
// schedules read on a time zone's clocks (cluster/server/time_zone.hpp: the system's TZif
// files, their POSIX rules, the days the clocks change).
#include "server/cron_schedule.hpp"

#include <boost/test/unit_test.hpp>
#include <stdexcept>

#include "server/time_zone.hpp"

using superstep::server::cron_schedule;
using superstep::server::iso_of_time;
using superstep::server::time_of_iso;
using superstep::server::time_zone;

namespace {

std::int64_t at(const char* iso) {
  auto t = time_of_iso(iso);
  BOOST_REQUIRE_MESSAGE(t, iso);
  return *t;
}

std::string next(const char* schedule, const char* after) {
  auto t = cron_schedule(schedule).next_after(at(after));
  return t ? iso_of_time(*t) : "none";
}

std::string next_in(const char* zone, const char* schedule, const char* after) {
  auto t = cron_schedule(schedule).next_after(at(after), *time_zone::locate(zone));
  return t ? iso_of_time(*t) : "none";
}

std::string zone_error(const std::string& name) {
  try {
    time_zone::locate(name);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_CASE(iso_times_round_trip) {
  BOOST_TEST(iso_of_time(0) == "1970-01-01T00:00:00+00:00");
  BOOST_TEST(at("2026-12-02T10:20:30Z") == at("2026-12-02T10:20:30+00:00"));
  BOOST_TEST(at("2026-12-02T12:20:30+02:00") == at("2026-12-02T10:20:30Z"));
  BOOST_TEST(at("2026-12-02T10:20:30.123456+00:00") == at("2026-12-02T10:20:30"));
  BOOST_TEST(iso_of_time(at("2026-02-28 23:59")) == "2026-02-28T23:59:00+00:00");
  BOOST_TEST(!time_of_iso("yesterday"));
  BOOST_TEST(!time_of_iso("2026-13-01T00:00:00Z"));
  BOOST_TEST(!time_of_iso("2026-12-02T10:20:30Zjunk"));
}

BOOST_AUTO_TEST_CASE(five_fields) {
  BOOST_TEST(next("* * * * *", "2026-12-02T10:20:30Z") == "2026-12-02T10:21:00+00:00");
  BOOST_TEST(next("*/15 * * * *", "2026-12-02T10:20:30Z") == "2026-12-02T10:30:00+00:00");
  BOOST_TEST(next("0 9-17/4 * * *", "2026-12-02T10:00:00Z") == "2026-12-02T13:00:00+00:00");
  BOOST_TEST(next("5,10 0 * * *", "2026-12-02T00:05:00Z") == "2026-12-02T00:10:00+00:00");
  BOOST_TEST(next("0 0 1 jan *", "2026-12-02T00:00:00Z") == "2027-01-01T00:00:00+00:00");
  BOOST_TEST(next("0 0 29 2 *", "2026-03-01T00:00:00Z") == "2028-02-29T00:00:00+00:00");
  BOOST_TEST(next("0 0 30 2 *", "2026-03-01T00:00:00Z") == "none");
}

BOOST_AUTO_TEST_CASE(weekdays_and_days) {
  // 2026-12-02 is a Wednesday.
  BOOST_TEST(next("0 12 * * mon", "2026-12-02T00:00:00Z") == "2026-12-07T12:00:00+00:00");
  BOOST_TEST(next("0 12 * * 7", "2026-12-02T00:00:00Z") == "2026-12-06T12:00:00+00:00");
  BOOST_TEST(next("0 12 * * 0", "2026-12-02T00:00:00Z") == "2026-12-06T12:00:00+00:00");
  // Both restricted: either matches (the 5th is a Saturday, the first Friday is the 4th).
  BOOST_TEST(next("0 0 5 * fri", "2026-12-02T00:00:00Z") == "2026-12-04T00:00:00+00:00");
  BOOST_TEST(next("0 0 3 * sun", "2026-12-02T00:00:00Z") == "2026-12-03T00:00:00+00:00");
}

BOOST_AUTO_TEST_CASE(seconds_and_shorthands) {
  BOOST_TEST(next("* * * * * */10", "2026-12-02T10:20:30Z") == "2026-12-02T10:20:40+00:00");
  BOOST_TEST(next("* * * * * 5", "2026-12-02T10:20:30Z") == "2026-12-02T10:21:05+00:00");
  BOOST_TEST(next("@hourly", "2026-12-02T10:20:30Z") == "2026-12-02T11:00:00+00:00");
  BOOST_TEST(next("@daily", "2026-12-02T10:20:30Z") == "2026-12-03T00:00:00+00:00");
  BOOST_TEST(next("@weekly", "2026-12-02T10:20:30Z") == "2026-12-06T00:00:00+00:00");
  BOOST_TEST(next("@monthly", "2026-12-02T10:20:30Z") == "2027-01-01T00:00:00+00:00");
}

BOOST_AUTO_TEST_CASE(bad_schedules_name_the_field) {
  auto message = [](const char* text) {
    try {
      cron_schedule{text};
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  BOOST_TEST(message("* * *").find("fields") != std::string::npos);
  BOOST_TEST(message("61 * * * *").find("minute") != std::string::npos);
  BOOST_TEST(message("* 24 * * *").find("hour") != std::string::npos);
  BOOST_TEST(message("* * 0 * *").find("day of month") != std::string::npos);
  BOOST_TEST(message("* * * foo *").find("month") != std::string::npos);
  BOOST_TEST(message("* * * * 8").find("day of week") != std::string::npos);
  BOOST_TEST(message("*/0 * * * *").find("step") != std::string::npos);
  BOOST_TEST(message("5-1 * * * *").find("minute") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_zone_without_daylight_saving_time_is_a_fixed_offset) {
  // Asia/Tokyo: UTC+9 all year.
  BOOST_TEST(next_in("Asia/Tokyo", "0 9 * * *", "2026-12-01T23:00:00Z") ==
             "2026-12-02T00:00:00+00:00");
  BOOST_TEST(next_in("Asia/Tokyo", "0 9 * * *", "2026-12-02T00:00:00Z") ==
             "2026-12-03T00:00:00+00:00");
  BOOST_TEST(next_in("Asia/Tokyo", "0 9 * * *", "2026-07-01T00:00:00Z") ==
             "2026-07-02T00:00:00+00:00");
  // Midnight in Tokyo is the day before in UTC; the day fields are Tokyo's.
  BOOST_TEST(next_in("Asia/Tokyo", "0 0 1 * *", "2026-12-02T00:00:00Z") ==
             "2026-12-31T15:00:00+00:00");
  // 2026-12-06 is a Sunday in Tokyo from 15:00 UTC on the 5th.
  BOOST_TEST(next_in("Asia/Tokyo", "30 0 * * sun", "2026-12-02T00:00:00Z") ==
             "2026-12-05T15:30:00+00:00");
}

BOOST_AUTO_TEST_CASE(new_york_moves_a_skipped_time_on_by_the_gap) {
  // 2026-03-08 02:00 EST the clocks go to 03:00 EDT: 02:30 does not come that night; croniter
  // reads it with the offset before (-05:00), which is 03:30 EDT.
  BOOST_TEST(next_in("America/New_York", "30 2 * * *", "2026-03-06T12:00:00Z") ==
             "2026-03-07T07:30:00+00:00");
  BOOST_TEST(next_in("America/New_York", "30 2 * * *", "2026-03-07T07:30:00Z") ==
             "2026-03-08T07:30:00+00:00");
  BOOST_TEST(next_in("America/New_York", "30 2 * * *", "2026-03-08T07:30:00Z") ==
             "2026-03-09T06:30:00+00:00");
  // A time after the gap that night is on EDT already; one before it on EST.
  BOOST_TEST(next_in("America/New_York", "30 3 * * *", "2026-03-08T05:00:00Z") ==
             "2026-03-08T07:30:00+00:00");
  BOOST_TEST(next_in("America/New_York", "30 1 * * *", "2026-03-08T05:00:00Z") ==
             "2026-03-08T06:30:00+00:00");
  // Every half hour through the gap: 01:30 EST, then 03:00 EDT, each instant once.
  BOOST_TEST(next_in("America/New_York", "*/30 * * * *", "2026-03-08T06:30:00Z") ==
             "2026-03-08T07:00:00+00:00");
  BOOST_TEST(next_in("America/New_York", "*/30 * * * *", "2026-03-08T07:00:00Z") ==
             "2026-03-08T07:30:00+00:00");
}

BOOST_AUTO_TEST_CASE(new_york_runs_a_repeated_time_once) {
  // 2026-11-01 02:00 EDT the clocks go back to 01:00 EST: 01:30 comes twice; it runs the first
  // time (EDT, 05:30 UTC), and not again an hour later.
  BOOST_TEST(next_in("America/New_York", "30 1 * * *", "2026-10-31T12:00:00Z") ==
             "2026-11-01T05:30:00+00:00");
  BOOST_TEST(next_in("America/New_York", "30 1 * * *", "2026-11-01T05:30:00Z") ==
             "2026-11-02T06:30:00+00:00");
  BOOST_TEST(next_in("America/New_York", "30 1 * * *", "2026-11-01T06:10:00Z") ==
             "2026-11-02T06:30:00+00:00");
  // After the change the schedule is on EST.
  BOOST_TEST(next_in("America/New_York", "0 9 * * *", "2026-11-01T12:00:00Z") ==
             "2026-11-01T14:00:00+00:00");
  BOOST_TEST(next_in("America/New_York", "0 9 * * *", "2026-10-31T12:00:00Z") ==
             "2026-10-31T13:00:00+00:00");
  // Past the file's last transition the zone's POSIX rule goes on (EDT in July 2050).
  BOOST_TEST(next_in("America/New_York", "0 12 * * *", "2050-07-01T00:00:00Z") ==
             "2050-07-01T16:00:00+00:00");
  BOOST_TEST(next_in("America/New_York", "0 12 * * *", "2050-12-01T00:00:00Z") ==
             "2050-12-01T17:00:00+00:00");
}

BOOST_AUTO_TEST_CASE(london_keeps_greenwich_time_in_winter_and_summer_time_after_march) {
  // 2026-03-29 01:00 GMT the clocks go to 02:00 BST; 2026-10-25 02:00 BST back to 01:00 GMT.
  BOOST_TEST(next_in("Europe/London", "0 12 * * *", "2026-03-28T13:00:00Z") ==
             "2026-03-29T11:00:00+00:00");
  BOOST_TEST(next_in("Europe/London", "30 1 * * *", "2026-03-28T13:00:00Z") ==
             "2026-03-29T01:30:00+00:00");
  BOOST_TEST(next_in("Europe/London", "30 1 * * *", "2026-10-24T12:00:00Z") ==
             "2026-10-25T00:30:00+00:00");
  BOOST_TEST(next_in("Europe/London", "30 1 * * *", "2026-10-25T00:30:00Z") ==
             "2026-10-26T01:30:00+00:00");
  BOOST_TEST(next_in("Europe/London", "0 9 * * *", "2026-12-02T00:00:00Z") ==
             "2026-12-02T09:00:00+00:00");
  BOOST_TEST(next_in("Europe/London", "0 9 * * *", "2040-07-01T00:00:00Z") ==
             "2040-07-01T08:00:00+00:00");
}

BOOST_AUTO_TEST_CASE(utc_reads_the_fields_as_they_are) {
  BOOST_TEST(next_in("UTC", "30 2 * * *", "2026-03-08T00:00:00Z") == "2026-03-08T02:30:00+00:00");
  BOOST_TEST(next_in("Etc/UTC", "* * * * * */10", "2026-12-02T10:20:30Z") ==
             next("* * * * * */10", "2026-12-02T10:20:30Z"));
  BOOST_TEST(time_zone::utc().offset_at(at("2026-07-01T00:00:00Z")) == 0);
  BOOST_TEST(time_zone::locate("UTC", "/nonexistent")->offset_at(0) == 0);
  // Loaded once: the same zone each time.
  BOOST_TEST(time_zone::locate("Asia/Tokyo") == time_zone::locate("Asia/Tokyo"));
}

BOOST_AUTO_TEST_CASE(posix_rules_give_the_offsets) {
  const time_zone us = time_zone::from_posix("EST5EDT,M3.2.0,M11.1.0");
  BOOST_TEST(us.offset_at(at("2026-03-08T06:59:59Z")) == -5 * 3600);
  BOOST_TEST(us.offset_at(at("2026-03-08T07:00:00Z")) == -4 * 3600);
  BOOST_TEST(us.offset_at(at("2026-11-01T05:59:59Z")) == -4 * 3600);
  BOOST_TEST(us.offset_at(at("2026-11-01T06:00:00Z")) == -5 * 3600);
  // Southern: summer time over the new year; a start time after the date ("/3").
  const time_zone sydney = time_zone::from_posix("AEST-10AEDT,M10.1.0,M4.1.0/3");
  BOOST_TEST(sydney.offset_at(at("2026-01-15T00:00:00Z")) == 11 * 3600);
  BOOST_TEST(sydney.offset_at(at("2026-07-15T00:00:00Z")) == 10 * 3600);
  BOOST_TEST(sydney.offset_at(at("2026-04-04T15:59:59Z")) == 11 * 3600);  // 02:59:59 AEDT
  BOOST_TEST(sydney.offset_at(at("2026-04-04T16:00:00Z")) == 10 * 3600);
  // Quoted abbreviations, minutes, Jn (March 1 even in a leap year) and n days.
  BOOST_TEST(time_zone::from_posix("<+0530>-5:30").offset_at(0) == 5 * 3600 + 1800);
  const time_zone julian = time_zone::from_posix("<AAA>0<BBB>,J60/0,300/0");
  BOOST_TEST(julian.offset_at(at("2028-02-29T23:59:59Z")) == 0);
  BOOST_TEST(julian.offset_at(at("2028-03-01T00:00:00Z")) == 3600);
  BOOST_TEST(julian.offset_at(at("2026-10-27T22:59:59Z")) == 3600);  // day 300 is Oct 28
  BOOST_TEST(julian.offset_at(at("2026-10-27T23:00:00Z")) == 0);
  BOOST_CHECK_THROW(time_zone::from_posix("E5"), std::invalid_argument);
  BOOST_CHECK_THROW(time_zone::from_posix("EST5EDT,M13.1.0,M11.1.0"), std::invalid_argument);
  BOOST_CHECK_THROW(time_zone::from_posix("EST5EDT,M3.2.0"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_local_time_names_one_two_or_no_instants) {
  const auto ny = time_zone::locate("America/New_York");
  const auto once = ny->instants_of(at("2026-07-01T12:00:00Z"));
  BOOST_TEST(iso_of_time(once.first) == "2026-07-01T16:00:00+00:00");
  BOOST_TEST(!once.second);
  const auto twice = ny->instants_of(at("2026-11-01T01:30:00Z"));
  BOOST_TEST(iso_of_time(twice.first) == "2026-11-01T05:30:00+00:00");
  BOOST_REQUIRE(twice.second);
  BOOST_TEST(iso_of_time(*twice.second) == "2026-11-01T06:30:00+00:00");
  const auto skipped = ny->instants_of(at("2026-03-08T02:30:00Z"));
  BOOST_TEST(iso_of_time(skipped.first) == "2026-03-08T07:30:00+00:00");
  BOOST_TEST(!skipped.second);
}

BOOST_AUTO_TEST_CASE(bad_zone_names_are_refused_naming_the_zone) {
  BOOST_TEST(zone_error("Mars/Base").find("'Mars/Base'") != std::string::npos);
  BOOST_TEST(zone_error("../../etc/passwd").find("'..") != std::string::npos);
  BOOST_TEST(zone_error("America/../Asia/Tokyo") != "accepted");
  BOOST_TEST(zone_error("/usr/share/zoneinfo/UTC").find("relative") != std::string::npos);
  BOOST_TEST(zone_error("") != "accepted");
  BOOST_TEST(zone_error("America") != "accepted");   // a folder
  BOOST_TEST(zone_error("zone.tab") != "accepted");  // not a TZif file ('.' refused too)
  BOOST_TEST(zone_error("iso3166") != "accepted");
  BOOST_TEST(zone_error("America/New York") != "accepted");
  BOOST_TEST(zone_error("America/New_York") == "accepted");
  BOOST_CHECK_THROW(time_zone::from_tzif("TZif2 too short", "x"), std::invalid_argument);
  BOOST_CHECK_THROW(time_zone::from_tzif("", "x"), std::invalid_argument);
}
