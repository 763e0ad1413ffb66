// libs/langgraph/tests/test_pregel.py: one input fanned out to parallel retrievers, joined by a
// waiting edge (or a deferred node) before "qa"; with breakpoints and update_state.
#include "conformance.hpp"
#include "fanout.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using fanout::J;
using fanout::order_gate;
using fanout::retrievers;

namespace {

compile_options with_breakpoints(std::vector<std::string> before, std::vector<std::string> after) {
  compile_options o = opts_with_saver();
  o.interrupt_before = std::move(before);
  o.interrupt_after = std::move(after);
  return o;
}

const value input = J(R"({"query":"what is weather in sf"})");

// The state after update_state({"docs": ["doc5"]}) at the breakpoint before "qa".
void check_updated_before_qa(const pregel& app, const value& config) {
  app.update_state(config, J(R"({"docs":["doc5"]})"));
  list_options two;
  two.limit = 2;
  auto listed = app.checkpointer()->list(checkpoint_config{"2", "", ""}, two);
  BOOST_TEST_REQUIRE(listed.size() == 2u);
  state_snapshot state = app.get_state(config);
  BOOST_TEST(state.values == J(R"({"query":"analyzed: query: what is weather in sf",
                       "docs":["doc1","doc2","doc3","doc4","doc5"]})"),
             state.values.to_json());
  BOOST_TEST_REQUIRE(state.tasks.size() == 1u);
  BOOST_TEST(state.tasks[0].name == "qa");
  BOOST_TEST(state.next == std::vector<std::string>{"qa"});
  BOOST_TEST(state.config.thread_id == "2");
  BOOST_TEST(state.config.checkpoint_ns == "");
  BOOST_TEST(state.metadata == J(R"({"parents":{},"source":"update","step":4})"),
             state.metadata.to_json());
  BOOST_TEST_REQUIRE(state.parent_config.has_value());
  BOOST_TEST(state.parent_config->checkpoint_id == listed[1].config.checkpoint_id);
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_state_graph_waiting_edge) {
  retrievers r{std::make_shared<order_gate>("analyzer_one")};
  state_graph workflow;
  r.add_keys(workflow);
  r.add_nodes(workflow);
  workflow.set_entry_point("rewrite_query");
  workflow.add_edge("rewrite_query", "analyzer_one");
  workflow.add_edge("analyzer_one", "retriever_one");
  workflow.add_edge("rewrite_query", "retriever_two");
  workflow.add_edge(std::vector<std::string>{"retriever_one", "retriever_two"}, "qa");
  workflow.set_finish_point("qa");

  auto app = workflow.compile(opts());
  {
    mermaid_options bare;
    bare.with_styles = false;
    BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
               "graph TD;\n"
               "\t__start__ --> rewrite_query;\n"
               "\tanalyzer_one --> retriever_one;\n"
               "\tretriever_one --> qa;\n"
               "\tretriever_two --> qa;\n"
               "\trewrite_query --> analyzer_one;\n"
               "\trewrite_query --> retriever_two;\n"
               "\tqa --> __end__;\n");
  }
  BOOST_TEST(app->invoke(input) == J(R"({"query":"analyzed: query: what is weather in sf",
                                         "docs":["doc1","doc2","doc3","doc4"],
                                         "answer":"doc1,doc2,doc3,doc4"})"));
  const value run = J(R"([{"rewrite_query":{"query":"query: what is weather in sf"}},
                          {"analyzer_one":{"query":"analyzed: query: what is weather in sf"}},
                          {"retriever_two":{"docs":["doc3","doc4"]}},
                          {"retriever_one":{"docs":["doc1","doc2"]}}])");
  list full = run.as_list();
  full.push_back(J(R"({"qa":{"answer":"doc1,doc2,doc3,doc4"}})"));
  BOOST_TEST(r.stream(*app, input) == value(full));

  list paused = run.as_list();
  paused.push_back(J(R"({"__interrupt__":[]})"));
  auto app_w_interrupt = workflow.compile(with_breakpoints({}, {"retriever_one"}));
  BOOST_TEST(r.stream(*app_w_interrupt, input, thread("1")) == value(paused));
  BOOST_TEST(r.stream(*app_w_interrupt, value(), thread("1")) ==
             J(R"([{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])"));

  app_w_interrupt = workflow.compile(with_breakpoints({"qa"}, {}));
  BOOST_TEST(r.stream(*app_w_interrupt, input, thread("2")) == value(paused));
  check_updated_before_qa(*app_w_interrupt, thread("2"));
  BOOST_TEST(r.stream(*app_w_interrupt, value(), thread("2")) ==
             J(R"([{"qa":{"answer":"doc1,doc2,doc3,doc4,doc5"}}])"));
}

// libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_defer_node (both
// parameters)
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_state_graph_defer_node) {
  for (bool use_waiting_edge : {true, false}) {
    BOOST_TEST_CONTEXT("use_waiting_edge " << use_waiting_edge) {
      retrievers r{std::make_shared<order_gate>("retriever_one")};
      state_graph workflow;
      r.add_keys(workflow);
      node_options deferred;
      deferred.defer = true;
      r.add_nodes(workflow, deferred);
      workflow.set_entry_point("rewrite_query");
      workflow.add_edge("rewrite_query", "retriever_one");
      workflow.add_edge("retriever_one", "analyzer_one");
      workflow.add_edge("rewrite_query", "retriever_two");
      if (use_waiting_edge) {
        workflow.add_edge(std::vector<std::string>{"retriever_one", "retriever_two"}, "qa");
      } else {
        workflow.add_edge("retriever_one", "qa");
        workflow.add_edge("retriever_two", "qa");
      }
      workflow.set_finish_point("qa");

      auto app = workflow.compile(opts());
      mermaid_options bare;
      bare.with_styles = false;
      BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
                 "graph TD;\n"
                 "\t__start__ --> rewrite_query;\n"
                 "\tanalyzer_one -.-> qa;\n"
                 "\tretriever_one --> analyzer_one;\n"
                 "\tretriever_one --> qa;\n"
                 "\tretriever_two --> qa;\n"
                 "\trewrite_query --> retriever_one;\n"
                 "\trewrite_query --> retriever_two;\n"
                 "\tqa --> __end__;\n");
      BOOST_TEST(app->invoke(input) == J(R"({"query":"analyzed: query: what is weather in sf",
                                             "docs":["doc1","doc2","doc3","doc4"],
                                             "answer":"doc1,doc2,doc3,doc4"})"));
      const value run = J(R"([{"rewrite_query":{"query":"query: what is weather in sf"}},
                {"retriever_one":{"docs":["doc1","doc2"]}},
                {"retriever_two":{"docs":["doc3","doc4"]}},
                {"analyzer_one":{"query":"analyzed: query: what is weather in sf"}}])");
      list full = run.as_list();
      full.push_back(J(R"({"qa":{"answer":"doc1,doc2,doc3,doc4"}})"));
      BOOST_TEST(r.stream(*app, input) == value(full));

      // the debug stream: each task and its result, by step
      std::vector<value> debug;
      r.gate->watch(true);
      app->stream(input, value(), stream_options{{stream_mode::debug}, false},
                  [&](const stream_event& e) {
                    if (e.data.get("type") == value("task_result") &&
                        e.data.get("payload").get("name") == value("retriever_one"))
                      r.gate->saw(object{{"retriever_one", true}});
                    debug.push_back(e.data);
                  });
      r.gate->watch(false);
      value qa_triggers = use_waiting_edge
                              ? J(R"(["branch:to:qa","join:retriever_one+retriever_two:qa"])")
                              : J(R"(["branch:to:qa"])");
      const value expected = J(R"([
        [1, "task", "rewrite_query", {"query":"what is weather in sf","docs":[]},
         ["branch:to:rewrite_query"]],
        [1, "task_result", "rewrite_query", {"query":"query: what is weather in sf"}],
        [2, "task", "retriever_one", {"query":"query: what is weather in sf","docs":[]},
         ["branch:to:retriever_one"]],
        [2, "task", "retriever_two", {"query":"query: what is weather in sf","docs":[]},
         ["branch:to:retriever_two"]],
        [2, "task_result", "retriever_one", {"docs":["doc1","doc2"]}],
        [2, "task_result", "retriever_two", {"docs":["doc3","doc4"]}],
        [3, "task", "analyzer_one",
         {"query":"query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]},
         ["branch:to:analyzer_one"]],
        [3, "task_result", "analyzer_one", {"query":"analyzed: query: what is weather in sf"}],
        [4, "task", "qa",
         {"query":"analyzed: query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]},
         null],
        [4, "task_result", "qa", {"answer":"doc1,doc2,doc3,doc4"}]])");
      BOOST_TEST_REQUIRE(debug.size() == expected.as_list().size());
      for (std::size_t i = 0; i < debug.size(); ++i) {
        const value& e = debug[i];
        const list& want = expected.as_list()[i].as_list();
        BOOST_TEST_CONTEXT("debug event " << i << ": " << e.to_json()) {
          BOOST_TEST(e.get("step") == want[0]);
          BOOST_TEST(e.get("type") == want[1]);
          BOOST_TEST(e.get("timestamp").is_string());
          const value& p = e.get("payload");
          BOOST_TEST(p.get("id").is_string());
          BOOST_TEST(p.get("name") == want[2]);
          if (want[1] == value("task")) {
            BOOST_TEST(p.get("input") == want[3]);
            BOOST_TEST(p.get("triggers") == (want[4].is_null() ? qa_triggers : want[4]));
          } else {
            BOOST_TEST(p.get("error").is_null());
            BOOST_TEST(p.get("result") == want[3]);
            BOOST_TEST(p.get("interrupts") == value(list{}));
          }
        }
      }

      list paused = run.as_list();
      paused.push_back(J(R"({"__interrupt__":[]})"));
      auto app_w_interrupt = workflow.compile(with_breakpoints({}, {"analyzer_one"}));
      BOOST_TEST(r.stream(*app_w_interrupt, input, thread("1")) == value(paused));
      BOOST_TEST(r.stream(*app_w_interrupt, value(), thread("1")) ==
                 J(R"([{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])"));

      app_w_interrupt = workflow.compile(with_breakpoints({"qa"}, {}));
      BOOST_TEST(r.stream(*app_w_interrupt, input, thread("2")) == value(paused));
      check_updated_before_qa(*app_w_interrupt, thread("2"));
      BOOST_TEST(r.stream(*app_w_interrupt, value(), thread("2")) ==
                 J(R"([{"qa":{"answer":"doc1,doc2,doc3,doc4,doc5"}}])"));
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_in_one_fan_out_state_graph_waiting_edge_via_branch
// (not asserted: the drawing)
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_state_graph_waiting_edge_via_branch) {
  retrievers r{std::make_shared<order_gate>("analyzer_one")};
  state_graph workflow;
  r.add_keys(workflow);
  r.add_nodes(workflow);
  workflow.set_entry_point("rewrite_query");
  workflow.add_edge("rewrite_query", "analyzer_one");
  workflow.add_edge("analyzer_one", "retriever_one");
  workflow.add_conditional_edges(
      "rewrite_query", [](const value&, node_context&) -> value { return value("retriever_two"); });
  workflow.add_edge(std::vector<std::string>{"retriever_one", "retriever_two"}, "qa");
  workflow.set_finish_point("qa");

  auto app = workflow.compile(opts());
  BOOST_TEST(app->invoke(input) == J(R"({"query":"analyzed: query: what is weather in sf",
                                         "docs":["doc1","doc2","doc3","doc4"],
                                         "answer":"doc1,doc2,doc3,doc4"})"));
  const value run = J(R"([{"rewrite_query":{"query":"query: what is weather in sf"}},
                          {"analyzer_one":{"query":"analyzed: query: what is weather in sf"}},
                          {"retriever_two":{"docs":["doc3","doc4"]}},
                          {"retriever_one":{"docs":["doc1","doc2"]}}])");
  list full = run.as_list();
  full.push_back(J(R"({"qa":{"answer":"doc1,doc2,doc3,doc4"}})"));
  BOOST_TEST(r.stream(*app, input) == value(full));

  list paused = run.as_list();
  paused.push_back(J(R"({"__interrupt__":[]})"));
  auto app_w_interrupt = workflow.compile(with_breakpoints({}, {"retriever_one"}));
  BOOST_TEST(r.stream(*app_w_interrupt, input, thread("1")) == value(paused));
  BOOST_TEST(r.stream(*app_w_interrupt, value(), thread("1")) ==
             J(R"([{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])"));
}
