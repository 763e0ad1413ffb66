// libs/langgraph/tests/test_remote_graph_v3.py: LangGraph's v3 remote run stream
// (`_RemoteGraphRunStream`: enter, exit, abort), against a real head (remote_graph_support.hpp)
// instead of a mocked SDK. remote_graph::stream_events gives a remote_run_stream: `enter`
// starts the run (LangGraph's `run.start`) and takes its run id, `close` stops reading (the
// SDK thread's `__exit__`), `abort` cancels the run on the head (remote_graph::cancel,
// LangGraph's `runs.cancel(thread_id, run_id, wait=False)`) and closes the stream. Where
// LangGraph checks the mocked SDK calls, these check the requests the head logged
// (--log-requests) and what became of the run: cancelled, its thread left at its last
// checkpoint; where it checks the SDK thread's `close`, that the stream reads nothing more.
// The async tests run the same from another thread, as the other async ports of this file do.
#include <future>

#include "remote_graph_support.hpp"
#include "support/loopback_port.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value json(const char* text) { return value::parse_json(text); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The head's log line of a cancel request of run `run` on thread `t` (that waits for the
// run's end: `wait`).
std::string cancel_line(const std::string& run, const std::string& t, bool wait = false) {
  return "request: cancel run '" + run + "'" + (wait ? " wait" : "") + " thread '" + t + "'";
}

// A run of `loop` on thread `t`, entered and seen going (its first values came).
remote_run_stream looping(const std::string& t) {
  remote_run_options o;
  o.modes = {stream_mode::values};
  remote_run_stream s =
      remote_head::get().graph("loop").stream_events(json(R"({"n": 0})"), thread(t), o);
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

// libs/langgraph/tests/test_remote_graph_v3.py::test_enter_calls_sdk_enter_then_run_start_and_captures_run_id
void check_enter(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_run_stream s = head.graph("steps").stream_events(json(R"({"foo": ""})"), thread(t));
  // Nothing is sent before enter.
  BOOST_TEST(!s.entered());
  BOOST_TEST(s.run_id().empty());
  BOOST_TEST(head.last_request(t).empty());
  s.enter();
  BOOST_TEST(s.entered());
  const std::string run = s.run_id();
  BOOST_TEST(run.size() == 36u, run);
  // The head got the run with its input and config, under the run id the stream took.
  const std::string r = head.last_request(t);
  BOOST_TEST(contains(r, "request: run with input config {\"configurable\":{}}"), r);
  BOOST_TEST(contains(r, "id '" + run + "' thread '" + t + "' graph 'steps'"), r);
  BOOST_TEST(s.output() == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  // Entering twice is refused.
  BOOST_CHECK_EXCEPTION(s.enter(), error, [](const error& e) {
    return e.code() == error_code::invalid_argument && contains(e.what(), "entered already");
  });
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_exit_delegates_to_sdk_exit_with_exc_info
void check_exit(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_run_stream s = looping(t);
  const std::string run = s.run_id();
  s.close();
  check_closed(s);
  // Closing cancels nothing: the run goes on on the head (a cancel finds it running).
  BOOST_TEST(head.count_in_log(cancel_line(run, t)) == 0u);
  remote_head::get().graph("loop").cancel(t, run, /*wait=*/true);
  BOOST_TEST(head.count_in_log(cancel_line(run, t, true)) == 1u, head.log());
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_enter_unwinds_sdk_cm_when_run_start_raises
void check_enter_unwinds() {
  remote_graph_options o;
  o.head = "127.0.0.1:" + std::to_string(test::free_loopback_port());
  o.connect_timeout = std::chrono::milliseconds(2000);
  remote_run_stream s = remote_graph("steps", o).stream_events(json(R"({"foo": ""})"));
  // Starting the run fails with its error; the stream is closed, with no run id.
  BOOST_CHECK_EXCEPTION(s.enter(), error, [](const error& e) {
    return e.code() == error_code::unavailable && contains(e.what(), "cannot reach the head");
  });
  BOOST_TEST(!s.entered());
  BOOST_TEST(s.run_id().empty());
  BOOST_TEST(s.closed());
  s.abort();  // nothing to cancel
  BOOST_TEST(s.closed());
}

}  // namespace

// libs/langgraph/tests/test_remote_graph_v3.py::test_enter_calls_sdk_enter_then_run_start_and_captures_run_id
BOOST_AUTO_TEST_CASE(test_enter_calls_sdk_enter_then_run_start_and_captures_run_id) {
  check_enter("v3_enter");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_exit_delegates_to_sdk_exit_with_exc_info
BOOST_AUTO_TEST_CASE(test_exit_delegates_to_sdk_exit_with_exc_info) { check_exit("v3_exit"); }

// libs/langgraph/tests/test_remote_graph_v3.py::test_enter_unwinds_sdk_cm_when_run_start_raises
BOOST_AUTO_TEST_CASE(test_enter_unwinds_sdk_cm_when_run_start_raises) { check_enter_unwinds(); }

// libs/langgraph/tests/test_remote_graph_v3.py::test_aenter_calls_sdk_aenter_then_run_start_and_captures_run_id
BOOST_AUTO_TEST_CASE(test_aenter_calls_sdk_aenter_then_run_start_and_captures_run_id) {
  std::async(std::launch::async, [] { check_enter("v3_aenter"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_aexit_delegates_to_sdk_aexit
BOOST_AUTO_TEST_CASE(test_aexit_delegates_to_sdk_aexit) {
  std::async(std::launch::async, [] { check_exit("v3_aexit"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_aenter_unwinds_sdk_cm_when_run_start_raises
BOOST_AUTO_TEST_CASE(test_aenter_unwinds_sdk_cm_when_run_start_raises) {
  std::async(std::launch::async, [] { check_enter_unwinds(); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_abort_cancels_run_and_closes_sdk
BOOST_AUTO_TEST_CASE(test_abort_cancels_run_and_closes_sdk) { check_abort_cancels("v3_abort"); }

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
  std::async(std::launch::async, [] { check_abort_swallows_failure("v3_aabort_failing"); }).get();
}
