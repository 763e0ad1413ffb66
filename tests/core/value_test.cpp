#include "superstep/core/value.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "support/expect_error.hpp"

using superstep::error;
using superstep::error_code;
using superstep::list;
using superstep::object;
using superstep::value;

BOOST_AUTO_TEST_CASE(round_trips_every_kind_through_json) {
  value v(object{{"n", value()},
                 {"b", true},
                 {"i", -42},
                 {"d", 1.5},
                 {"whole", 2.0},
                 {"s", "h\"i\n\u00e9"},
                 {"raw", superstep::bytes{std::string("\0\xff", 2)}},
                 {"l", value::array({1, "two", value::array({})})},
                 {"o", object{}}});
  std::string json = v.to_json();
  value back = value::parse_json(json);
  BOOST_TEST(back == v);
  BOOST_TEST(back.get("whole").is_double());
  BOOST_TEST(back.get("raw").is_bytes());
  BOOST_TEST(back.get("raw").as_bytes() == std::string("\0\xff", 2));
}

BOOST_AUTO_TEST_CASE(keeps_object_keys_in_insertion_order) {
  value v = value::parse_json(R"({"z":1,"a":2,"m":3})");
  BOOST_TEST(v.to_json() == R"({"z":1,"a":2,"m":3})");
}

BOOST_AUTO_TEST_CASE(compares_objects_regardless_of_order_and_numbers_by_value) {
  BOOST_TEST(value::parse_json(R"({"a":1,"b":2})") == value::parse_json(R"({"b":2,"a":1.0})"));
  BOOST_TEST(value::parse_json("[1,2]") != value::parse_json("[2,1]"));
}

BOOST_AUTO_TEST_CASE(copies_share_the_same_instance) {
  value a(list{1, 2, 3});
  value b = a;
  BOOST_TEST(a.same_instance(b));
}

BOOST_AUTO_TEST_CASE(decodes_unicode_escapes_and_surrogate_pairs) {
  value v = value::parse_json(R"("\u00e9\ud83d\ude00")");
  BOOST_TEST(v.as_string() == "\u00e9\U0001F600");
}

BOOST_AUTO_TEST_CASE(rejects_malformed_json_naming_line_and_column) {
  for (const char* bad : {"{", "[1,]", "{\"a\" 1}", "tru", "01", "\"abc", "1 2", "{\"a\":1,}"}) {
    try {
      (void)value::parse_json(bad);
      BOOST_FAIL("accepted " << bad);
    } catch (const error& e) {
      BOOST_TEST((e.code() == error_code::json_error));
      BOOST_TEST(std::string(e.what()).find("line 1, column") != std::string::npos);
    }
  }
  try {
    (void)value::parse_json("{\n  \"a\": [1,\n  x]}");
    BOOST_FAIL("accepted");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("line 3, column 3") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(rejects_absurd_nesting_without_crashing) {
  std::string deep(100000, '[');
  BOOST_CHECK_THROW((void)value::parse_json(deep), error);
}

BOOST_AUTO_TEST_CASE(wrong_kind_access_names_both_kinds) {
  value v("text");
  try {
    (void)v.as_list();
    BOOST_FAIL("no throw");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()) == "expected list, got string");
  }
}

BOOST_AUTO_TEST_CASE(truthiness_follows_python) {
  BOOST_TEST(!value().truthy());
  BOOST_TEST(!value(0).truthy());
  BOOST_TEST(!value("").truthy());
  BOOST_TEST(!value(list{}).truthy());
  BOOST_TEST(value("x").truthy());
  BOOST_TEST(value(list{value()}).truthy());
}

// A Send held in its own kind: shown as JSON in the object form Sends had before, equal to
// that object, a copy shares it, and the wrong kinds are named.
BOOST_AUTO_TEST_CASE(a_send_is_its_own_kind_shown_as_its_object_form) {
  value node("worker");
  value s = value::send(node, object{{"item", 7}});
  BOOST_TEST(s.is_send());
  BOOST_TEST(!s.is_object());
  BOOST_TEST(s.truthy());
  BOOST_TEST(s.as_send().node() == "worker");
  BOOST_TEST(s.as_send().arg() == value(object{{"item", 7}}));
  BOOST_TEST(s.as_send().timeout().is_null());
  BOOST_TEST(s.to_json() == R"({"__send__":"worker","arg":{"item":7}})");
  const value form = value::parse_json(s.to_json());
  BOOST_TEST(form.is_object());  // JSON reads back the object form
  BOOST_TEST(s == form);
  BOOST_TEST(form == s);
  BOOST_TEST(s == value::send("worker", object{{"item", 7}}));
  BOOST_TEST(s != value::send("worker", object{{"item", 8}}));
  BOOST_TEST(s != value::send("other", object{{"item", 7}}));
  BOOST_TEST(s != value::parse_json(R"({"__send__":"worker","arg":{"item":8}})"));
  // Equal only to the form as_send reads: its keys in that order, no others.
  BOOST_TEST(s != value::parse_json(R"({"arg":{"item":7},"__send__":"worker"})"));
  BOOST_TEST(s != value::parse_json(R"({"__send__":"worker","arg":{"item":7},"x":1})"));
  value copy = s;
  BOOST_TEST(copy.same_instance(s));

  value timed = value::send(node, 1, object{{"run_timeout_ms", 5}});
  BOOST_TEST(timed.to_json() == R"({"__send__":"worker","arg":1,"timeout":{"run_timeout_ms":5}})");
  BOOST_TEST(timed != value::send(node, 1));
  BOOST_TEST(timed == value::parse_json(timed.to_json()));

  superstep::test::expect_error([&] { (void)s.as_object(); }, error_code::type_error,
                                "expected object, got send");
  superstep::test::expect_error([] { (void)value::send(3, 1); }, error_code::type_error,
                                "expected string, got int");
}

BOOST_AUTO_TEST_CASE(checkpoint_ids_sort_in_issue_order) {
  superstep::checkpoint_id_generator gen;
  std::string prev = gen.next();
  BOOST_TEST(prev.size() == 36u);
  for (int i = 0; i < 10000; ++i) {
    std::string next = gen.next();
    BOOST_TEST_REQUIRE(next > prev);
    prev = next;
  }
}

BOOST_AUTO_TEST_CASE(task_ids_are_deterministic_and_distinct) {
  auto a = superstep::task_id("cp", "", 1, "node", "pull", "branch:to:node");
  BOOST_TEST(a == superstep::task_id("cp", "", 1, "node", "pull", "branch:to:node"));
  BOOST_TEST(a != superstep::task_id("cp", "", 2, "node", "pull", "branch:to:node"));
  BOOST_TEST(a != superstep::task_id("cp", "", 1, "node", "push", "0"));
  BOOST_TEST(a.size() == 36u);
}

// Checkpoint timestamps: the hand-written civil date against gmtime_r and snprintf, over
// random instants of years 0 to 9999 (before 1970 too) and the edges.
BOOST_AUTO_TEST_CASE(iso8601_timestamps_match_gmtime) {
  const auto reference = [](std::int64_t micros) {
    std::int64_t secs = micros / 1000000, us = micros % 1000000;
    if (us < 0) us += 1000000, --secs;
    std::time_t t = static_cast<std::time_t>(secs);
    std::tm tm{};
    BOOST_REQUIRE(gmtime_r(&t, &tm));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld+00:00", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long long>(us));
    return std::string(buf);
  };
  const std::int64_t first = -62167219200000000;  // 0000-01-01T00:00:00
  const std::int64_t last = 253402300799999999;   // 9999-12-31T23:59:59.999999
  std::vector<std::int64_t> instants{
      first, last, -1, 0, 1, 951782400000000 /* 2000-02-29 */, 4107456000000000 /* 2100-02-28 */};
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<std::int64_t> any(first, last);
  for (int i = 0; i < 20000; ++i) instants.push_back(any(gen));
  for (std::int64_t at : instants)
    BOOST_TEST(superstep::iso8601_from_micros(at) == reference(at), at);
  BOOST_TEST(superstep::iso8601_from_micros(last) == "9999-12-31T23:59:59.999999+00:00");
  superstep::test::expect_error([&] { superstep::iso8601_from_micros(last + 1); },
                                error_code::invalid_argument, "10000");
  BOOST_TEST(superstep::now_iso8601().size() == 32u);
}
