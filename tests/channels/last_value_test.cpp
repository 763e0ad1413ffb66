#include "superstep/channels/last_value.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::last_value;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(starts_empty_and_get_names_the_key) {
  last_value ch("answer");
  BOOST_TEST(ch.type_name() == "last_value");
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'answer'"});
}

BOOST_AUTO_TEST_CASE(keeps_the_single_write_of_a_step) {
  last_value ch("answer");
  BOOST_TEST(step(ch, {42}));
  BOOST_TEST(ch.is_available());
  BOOST_TEST(ch.get() == value(42));
  BOOST_TEST(step(ch, {"next"}));
  BOOST_TEST(ch.get() == value("next"));
}

BOOST_AUTO_TEST_CASE(a_step_without_writes_changes_nothing) {
  last_value ch("answer");
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(step(ch, {1}));
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(ch.get() == value(1));
}

BOOST_AUTO_TEST_CASE(rejects_two_writes_in_one_step) {
  last_value ch("answer");
  BOOST_TEST(step(ch, {1}));
  check_error(
      [&] {
        step(ch, {2, 3});
      },
      error_code::invalid_update, {"At key 'answer'", "Can receive only one value per step"});
  BOOST_TEST(ch.get() == value(1));
}

BOOST_AUTO_TEST_CASE(round_trips_through_a_checkpoint) {
  last_value ch("answer");
  step(ch, {value::array({1, "two"})});
  auto saved = ch.checkpoint();
  BOOST_REQUIRE(saved.has_value());
  BOOST_TEST(*saved == value::array({1, "two"}));
  auto restored = ch.from_checkpoint(saved);
  BOOST_TEST(restored->key() == "answer");
  BOOST_TEST(restored->type_name() == "last_value");
  BOOST_TEST(restored->get() == value::array({1, "two"}));
  check_error([&] { step(*restored, {1, 2}); }, error_code::invalid_update, {"'answer'"});
}

BOOST_AUTO_TEST_CASE(restores_empty_from_no_checkpoint) {
  last_value ch("answer");
  step(ch, {1});
  auto restored = ch.from_checkpoint(std::nullopt);
  BOOST_TEST(restored->key() == "answer");
  BOOST_TEST(!restored->is_available());
  BOOST_TEST(ch.get() == value(1));
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  last_value ch("answer");
  step(ch, {1});
  auto copy = ch.copy();
  BOOST_TEST(copy->get() == value(1));
  step(*copy, {2});
  BOOST_TEST(ch.get() == value(1));
  BOOST_TEST(copy->get() == value(2));
  step(ch, {3});
  BOOST_TEST(copy->get() == value(2));
}

BOOST_AUTO_TEST_CASE(ignores_consume_and_finish) {
  last_value ch("answer");
  step(ch, {1});
  BOOST_TEST(!ch.consume());
  BOOST_TEST(!ch.finish());
  BOOST_TEST(ch.get() == value(1));
}
