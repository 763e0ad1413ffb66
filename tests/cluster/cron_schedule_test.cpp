// The server's cron schedules (cluster/server/cron_schedule.hpp): croniter's fields, ranges,
// steps, names and shorthands, the day-of-month/day-of-week rule, and ISO times both ways.
#include "server/cron_schedule.hpp"

#include <boost/test/unit_test.hpp>
#include <stdexcept>

using superstep::server::cron_schedule;
using superstep::server::iso_of_time;
using superstep::server::time_of_iso;

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
