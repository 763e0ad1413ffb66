#include "superstep/channels/ephemeral_value.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::ephemeral_value;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(holds_a_write_for_exactly_one_step) {
  ephemeral_value ch("branch:to:a");
  BOOST_TEST(ch.type_name() == "ephemeral_value");
  BOOST_TEST(ch.guard());
  BOOST_TEST(step(ch, {"go"}));
  BOOST_TEST(ch.get() == value("go"));
  BOOST_TEST(step(ch, {}));
  BOOST_TEST(!ch.is_available());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'branch:to:a'"});
}

BOOST_AUTO_TEST_CASE(clearing_an_empty_channel_changes_nothing) {
  ephemeral_value ch("branch:to:a");
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(!ch.is_available());
}

BOOST_AUTO_TEST_CASE(a_new_write_replaces_the_previous_one) {
  ephemeral_value ch("branch:to:a");
  step(ch, {1});
  BOOST_TEST(step(ch, {2}));
  BOOST_TEST(ch.get() == value(2));
}

BOOST_AUTO_TEST_CASE(rejects_two_writes_in_one_step_when_guarded) {
  ephemeral_value ch("__start__");
  step(ch, {1});
  check_error(
      [&] {
        step(ch, {2, 3});
      },
      error_code::invalid_update, {"At key '__start__'", "only one value per step"});
  BOOST_TEST(ch.get() == value(1));
}

BOOST_AUTO_TEST_CASE(keeps_the_last_of_several_writes_when_unguarded) {
  ephemeral_value ch("branch:to:a", false);
  BOOST_TEST(!ch.guard());
  BOOST_TEST(step(ch, {2, 3}));
  BOOST_TEST(ch.get() == value(3));
}

BOOST_AUTO_TEST_CASE(round_trips_through_a_checkpoint_keeping_the_guard) {
  ephemeral_value ch("branch:to:a", false);
  BOOST_TEST(!ch.checkpoint().has_value());
  step(ch, {"x"});
  auto restored = ch.from_checkpoint(ch.checkpoint());
  BOOST_TEST(restored->key() == "branch:to:a");
  BOOST_TEST(restored->get() == value("x"));
  BOOST_TEST(step(*restored, {1, 2}));
  auto empty = ch.from_checkpoint(std::nullopt);
  BOOST_TEST(!empty->is_available());
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  ephemeral_value ch("branch:to:a");
  step(ch, {1});
  auto copy = ch.copy();
  step(ch, {});
  BOOST_TEST(copy->get() == value(1));
  BOOST_TEST(!ch.is_available());
  check_error([&] { step(*copy, {1, 2}); }, error_code::invalid_update, {"'branch:to:a'"});
}
