#include "superstep/channels/binary_operator_aggregate.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::object;
using superstep::value;
using superstep::channels::as_overwrite;
using superstep::channels::binary_operator_aggregate;
using superstep::channels::builtin_reducer;
using superstep::channels::overwrite;
using superstep::channels::reducer;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

namespace {

const reducer& append() { return *builtin_reducer("append"); }
const reducer& add() { return *builtin_reducer("add"); }

}  // namespace

BOOST_AUTO_TEST_CASE(starts_from_the_initial_value) {
  binary_operator_aggregate ch("items", append(), value::array({}));
  BOOST_TEST(ch.type_name() == "binary_operator_aggregate");
  BOOST_TEST(ch.op().name == "append");
  BOOST_TEST(ch.get() == value::array({}));
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(step(ch, {value::array({1}), value::array({2, 3})}));
  BOOST_TEST(ch.get() == value::array({1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(takes_the_first_write_as_is_when_empty) {
  binary_operator_aggregate ch("total", add());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'total'"});
  BOOST_TEST(!ch.checkpoint().has_value());
  BOOST_TEST(step(ch, {5, 6, 7}));
  BOOST_TEST(ch.get() == value(18));
  BOOST_TEST(step(ch, {2}));
  BOOST_TEST(ch.get() == value(20));
}

BOOST_AUTO_TEST_CASE(folds_a_step_with_one_call_to_the_reducer) {
  int calls = 0;
  reducer counting{"sum",
                   [](const value& a, const value& b) { return value(a.as_int() + b.as_int()); },
                   [&calls](const value& current, std::span<const value> updates) {
                     ++calls;
                     std::int64_t sum = current.as_int();
                     for (const value& u : updates) sum += u.as_int();
                     return value(sum);
                   }};
  binary_operator_aggregate ch("total", counting, value(0));
  step(ch, {1, 2, 3, 4});
  BOOST_TEST(calls == 1);
  BOOST_TEST(ch.get() == value(10));
}

BOOST_AUTO_TEST_CASE(uses_the_binary_function_when_there_is_no_fold) {
  reducer concat{
      "concat", [](const value& a, const value& b) { return value(a.as_string() + b.as_string()); },
      nullptr};
  binary_operator_aggregate ch("text", concat, value(""));
  step(ch, {"a", "b", "c"});
  BOOST_TEST(ch.get() == value("abc"));
}

BOOST_AUTO_TEST_CASE(rejects_a_reducer_without_a_function) {
  check_error(
      [] {
        binary_operator_aggregate("k", reducer{"nothing", nullptr, nullptr});
      },
      error_code::invalid_argument, {"'k'", "nothing"});
}

BOOST_AUTO_TEST_CASE(an_overwrite_replaces_the_value_and_drops_the_other_writes) {
  binary_operator_aggregate ch("items", append(), value::array({}));
  step(ch, {value::array({1})});
  BOOST_TEST(step(ch, {value::array({2}), overwrite(value::array({9})), value::array({3})}));
  BOOST_TEST(ch.get() == value::array({9}));
  step(ch, {value::array({4})});
  BOOST_TEST(ch.get() == value::array({9, 4}));
}

BOOST_AUTO_TEST_CASE(an_overwrite_of_an_empty_channel_stores_the_carried_value) {
  binary_operator_aggregate ch("total", add());
  step(ch, {overwrite(3)});
  BOOST_TEST(ch.get() == value(3));
}

BOOST_AUTO_TEST_CASE(rejects_two_overwrites_in_one_step) {
  binary_operator_aggregate ch("items", append(), value::array({1}));
  check_error(
      [&] {
        step(ch, {overwrite(value::array({})), overwrite(value::array({2}))});
      },
      error_code::invalid_update, {"At key 'items'", "only one Overwrite value per super-step"});
  BOOST_TEST(ch.get() == value::array({1}));
}

BOOST_AUTO_TEST_CASE(recognises_both_overwrite_forms) {
  value marker = overwrite(5);
  BOOST_TEST(marker == value(object{{"__overwrite__", 5}}));
  BOOST_REQUIRE(as_overwrite(marker) != nullptr);
  BOOST_TEST(*as_overwrite(marker) == value(5));
  value erased(object{{"type", "__overwrite__"}, {"value", 6}});
  BOOST_REQUIRE(as_overwrite(erased) != nullptr);
  BOOST_TEST(*as_overwrite(erased) == value(6));
  BOOST_TEST(as_overwrite(value(object{{"__overwrite__", 1}, {"other", 2}})) == nullptr);
  BOOST_TEST(as_overwrite(value(5)) == nullptr);
  BOOST_TEST(as_overwrite(value(object{{"value", 1}})) == nullptr);
}

BOOST_AUTO_TEST_CASE(names_the_key_in_reducer_errors_and_keeps_the_value) {
  binary_operator_aggregate ch("items", append(), value::array({1}));
  check_error(
      [&] {
        step(ch, {value::array({2}), "oops"});
      },
      error_code::invalid_update, {"At key 'items'", "reducer 'append'", "string"});
  BOOST_TEST(ch.get() == value::array({1}));
  binary_operator_aggregate empty("total", add());
  check_error([&] { step(empty, {1, "x"}); }, error_code::invalid_update, {"'total'"});
  BOOST_TEST(!empty.is_available());
}

BOOST_AUTO_TEST_CASE(round_trips_through_a_checkpoint) {
  binary_operator_aggregate ch("items", append(), value::array({}));
  step(ch, {value::array({1, 2})});
  auto restored = ch.from_checkpoint(ch.checkpoint());
  BOOST_TEST(restored->key() == "items");
  BOOST_TEST(restored->get() == value::array({1, 2}));
  step(*restored, {value::array({3})});  // the reducer came along
  BOOST_TEST(restored->get() == value::array({1, 2, 3}));
  auto fresh = ch.from_checkpoint(std::nullopt);
  BOOST_TEST(fresh->get() == value::array({}));  // back to the initial value
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  binary_operator_aggregate ch("total", add(), value(0));
  step(ch, {1});
  auto copy = ch.copy();
  step(*copy, {10});
  BOOST_TEST(ch.get() == value(1));
  BOOST_TEST(copy->get() == value(11));
}
