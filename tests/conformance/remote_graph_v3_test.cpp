// libs/langgraph/tests/test_remote_graph_v3.py: LangGraph's adapter of RemoteGraph to the SDK's
// stream_events(version="v3") threads. Most of it is the Python SDK's context-manager and
// projection machinery (NOT_PORTED.md); what maps to superstep::remote_graph is ported here
// against a real head (remote_graph_support.hpp): the thread and config the head receives,
// Command inputs, the output and interrupts of a run, and a stream of one channel.
#include <future>

#include "remote_graph_support.hpp"
#include "superstep/pregel/send.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value json(const char* text) { return value::parse_json(text); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

value command_of(command c) { return make_command(c); }

// Runs `chunks` on thread `t` up to its interrupt.
void run_to_interrupt(const remote_graph& g, const std::string& t) {
  value out = g.stream(object{{"chunk", "data1"}}, thread(t), {}, {});
  BOOST_REQUIRE(out.find("__interrupt__"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_output_interrupted_interrupts_passthrough
void check_output_interrupted(const std::string& t) {
  remote_graph g = remote_head::get().graph("chunks");
  value out = g.stream(object{{"chunk", "data1"}}, thread(t), {}, {});
  // The output, interrupted, and its interrupts, as the remote thread holds them.
  BOOST_TEST(out.get("chunk") == value("data3"));
  const value* ints = out.find("__interrupt__");
  BOOST_REQUIRE(ints);
  state_snapshot s = g.get_state(thread(t));
  BOOST_REQUIRE_EQUAL(s.tasks.size(), 1u);
  BOOST_TEST(*ints == value(s.tasks[0].interrupts));
  BOOST_TEST(s.tasks[0].interrupts.at(0).get("value") ==
             json(R"({"question": "Does this look good?"})"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_channel_projection_decodes_params_data
void check_one_channel(const std::string& t) {
  std::vector<stream_event> got;
  remote_run_options o;
  o.modes = {stream_mode::checkpoints};
  (void)remote_head::get().graph("steps").stream(json(R"({"foo": ""})"), thread(t), o,
                                                 [&](const stream_event& e) { got.push_back(e); });
  // Only the channel subscribed to, each event with its data (the updates the head streams
  // for interrupts are not passed on): the four checkpoints of the run.
  BOOST_REQUIRE_EQUAL(got.size(), 4u);
  for (const auto& e : got) {
    BOOST_TEST((e.mode == stream_mode::checkpoints));
    BOOST_TEST(e.data.is_object());
    BOOST_TEST(e.data.get("config").get("configurable").get("thread_id") == value(t));
  }
  BOOST_TEST(got.back().data.get("values") == json(R"({"foo": "b", "bar": ["a", "b"]})"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_constructs_sdk_thread_with_sanitized_args
void check_constructs(const std::string& t) {
  remote_head& head = remote_head::get();
  value config = json(R"({"configurable": {"user": "u"}})");
  object conf = config.get("configurable").as_object();
  conf.set("thread_id", t);
  (void)head.graph("agent").stream(json(R"({"messages": []})"),
                                   object{{"configurable", value(std::move(conf))}}, {}, {});
  const std::string r = head.last_request(t);
  BOOST_TEST(contains(r, "thread '" + t + "' graph 'agent'"), r);
  BOOST_TEST(contains(r, R"(config {"configurable":{"user":"u"}})"), r);
  BOOST_TEST(!contains(r, " headers "), r);  // LangGraph's headers=None
}

}  // namespace

// libs/langgraph/tests/test_remote_graph_v3.py::test_output_interrupted_interrupts_passthrough
BOOST_AUTO_TEST_CASE(test_output_interrupted_interrupts_passthrough) {
  check_output_interrupted("v3_output_interrupted");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_async_output_interrupted_interrupts_passthrough
BOOST_AUTO_TEST_CASE(test_async_output_interrupted_interrupts_passthrough) {
  std::async(std::launch::async, [] { check_output_interrupted("v3_aoutput_interrupted"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_channel_projection_decodes_params_data
BOOST_AUTO_TEST_CASE(test_channel_projection_decodes_params_data) {
  check_one_channel("v3_channel");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_channel_projection_decodes_params_data_async
BOOST_AUTO_TEST_CASE(test_channel_projection_decodes_params_data_async) {
  std::async(std::launch::async, [] { check_one_channel("v3_achannel"); }).get();
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_sync_adapter_translates_command_input
BOOST_AUTO_TEST_CASE(test_sync_adapter_translates_command_input) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("chunks");
  run_to_interrupt(g, "v3_adapter_command");
  command c;
  c.resume = value("go");
  value out = g.stream(command_of(c), thread("v3_adapter_command"), {}, {});
  BOOST_TEST(out.get("answer") == value("go"));
  BOOST_TEST(!out.find("__interrupt__"));
  BOOST_TEST(contains(head.last_request("v3_adapter_command"), "run with resume"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_translate_command_input_surfaces_raw_resume_value
BOOST_AUTO_TEST_CASE(test_translate_command_input_surfaces_raw_resume_value) {
  remote_graph g = remote_head::get().graph("chunks");
  for (const value& answer : {value("go"), json(R"({"id": "v"})")}) {
    const std::string t = "v3_raw_resume_" + std::string(answer.is_string() ? "text" : "object");
    run_to_interrupt(g, t);
    command c;
    c.resume = answer;
    // The node's interrupt() returns the value itself.
    BOOST_TEST(g.invoke(command_of(c), thread(t)).get("answer") == answer);
  }
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_translate_command_input_rejects_goto_and_update
BOOST_AUTO_TEST_CASE(test_translate_command_input_rejects_goto_and_update) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("chunks");
  command go;
  go.go_to = {value("node_b")};
  go.resume = value("x");
  BOOST_CHECK_EXCEPTION(
      g.stream(command_of(go), thread("v3_reject_goto"), {}, {}), error, [](const error& e) {
        return e.code() == error_code::invalid_argument && contains(e.what(), "goto");
      });
  // An update travels with a resume value only (LangGraph's v3 rejects an update at all).
  command update;
  update.update = json(R"({"a": 1})");
  BOOST_CHECK_EXCEPTION(
      g.stream(command_of(update), thread("v3_reject_update"), {}, {}), error, [](const error& e) {
        return e.code() == error_code::invalid_argument && contains(e.what(), "update");
      });
  // Refused before anything reached the head.
  BOOST_TEST(head.last_request("v3_reject_goto").empty());
  BOOST_TEST(head.last_request("v3_reject_update").empty());
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_translate_command_input_passes_through_non_command
BOOST_AUTO_TEST_CASE(test_translate_command_input_passes_through_non_command) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("steps");
  BOOST_TEST(g.invoke(json(R"({"foo": "x"})"), thread("v3_passthrough")) ==
             json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(contains(head.last_request("v3_passthrough"), "run with input"));
  // No input: the thread continues from its last checkpoint (nothing left to run).
  BOOST_TEST(g.invoke(value(), thread("v3_passthrough")) ==
             json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(contains(head.last_request("v3_passthrough"), "run config"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_constructs_sdk_thread_with_sanitized_args
BOOST_AUTO_TEST_CASE(test_stream_events_v3_constructs_sdk_thread_with_sanitized_args) {
  check_constructs("t1");
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_passes_none_thread_id_when_absent
BOOST_AUTO_TEST_CASE(test_stream_events_v3_passes_none_thread_id_when_absent) {
  remote_head& head = remote_head::get();
  // No thread: the run gets a fresh one (the head needs a thread; LangGraph's server makes one
  // up when given none), a new one for each run.
  std::vector<std::string> threads;
  for (int i = 0; i < 2; ++i) {
    (void)head.graph("agent").stream(json(R"({"messages": []})"), value(), {}, {});
    const std::string r = head.last_request();
    auto at = r.find("thread '");
    BOOST_REQUIRE(at != std::string::npos);
    threads.push_back(r.substr(at + 8, r.find('\'', at + 8) - at - 8));
    BOOST_TEST(threads.back().size() == 36u, threads.back());
  }
  BOOST_TEST(threads[0] != threads[1]);
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_translates_command_input
BOOST_AUTO_TEST_CASE(test_stream_events_v3_translates_command_input) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("chunks");
  run_to_interrupt(g, "v3_events_command");
  command c;
  c.resume = value("go");
  std::vector<stream_event> got;
  remote_run_options o;
  o.modes = {stream_mode::updates};
  (void)g.stream(command_of(c), thread("v3_events_command"), o,
                 [&](const stream_event& e) { got.push_back(e); });
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_TEST(got[0].data == json(R"({"ask": {"answer": "go"}})"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_rejects_goto_update_command
BOOST_AUTO_TEST_CASE(test_stream_events_v3_rejects_goto_update_command) {
  command go;
  go.go_to = {value("node_b")};
  BOOST_CHECK_EXCEPTION(
      remote_head::get().graph("chunks").stream(command_of(go), thread("v3_events_goto"), {}, {}),
      error, [](const error& e) { return contains(e.what(), "goto"); });
  BOOST_TEST(remote_head::get().last_request("v3_events_goto").empty());
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_strips_checkpoint_keys_from_configurable
BOOST_AUTO_TEST_CASE(test_stream_events_v3_strips_checkpoint_keys_from_configurable) {
  remote_head& head = remote_head::get();
  (void)head.graph("agent").stream(
      json(R"({"messages": []})"),
      json(R"({"configurable": {"thread_id": "v3_strips", "checkpoint_id": "c1",
                                "checkpoint_ns": "", "user": "u"}})"),
      {}, {});
  const std::string r = head.last_request("v3_strips");
  BOOST_TEST(contains(r, R"(config {"configurable":{"user":"u"}})"), r);
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_astream_events_v3_constructs_sdk_thread
BOOST_AUTO_TEST_CASE(test_astream_events_v3_constructs_sdk_thread) {
  std::async(std::launch::async, [] { check_constructs("v3_async_t1"); }).get();
}
