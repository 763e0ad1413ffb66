// LangGraph's libs/langgraph/tests/test_checkpoint_migration.py: the fan-out graph with an
// interrupt in `qa`, run and resumed, and the history it leaves; see conformance.hpp.
#include <memory>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "fanout.hpp"
#include "interrupts_helpers.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::conformance::fanout::J;

namespace {

// LangGraph's make_state_graph: the fan-out graph whose `qa` asks interrupt("") first.
std::shared_ptr<pregel> make_state_graph(const fanout::retrievers& r) {
  state_graph w;
  r.add_keys(w);
  w.add_node("rewrite_query", [](const value& s, node_context&) -> value {
    return object{{"query", "query: " + s.get("query").as_string()}};
  });
  w.add_node("analyzer_one", [](const value& s, node_context&) -> value {
    return object{{"query", "analyzed: " + s.get("query").as_string()}};
  });
  w.add_node("retriever_one",
             [](const value&, node_context&) -> value { return J(R"({"docs":["doc1","doc2"]})"); });
  w.add_node("retriever_two", [g = r.gate](const value&, node_context&) -> value {
    g->wait();
    return J(R"({"docs":["doc3","doc4"]})");
  });
  w.add_node("qa", [](const value& s, node_context& ctx) -> value {
    ctx.interrupt("");
    std::string a;
    for (const auto& d : s.get("docs").as_list()) a += (a.empty() ? "" : ",") + d.as_string();
    return object{{"answer", a}};
  });
  w.add_edge("__start__", "rewrite_query")
      .add_edge("rewrite_query", "analyzer_one")
      .add_edge("analyzer_one", "retriever_one")
      .add_conditional_edges("rewrite_query",
                             [](const value&, node_context&) -> value { return "retriever_two"; })
      .add_edge("retriever_one", "qa")
      .add_edge("qa", "__end__");
  return w.compile(opts_with_saver());
}

// What LangGraph's expected StateSnapshot pins of a snapshot (ids and times are AnyStr):
// values, next, metadata, whether it has a parent, and each task's name, interrupts and
// result.
std::string summary(const state_snapshot& s) {
  const auto masked = [](const list& interrupts) {
    list out;
    for (const auto& i : interrupts) {
      object entry = i.as_object();
      entry.set("id", "*");
      out.push_back(value(std::move(entry)));
    }
    return value(std::move(out));
  };
  list tasks;
  list interrupts;
  for (const auto& t : s.tasks) {
    tasks.push_back(
        object{{"name", t.name}, {"interrupts", masked(t.interrupts)}, {"result", t.result}});
    for (const auto& i : t.interrupts) interrupts.push_back(i);
  }
  return value(object{{"values", s.values},
                      {"next", list(s.next.begin(), s.next.end())},
                      {"metadata", s.metadata},
                      {"has_parent", s.parent_config.has_value()},
                      {"tasks", value(std::move(tasks))},
                      {"interrupts", masked(interrupts)}})
      .to_json();
}

}  // namespace

// libs/langgraph/tests/test_checkpoint_migration.py::test_latest_checkpoint_state_graph
BOOST_AUTO_TEST_CASE(test_latest_checkpoint_state_graph) {
  fanout::retrievers r{std::make_shared<fanout::order_gate>("analyzer_one")};
  auto app = make_state_graph(r);
  const value config =
      object{{"configurable", object{{"thread_id", "1"}}}, {"durability", "async"}};

  BOOST_TEST(json(r.stream(*app, object{{"query", "what is weather in sf"}}, config)) ==
             json(J(R"([{"rewrite_query":{"query":"query: what is weather in sf"}},
                      {"analyzer_one":{"query":"analyzed: query: what is weather in sf"}},
                      {"retriever_two":{"docs":["doc3","doc4"]}},
                      {"retriever_one":{"docs":["doc1","doc2"]}},
                      {"__interrupt__":[{"value":"","id":"x"}]}])")));
  BOOST_TEST(json(r.stream(*app, resume(""), config)) ==
             R"([{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])");

  const auto history = app->get_state_history(config);
  const std::vector<std::string> expected{
      R"({"values":{"query":"analyzed: query: what is weather in sf","answer":"doc1,doc2,doc3,doc4","docs":["doc1","doc2","doc3","doc4"]},"next":[],"metadata":{"source":"loop","step":4,"parents":{}},"has_parent":true,"tasks":[],"interrupts":[]})",
      R"({"values":{"query":"analyzed: query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]},"next":["qa"],"metadata":{"source":"loop","step":3,"parents":{}},"has_parent":true,"tasks":[{"name":"qa","interrupts":[{"value":"","id":"*"}],"result":{"answer":"doc1,doc2,doc3,doc4"}}],"interrupts":[{"value":"","id":"*"}]})",
      R"({"values":{"query":"analyzed: query: what is weather in sf","docs":["doc3","doc4"]},"next":["retriever_one"],"metadata":{"source":"loop","step":2,"parents":{}},"has_parent":true,"tasks":[{"name":"retriever_one","interrupts":[],"result":{"docs":["doc1","doc2"]}}],"interrupts":[]})",
      R"({"values":{"query":"query: what is weather in sf","docs":[]},"next":["analyzer_one","retriever_two"],"metadata":{"source":"loop","step":1,"parents":{}},"has_parent":true,"tasks":[{"name":"analyzer_one","interrupts":[],"result":{"query":"analyzed: query: what is weather in sf"}},{"name":"retriever_two","interrupts":[],"result":{"docs":["doc3","doc4"]}}],"interrupts":[]})",
      R"({"values":{"query":"what is weather in sf","docs":[]},"next":["rewrite_query"],"metadata":{"source":"loop","step":0,"parents":{}},"has_parent":true,"tasks":[{"name":"rewrite_query","interrupts":[],"result":{"query":"query: what is weather in sf"}}],"interrupts":[]})",
      R"({"values":{"docs":[]},"next":["__start__"],"metadata":{"source":"input","step":-1,"parents":{}},"has_parent":false,"tasks":[{"name":"__start__","interrupts":[],"result":{"query":"what is weather in sf"}}],"interrupts":[]})",
  };
  BOOST_TEST_REQUIRE(history.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    BOOST_TEST(summary(history[i]) == expected[i], "history[" << i << "]");
}
