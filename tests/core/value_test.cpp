#include "superstep/core/value.hpp"

#include <boost/test/unit_test.hpp>

#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"

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
