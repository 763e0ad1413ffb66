#include "superstep/channels/any_value.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::any_value;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(starts_empty_and_get_names_the_key) {
  any_value ch("shared");
  BOOST_TEST(ch.type_name() == "any_value");
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'shared'"});
}

BOOST_AUTO_TEST_CASE(accepts_several_writes_and_keeps_the_last) {
  any_value ch("shared");
  BOOST_TEST(step(ch, {1, 2, 3}));
  BOOST_TEST(ch.get() == value(3));
}

BOOST_AUTO_TEST_CASE(clears_when_a_step_passes_without_writes) {
  any_value ch("shared");
  BOOST_TEST(!step(ch, {}));
  step(ch, {"x"});
  BOOST_TEST(step(ch, {}));
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!step(ch, {}));
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'shared'"});
}

BOOST_AUTO_TEST_CASE(round_trips_through_a_checkpoint) {
  any_value ch("shared");
  step(ch, {superstep::object{{"a", 1}}});
  auto saved = ch.checkpoint();
  BOOST_REQUIRE(saved.has_value());
  auto restored = ch.from_checkpoint(saved);
  BOOST_TEST(restored->key() == "shared");
  BOOST_TEST(restored->get() == value(superstep::object{{"a", 1}}));
  BOOST_TEST(!ch.from_checkpoint(std::nullopt)->is_available());
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  any_value ch("shared");
  step(ch, {1});
  auto copy = ch.copy();
  step(*copy, {});
  BOOST_TEST(!copy->is_available());
  BOOST_TEST(ch.get() == value(1));
}
