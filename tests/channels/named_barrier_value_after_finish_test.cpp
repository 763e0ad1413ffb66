#include "superstep/channels/named_barrier_value_after_finish.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::named_barrier_value_after_finish;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(opens_only_when_complete_and_finished) {
  named_barrier_value_after_finish ch("join:a+b:late", {"a", "b"});
  BOOST_TEST(ch.type_name() == "named_barrier_value_after_finish");
  BOOST_TEST(step(ch, {"a"}));
  BOOST_TEST(!ch.finish());  // incomplete
  BOOST_TEST(step(ch, {"b"}));
  BOOST_TEST(!ch.is_available());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'join:a+b:late'"});
  BOOST_TEST(ch.finish());
  BOOST_TEST(!ch.finish());
  BOOST_TEST(ch.is_available());
  BOOST_TEST(ch.get().is_null());
}

BOOST_AUTO_TEST_CASE(consume_resets_only_after_finish) {
  named_barrier_value_after_finish ch("j", {"a"});
  step(ch, {"a"});
  BOOST_TEST(!ch.consume());
  ch.finish();
  BOOST_TEST(ch.consume());
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  BOOST_TEST(!ch.finish());
}

BOOST_AUTO_TEST_CASE(rejects_a_name_it_does_not_wait_for) {
  named_barrier_value_after_finish ch("j", {"a", "b"});
  check_error([&] { step(ch, {"c"}); }, error_code::invalid_update, {"At key 'j'", "\"c\""});
}

BOOST_AUTO_TEST_CASE(round_trips_names_and_finished_through_a_checkpoint) {
  named_barrier_value_after_finish ch("j", {"b", "a"});
  step(ch, {"b"});
  BOOST_TEST(*ch.checkpoint() == value::array({value::array({"b"}), false}));
  step(ch, {"a"});
  ch.finish();
  BOOST_TEST(*ch.checkpoint() == value::array({value::array({"a", "b"}), true}));
  auto restored = ch.from_checkpoint(ch.checkpoint());
  BOOST_TEST(restored->key() == "j");
  BOOST_TEST(restored->is_available());
  auto partial = ch.from_checkpoint(value::array({value::array({"a"}), false}));
  BOOST_TEST(!partial->finish());
  step(*partial, {"b"});
  BOOST_TEST(partial->finish());
  BOOST_TEST(!ch.from_checkpoint(std::nullopt)->checkpoint().has_value());
}

BOOST_AUTO_TEST_CASE(rejects_a_malformed_checkpoint) {
  named_barrier_value_after_finish ch("j", {"a"});
  check_error([&] { (void)ch.from_checkpoint(value::array({"a"})); }, error_code::invalid_argument,
              {"'j'"});
  check_error(
      [&] {
        (void)ch.from_checkpoint(value::array({value::array({"x"}), true}));
      },
      error_code::invalid_argument, {"'j'", "x"});
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  named_barrier_value_after_finish ch("j", {"a"});
  step(ch, {"a"});
  auto copy = ch.copy();
  copy->finish();
  BOOST_TEST(copy->is_available());
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(ch.finish());
}
