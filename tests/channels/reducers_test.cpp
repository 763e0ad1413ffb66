#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "channel_test_support.hpp"
#include "superstep/channels/reducer.hpp"

using superstep::error_code;
using superstep::list;
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

value msg(std::string id, std::string content) {
  return value(object{{"type", "ai"}, {"content", std::move(content)}, {"id", std::move(id)}});
}

value anonymous(std::string content) {
  return value(object{{"type", "ai"}, {"content", std::move(content)}});
}

value remove_message(std::string id) {
  return value(object{{"type", "remove"}, {"id", std::move(id)}});
}

std::vector<std::string> ids(const value& messages) {
  std::vector<std::string> out;
  for (const value& m : messages.as_list()) out.push_back(m.get("id").as_string());
  return out;
}

std::vector<std::string> contents(const value& messages) {
  std::vector<std::string> out;
  for (const value& m : messages.as_list()) out.push_back(m.get("content").as_string());
  return out;
}

using strings = std::vector<std::string>;

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
}

BOOST_AUTO_TEST_CASE(merge_rejects_non_objects) {
  check_error([] { apply("merge", object{}, {value::array({})}); }, error_code::invalid_update,
              {"reducer 'merge'", "expected object, got list"});
  check_error([] { apply("merge", 1, {object{}}); }, error_code::invalid_update, {"got int"});
}

BOOST_AUTO_TEST_CASE(add_messages_appends_and_gives_ids_to_messages_without_one) {
  value merged = apply("add_messages", value::array({msg("1", "hello")}),
                       {value::array({anonymous("hi"), anonymous("hi")}), "how are you?"});
  BOOST_TEST(contents(merged) == (strings{"hello", "hi", "hi", "how are you?"}));
  strings got = ids(merged);
  BOOST_TEST(got[0] == "1");
  BOOST_TEST(std::set<std::string>(got.begin(), got.end()).size() == 4u);
  BOOST_TEST(got[1].size() == 36u);
  BOOST_TEST(merged.as_list()[3].get("type") == value("human"));
  // The same input gives the same ids.
  value again = apply("add_messages", value::array({msg("1", "hello")}),
                      {value::array({anonymous("hi"), anonymous("hi")}), "how are you?"});
  BOOST_TEST(ids(again) == got);
}

BOOST_AUTO_TEST_CASE(add_messages_replaces_a_message_with_the_same_id_in_place) {
  value merged = apply("add_messages", value::array({msg("1", "a"), msg("2", "b")}),
                       {value::array({msg("1", "A"), msg("3", "c")})});
  BOOST_TEST(ids(merged) == (strings{"1", "2", "3"}));
  BOOST_TEST(contents(merged) == (strings{"A", "b", "c"}));
}

BOOST_AUTO_TEST_CASE(add_messages_accepts_single_messages_on_either_side) {
  value merged = binary("add_messages", msg("1", "a"), msg("2", "b"));
  BOOST_TEST(ids(merged) == (strings{"1", "2"}));
}

BOOST_AUTO_TEST_CASE(add_messages_removes_a_message_by_id) {
  value start = value::array({msg("1", "a"), msg("2", "b"), msg("3", "c")});
  value merged = apply("add_messages", start, {remove_message("2")});
  BOOST_TEST(ids(merged) == (strings{"1", "3"}));
}

BOOST_AUTO_TEST_CASE(add_messages_rejects_removing_an_unknown_id) {
  check_error([] { apply("add_messages", value::array({msg("1", "a")}), {remove_message("9")}); },
              error_code::invalid_update, {"reducer 'add_messages'", "'9'"});
  // A message removed by an earlier update of the same step is gone too.
  check_error(
      [] {
        apply("add_messages", value::array({msg("1", "a")}),
              {remove_message("1"), remove_message("1")});
      },
      error_code::invalid_update, {"'1'"});
}

BOOST_AUTO_TEST_CASE(add_messages_keeps_the_place_of_a_message_removed_and_re_added_at_once) {
  value start = value::array({msg("1", "a"), msg("2", "b")});
  value merged =
      apply("add_messages", start, {value::array({remove_message("1"), msg("1", "again")})});
  BOOST_TEST(ids(merged) == (strings{"1", "2"}));
  BOOST_TEST(contents(merged) == (strings{"again", "b"}));
  // Re-added by a later update, it goes to the end, as with two separate reductions.
  value later = apply("add_messages", start, {remove_message("1"), msg("1", "again")});
  BOOST_TEST(ids(later) == (strings{"2", "1"}));
}

BOOST_AUTO_TEST_CASE(add_messages_remove_all_drops_everything_before_it) {
  value start = value::array({msg("1", "a"), msg("2", "b")});
  value merged = apply("add_messages", start,
                       {msg("3", "c"),
                        value::array({msg("4", "d"), remove_message("__remove_all__"),
                                      msg("5", "e"), anonymous("f")}),
                        msg("6", "g")});
  BOOST_TEST(contents(merged) == (strings{"e", "f", "g"}));
  BOOST_TEST(ids(merged)[0] == "5");
}

BOOST_AUTO_TEST_CASE(add_messages_fold_matches_reducing_one_update_at_a_time) {
  std::vector<value> updates{value::array({msg("1", "a"), msg("2", "b")}), msg("1", "A"),
                             remove_message("2"), value::array({msg("3", "c"), msg("2", "B")})};
  value folded = apply("add_messages", value::array({}), updates);
  value stepwise = value::array({});
  for (const value& u : updates) stepwise = binary("add_messages", stepwise, u);
  BOOST_TEST(folded == stepwise);
  BOOST_TEST(ids(folded) == (strings{"1", "3", "2"}));
}

BOOST_AUTO_TEST_CASE(add_messages_rejects_values_that_are_not_messages) {
  check_error([] { apply("add_messages", value::array({}), {5}); }, error_code::invalid_update,
              {"reducer 'add_messages'", "got int"});
  check_error([] { apply("add_messages", value(), {"hi"}); }, error_code::invalid_update,
              {"got null"});
  check_error(
      [] {
        apply("add_messages", value::array({}), {value(object{{"id", 3}})});
      },
      error_code::invalid_update, {"id must be a string, got int"});
}
