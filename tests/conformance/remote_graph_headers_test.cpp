// libs/langgraph/tests/test_remote_graph.py and test_remote_graph_v3.py: RemoteGraph's headers
// and LangSmith distributed tracing, against a real head (remote_graph_support.hpp). LangGraph
// checks the `headers` its SDK client is called with; here the head's request log shows the
// headers it received, and the served graph `traced` shows what its run got of them: its
// config's trace (trace_context.hpp: LangSmith's run tree, which `ls.trace` opens in
// LangGraph's test and trace_context::start here) and the x-... headers in configurable.
#include <future>

#include "remote_graph_support.hpp"
#include "superstep/pregel/trace_context.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using headers = std::map<std::string, std::string>;

// The headers the head logged for the last request on `thread`; nullopt when it logged none.
std::optional<headers> logged_headers(const std::string& thread) {
  const std::string line = remote_head::get().last_request(thread);
  BOOST_REQUIRE_MESSAGE(!line.empty(), "the head logged no request on " + thread);
  const std::size_t at = line.find(" headers {");
  if (at == std::string::npos) return std::nullopt;
  const value logged = value::parse_json(line.substr(at + 9));
  headers out;
  for (const auto& [name, text] : logged.as_object()) out[name] = text.as_string();
  return out;
}

// Checks the headers of the last request on `thread`: `expected`, and with `traced` the
// tracing headers of `caller` too.
void check_sent(const std::string& thread, std::optional<headers> expected, bool traced,
                const trace_context& caller) {
  std::optional<headers> sent = logged_headers(thread);
  if (traced) {
    BOOST_REQUIRE(sent);
    if (!expected) expected.emplace();
    // LangGraph's AnyStr() and AnyStr("langsmith-metadata="): the caller's dotted order, and
    // baggage starting with its metadata.
    BOOST_TEST(sent->at("langsmith-trace") == caller.dotted_order);
    BOOST_TEST(sent->at("baggage").starts_with("langsmith-metadata="), sent->at("baggage"));
    (*expected)["langsmith-trace"] = sent->at("langsmith-trace");
    (*expected)["baggage"] = sent->at("baggage");
  }
  BOOST_TEST(sent.has_value() == expected.has_value());
  if (sent && expected) BOOST_TEST((*sent == *expected));
}

// The served run's trace, as its node read it from its config: under the caller's run with
// distributed tracing, else none.
void check_served_trace(const value& output, bool traced, const trace_context& caller) {
  const value& t = output.get("trace");
  if (!traced) {
    BOOST_TEST(t.is_null(), t.to_json());
    return;
  }
  BOOST_TEST(t.get("trace_id") == value(caller.trace_id));
  BOOST_TEST(t.get("parent_run_id") == value(caller.run_id));
  BOOST_TEST(t.get("run_id").is_string());
  BOOST_TEST(t.get("run_id") != value(caller.run_id));
  BOOST_TEST(t.get("dotted_order").as_string().starts_with(caller.dotted_order + "."));
}

// The served graph `traced`, with or without distributed tracing, and the graph's `headers`.
remote_graph traced(bool distributed_tracing, headers given = {}) {
  remote_graph_options o;
  o.distributed_tracing = distributed_tracing;
  o.headers = std::move(given);
  return remote_head::get().graph("traced", std::move(o));
}

// One call of test_include_headers: invoke (the headers as the graph's: superstep's invoke
// takes no headers of its own) or stream (as the run's), inside the caller's trace.
void call_with_headers(bool distributed_tracing, bool stream, const std::optional<headers>& given,
                       const std::string& thread_id) {
  const trace_context caller = trace_context::start();  // LangGraph's ls.trace("foo")
  const value config = caller.in(thread(thread_id));
  remote_graph g = traced(distributed_tracing, given && !stream ? *given : headers{});
  value out;
  if (stream) {
    remote_run_options run;
    if (given) run.headers = *given;
    run.modes = {stream_mode::values};
    out = g.stream(object{{"trace", value()}}, config, run, {});
  } else {
    out = g.invoke(object{{"trace", value()}}, config);
  }
  check_sent(thread_id, given, distributed_tracing, caller);
  check_served_trace(out, distributed_tracing, caller);
}

// A stream_events run of `traced` on `thread_id` with the headers `given`, inside the
// caller's trace; returns the run's output.
value stream_events_with(const remote_graph& g, const std::string& thread_id,
                         const trace_context& caller, headers given) {
  remote_run_options o;
  o.modes = {stream_mode::values};
  o.headers = std::move(given);
  remote_run_stream run =
      g.stream_events(object{{"trace", value()}}, caller.in(thread(thread_id)), o);
  run.enter();
  return run.output();
}

}  // namespace

// libs/langgraph/tests/test_remote_graph.py::test_include_headers
BOOST_AUTO_TEST_CASE(test_include_headers) {
  int n = 0;
  for (bool distributed_tracing : {false, true})
    for (bool stream : {false, true})
      for (const std::optional<headers>& given :
           {std::optional<headers>(), std::optional<headers>(headers{{"foo", "bar"}})}) {
        const std::string t = "include_headers_" + std::to_string(n++);
        // LangGraph's async client (ainvoke, astream) first, then its sync one.
        std::async(std::launch::async, [&] {
          call_with_headers(distributed_tracing, stream, given, t + "_async");
        }).get();
        call_with_headers(distributed_tracing, stream, given, t + "_sync");
      }
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_merges_tracing_headers_when_distributed_tracing
BOOST_AUTO_TEST_CASE(test_stream_events_v3_merges_tracing_headers_when_distributed_tracing) {
  remote_graph g = traced(true);
  const trace_context caller = trace_context::start();
  value out = stream_events_with(g, "v3_tracing_headers", caller, {{"X-Custom", "y"}});
  // The caller's headers, merged with the trace's.
  const headers expected{{"X-Custom", "y"},
                         {"langsmith-trace", caller.dotted_order},
                         {"baggage", caller.to_headers().at("baggage")}};
  BOOST_TEST((logged_headers("v3_tracing_headers") == expected));
  check_served_trace(out, true, caller);
  // The caller's baggage comes first, the trace's after it (LangGraph's merge).
  (void)stream_events_with(g, "v3_tracing_baggage", caller, {{"baggage", "team=a"}});
  BOOST_TEST(logged_headers("v3_tracing_baggage")->at("baggage") ==
             "team=a," + caller.to_headers().at("baggage"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_stream_events_v3_passes_headers_unchanged_without_tracing
BOOST_AUTO_TEST_CASE(test_stream_events_v3_passes_headers_unchanged_without_tracing) {
  remote_graph g = traced(false);
  const trace_context caller = trace_context::start();
  value out = stream_events_with(g, "v3_plain_headers", caller, {{"X-Custom", "y"}});
  BOOST_TEST((logged_headers("v3_plain_headers") == headers{{"X-Custom", "y"}}));
  check_served_trace(out, false, caller);
  // The run sees the x- header in its configurable, under its lower-case name, as LangGraph's
  // server passes headers to configurable.
  BOOST_TEST(out.get("configurable").get("x-custom") == value("y"));
}

// libs/langgraph/tests/test_remote_graph_v3.py::test_reject_v3_unsupported_allows_metadata_and_headers
BOOST_AUTO_TEST_CASE(test_reject_v3_unsupported_allows_metadata_and_headers) {
  // LangGraph's v3 keywords `metadata` and `headers`: here the config's metadata and the run's
  // headers. Both are accepted and reach the head.
  remote_head& head = remote_head::get();
  remote_run_options o;
  o.headers = {{"X", "y"}};
  remote_run_stream run = head.graph("agent").stream_events(
      value::parse_json(R"({"messages": []})"), value::parse_json(R"({"metadata": {"a": 1},
                            "configurable": {"thread_id": "v3_metadata_headers"}})"),
      o);
  run.enter();
  (void)run.output();
  const std::string r = head.last_request("v3_metadata_headers");
  BOOST_TEST(r.find(R"("metadata":{"a":1})") != std::string::npos, r);
  BOOST_TEST((logged_headers("v3_metadata_headers") == headers{{"X", "y"}}));
}
