// The built-in reducers append, add, max, min and merge, and reducer::apply.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "channel_test_support.hpp"
#include "superstep/channels/reducer.hpp"

using superstep::error_code;
using superstep::object;
using superstep::value;
using superstep::channels::builtin_reducer;
using superstep::channels::reducer;
using superstep::channels::test::check_error;

namespace {

value apply(std::string_view name, const value& current, std::vector<value> updates) {
  const reducer* r = builtin_reducer(name);
  BOOST_REQUIRE(r != nullptr);
  return r->apply(current, updates);
}

value binary(std::string_view name, const value& current, const value& update) {
  return builtin_reducer(name)->binary(current, update);
}

}  // namespace

BOOST_AUTO_TEST_CASE(finds_the_six_builtins_by_name_only) {
  for (std::string_view name : {"append", "add", "max", "min", "merge", "add_messages"}) {
    const reducer* r = builtin_reducer(name);
    BOOST_REQUIRE(r != nullptr);
    BOOST_TEST(r->name == name);
    BOOST_TEST(static_cast<bool>(r->fold));
    BOOST_TEST(static_cast<bool>(r->binary));
    BOOST_TEST(builtin_reducer(name) == r);
  }
  BOOST_TEST(builtin_reducer("concat") == nullptr);
  BOOST_TEST(builtin_reducer("") == nullptr);
}

BOOST_AUTO_TEST_CASE(apply_without_updates_returns_the_current_value) {
  value current = value::array({1});
  BOOST_TEST(apply("append", current, {}).same_instance(current));
}

BOOST_AUTO_TEST_CASE(apply_falls_back_to_the_binary_function) {
  reducer last{"last", [](const value&, const value& u) { return u; }, nullptr};
  std::vector<value> updates{1, 2, 3};
  BOOST_TEST(last.apply(0, updates) == value(3));
}

BOOST_AUTO_TEST_CASE(append_concatenates_lists_in_order) {
  BOOST_TEST(apply("append", value::array({1}),
                   {value::array({2, 3}), value::array({}), value::array({4})}) ==
             value::array({1, 2, 3, 4}));
  BOOST_TEST(binary("append", value::array({}), value::array({"a"})) == value::array({"a"}));
}

BOOST_AUTO_TEST_CASE(append_rejects_anything_but_lists_naming_the_kind) {
  check_error(
      [] {
        apply("append", value::array({}), {value::array({1}), 5});
      },
      error_code::invalid_update, {"reducer 'append'", "expected list, got int"});
  check_error([] { apply("append", value("s"), {value::array({1})}); }, error_code::invalid_update,
              {"expected list, got string"});
}

BOOST_AUTO_TEST_CASE(add_sums_integers_as_integers) {
  value sum = apply("add", 1, {2, 3});
  BOOST_TEST(sum.is_int());
  BOOST_TEST(sum.as_int() == 6);
}

BOOST_AUTO_TEST_CASE(add_turns_to_double_when_any_operand_is_double) {
  value sum = apply("add", 1, {2, 0.5, 1});
  BOOST_TEST(sum.is_double());
  BOOST_TEST(sum.as_double() == 4.5);
  BOOST_TEST(binary("add", 1.5, 1).as_double() == 2.5);
}

BOOST_AUTO_TEST_CASE(add_concatenates_strings_and_lists) {
  BOOST_TEST(apply("add", "ab", {"c", "", "d"}) == value("abcd"));
  BOOST_TEST(apply("add", value::array({1}), {value::array({2})}) == value::array({1, 2}));
}

BOOST_AUTO_TEST_CASE(add_rejects_mixed_kinds_naming_both) {
  check_error([] { apply("add", 1, {"x"}); }, error_code::invalid_update,
              {"reducer 'add'", "int", "string"});
  check_error([] { apply("add", "x", {value::array({})}); }, error_code::invalid_update,
              {"string", "list"});
  check_error([] { apply("add", value(), {1}); }, error_code::invalid_update, {"null", "int"});
  check_error([] { apply("add", true, {1}); }, error_code::invalid_update, {"bool", "int"});
  check_error([] { apply("add", object{}, {object{}}); }, error_code::invalid_update, {"object"});
}

BOOST_AUTO_TEST_CASE(add_reports_integer_overflow) {
  check_error([] { apply("add", INT64_MAX, {1}); }, error_code::invalid_update,
              {"reducer 'add'", "overflow"});
}

BOOST_AUTO_TEST_CASE(max_and_min_compare_numbers_and_strings) {
  BOOST_TEST(apply("max", 3, {7, 2}) == value(7));
  BOOST_TEST(apply("min", 3, {7, 2}) == value(2));
  BOOST_TEST(apply("max", 1, {1.5}).as_double() == 1.5);
  BOOST_TEST(apply("min", 1, {0.5}).as_double() == 0.5);
  BOOST_TEST(apply("max", "apple", {"pear", "fig"}) == value("pear"));
  BOOST_TEST(apply("min", "apple", {"pear", "fig"}) == value("apple"));
}

BOOST_AUTO_TEST_CASE(max_and_min_keep_the_current_value_on_a_tie) {
  BOOST_TEST(apply("max", 1, {1.0}).is_int());
  BOOST_TEST(apply("min", 1, {1.0}).is_int());
}

BOOST_AUTO_TEST_CASE(max_and_min_reject_values_they_cannot_order) {
  check_error([] { apply("max", 1, {"2"}); }, error_code::invalid_update,
              {"reducer 'max'", "int", "string"});
  check_error([] { apply("min", value::array({}), {value::array({})}); },
              error_code::invalid_update, {"reducer 'min'", "list"});
}

BOOST_AUTO_TEST_CASE(merge_overrides_keys_in_place_and_appends_new_ones) {
  value merged =
      apply("merge", object{{"a", 1}, {"b", 2}}, {object{{"b", 20}, {"c", 3}}, object{{"a", 10}}});
  BOOST_TEST(merged.to_json() == R"({"a":10,"b":20,"c":3})");
}

BOOST_AUTO_TEST_CASE(merge_handles_many_single_key_updates) {
  object start;
  for (int i = 0; i < 50; ++i) start.set("k" + std::to_string(i), i);
  std::vector<value> updates;
  for (int i = 0; i < 2000; ++i) updates.emplace_back(object{{"k" + std::to_string(i % 100), -i}});
  value merged = apply("merge", start, updates);
  const object& o = merged.as_object();
  BOOST_TEST(o.size() == 100u);
  BOOST_TEST(o.begin()->first == "k0");
  BOOST_TEST(o.find("k0")->as_int() == -1900);
  BOOST_TEST(o.find("k99")->as_int() == -1999);
  BOOST_TEST((o.begin() + 50)->first == "k50");
  // Distinct keys only: the update's keys follow the current ones.
  object extra;
  for (int i = 50; i < 60; ++i) extra.set("k" + std::to_string(i), i);
  value wider = apply("merge", start, {extra});
  BOOST_TEST(wider.as_object().size() == 60u);
  BOOST_TEST((wider.as_object().begin() + 59)->first == "k59");
}

BOOST_AUTO_TEST_CASE(merge_rejects_non_objects) {
  check_error([] { apply("merge", object{}, {value::array({})}); }, error_code::invalid_update,
              {"reducer 'merge'", "expected object, got list"});
  check_error([] { apply("merge", 1, {object{}}); }, error_code::invalid_update, {"got int"});
}
