// LangGraph's v3 event streaming: stream channels and protocol events
// (libs/langgraph/tests/test_pregel_stream_events_v3.py, TestStreamChannelLocal,
// TestStreamChannelNamed, TestDrainOnConsume, TestConvertToProtocolEvent). Python binds a
// channel to its sync or async iteration protocol; a C++ channel has the one (pull) protocol,
// so the tests that bind it are listed in NOT_PORTED.streamv3.md.
#include "stream_v3_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {
using ints = std::vector<int>;
using strs = std::vector<std::string>;
}  // namespace

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_sync_iteration
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_sync_iteration) {
  stream_channel<int> log;
  auto it = log.cursor();
  log.push(1);
  log.push(2);
  log.push(3);
  log.close();
  BOOST_TEST(drain(it) == (ints{1, 2, 3}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_drain_on_consume
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_drain_on_consume) {
  stream_channel<std::string> log;
  auto it = log.cursor();
  log.push("a");
  log.push("b");
  log.close();
  BOOST_TEST(drain(it) == (strs{"a", "b"}));
  BOOST_TEST(log.size() == 0u);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_second_subscribe_raises
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_second_subscribe_raises) {
  stream_channel<std::string> log;
  log.close();
  (void)log.cursor();
  BOOST_TEST(throws_with([&] { (void)log.cursor(); }, "already has a subscriber"));
  BOOST_TEST(code_of([&] { (void)log.cursor(); }) == error_code::invalid_argument);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_pre_subscription_push_is_noop
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_pre_subscription_push_is_noop) {
  // Lazy subscribe: what is pushed before a subscriber comes is not kept.
  stream_channel<int> log;
  log.push(1);
  log.push(2);
  auto it = log.cursor();
  log.push(3);
  log.close();
  BOOST_TEST(drain(it) == (ints{3}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_fail_propagation
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_fail_propagation) {
  stream_channel<int> log;
  auto it = log.cursor();
  log.push(1);
  log.fail(failure("test error"));
  BOOST_TEST(throws_with([&] { drain(it); }, "test error"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_sync_cursor_yields_items_before_error
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_sync_cursor_yields_items_before_error) {
  stream_channel<int> log;
  auto it = log.cursor();
  log.push(1);
  log.push(2);
  log.push(3);
  log.fail(failure("late error"));
  ints items;
  BOOST_TEST(throws_with(
      [&] {
        for (int i : it) items.push_back(i);
      },
      "late error"));
  BOOST_TEST(items == (ints{1, 2, 3}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_push_after_close_raises
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_push_after_close_raises) {
  stream_channel<int> log;
  auto it = log.cursor();
  log.push(1);
  log.close();
  BOOST_TEST(throws_with([&] { log.push(2); }, "cannot push to a closed stream_channel"));
  BOOST_TEST(drain(it) == (ints{1}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_push_after_fail_raises
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_push_after_fail_raises) {
  stream_channel<int> log;
  auto it = log.cursor();
  log.fail(failure("err"));
  BOOST_TEST(throws_with([&] { log.push(1); }, "cannot push to a closed stream_channel"));
  BOOST_TEST(throws_with([&] { drain(it); }, "err"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_empty_log_sync
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_empty_log_sync) {
  stream_channel<int> log;
  log.close();
  BOOST_TEST(drain(log).empty());
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelLocal::test_empty_log_fail_sync
BOOST_AUTO_TEST_CASE(TestStreamChannelLocal_test_empty_log_fail_sync) {
  stream_channel<int> log;
  log.fail(failure("empty fail"));
  BOOST_TEST(throws_with([&] { drain(log); }, "empty fail"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelNamed::test_push_and_iterate
BOOST_AUTO_TEST_CASE(TestStreamChannelNamed_test_push_and_iterate) {
  stream_channel<std::string> ch("test");
  auto it = ch.cursor();
  ch.push("a");
  ch.push("b");
  ch.close();
  BOOST_TEST(drain(it) == (strs{"a", "b"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelNamed::test_wire_callback
BOOST_AUTO_TEST_CASE(TestStreamChannelNamed_test_wire_callback) {
  strs forwarded;
  stream_channel<std::string> ch("test");
  ch.wire([&](const value& item) { forwarded.push_back(item.as_string()); });
  auto it = ch.cursor();
  ch.push("x");
  ch.push("y");
  ch.close();
  BOOST_TEST(forwarded == (strs{"x", "y"}));
  BOOST_TEST(drain(it) == (strs{"x", "y"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelNamed::test_fail_propagation
BOOST_AUTO_TEST_CASE(TestStreamChannelNamed_test_fail_propagation) {
  stream_channel<std::string> ch("test");
  auto it = ch.cursor();
  ch.push("a");
  ch.fail(failure("channel error"));
  strs items;
  BOOST_TEST(throws_with(
      [&] {
        for (auto& s : it) items.push_back(s);
      },
      "channel error"));
  BOOST_TEST(items == (strs{"a"}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestStreamChannelNamed::test_push_without_wire
BOOST_AUTO_TEST_CASE(TestStreamChannelNamed_test_push_without_wire) {
  stream_channel<int> ch("test");
  BOOST_TEST(!ch.wired());
  auto it = ch.cursor();
  ch.push(42);
  ch.close();
  BOOST_TEST(drain(it) == (ints{42}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestDrainOnConsume::test_push_unbounded_by_design
BOOST_AUTO_TEST_CASE(TestDrainOnConsume_test_push_unbounded_by_design) {
  // push never blocks; the caller-driven pump bounds memory by the reader's pace.
  stream_channel<int> log;
  auto it = log.cursor();
  ints expected;
  for (int i = 0; i < 100; ++i) {
    log.push(i);
    expected.push_back(i);
  }
  log.close();
  BOOST_TEST(drain(it) == expected);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestDrainOnConsume::test_tee_fans_out_sync
BOOST_AUTO_TEST_CASE(TestDrainOnConsume_test_tee_fans_out_sync) {
  stream_channel<int> log;
  auto branches = log.tee(2);
  BOOST_TEST(branches.size() == 2u);
  for (int i = 0; i < 3; ++i) log.push(i);
  log.close();
  ints a, b;
  for (int i : branches[0]) a.push_back(i);
  for (int i : branches[1]) b.push_back(i);
  BOOST_TEST(a == (ints{0, 1, 2}));
  BOOST_TEST(b == (ints{0, 1, 2}));
  // tee subscribes: a second subscriber is refused, as is a tee of nothing.
  BOOST_TEST(code_of([&] { (void)log.cursor(); }) == error_code::invalid_argument);
  stream_channel<int> other;
  BOOST_TEST(throws_with([&] { (void)other.tee(0); }, "n >= 1"));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestConvertToProtocolEvent::test_basic_conversion
BOOST_AUTO_TEST_CASE(TestConvertToProtocolEvent_test_basic_conversion) {
  const std::int64_t before = protocol_timestamp_now();
  const protocol_event e = to_protocol_event(
      stream_event{{"sub", "graph"}, stream_mode::values, object{{"key", "val"}}});
  const std::int64_t after = protocol_timestamp_now();
  BOOST_TEST(e.method == "values");
  BOOST_TEST(e.params.ns == (strs{"sub", "graph"}));
  BOOST_TEST(e.params.data == value(object{{"key", "val"}}));
  BOOST_TEST(!e.params.interrupts.has_value());
  BOOST_TEST(!e.seq.has_value());
  BOOST_TEST(before <= e.params.timestamp);
  BOOST_TEST(e.params.timestamp <= after);
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestConvertToProtocolEvent::test_conversion_with_interrupts
// Our values events carry the interrupts in the data's "__interrupt__" (LangGraph v1's
// shape); the conversion moves them out, as LangGraph's stream(version="v2") does.
BOOST_AUTO_TEST_CASE(TestConvertToProtocolEvent_test_conversion_with_interrupts) {
  const value pause = object{{"value", "pause"}};
  const protocol_event e = to_protocol_event(stream_event{
      {}, stream_mode::values, object{{"k", 1}, {"__interrupt__", value::array({pause})}}});
  BOOST_REQUIRE(e.params.interrupts.has_value());
  BOOST_TEST(value(*e.params.interrupts) == value::array({pause}));
  BOOST_TEST(e.params.data == value(object{{"k", 1}}));
}

// libs/langgraph/tests/test_pregel_stream_events_v3.py::TestConvertToProtocolEvent::test_namespace_tuple_becomes_list
BOOST_AUTO_TEST_CASE(TestConvertToProtocolEvent_test_namespace_tuple_becomes_list) {
  const protocol_event e =
      to_protocol_event(stream_event{{"a", "b", "c"}, stream_mode::updates, object{}});
  BOOST_TEST(e.method == "updates");
  BOOST_TEST(e.params.ns == (strs{"a", "b", "c"}));
}
