#include "superstep/channels/untracked_value.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::overwrite;
using superstep::channels::untracked_value;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(keeps_the_last_write_across_steps) {
  untracked_value ch("session");
  BOOST_TEST(ch.type_name() == "untracked_value");
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'session'"});
  BOOST_TEST(step(ch, {"handle"}));
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(ch.get() == value("handle"));
}

BOOST_AUTO_TEST_CASE(never_produces_a_checkpoint) {
  untracked_value ch("session");
  BOOST_TEST(!ch.checkpoint().has_value());
  step(ch, {"secret"});
  BOOST_TEST(ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
}

BOOST_AUTO_TEST_CASE(restores_empty_whatever_the_checkpoint) {
  untracked_value ch("session", false);
  auto restored = ch.from_checkpoint(value("stale"));
  BOOST_TEST(restored->key() == "session");
  BOOST_TEST(!restored->is_available());
  BOOST_TEST(step(*restored, {1, 2}));  // the guard setting survives
  BOOST_TEST(restored->get() == value(2));
}

BOOST_AUTO_TEST_CASE(rejects_two_writes_in_one_step_when_guarded) {
  untracked_value ch("session");
  check_error(
      [&] {
        step(ch, {1, 2});
      },
      error_code::invalid_update, {"At key 'session'", "only one value per step"});
  BOOST_TEST(!ch.is_available());
}

BOOST_AUTO_TEST_CASE(stores_the_value_an_overwrite_carries) {
  untracked_value ch("session");
  step(ch, {overwrite(7)});
  BOOST_TEST(ch.get() == value(7));
}

BOOST_AUTO_TEST_CASE(copies_keep_the_value_independently) {
  untracked_value ch("session");
  step(ch, {1});
  auto copy = ch.copy();
  BOOST_TEST(copy->get() == value(1));
  step(*copy, {2});
  BOOST_TEST(ch.get() == value(1));
}
