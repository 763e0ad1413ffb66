#include "superstep/channels/topic.hpp"

#include <boost/test/unit_test.hpp>

#include "channel_test_support.hpp"

using superstep::error_code;
using superstep::value;
using superstep::channels::topic;
using superstep::channels::test::check_error;
using superstep::channels::test::step;

BOOST_AUTO_TEST_CASE(an_empty_topic_is_not_available) {
  topic ch("__pregel_tasks");
  BOOST_TEST(ch.type_name() == "topic");
  BOOST_TEST(!ch.accumulate());
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  check_error([&] { (void)ch.get(); }, error_code::empty_channel, {"'__pregel_tasks'"});
}

BOOST_AUTO_TEST_CASE(flattens_list_writes_one_level) {
  topic ch("t");
  BOOST_TEST(step(ch, {1, value::array({2, 3}), value::array({value::array({4})}), "five"}));
  BOOST_TEST(ch.get() == value::array({1, 2, 3, value::array({4}), "five"}));
}

BOOST_AUTO_TEST_CASE(starts_each_step_empty_without_accumulate) {
  topic ch("t");
  step(ch, {1, 2});
  BOOST_TEST(step(ch, {3}));
  BOOST_TEST(ch.get() == value::array({3}));
  BOOST_TEST(step(ch, {}));  // cleared: a change
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!step(ch, {}));  // already empty: no change
}

BOOST_AUTO_TEST_CASE(an_empty_list_write_contributes_nothing) {
  topic ch("t");
  BOOST_TEST(!step(ch, {value::array({})}));
  BOOST_TEST(!ch.is_available());
}

BOOST_AUTO_TEST_CASE(appends_across_steps_with_accumulate) {
  topic ch("t", true);
  BOOST_TEST(ch.accumulate());
  step(ch, {1});
  BOOST_TEST(step(ch, {value::array({2, 3})}));
  BOOST_TEST(!step(ch, {}));
  BOOST_TEST(ch.get() == value::array({1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(round_trips_through_a_checkpoint) {
  topic ch("t", true);
  step(ch, {"a", "b"});
  auto saved = ch.checkpoint();
  BOOST_REQUIRE(saved.has_value());
  BOOST_TEST(*saved == value::array({"a", "b"}));
  auto restored = ch.from_checkpoint(saved);
  BOOST_TEST(restored->key() == "t");
  BOOST_TEST(restored->get() == value::array({"a", "b"}));
  step(*restored, {"c"});  // still accumulating
  BOOST_TEST(restored->get() == value::array({"a", "b", "c"}));
  BOOST_TEST(!ch.from_checkpoint(std::nullopt)->is_available());
}

BOOST_AUTO_TEST_CASE(rejects_a_checkpoint_that_is_not_a_list) {
  topic ch("t");
  check_error([&] { (void)ch.from_checkpoint(value("oops")); }, error_code::invalid_argument,
              {"'t'", "list", "string"});
}

BOOST_AUTO_TEST_CASE(copies_are_independent) {
  topic ch("t", true);
  step(ch, {1});
  auto copy = ch.copy();
  step(*copy, {2});
  BOOST_TEST(ch.get() == value::array({1}));
  BOOST_TEST(copy->get() == value::array({1, 2}));
}

BOOST_AUTO_TEST_CASE(get_shares_the_list_instead_of_copying_it) {
  topic ch("t");
  step(ch, {1, 2});
  BOOST_TEST(ch.get().same_instance(ch.get()));
}

// The tasks topic lets go of its Sends once their tasks are planned: it stays available, so
// the next step clears it and reports the change; reading it meanwhile is an internal error
// (nothing of the run reads it then); a copy (kept to restore on abort) is released too.
BOOST_AUTO_TEST_CASE(a_released_topic_gives_its_values_and_clears_at_the_next_step) {
  topic ch("__pregel_tasks");
  step(ch, {1, 2});
  value sends = ch.release();
  BOOST_TEST(sends == value::array({1, 2}));
  BOOST_REQUIRE(sends.sole_list() != nullptr);  // the only copy: its holder may consume it
  {
    const value shared = sends;
    BOOST_TEST(sends.sole_list() == nullptr);  // another holder sees it
  }
  BOOST_TEST(ch.is_available());
  check_error([&] { (void)ch.get(); }, error_code::internal, {"'__pregel_tasks'"});
  check_error([&] { (void)ch.checkpoint(); }, error_code::internal, {"'__pregel_tasks'"});
  auto copy = ch.copy();
  BOOST_TEST(copy->is_available());
  check_error([&] { (void)copy->get(); }, error_code::internal, {"'__pregel_tasks'"});
  BOOST_TEST(ch.release().is_null());  // nothing left to give
  BOOST_TEST(step(ch, {}));            // cleared: a change
  BOOST_TEST(!ch.is_available());
  BOOST_TEST(!ch.checkpoint().has_value());
  BOOST_TEST(step(ch, {3}));
  BOOST_TEST(ch.get() == value::array({3}));
}

BOOST_AUTO_TEST_CASE(an_accumulating_or_empty_topic_releases_nothing) {
  topic empty("t");
  BOOST_TEST(empty.release().is_null());
  BOOST_TEST(!empty.is_available());
  topic kept("t", true);
  step(kept, {1});
  BOOST_TEST(kept.release().is_null());
  BOOST_TEST(kept.get() == value::array({1}));
}
