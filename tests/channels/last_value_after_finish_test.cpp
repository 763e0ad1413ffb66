#include "superstep/channels/last_value_after_finish.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::last_value_after_finish;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(hides_the_value_until_finish) {
  last_value_after_finish ch("branch:to:late");
  BOOST_TEST(ch.type_name() == "last_value_after_finish");
  BOOST_TEST(!ch.finish());  // nothing to finish
  BOOST_TEST(step(ch, {"go"}));
  BOOST_TEST(!ch.is_available());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'branch:to:late'"});
  BOOST_TEST(ch.finish());
  BOOST_TEST(!ch.finish());
  BOOST_TEST(ch.is_available());
  BOOST_TEST(ch.get() == value("go"));
}

BOOST_AUTO_TEST_CASE(accepts_several_writes_and_keeps_the_last) {
  last_value_after_finish ch("branch:to:late");
  BOOST_TEST(step(ch, {1, 2}));
  BOOST_TEST(!step(ch, {}));
  ch.finish();
  BOOST_TEST(ch.get() == value(2));
}

BOOST_AUTO_TEST_CASE(consume_clears_only_after_finish) {
  last_value_after_finish ch("t");
  step(ch, {1});
  BOOST_TEST(!ch.consume());
  ch.finish();
  BOOST_TEST(ch.consume());
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  BOOST_TEST(!ch.finish());
}

BOOST_AUTO_TEST_CASE(a_write_after_finish_hides_the_value_again) {
  last_value_after_finish ch("t");
  step(ch, {1});
  ch.finish();
  step(ch, {2});
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(ch.finish());
  BOOST_TEST(ch.get() == value(2));
}

BOOST_AUTO_TEST_CASE(round_trips_value_and_finished_through_a_checkpoint) {
  last_value_after_finish ch("t");
  BOOST_TEST(!ch.checkpoint().has_value());
  step(ch, {"v"});
  BOOST_TEST(*ch.checkpoint() == value::array({"v", false}));
  auto pending = ch.from_checkpoint(ch.checkpoint());
  BOOST_TEST(pending->key() == "t");
  BOOST_TEST(!pending->is_available());
  BOOST_TEST(pending->finish());
  ch.finish();
  BOOST_TEST(*ch.checkpoint() == value::array({"v", true}));
  auto finished = ch.from_checkpoint(ch.checkpoint());
  BOOST_TEST(finished->get() == value("v"));
  BOOST_TEST(finished->consume());
  BOOST_TEST(!ch.from_checkpoint(std::nullopt)->is_available());
}

BOOST_AUTO_TEST_CASE(takes_a_bare_value_checkpoint_as_finished) {
  last_value_after_finish ch("t");
  auto restored = ch.from_checkpoint(value("plain"));
  BOOST_TEST(restored->get() == value("plain"));
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  last_value_after_finish ch("t");
  step(ch, {1});
  auto copy = ch.copy();
  copy->finish();
  BOOST_TEST(copy->is_available());
  BOOST_TEST(!ch.is_available());
}
