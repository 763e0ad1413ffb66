#include "superstep/channels/named_barrier_value.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::named_barrier_value;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(opens_once_every_name_has_written) {
  named_barrier_value ch("join:a+b:c", {"b", "a", "b"});
  BOOST_TEST(ch.type_name() == "named_barrier_value");
  BOOST_TEST(ch.names().size() == 2u);
  BOOST_TEST(!ch.is_available());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'join:a+b:c'"});
  BOOST_TEST(step(ch, {"a"}));
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!step(ch, {"a"}));  // seen already
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(step(ch, {"b"}));
  BOOST_TEST(ch.is_available());
  BOOST_TEST(ch.get().is_null());
}

BOOST_AUTO_TEST_CASE(rejects_a_name_it_does_not_wait_for) {
  named_barrier_value ch("join:a+b:c", {"a", "b"});
  check_error(
      [&] {
        step(ch, {"a", "intruder"});
      },
      error_code::invalid_update, {"At key 'join:a+b:c'", "intruder"});
  BOOST_TEST(!ch.checkpoint().has_value());  // nothing recorded from the failed step
  check_error([&] { step(ch, {7}); }, error_code::invalid_update, {"'join:a+b:c'", "7"});
}

BOOST_AUTO_TEST_CASE(consume_resets_only_an_open_barrier) {
  named_barrier_value ch("j", {"a", "b"});
  step(ch, {"a"});
  BOOST_TEST(!ch.consume());
  step(ch, {"b"});
  BOOST_TEST(!ch.finish());
  BOOST_TEST(ch.consume());
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  step(ch, {"b", "a"});
  BOOST_TEST(ch.is_available());
}

BOOST_AUTO_TEST_CASE(round_trips_the_seen_names_through_a_checkpoint) {
  named_barrier_value ch("j", {"c", "a", "b"});
  step(ch, {"c", "a"});
  auto saved = ch.checkpoint();
  BOOST_REQUIRE(saved.has_value());
  BOOST_TEST(*saved == value::array({"a", "c"}));
  auto restored = ch.from_checkpoint(saved);
  BOOST_TEST(restored->key() == "j");
  BOOST_TEST(!restored->is_available());
  step(*restored, {"b"});
  BOOST_TEST(restored->is_available());
  BOOST_TEST(!ch.from_checkpoint(std::nullopt)->checkpoint().has_value());
}

BOOST_AUTO_TEST_CASE(rejects_a_checkpoint_with_unknown_names_or_shape) {
  named_barrier_value ch("j", {"a"});
  check_error([&] { (void)ch.from_checkpoint(value::array({"z"})); }, error_code::invalid_argument,
              {"'j'", "z"});
  check_error([&] { (void)ch.from_checkpoint(value("a")); }, error_code::invalid_argument,
              {"'j'", "string"});
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  named_barrier_value ch("j", {"a", "b"});
  step(ch, {"a"});
  auto copy = ch.copy();
  step(*copy, {"b"});
  BOOST_TEST(copy->is_available());
  BOOST_TEST(!ch.is_available());
}
