// libs/langgraph/tests/test_channels.py: the channel primitives (LastValue, Topic,
// BinaryOperatorAggregate, UntrackedValue) and the Overwrite marker.
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/channels/untracked_value.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::channels;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

bool update(channel& c, std::vector<value> writes) { return c.update(writes); }

void expect_empty(const channel& c) {
  test::expect_error([&] { (void)c.get(); }, error_code::empty_channel, c.key());
}

}  // namespace

// libs/langgraph/tests/test_channels.py::test_last_value (not ported: Python's ValueType and
// UpdateType)
BOOST_AUTO_TEST_CASE(test_last_value) {
  auto channel = last_value("a").from_checkpoint(std::nullopt);
  expect_empty(*channel);
  test::expect_error([&] { update(*channel, {5, 6}); }, error_code::invalid_update, "'a'");
  update(*channel, {3});
  BOOST_TEST(channel->get() == value(3));
  update(*channel, {4});
  BOOST_TEST(channel->get() == value(4));
  auto checkpoint = channel->checkpoint();
  channel = last_value("a").from_checkpoint(checkpoint);
  BOOST_TEST(channel->get() == value(4));
}

// libs/langgraph/tests/test_channels.py::test_topic
BOOST_AUTO_TEST_CASE(test_topic) {
  auto channel = topic("t").from_checkpoint(std::nullopt);
  BOOST_TEST(update(*channel, {"a", "b"}));
  BOOST_TEST(channel->get() == J(R"(["a","b"])"));
  BOOST_TEST(update(*channel, {J(R"(["c","d"])"), "d"}));
  BOOST_TEST(channel->get() == J(R"(["c","d","d"])"));
  BOOST_TEST(update(*channel, {}));
  expect_empty(*channel);
  BOOST_TEST(!update(*channel, {}), "channel already empty");
  BOOST_TEST(update(*channel, {"e"}));
  BOOST_TEST(channel->get() == J(R"(["e"])"));
  auto checkpoint = channel->checkpoint();
  channel = topic("t").from_checkpoint(checkpoint);
  BOOST_TEST(channel->get() == J(R"(["e"])"));
  auto channel_copy = topic("t").from_checkpoint(checkpoint);
  update(*channel_copy, {"f"});
  BOOST_TEST(channel_copy->get() == J(R"(["f"])"));
  BOOST_TEST(channel->get() == J(R"(["e"])"));
}

// libs/langgraph/tests/test_channels.py::test_topic_accumulate
BOOST_AUTO_TEST_CASE(test_topic_accumulate) {
  auto channel = topic("t", true).from_checkpoint(std::nullopt);
  BOOST_TEST(update(*channel, {"a", "b"}));
  BOOST_TEST(channel->get() == J(R"(["a","b"])"));
  BOOST_TEST(update(*channel, {"b", J(R"(["c","d"])"), "d"}));
  BOOST_TEST(channel->get() == J(R"(["a","b","b","c","d","d"])"));
  BOOST_TEST(!update(*channel, {}));
  BOOST_TEST(channel->get() == J(R"(["a","b","b","c","d","d"])"));
  auto checkpoint = channel->checkpoint();
  channel = topic("t", true).from_checkpoint(checkpoint);
  BOOST_TEST(channel->get() == J(R"(["a","b","b","c","d","d"])"));
  BOOST_TEST(update(*channel, {"e"}));
  BOOST_TEST(channel->get() == J(R"(["a","b","b","c","d","d","e"])"));
}

// libs/langgraph/tests/test_channels.py::test_binop (an int channel starts at int() == 0)
BOOST_AUTO_TEST_CASE(test_binop) {
  const reducer& add = *builtin_reducer("add");
  auto channel = binary_operator_aggregate("b", add, value(0)).from_checkpoint(std::nullopt);
  BOOST_TEST(channel->get() == value(0));
  update(*channel, {1, 2, 3});
  BOOST_TEST(channel->get() == value(6));
  update(*channel, {4});
  BOOST_TEST(channel->get() == value(10));
  auto checkpoint = channel->checkpoint();
  channel = binary_operator_aggregate("b", add, value(0)).from_checkpoint(checkpoint);
  BOOST_TEST(channel->get() == value(10));
}

// libs/langgraph/tests/test_channels.py::test_untracked_value
BOOST_AUTO_TEST_CASE(test_untracked_value) {
  auto channel = untracked_value("u").from_checkpoint(std::nullopt);
  expect_empty(*channel);
  value test_data = J(R"({"session":"test","temp":"dir"})");
  update(*channel, {test_data});
  BOOST_TEST(channel->get() == test_data);
  value new_data = J(R"({"session":"updated","temp":"newdir"})");
  update(*channel, {new_data});
  BOOST_TEST(channel->get() == new_data);
  auto checkpoint = channel->checkpoint();
  BOOST_TEST(!checkpoint.has_value());
  auto new_channel = untracked_value("u").from_checkpoint(checkpoint);
  expect_empty(*new_channel);
}

// libs/langgraph/tests/test_channels.py::test_overwrite_dataclass_form_survives_json_roundtrip
// (an Overwrite serialised to JSON: {"type": "__overwrite__", "value": ...})
BOOST_AUTO_TEST_CASE(test_overwrite_dataclass_form_survives_json_roundtrip) {
  value erased = J(R"({"type":"__overwrite__",
                       "value":[{"type":"human","content":"new","id":"h2"}]})");
  const value* v = as_overwrite(erased);
  BOOST_TEST_REQUIRE(v != nullptr);
  BOOST_TEST_REQUIRE(v->is_list());
  BOOST_TEST(v->as_list()[0].get("content") == value("new"));
  // and a reducer channel takes it as an overwrite
  auto channel = binary_operator_aggregate("m", *builtin_reducer("add_messages"), value(list{}))
                     .from_checkpoint(J(R"([{"type":"human","content":"old","id":"h1"}])"));
  update(*channel, {erased});
  BOOST_TEST(channel->get() == J(R"([{"type":"human","content":"new","id":"h2"}])"));
}

// libs/langgraph/tests/test_channels.py::test_overwrite_sentinel_dict_still_recognised
BOOST_AUTO_TEST_CASE(test_overwrite_sentinel_dict_still_recognised) {
  const value marker = J(R"({"__overwrite__":["b"]})");
  const value* v = as_overwrite(marker);
  BOOST_TEST_REQUIRE(v != nullptr);
  BOOST_TEST(*v == J(R"(["b"])"));
  BOOST_TEST(overwrite(J(R"(["b"])")) == marker);
}

// libs/langgraph/tests/test_channels.py::test_overwrite_non_matching_dict_not_recognised
BOOST_AUTO_TEST_CASE(test_overwrite_non_matching_dict_not_recognised) {
  BOOST_TEST(as_overwrite(J(R"({"value":["b"]})")) == nullptr);
  BOOST_TEST(as_overwrite(J(R"({"type":"human","value":"hi"})")) == nullptr);
}
