// libs/langgraph/tests/test_remote_graph.py: LangGraph's RemoteGraph, a graph served
// elsewhere used like a local one, as superstep::remote_graph against a real head
// (remote_graph_support.hpp). LangGraph's tests hand RemoteGraph a mocked SDK client and check
// the calls it makes and what it returns; here the head serves graphs that yield the events
// the mocks return, and the head's request log shows what it received.
#include "remote_graph_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/langgraph/tests/test_remote_graph.py::test_remote_graph_basic_invoke
BOOST_AUTO_TEST_CASE(test_remote_graph_basic_invoke) {
  remote_graph g = remote_head::get().graph("agent");
  value out = g.invoke(value::parse_json(
                           R"({"messages": [{"role": "user", "content": "hello", "id": "h1"}]})"),
                       thread("basic_invoke"));
  // LangGraph's example app answers with its last message; the served graph's output is the
  // state holding it.
  BOOST_TEST(out == value::parse_json(R"({"messages": [
      {"type": "human", "content": "hello", "id": "h1"},
      {"type": "ai", "content": "answer", "id": "ai3"}]})"));
}
