// StateGraph behaviour from LangGraph's graph-API guides (shared/seeds/003_*).
#include "superstep/graph/state_graph.hpp"

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <mutex>
#include <thread>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"
#include "support/expect_error.hpp"
#include "test_execution.hpp"

using namespace superstep;
using superstep::test::expect_error;

namespace {

// A node that returns a fixed update.
node_function returns(value update) {
  return [update](const value&, node_context&) { return update; };
}

std::string s(const value& v) { return v.as_string(); }

}  // namespace

BOOST_AUTO_TEST_CASE(input_output_and_private_schemas_filter_the_state) {
  state_graph b;
  b.add_key("foo").add_key("user_input").add_key("graph_output").add_key("bar");
  b.set_input_keys({"user_input"}).set_output_keys({"graph_output"});
  b.add_node("node_1", [](const value& st, node_context&) -> value {
    return object{{"foo", s(st.get("user_input")) + " name"}};
  });
  b.add_node("node_2", [](const value& st, node_context&) -> value {
    return object{{"bar", s(st.get("foo")) + " is"}};
  });
  b.add_node("node_3", [](const value& st, node_context&) -> value {
    return object{{"graph_output", s(st.get("bar")) + " Lance"}};
  });
  b.add_edge(START.data(), "node_1").add_edge("node_1", "node_2").add_edge("node_2", "node_3");
  b.add_edge("node_3", END.data());
  auto graph = b.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"user_input", "My"}}).to_json() ==
             R"({"graph_output":"My name is Lance"})");
}

BOOST_AUTO_TEST_CASE(keys_without_reducer_are_overwritten_example_a) {
  state_graph b;
  b.add_key("foo").add_key("bar");
  b.add_node("first", returns(object{{"foo", 2}}));
  b.add_node("second", returns(object{{"bar", value::array({"bye"})}}));
  b.add_edge("__start__", "first").add_edge("first", "second");
  auto graph = b.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"foo", 1}, {"bar", value::array({"hi"})}}).to_json() ==
             R"({"foo":2,"bar":["bye"]})");
}

BOOST_AUTO_TEST_CASE(keys_with_a_reducer_fold_updates_example_b) {
  state_graph b;
  b.add_key("foo").add_key("bar", "append");
  b.add_node("first", returns(object{{"foo", 2}}));
  b.add_node("second", returns(object{{"bar", value::array({"bye"})}}));
  b.add_edge("__start__", "first").add_edge("first", "second");
  auto graph = b.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"foo", 1}, {"bar", value::array({"hi"})}}).to_json() ==
             R"({"foo":2,"bar":["hi","bye"]})");
}

BOOST_AUTO_TEST_CASE(map_reduce_with_send_collects_one_result_per_subject) {
  state_graph b;
  b.add_key("topic").add_key("subjects").add_key("jokes", "append").add_key("best");
  b.add_node("generate_topics",
             returns(object{{"subjects", value::array({"lions", "elephants", "penguins"})}}));
  b.add_node("generate_joke", [](const value& in, node_context&) -> value {
    return object{{"jokes", value::array({"joke about " + s(in.get("subject"))})}};
  });
  b.add_node("best_joke", [](const value& st, node_context&) -> value {
    return object{{"best", st.get("jokes").as_list().back()}};
  });
  b.add_edge(START.data(), "generate_topics");
  b.add_conditional_edges("generate_topics", [](const value& st, node_context&) -> value {
    list sends;
    for (const auto& subj : st.get("subjects").as_list())
      sends.push_back(make_send("generate_joke", object{{"subject", subj}}));
    return value(std::move(sends));
  });
  b.add_edge("generate_joke", "best_joke").add_edge("best_joke", END.data());
  auto graph = b.compile(test::opts());

  std::vector<std::string> updates;
  stream_options opts{{stream_mode::updates}, false};
  value out = graph->stream(object{{"topic", "animals"}}, value(), opts,
                            [&](const stream_event& e) { updates.push_back(e.data.to_json()); });
  BOOST_TEST(out.get("jokes").to_json() ==
             R"(["joke about lions","joke about elephants","joke about penguins"])");
  BOOST_TEST(s(out.get("best")) == "joke about penguins");
  BOOST_TEST_REQUIRE(updates.size() == 5u);
  BOOST_TEST(updates.front() ==
             R"({"generate_topics":{"subjects":["lions","elephants","penguins"]}})");
  BOOST_TEST(updates.back() == R"({"best_joke":{"best":"joke about penguins"}})");
}

BOOST_AUTO_TEST_CASE(two_parallel_writes_to_a_last_value_key_fail_the_step) {
  state_graph b;
  b.add_key("x");
  b.add_node("left", returns(object{{"x", 1}}));
  b.add_node("right", returns(object{{"x", 2}}));
  b.add_edge("__start__", "left").add_edge("__start__", "right");
  auto graph = b.compile(test::opts());
  expect_error(
      [&] {
        graph->invoke(object{{"x", 0}});
      },
      error_code::invalid_update, "At key 'x': Can receive only one value per step");
}

namespace {

// The seed's loop: a → (b while |aggregate| < 7) → a.
std::shared_ptr<pregel> loop_graph(std::vector<std::string>& seen, std::mutex& m) {
  state_graph b;
  b.add_key("aggregate", "append");
  auto node = [&seen, &m](std::string name) {
    return [&seen, &m, name](const value& st, node_context&) -> value {
      std::lock_guard lock(m);
      seen.push_back(name + " sees " + st.get("aggregate").to_json());
      return object{{"aggregate", value::array({name})}};
    };
  };
  b.add_node("a", node("A")).add_node("b", node("B"));
  b.add_edge("__start__", "a");
  b.add_conditional_edges("a", [](const value& st, node_context&) -> value {
    return st.get("aggregate").as_list().size() < 7 ? value("b") : value(END);
  });
  b.add_edge("b", "a");
  return b.compile(test::opts());
}

}  // namespace

BOOST_AUTO_TEST_CASE(loop_ends_when_the_router_returns_end) {
  std::vector<std::string> seen;
  std::mutex m;
  auto graph = loop_graph(seen, m);
  BOOST_TEST(graph->invoke(object{{"aggregate", list{}}}).to_json() ==
             R"({"aggregate":["A","B","A","B","A","B","A"]})");
  BOOST_TEST(seen.size() == 7u);
  BOOST_TEST(seen[1] == R"(B sees ["A"])");
}

BOOST_AUTO_TEST_CASE(loop_past_the_recursion_limit_fails_after_exactly_that_many_steps) {
  std::vector<std::string> seen;
  std::mutex m;
  auto graph = loop_graph(seen, m);
  expect_error(
      [&] {
        graph->invoke(object{{"aggregate", list{}}}, object{{"recursion_limit", 4}});
      },
      error_code::graph_recursion, "Recursion limit of 4 reached");
  BOOST_TEST(seen.size() == 4u);
  BOOST_TEST(seen.back() == R"(B sees ["A","B","A"])");

  std::vector<std::string> seen5;
  auto graph5 = loop_graph(seen5, m);
  expect_error(
      [&] {
        graph5->invoke(object{{"aggregate", list{}}}, object{{"recursion_limit", 5}});
      },
      error_code::graph_recursion, "Recursion limit of 5 reached");
  BOOST_TEST(seen5.size() == 5u);
}

BOOST_AUTO_TEST_CASE(join_edge_waits_for_both_branches) {
  std::vector<std::string> seen;
  std::mutex m;
  state_graph b;
  b.add_key("aggregate", "append");
  for (std::string n : {"a", "b", "c", "d"}) {
    std::string up = n;
    up[0] = static_cast<char>(std::toupper(up[0]));
    b.add_node(n, [&seen, &m, up](const value& st, node_context&) -> value {
      std::lock_guard lock(m);
      seen.push_back(up + " sees " + st.get("aggregate").to_json());
      return object{{"aggregate", value::array({up})}};
    });
  }
  b.add_edge("__start__", "a");
  b.add_conditional_edges("a", [](const value& st, node_context&) -> value {
    return st.get("aggregate").as_list().size() < 7 ? value("b") : value(END);
  });
  b.add_edge("b", "c").add_edge("b", "d");
  b.add_edge(std::vector<std::string>{"c", "d"}, "a");
  auto graph = b.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"aggregate", list{}}}).to_json() ==
             R"({"aggregate":["A","B","C","D","A","B","C","D","A"]})");
  BOOST_TEST(seen.size() == 9u);
  BOOST_TEST(seen[4] == R"(A sees ["A","B","C","D"])");

  seen.clear();
  expect_error(
      [&] {
        graph->invoke(object{{"aggregate", list{}}}, object{{"recursion_limit", 4}});
      },
      error_code::graph_recursion, "Recursion limit of 4");
  BOOST_TEST(seen.size() == 5u);
}

BOOST_AUTO_TEST_CASE(command_updates_state_and_routes) {
  state_graph b;
  b.add_key("foo");
  b.add_node(
      "my_node",
      [](const value&, node_context&) -> value {
        return make_command(command{object{{"foo", "bar"}}, {value("my_other_node")}, {}, {}});
      },
      node_options{.destinations = {"my_other_node"}});
  b.add_node("my_other_node", [](const value& st, node_context&) -> value {
    return object{{"foo", s(st.get("foo")) + "!"}};
  });
  b.add_edge("__start__", "my_node");
  auto graph = b.compile(test::opts());
  BOOST_TEST(graph->invoke(object{{"foo", ""}}).to_json() == R"({"foo":"bar!"})");
}

BOOST_AUTO_TEST_CASE(config_values_reach_nodes_and_routers) {
  state_graph b;
  b.add_key("out");
  b.add_node("n", [](const value&, node_context& ctx) -> value {
    return object{{"out", ctx.configurable("llm")}};
  });
  b.add_edge("__start__", "n");
  auto graph = b.compile(test::opts());
  value cfg = object{{"configurable", object{{"llm", "anthropic"}}}};
  BOOST_TEST(graph->invoke(object{{"out", ""}}, cfg).to_json() == R"({"out":"anthropic"})");
}

BOOST_AUTO_TEST_CASE(streams_several_modes_in_order) {
  state_graph b;
  b.add_key("n", "add");
  b.add_node("inc", [](const value&, node_context& ctx) -> value {
    ctx.emit_custom(object{{"progress", "half"}});
    ctx.emit_message(value("tok"));
    return object{{"n", 1}};
  });
  b.add_edge("__start__", "inc");
  auto graph = b.compile(test::opts());
  std::vector<std::string> events;
  stream_options opts{
      {stream_mode::values, stream_mode::updates, stream_mode::custom, stream_mode::messages},
      false};
  graph->stream(object{{"n", 1}}, value(), opts, [&](const stream_event& e) {
    events.push_back(std::string(stream_mode_name(e.mode)) + " " + e.data.to_json());
  });
  BOOST_TEST_REQUIRE(events.size() == 5u);
  BOOST_TEST(events[0] == R"(values {"n":1})");
  BOOST_TEST(events[1] == R"(custom {"progress":"half"})");
  BOOST_TEST(
      events[2].rfind(R"(messages ["tok",{"langgraph_step":1,"langgraph_node":"inc")", 0) == 0,
      events[2]);
  BOOST_TEST(events[3] == R"(updates {"inc":{"n":1}})");
  BOOST_TEST(events[4] == R"(values {"n":2})");
}

// As LangGraph: without a checkpointer no checkpoint events, and no event for the internal
// __start__ task (the checkpoints are tested in tests/conformance/pregel_debug_test.cpp).
BOOST_AUTO_TEST_CASE(debug_stream_reports_tasks_and_results) {
  state_graph b;
  b.add_key("x");
  b.add_node("n", returns(object{{"x", 2}}));
  b.add_edge("__start__", "n");
  auto graph = b.compile(test::opts());
  std::vector<std::string> types;
  graph->stream(object{{"x", 1}}, value(), stream_options{{stream_mode::debug}, false},
                [&](const stream_event& e) { types.push_back(e.data.get("type").as_string()); });
  std::vector<std::string> expected{"task", "task_result"};
  BOOST_TEST(types == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(subgraph_runs_as_a_node_and_streams_with_its_namespace) {
  state_graph sb;
  sb.add_key("foo").add_key("sub_only");
  sb.add_node("sub_node", [](const value& st, node_context&) -> value {
    return object{{"foo", s(st.get("foo")) + " and sub"}, {"sub_only", 1}};
  });
  sb.add_edge("__start__", "sub_node");
  auto sub = sb.compile(test::opts());

  state_graph b;
  b.add_key("foo");
  b.add_node("parent_node", returns(object{{"foo", "parent"}}));
  b.add_node("child", sub);
  b.add_edge("__start__", "parent_node").add_edge("parent_node", "child");
  auto graph = b.compile(test::opts());

  std::vector<std::pair<std::string, std::string>> events;
  value out = graph->stream(
      object{{"foo", ""}}, value(), stream_options{{stream_mode::updates}, true},
      [&](const stream_event& e) {
        std::string ns = e.ns.empty() ? "" : e.ns.front().substr(0, e.ns.front().find(':'));
        events.emplace_back(ns, e.data.to_json());
      });
  BOOST_TEST(out.to_json() == R"({"foo":"parent and sub"})");
  BOOST_TEST_REQUIRE(events.size() == 3u);
  BOOST_TEST(events[1].first == "child");
  BOOST_TEST(events[1].second == R"({"sub_node":{"foo":"parent and sub","sub_only":1}})");
  BOOST_TEST(events[2].second == R"({"child":{"foo":"parent and sub"}})");

  // Without subgraphs, only the parent's events.
  int count = 0;
  graph->stream(object{{"foo", ""}}, value(), stream_options{{stream_mode::updates}, false},
                [&](const stream_event& e) {
                  BOOST_TEST(e.ns.empty());
                  ++count;
                });
  BOOST_TEST(count == 2);
}

BOOST_AUTO_TEST_CASE(draws_mermaid_with_edges_and_conditional_edges) {
  std::vector<std::string> seen;
  std::mutex m;
  state_graph b;
  b.add_key("x");
  b.add_node("a", returns(value())).add_node("b", returns(value()));
  b.add_edge("__start__", "a");
  b.add_conditional_edges("a", [](const value&, node_context&) -> value { return "b"; },
                          {{"go", "b"}, {"stop", "__end__"}});
  b.add_edge("b", "__end__");
  std::string mm = b.compile(test::opts())->draw_mermaid();
  BOOST_TEST(mm.find("graph TD;") != std::string::npos);
  BOOST_TEST(mm.find("__start__ --> a;") != std::string::npos, mm);
  BOOST_TEST(mm.find("a -. &nbsp;go&nbsp; .-> b;") != std::string::npos, mm);
  BOOST_TEST(mm.find("a -. &nbsp;stop&nbsp; .-> __end__;") != std::string::npos, mm);
  BOOST_TEST(mm.find("b --> __end__;") != std::string::npos, mm);
}

BOOST_AUTO_TEST_CASE(compile_rejects_malformed_graphs_naming_the_offender) {
  auto base = [] {
    state_graph b;
    b.add_key("x");
    b.add_node("a", returns(value()));
    return b;
  };
  expect_error(
      [&] { base().add_edge("__start__", "a").add_edge("a", "nowhere").compile(test::opts()); },
      error_code::invalid_graph, "Found edge ending at unknown node 'nowhere'");
  expect_error(
      [&] { base().add_edge("__start__", "a").add_edge("ghost", "a").compile(test::opts()); },
      error_code::invalid_graph, "Found edge starting at unknown node 'ghost'");
  expect_error([&] { base().compile(test::opts()); }, error_code::invalid_graph,
               "Graph must have an entrypoint");
  expect_error([&] { base().add_node("a", returns(value())); }, error_code::invalid_graph,
               "node 'a' already exists");
  expect_error([&] { base().add_node("__end__", returns(value())); }, error_code::invalid_graph,
               "reserved name");
  expect_error([&] { base().add_key("x", "concatenate"); }, error_code::invalid_graph,
               "unknown reducer 'concatenate'");
  expect_error(
      [&] { base().set_output_keys({"y"}).add_edge("__start__", "a").compile(test::opts()); },
      error_code::invalid_graph, "output schema names unknown state key 'y'");
}

BOOST_AUTO_TEST_CASE(runtime_errors_name_what_is_wrong) {
  {
    // As LangGraph's: update keys that are no channel of the graph are ignored.
    state_graph b;
    b.add_key("x");
    b.add_node("a", returns(object{{"y", 1}}));
    b.add_edge("__start__", "a");
    // As LangGraph: a key that is not a state key is not written (routers still see it).
    BOOST_TEST(b.compile(test::opts())->invoke(object{{"x", 1}}).to_json() == R"({"x":1})");
  }
  {
    state_graph b;
    b.add_key("x");
    b.add_node("a", returns(object{{"x", 1}}));
    b.add_edge("__start__", "a");
    b.add_conditional_edges("a", [](const value&, node_context&) -> value { return "zzz"; });
    expect_error(
        [&] {
          b.compile(test::opts())->invoke(object{{"x", 1}});
        },
        error_code::invalid_update, "router after 'a' returned unknown node 'zzz'");
  }
  {
    state_graph b;
    b.add_key("items", "append");
    b.add_node("a", returns(object{{"items", "not a list"}}));
    b.add_edge("__start__", "a");
    expect_error(
        [&] {
          b.compile(test::opts())->invoke(object{{"items", list{}}});
        },
        error_code::invalid_update, "expected list, got string");
  }
  {
    state_graph b;
    b.add_key("x");
    b.add_node("a", [](const value&, node_context&) -> value { throw std::runtime_error("boom"); });
    b.add_edge("__start__", "a");
    expect_error(
        [&] {
          b.compile(test::opts())->invoke(object{{"x", 1}});
        },
        error_code::node_error, "boom");
  }
  {
    state_graph b;
    b.add_key("x");
    b.add_node("a", returns(value(42)));
    b.add_edge("__start__", "a");
    expect_error(
        [&] {
          b.compile(test::opts())->invoke(object{{"x", 1}});
        },
        error_code::invalid_update, "Expected node 'a' to return an object");
  }
}

BOOST_AUTO_TEST_CASE(wide_fan_out_folds_every_send) {
  state_graph b;
  b.add_key("n").add_key("results", "append").add_key("total");
  b.add_node("fan", returns(value()));
  b.add_node("work", [](const value& in, node_context&) -> value {
    return object{{"results", value::array({in.get("i").as_int() * 2})}};
  });
  b.add_node("sum", [](const value& st, node_context&) -> value {
    std::int64_t t = 0;
    for (const auto& v : st.get("results").as_list()) t += v.as_int();
    return object{{"total", t}};
  });
  b.add_edge("__start__", "fan");
  b.add_conditional_edges("fan", [](const value& st, node_context&) -> value {
    list sends;
    for (std::int64_t i = 0; i < st.get("n").as_int(); ++i)
      sends.push_back(make_send("work", object{{"i", i}}));
    return value(std::move(sends));
  });
  b.add_edge("work", "sum");
  auto graph = b.compile(test::opts());
  value out = graph->invoke(object{{"n", 10000}, {"results", list{}}});
  BOOST_TEST(out.get("results").as_list().size() == 10000u);
  BOOST_TEST(out.get("total").as_int() == 2 * (9999LL * 10000 / 2));
  // Results are folded in Send order, whatever order the tasks finished in.
  BOOST_TEST(out.get("results").as_list()[1234].as_int() == 2468);
}
