// libs/langgraph/tests/test_remote_graph_v3.py: the abort of LangGraph's v3 remote run stream
// (`_RemoteGraphRunStream.abort`), against a real head (remote_graph_support.hpp) instead of
// a mocked SDK: remote_graph::stream_events gives a remote_run_stream whose `abort` cancels the
// run on the head (remote_graph::cancel, LangGraph's `runs.cancel(thread_id, run_id,
// wait=False)`) and closes the stream. Where LangGraph checks the mocked `runs.cancel` call,
// these check the cancel request the head logged (--log-requests) and that the run stopped,
// leaving its thread at its last checkpoint; where it checks the SDK thread's `close`, that
// the stream is closed and reads nothing more. The async tests run the same from another
// thread, as the other async ports of this file do.
#include <future>

#include "remote_graph_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value json(const char* text) { return value::parse_json(text); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The head's log line of a cancel request of run `run` on thread `t`.
std::string cancel_line(const std::string& run, const std::string& t) {
  return "request: cancel run '" + run + "' thread '" + t + "'";
}

// A run of `loop` on thread `t`, entered and seen going (its first values came).
remote_run_stream looping(const std::string& t) {
  remote_run_options o;
  o.modes = {stream_mode::values};
  remote_run_stream s = remote_head::get().graph("loop").stream_events(json(R"({"n": 0})"),
                                                                      thread(t), o);
  s.enter();
  std::optional<stream_event> first = s.next();
  BOOST_REQUIRE(first);
  BOOST_TEST(first->data.get("n").is_number());
  return s;
}

// The stream reads nothing more.
void check_closed(remote_run_stream& s) {
  BOOST_TEST(s.closed());
  BOOST_CHECK_EXCEPTION((void)s.next(), error, [](const error& e) {
    return e.code() == error_code::invalid_argument && contains(e.what(), "closed");
  });
}

// Run `run` of `loop` on thread `t` was cancelled: it ended before its million steps, its
// thread holds the checkpoint of its last step (the state's is the history's newest, with
// `tick` next) and goes on from it when run again.
void check_cancelled(const std::string& t, const std::string& run) {
  remote_graph g = remote_head::get().graph("loop");
  try {
    g.cancel(t, run, /*wait=*/true);  // returns once the run has ended
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::not_found, e.what());  // it had ended already
  }
  state_snapshot s = g.get_state(thread(t));
  // The step in flight when the cancel came is `tick`'s, not saved as a checkpoint. When the
  // node had returned, its write is kept as a pending write, which the state shows applied,
  // `tick` then not in `next` but a task with its result (LangGraph's get_state).
  const std::int64_t n = s.values.get("n").as_int();
  const std::int64_t step = s.metadata.get("step").as_int();
  BOOST_TEST(n < loop_limit);
  BOOST_REQUIRE_EQUAL(s.tasks.size(), 1u);
  BOOST_TEST(s.tasks[0].name == "tick");
  if (s.tasks[0].result.is_null()) {
    BOOST_TEST(s.next == std::vector<std::string>{"tick"});
    BOOST_TEST(n == step);
  } else {
    BOOST_TEST(s.next.empty());
    BOOST_TEST(s.tasks[0].result == value(object{{"n", n}}));
    BOOST_TEST(n == step + 1);
  }
  list_options one;
  one.limit = 1;
  std::vector<state_snapshot> newest = g.get_state_history(thread(t), one);
  BOOST_REQUIRE_EQUAL(newest.size(), 1u);
  BOOST_TEST(newest[0].config.checkpoint_id == s.config.checkpoint_id);
  // Continued (one step from the end, so that it ends), the thread runs from that checkpoint.
  (void)g.update_state(thread(t), object{{"n", loop_limit - 1}}, std::string("tick"));
  BOOST_TEST(g.invoke(value(), thread(t)) == value(object{{"n", loop_limit}}));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_cancels_run_and_closes_sdk
void check_abort_cancels(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_run_stream s = looping(t);
  const std::string run = s.run_id();
  BOOST_REQUIRE(!run.empty());
  BOOST_TEST(s.thread_id() == t);
  s.abort();
  // The cancel named the stream's thread and run, once.
  BOOST_TEST(head.count_in_log(cancel_line(run, t)) == 1u, head.log());
  check_closed(s);
  check_cancelled(t, run);
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_before_enter_skips_cancel_but_closes_sdk
void check_abort_before_enter(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_run_stream s = head.graph("loop").stream_events(json(R"({"n": 0})"), thread(t));
  s.abort();
  BOOST_TEST(!s.entered());
  BOOST_TEST(s.run_id().empty());
  BOOST_TEST(s.closed());
  // Nothing reached the head: no run, no cancel.
  BOOST_TEST(head.last_request(t).empty(), head.last_request(t));
  BOOST_CHECK_EXCEPTION(s.enter(), error, [](const error& e) {
    return e.code() == error_code::invalid_argument && contains(e.what(), "closed");
  });
  BOOST_TEST(head.last_request(t).empty());
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_swallows_cancel_failure_and_still_closes
void check_abort_swallows_failure(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("steps");
  remote_run_stream s = g.stream_events(json(R"({"foo": ""})"), thread(t));
  s.enter();
  const std::string run = s.run_id();
  // The run ended: a cancel of it fails (the head has no such run in progress).
  BOOST_TEST(s.output() == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_CHECK_EXCEPTION(g.cancel(t, run), error,
                        [](const error& e) { return e.code() == error_code::not_found; });
  BOOST_TEST(head.count_in_log(cancel_line(run, t)) == 1u);
  s.abort();  // its cancel fails the same way, and is swallowed
  BOOST_TEST(head.count_in_log(cancel_line(run, t)) == 2u, head.log());
  check_closed(s);
}

}  // namespace

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_cancels_run_and_closes_sdk
BOOST_AUTO_TEST_CASE(test_abort_cancels_run_and_closes_sdk) {
  check_abort_cancels("v3_abort");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_before_enter_skips_cancel_but_closes_sdk
BOOST_AUTO_TEST_CASE(test_abort_before_enter_skips_cancel_but_closes_sdk) {
  check_abort_before_enter("v3_abort_before_enter");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_is_idempotent
BOOST_AUTO_TEST_CASE(test_abort_is_idempotent) {
  remote_head& head = remote_head::get();
  const std::string t = "v3_abort_twice";
  remote_run_stream s = looping(t);
  const std::string run = s.run_id();
  s.abort();
  s.abort();
  s.close();  // closing after an abort does nothing either
  BOOST_TEST(head.count_in_log(cancel_line(run, t)) == 1u, head.log());
  check_closed(s);
  check_cancelled(t, run);
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_swallows_cancel_failure_and_still_closes
BOOST_AUTO_TEST_CASE(test_abort_swallows_cancel_failure_and_still_closes) {
  check_abort_swallows_failure("v3_abort_failing_cancel");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_async_abort_cancels_run_and_closes_sdk
BOOST_AUTO_TEST_CASE(test_async_abort_cancels_run_and_closes_sdk) {
  std::async(std::launch::async, [] { check_abort_cancels("v3_aabort"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_async_abort_before_aenter_skips_cancel
BOOST_AUTO_TEST_CASE(test_async_abort_before_aenter_skips_cancel) {
  std::async(std::launch::async, [] { check_abort_before_enter("v3_aabort_before_enter"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_async_abort_swallows_cancel_failure
BOOST_AUTO_TEST_CASE(test_async_abort_swallows_cancel_failure) {
  std::async(std::launch::async, [] { check_abort_swallows_failure("v3_aabort_failing"); })
      .get();
}
