// libs/langgraph/tests/test_remote_graph.py (runs, streams, config and context): LangGraph's
// RemoteGraph, a graph served elsewhere used like a local one, as superstep::remote_graph
// against a real head (remote_graph_support.hpp). LangGraph's tests hand RemoteGraph a mocked
// SDK client and check the calls it makes and what it returns; here the head serves graphs
// that yield the events the mocks return, and the head's request log shows what it received
// where LangGraph checks the SDK's call arguments. The head is one process per run of the
// suite; the harness's four runs each start their own. LangGraph's async twins (astream,
// ainvoke, ...) run the same calls from a second thread. Python's shapes of a stream part
// (a bare chunk for one mode, (mode, chunk) for a list, (ns, ...) with subgraphs) are one
// stream_event {ns, mode, data} here: the cases check all three fields.
#include <future>

#include "remote_graph_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using texts = std::vector<std::string>;

value json(const char* text) { return value::parse_json(text); }

// The events of one remote stream.
std::vector<stream_event> stream_all(const remote_graph& g, const value& input, const value& config,
                                     std::vector<stream_mode> modes, bool subgraphs = false,
                                     value context = value()) {
  std::vector<stream_event> got;
  remote_run_options o;
  o.modes = std::move(modes);
  o.subgraphs = subgraphs;
  o.context = std::move(context);
  g.stream(input, config, o, [&](const stream_event& e) { got.push_back(e); });
  return got;
}

// The interrupts of an error(interrupted), as LangGraph's GraphInterrupt.args[0].
value interrupts_of(const error& e) {
  BOOST_TEST(e.code() == error_code::interrupted);
  return value::parse_json(e.what());
}

bool is_interrupt_id(const value& id) {
  return id.is_string() && id.as_string().size() == 32 &&
         id.as_string().find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The interrupts with their ids checked (LangGraph's AnyStr()) and blanked.
value blank_ids(value interrupts) {
  list out;
  for (const auto& i : interrupts.as_list()) {
    BOOST_TEST(is_interrupt_id(i.get("id")), i.to_json());
    object o = i.as_object();
    o.set("id", "ID");
    out.push_back(value(std::move(o)));
  }
  return value(std::move(out));
}

// The updates of the `chunks` graph, the interrupt's id blanked.
texts chunk_updates(std::vector<stream_event> events) {
  for (auto& e : events)
    if (const value* i = e.data.find("__interrupt__"))
      e.data = object{{"__interrupt__", blank_ids(*i)}};
  return event_texts(events);
}

const char* const question = R"([{"value":{"question":"Does this look good?"},"id":"ID"}])";

// libs/langgraph/tests/test_remote_graph.py::test_stream, on threads named after `prefix`.
void check_stream(const std::string& prefix) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("chunks");
  const value input = object{{"chunk", "data1"}};

  // Invoked as a subgraph (a checkpoint_ns in the config): the interrupt raises.
  {
    const std::string t = prefix + "_as_subgraph";
    value config = json(R"({"configurable": {"checkpoint_ns": "some_ns"}})");
    object conf = config.get("configurable").as_object();
    conf.set("thread_id", t);
    config = object{{"configurable", value(std::move(conf))}};
    std::vector<stream_event> got;
    bool raised = false;
    try {
      remote_run_options o;
      o.modes = {stream_mode::values};
      g.stream(input, config, o, [&](const stream_event& e) { got.push_back(e); });
    } catch (const error& e) {
      raised = true;
      BOOST_TEST(blank_ids(interrupts_of(e)).to_json() == question);
    }
    BOOST_TEST(raised);
    // The stream ended at the interrupt: the values after it never reached the caller.
    BOOST_TEST(
        event_texts(got) ==
            (texts{
                R"(() values {"chunk":"data1"})", R"(() values {"chunk":"data2"})",
                R"(() values {"chunk":"data3"})",
                R"(() values {"chunk":"data3","messages":[{"type":"ai","content":[{"text":"Hello","type":"text","index":0}],"id":"m1"}]})"}),
        boost::test_tools::per_element());
    // The caller's namespace and checkpoint keys stay here; updates is added to see interrupts.
    BOOST_TEST(head.last_request(t).find(
                   R"(config {"configurable":{}} context null stream ["values","updates"])") !=
                   std::string::npos,
               head.last_request(t));
  }

  // Mode values (updates, added for interrupts, not passed on); at the top level the
  // interrupt does not raise and shows in the last values chunk.
  {
    const std::string t = prefix + "_values";
    auto got = stream_all(g, input, thread(t), {stream_mode::values});
    BOOST_REQUIRE_EQUAL(got.size(), 5u);
    BOOST_TEST(event_texts({got.begin(), got.begin() + 3}) ==
                   (texts{R"(() values {"chunk":"data1"})", R"(() values {"chunk":"data2"})",
                          R"(() values {"chunk":"data3"})"}),
               boost::test_tools::per_element());
    BOOST_TEST(blank_ids(got[4].data.get("__interrupt__")).to_json() == question);
  }

  // Mode messages: the message with its metadata, as a pair.
  {
    const std::string t = prefix + "_messages";
    auto got = stream_all(g, input, thread(t), {stream_mode::messages});
    BOOST_REQUIRE_EQUAL(got.size(), 1u);
    BOOST_TEST(got[0].ns.empty());
    BOOST_TEST((got[0].mode == stream_mode::messages));
    const value& pair = got[0].data;
    BOOST_REQUIRE(pair.is_list());
    BOOST_REQUIRE_EQUAL(pair.as_list().size(), 2u);
    BOOST_TEST(pair.as_list()[0] ==
               json(R"({"type": "ai", "content": [{"text": "Hello", "type": "text", "index": 0}],
                        "id": "m1"})"));
    const value& meta = pair.as_list()[1];
    BOOST_TEST(meta.get("langgraph_step") == value(3));
    BOOST_TEST(meta.get("langgraph_node") == value("call_llm"));
    BOOST_TEST(meta.get("langgraph_triggers") == json(R"(["branch:to:call_llm"])"));
    BOOST_TEST(meta.get("langgraph_path") == json(R"(["__pregel_pull", "call_llm"])"));
    BOOST_TEST(head.last_request(t).find(R"(stream ["messages","updates"])") != std::string::npos);
  }

  // The default mode is updates; a list of modes, and subgraphs, give the same events (the
  // namespace is empty at the top level).
  const texts updates{
      R"(() updates {"two":{"chunk":"data2"}})", R"(() updates {"three":{"chunk":"data3"}})",
      R"(() updates {"call_llm":{"messages":[{"type":"ai","content":[{"text":"Hello","type":"text","index":0}],"id":"m1"}]}})",
      std::string("() updates {\"__interrupt__\":") + question + "}"};
  {
    const std::string t = prefix + "_default";
    BOOST_TEST(chunk_updates(stream_all(g, input, thread(t), {})) == updates,
               boost::test_tools::per_element());
    BOOST_TEST(head.last_request(t).find(R"(stream ["updates"])") != std::string::npos);
  }
  BOOST_TEST(chunk_updates(
                 stream_all(g, input, thread(prefix + "_list"), {stream_mode::updates})) == updates,
             boost::test_tools::per_element());
  {
    const std::string t = prefix + "_subgraphs";
    BOOST_TEST(
        chunk_updates(stream_all(g, input, thread(t), {stream_mode::updates}, true)) == updates,
        boost::test_tools::per_element());
    BOOST_TEST(head.last_request(t).find(R"(stream ["updates"] subgraphs)") != std::string::npos);
  }

  // A remote graph with a subgraph: its events carry the remote namespace with subgraphs,
  // and do not come without.
  remote_graph nested = head.graph("nested");
  auto got = stream_all(nested, input, thread(prefix + "_nested_subgraphs"), {}, true);
  BOOST_REQUIRE_EQUAL(got.size(), 3u);
  BOOST_REQUIRE_EQUAL(got[0].ns.size(), 1u);
  BOOST_TEST(got[0].ns[0].rfind("my:", 0) == 0, got[0].ns[0]);
  BOOST_TEST(got[0].data.to_json() == R"({"subgraph":{"chunk":"data3"}})");
  BOOST_TEST(event_texts({got.begin() + 1, got.end()}) ==
                 (texts{R"(() updates {"my":{"chunk":"data3"}})",
                        R"(() updates {"bye":{"chunk":"data4"}})"}),
             boost::test_tools::per_element());
  BOOST_TEST(event_texts(stream_all(nested, input, thread(prefix + "_nested"), {})) ==
                 (texts{R"(() updates {"my":{"chunk":"data3"}})",
                        R"(() updates {"bye":{"chunk":"data4"}})"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_remote_graph.py::test_invoke, on thread `t`.
void check_invoke(const std::string& t) {
  remote_head& head = remote_head::get();
  value out = head.graph("agent").invoke(
      json(R"({"messages": [{"type": "human", "content": "hello", "id": "h1"}]})"), thread(t));
  BOOST_TEST(out == json(R"({"messages": [{"type": "human", "content": "hello", "id": "h1"},
                                          {"type": "ai", "content": "answer", "id": "ai3"}]})"));
  BOOST_TEST(head.last_request(t).find(R"(stream ["values","updates"])") != std::string::npos,
             head.last_request(t));
}

// What the head received of a run on thread `t`: its config, context and modes.
std::string received(const std::string& t) { return remote_head::get().last_request(t); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// libs/langgraph/tests/test_remote_graph.py::test_with_config
BOOST_AUTO_TEST_CASE(test_with_config) {
  remote_graph_options o;
  o.head = "127.0.0.1:1";  // never reached: with_config connects to nothing
  o.config = json(R"({"configurable": {"foo": "bar", "thread_id": "thread_id_1"}})");
  remote_graph g("test_graph_id", o);
  remote_graph copy = g.with_config(json(R"({"configurable": {"hello": "world"}})"));
  BOOST_TEST(
      copy.config() ==
      json(R"({"configurable": {"foo": "bar", "thread_id": "thread_id_1", "hello": "world"}})"));
  BOOST_TEST(g.config() == json(R"({"configurable": {"foo": "bar", "thread_id": "thread_id_1"}})"));
  BOOST_TEST(copy.graph_id() == "test_graph_id");
}

// libs/langgraph/tests/test_remote_graph.py::test_stream
BOOST_AUTO_TEST_CASE(test_stream) { check_stream("stream"); }

// libs/langgraph/tests/test_remote_graph.py::test_astream
BOOST_AUTO_TEST_CASE(test_astream) {
  std::async(std::launch::async, [] { check_stream("astream"); }).get();
}

// libs/langgraph/tests/test_remote_graph.py::test_invoke
BOOST_AUTO_TEST_CASE(test_invoke) { check_invoke("invoke"); }

// libs/langgraph/tests/test_remote_graph.py::test_ainvoke
BOOST_AUTO_TEST_CASE(test_ainvoke) {
  std::async(std::launch::async, [] { check_invoke("ainvoke"); }).get();
}

// libs/langgraph/tests/test_remote_graph.py::test_invoke_sanitizes_thread_id
BOOST_AUTO_TEST_CASE(test_invoke_sanitizes_thread_id) {
  (void)remote_head::get().graph("agent").invoke(json(R"({"messages": []})"), thread("thread_1"));
  // The thread travels as the request's thread; the configurable sent is empty.
  const std::string r = received("thread_1");
  BOOST_TEST(contains(r, R"(config {"configurable":{}})"), r);
  BOOST_TEST(contains(r, "thread 'thread_1'"), r);
}

// libs/langgraph/tests/test_remote_graph.py::test_stream_sanitizes_thread_id
BOOST_AUTO_TEST_CASE(test_stream_sanitizes_thread_id) {
  (void)stream_all(remote_head::get().graph("agent"), json(R"({"messages": []})"),
                   thread("thread_2"), {});
  const std::string r = received("thread_2");
  BOOST_TEST(contains(r, R"(config {"configurable":{}})"), r);
  BOOST_TEST(contains(r, "thread 'thread_2'"), r);
}

// libs/langgraph/tests/test_remote_graph.py::test_stream_context
BOOST_AUTO_TEST_CASE(test_stream_context) {
  auto got = stream_all(remote_head::get().graph("steps"), json(R"({"foo": "data1"})"),
                        thread("stream_context"), {stream_mode::values}, false,
                        json(R"({"model_name": "anthropic", "user_id": "123"})"));
  BOOST_REQUIRE(!got.empty());
  BOOST_TEST(got[0].data == json(R"({"foo": "data1", "bar": []})"));
  BOOST_TEST(
      contains(received("stream_context"), R"(context {"model_name":"anthropic","user_id":"123"})"),
      received("stream_context"));
}

// libs/langgraph/tests/test_remote_graph.py::test_stream_context_none
BOOST_AUTO_TEST_CASE(test_stream_context_none) {
  (void)stream_all(remote_head::get().graph("steps"), json(R"({"foo": "data1"})"),
                   thread("stream_context_none"), {stream_mode::values});
  BOOST_TEST(contains(received("stream_context_none"), "context null"),
             received("stream_context_none"));
}

// libs/langgraph/tests/test_remote_graph.py::test_astream_context
BOOST_AUTO_TEST_CASE(test_astream_context) {
  std::async(std::launch::async, [] {
    auto got = stream_all(remote_head::get().graph("steps"), json(R"({"foo": "data1"})"),
                          thread("astream_context"), {stream_mode::values}, false,
                          json(R"({"model_name": "anthropic"})"));
    BOOST_TEST(!got.empty());
  }).get();
  BOOST_TEST(contains(received("astream_context"), R"(context {"model_name":"anthropic"})"),
             received("astream_context"));
}

// libs/langgraph/tests/test_remote_graph.py::test_invoke_context
BOOST_AUTO_TEST_CASE(test_invoke_context) {
  value out = remote_head::get().graph("steps").invoke(
      json(R"({"foo": "x"})"), thread("invoke_context"), json(R"({"model_name": "openai"})"));
  BOOST_TEST(out == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(contains(received("invoke_context"), R"(context {"model_name":"openai"})"),
             received("invoke_context"));
}

// libs/langgraph/tests/test_remote_graph.py::test_ainvoke_context
BOOST_AUTO_TEST_CASE(test_ainvoke_context) {
  value out =
      std::async(std::launch::async, [] {
        return remote_head::get().graph("steps").invoke(
            json(R"({"foo": "x"})"), thread("ainvoke_context"), json(R"({"user_id": "456"})"));
      }).get();
  BOOST_TEST(out == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(contains(received("ainvoke_context"), R"(context {"user_id":"456"})"),
             received("ainvoke_context"));
}

// libs/langgraph/tests/test_remote_graph.py::test_stream_context_dataclass (a dataclass is a
// Python type; its fields as an object, nested values included, pass unchanged)
BOOST_AUTO_TEST_CASE(test_stream_context_dataclass) {
  (void)stream_all(remote_head::get().graph("steps"), json(R"({"foo": "x"})"),
                   thread("stream_context_dataclass"), {stream_mode::values}, false,
                   json(R"({"model_name": "anthropic", "user_id": "123", "limits": [1, 2.5],
                            "nested": {"flag": true}})"));
  BOOST_TEST(
      contains(
          received("stream_context_dataclass"),
          R"(context {"model_name":"anthropic","user_id":"123","limits":[1,2.5],"nested":{"flag":true}})"),
      received("stream_context_dataclass"));
}

// libs/langgraph/tests/test_remote_graph.py::test_stream_context_base_model (a pydantic model
// is Python; its fields as an object pass unchanged, including a null field)
BOOST_AUTO_TEST_CASE(test_stream_context_base_model) {
  (void)stream_all(remote_head::get().graph("steps"), json(R"({"foo": "x"})"),
                   thread("stream_context_base_model"), {stream_mode::values}, false,
                   json(R"({"model_name": "anthropic", "user_id": "123", "note": null})"));
  BOOST_TEST(contains(received("stream_context_base_model"),
                      R"(context {"model_name":"anthropic","user_id":"123","note":null})"),
             received("stream_context_base_model"));
}

// libs/langgraph/tests/test_remote_graph.py::test_sanitize_config (Python's non-string keys,
// tuples and lambdas have no value here: bytes and nulls are what cannot be sent)
BOOST_AUTO_TEST_CASE(test_sanitize_config) {
  // Primitives.
  value basic = remote_graph::sanitize_config(json(R"({
      "recursion_limit": 10, "tags": ["tag1", "tag2"],
      "metadata": {"str_key": "value", "int_key": 42, "bool_key": true},
      "configurable": {"param1": "value1", "param2": 123}})"));
  BOOST_TEST(basic.get("recursion_limit") == value(10));
  BOOST_TEST(basic.get("tags") == json(R"(["tag1", "tag2"])"));
  BOOST_TEST(basic.get("metadata") ==
             json(R"({"str_key": "value", "int_key": 42, "bool_key": true})"));
  BOOST_TEST(basic.get("configurable") == json(R"({"param1": "value1", "param2": 123})"));

  // Tags that are not strings go; values that cannot be sent go, at any depth.
  object metadata{
      {"nested",
       object{{"key", "value"}, {"num", 42}, {"invalid", value(bytes{std::string("\x01")})}}},
      {"list", json(R"([1, 2, "three", null])")},
      {"invalid", value()},
      {"tuple", json("[1, 2, 3]")}};
  value complex = remote_graph::sanitize_config(object{
      {"tags", json(R"(["tag1", 123, {"obj": "tag"}, "tag2"])")}, {"metadata", value(metadata)}});
  BOOST_TEST(complex.get("tags") == json(R"(["tag1", "tag2"])"));
  BOOST_TEST(complex.get("metadata") == json(R"({"nested": {"key": "value", "num": 42},
                                                 "list": [1, 2, "three"], "tuple": [1, 2, 3]})"));

  // The checkpoint keys of configurable go.
  value drops = remote_graph::sanitize_config(json(R"({"configurable": {
      "normal_param": "value", "checkpoint_map": {"key": "value"}, "checkpoint_id": "123",
      "checkpoint_ns": "ns", "task_id": "t"}})"));
  BOOST_TEST(drops.get("configurable") == json(R"({"normal_param": "value"})"));

  // Empty.
  BOOST_TEST(remote_graph::sanitize_config(json("{}")) == json("{}"));

  // Keys other than recursion_limit, tags, metadata and configurable go.
  BOOST_TEST(remote_graph::sanitize_config(json(R"({"configurable": {"valid": "value"},
                                                    "context": {"a": 1}, "callbacks": 1})")) ==
             json(R"({"configurable": {"valid": "value"}})"));

  // Deep nesting is kept.
  value nested =
      remote_graph::sanitize_config(json(R"({"metadata": {"level1": {"level2": {"level3": {
      "str": "value", "list": [1, [2, [3]]], "dict": {"a": {"b": {"c": "d"}}}}}}}})"));
  const value& l3 = nested.get("metadata").get("level1").get("level2").get("level3");
  BOOST_TEST(l3.get("str") == value("value"));
  BOOST_TEST(l3.get("list") == json("[1, [2, [3]]]"));
  BOOST_TEST(l3.get("dict") == json(R"({"a": {"b": {"c": "d"}}})"));
}

// libs/langgraph/tests/test_remote_graph.py::test_remote_graph_basic_invoke
BOOST_AUTO_TEST_CASE(test_remote_graph_basic_invoke) {
  remote_graph g = remote_head::get().graph("agent");
  value out = g.invoke(json(R"({"messages": [{"role": "user", "content": "hello", "id": "h1"}]})"),
                       thread("basic_invoke"));
  // LangGraph's example app answers with its last message; the served graph's output is the
  // state holding it.
  BOOST_TEST(out == json(R"({"messages": [
      {"type": "human", "content": "hello", "id": "h1"},
      {"type": "ai", "content": "answer", "id": "ai3"}]})"));
}
