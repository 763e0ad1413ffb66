// LangGraph's Command tests (libs/langgraph/tests/test_pregel.py): Command(update, goto,
// resume, graph=PARENT) from nodes and subgraphs, with static breakpoints, several Commands
// from one node, and node destinations; see conformance.hpp.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "interrupts_helpers.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

value go_to(std::vector<value> nodes) { return make_cmd(value(), std::move(nodes)); }

value appends(const char* key, const char* item) { return object{{key, list{item}}}; }

// "type:content" of each message (ids are generated).
strings contents(const value& messages) {
  strings out;
  for (const auto& m : messages.as_list())
    out.push_back(m.get("type").as_string() + ":" + m.get("content").as_string());
  return out;
}

// LangGraph's subgraph_persist parameter: the subgraph compiled with checkpointer=True
// (stateful) or checkpointer=False (none).
constexpr bool subgraph_persist_values[] = {true, false};

compile_options subgraph_opts(bool subgraph_persist) {
  compile_options o = opts();
  o.as_subgraph = subgraph_persist ? subgraph_checkpointer::stateful : subgraph_checkpointer::none;
  return o;
}

compile_options with_breakpoints(std::vector<std::string> before) {
  compile_options o = opts_with_saver();
  o.interrupt_before = std::move(before);
  return o;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_parent_command (each subgraph_persist)
BOOST_AUTO_TEST_CASE(test_parent_command) {
  for (const bool subgraph_persist : subgraph_persist_values) {
    BOOST_TEST_CONTEXT("subgraph_persist " << subgraph_persist) {
      state_graph sub;
      sub.add_key("messages", "add_messages");
      sub.add_node("tool", [](const value&, node_context&) -> value {
        return make_cmd(object{{"user_name", "Meow"}}, {}, std::nullopt, command::parent);
      });
      sub.add_edge("__start__", "tool");

      state_graph b;
      b.add_key("messages", "add_messages").add_key("user_name");
      b.add_node("alice", sub.compile(subgraph_opts(subgraph_persist)));
      b.add_edge("__start__", "alice");
      auto graph = b.compile(opts_with_saver());
      value cfg = thread("1");
      object durable = cfg.as_object();
      durable.set("durability", "exit");

      value out = graph->invoke(object{{"messages", list{"get user name"}}}, value(durable));
      BOOST_TEST(contents(out.get("messages")) == strings{"human:get user name"},
                 boost::test_tools::per_element());
      BOOST_TEST(out.get("user_name") == value("Meow"));
      BOOST_TEST(out.as_object().size() == 2u);

      state_snapshot s = graph->get_state(cfg);
      BOOST_TEST(contents(s.values.get("messages")) == strings{"human:get user name"},
                 boost::test_tools::per_element());
      BOOST_TEST(s.values.get("user_name") == value("Meow"));
      BOOST_TEST(s.next.empty());
      BOOST_TEST(s.config.thread_id == "1");
      BOOST_TEST(s.config.checkpoint_ns == "");
      BOOST_TEST(!s.config.checkpoint_id.empty());
      BOOST_TEST(s.metadata.to_json() == R"({"source":"loop","step":1,"parents":{}})");
      BOOST_TEST(!s.parent_config.has_value());  // durability "exit": one checkpoint
      BOOST_TEST(s.tasks.empty());
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_command_with_static_breakpoints
BOOST_AUTO_TEST_CASE(test_command_with_static_breakpoints) {
  state_graph b;
  b.add_key("foo");
  b.add_node("node1", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "|node-1"}};
  });
  b.add_node("node2", [](const value& s, node_context&) -> value {
    return object{{"foo", s.get("foo").as_string() + "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  auto graph = b.compile(with_breakpoints({"node1"}));
  const value cfg = thread("1");
  graph->invoke(object{{"foo", "abc"}}, cfg);
  BOOST_TEST(graph->invoke(resume("node1"), cfg).to_json() == R"({"foo":"abc|node-1|node-2"})");
}

// libs/langgraph/tests/test_pregel.py::test_multistep_plan
BOOST_AUTO_TEST_CASE(test_multistep_plan) {
  state_graph b;
  b.add_key("plan").add_key("messages", "add_messages");
  b.add_node("planner", [](const value& s, node_context&) -> value {
    const value& plan = s.get("plan");
    list rest;
    value next;
    if (plan.is_null()) {
      const list whole{"step1", list{"step2", "step3"}, "step4"};
      next = whole.front();
      rest.assign(whole.begin() + 1, whole.end());
    } else if (!plan.as_list().empty()) {
      next = plan.as_list().front();
      rest.assign(plan.as_list().begin() + 1, plan.as_list().end());
    } else {
      return value();  // the end of the plan
    }
    std::vector<value> targets = next.is_list() ? next.as_list() : std::vector<value>{next};
    return make_cmd(object{{"plan", rest}}, targets);
  });
  for (const char* step : {"step1", "step2", "step3", "step4"}) {
    b.add_node(step, [step](const value&, node_context&) -> value {
      return make_cmd(object{{"messages", list{object{{"type", "human"}, {"content", step}}}}},
                      {value("planner")});
    });
  }
  b.add_edge("__start__", "planner");
  auto graph = b.compile(opts_with_saver());
  value out = graph->invoke(object{{"messages", list{"start"}}}, thread("1"));
  BOOST_TEST(contents(out.get("messages")) == (strings{"human:start", "human:step1", "human:step2",
                                                       "human:step3", "human:step4"}),
             boost::test_tools::per_element());
  BOOST_TEST(out.get("plan").to_json() == "[]");
}

// libs/langgraph/tests/test_pregel.py::test_command_goto_with_static_breakpoints
BOOST_AUTO_TEST_CASE(test_command_goto_with_static_breakpoints) {
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node1", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-1"}};
  });
  b.add_node("node2", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  auto graph = b.compile(with_breakpoints({"node1"}));
  const value cfg = thread("1");
  graph->invoke(object{{"foo", "abc"}}, cfg);
  BOOST_TEST(graph->invoke(go_to({value("node2")}), cfg).to_json() ==
             R"({"foo":"abc|node-1|node-2|node-2"})");
}

// libs/langgraph/tests/test_pregel.py::test_parallel_node_execution
// (the nodes' sleeps, which show they overlap, left out: no sleeps in our tests; the order of
// the results is LangGraph's, the tasks' order and not their finishing order)
BOOST_AUTO_TEST_CASE(test_parallel_node_execution) {
  state_graph b;
  b.add_key("results", "add");
  b.add_node("slow",
             [](const value&, node_context&) -> value { return appends("results", "slow"); });
  b.add_node("fast",
             [](const value&, node_context&) -> value { return appends("results", "fast"); });
  b.add_edge("__start__", "slow").add_edge("__start__", "fast");
  auto graph = b.compile(opts());
  value result = graph->invoke(object{{"results", list{}}});
  BOOST_TEST(result.get("results").to_json() == R"(["fast","slow"])");
}

// libs/langgraph/tests/test_pregel.py::test_concurrent_execution_thread_safety
BOOST_AUTO_TEST_CASE(test_concurrent_execution_thread_safety) {
  state_graph b;
  b.add_key("counter", "add");
  b.add_node("node", [](const value&, node_context&) -> value { return object{{"counter", 1}}; });
  b.add_edge("__start__", "node");
  auto graph = b.compile(opts());
  std::vector<value> results(10);
  std::vector<std::thread> threads;
  for (auto& r : results)
    threads.emplace_back([&graph, &r] { r = graph->invoke(object{{"counter", 0}}); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) BOOST_TEST(r.get("counter") == value(1));
}

// libs/langgraph/tests/test_pregel.py::test_checkpoint_recovery
BOOST_AUTO_TEST_CASE(test_checkpoint_recovery) {
  for (const char* durability : {"sync", "async", "exit"}) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      state_graph b;
      b.add_key("steps", "add").add_key("attempt");
      b.add_node("node1", [](const value& s, node_context&) -> value {
        if (s.get("attempt") == value(1)) throw std::runtime_error("Simulated failure");
        return appends("steps", "node1");
      });
      b.add_node("node2",
                 [](const value&, node_context&) -> value { return appends("steps", "node2"); });
      b.add_edge("__start__", "node1").add_edge("node1", "node2");
      auto graph = b.compile(opts_with_saver());
      const value cfg = thread("1");
      object run_cfg = cfg.as_object();
      run_cfg.set("durability", durability);

      BOOST_CHECK_THROW(
          graph->invoke(object{{"steps", list{"start"}}, {"attempt", 1}}, value(run_cfg)), error);
      state_snapshot s = graph->get_state(cfg);
      BOOST_TEST(s.values.to_json() == R"({"steps":["start"],"attempt":1})");
      BOOST_TEST(s.next == strings{"node1"}, boost::test_tools::per_element());
      BOOST_TEST_REQUIRE(!s.tasks.empty());
      BOOST_TEST(s.tasks[0].error.value_or("").find("Simulated failure") != std::string::npos);

      BOOST_TEST(
          graph->invoke(object{{"steps", list{}}, {"attempt", 2}}, value(run_cfg)).to_json() ==
          R"({"steps":["start","node1","node2"],"attempt":2})");
      auto history = graph->get_state_history(cfg);
      BOOST_TEST(history.size() == (std::string(durability) == "exit" ? 2u : 6u));
      bool failure_recorded = false;
      for (const auto& h : history)
        if (!h.tasks.empty() && h.tasks[0].error &&
            h.tasks[0].error->find("Simulated failure") != std::string::npos)
          failure_recorded = true;
      BOOST_TEST(failure_recorded);

      graph->checkpointer()->delete_thread("1");
      BOOST_TEST(!graph->checkpointer()->get_tuple(checkpoint_config{"1", "", ""}).has_value());
      BOOST_TEST(graph->get_state_history(cfg).empty());
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_multiple_updates
BOOST_AUTO_TEST_CASE(test_multiple_updates) {
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return list{make_cmd(object{{"foo", "a1"}}), make_cmd(object{{"foo", "a2"}})};
  });
  b.add_node("node_b", [](const value&, node_context&) -> value { return object{{"foo", "b"}}; });
  b.add_edge("node_a", "node_b").add_edge("__start__", "node_a");
  auto graph = b.compile(opts());
  BOOST_TEST(graph->invoke(object{{"foo", ""}}).to_json() == R"({"foo":"a1a2b"})");
  BOOST_TEST(
      stream_all(*graph, object{{"foo", ""}}, value()) ==
          (strings{R"({"node_a":[{"foo":"a1"},{"foo":"a2"}]})", R"({"node_b":{"foo":"b"}})"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_parent_command_goto (each with_timeout: a 1 s
// step_timeout on neither graph, the subgraph, the parent or both; each subgraph_persist)
BOOST_AUTO_TEST_CASE(test_parent_command_goto) {
  for (const bool subgraph_persist : subgraph_persist_values)
    for (const char* with_timeout : {"none", "inner", "outer", "both"}) {
      BOOST_TEST_CONTEXT("subgraph_persist " << subgraph_persist << ", with_timeout "
                                             << with_timeout) {
        const std::string timeout = with_timeout;
        state_graph sub;
        sub.add_key("dialog_state", "add");
        sub.add_node("node_a_child", [](const value&, node_context&) -> value {
          return appends("dialog_state", "a_child_state");
        });
        sub.add_node("node_b_child", [](const value&, node_context&) -> value {
          return make_cmd(appends("dialog_state", "b_child_state"), {value("node_b_parent")},
                          std::nullopt, command::parent);
        });
        sub.add_edge("__start__", "node_a_child").add_edge("node_a_child", "node_b_child");
        compile_options sub_opts = subgraph_opts(subgraph_persist);
        if (timeout == "inner" || timeout == "both") sub_opts.step_timeout_ms = 1000;

        state_graph main;
        main.add_key("dialog_state", "add");
        main.add_node("node_b_parent", [](const value&, node_context&) -> value {
          return appends("dialog_state", "node_b_parent");
        });
        main.add_edge("__start__", "subgraph_node");
        main.add_node("subgraph_node", sub.compile(sub_opts),
                      node_options{.destinations = {"node_b_parent"}});
        compile_options o = opts_with_saver();
        o.name = "parent";
        if (timeout == "outer" || timeout == "both") o.step_timeout_ms = 1000;
        auto graph = main.compile(o);
        BOOST_TEST(
            graph->invoke(object{{"dialog_state", list{"init_state"}}}, thread("1")).to_json() ==
            R"({"dialog_state":["init_state","b_child_state","node_b_parent"]})");
      }
    }
}

// libs/langgraph/tests/test_pregel.py::test_parent_command_goto_deeply_nested (each
// subgraph_persist, for both subgraphs)
BOOST_AUTO_TEST_CASE(test_parent_command_goto_deeply_nested) {
  for (const bool subgraph_persist : subgraph_persist_values) {
    BOOST_TEST_CONTEXT("subgraph_persist " << subgraph_persist) {
      state_graph sub_sub;
      sub_sub.add_key("dialog_state", "add");
      sub_sub.add_node("sub_sub_child", [](const value&, node_context&) -> value {
        return make_cmd(appends("dialog_state", "sub_sub_child"), {value("sub_child_3")},
                        std::nullopt, command::parent);
      });
      sub_sub.add_edge("__start__", "sub_sub_child");
      compile_options sub_sub_opts = subgraph_opts(subgraph_persist);
      sub_sub_opts.name = "sub_sub_graph";

      state_graph sub;
      sub.add_key("dialog_state", "add");
      sub.add_node("sub_child_1", [](const value&, node_context&) -> value {
        return appends("dialog_state", "sub_child_1");
      });
      sub.add_node("sub_child_2", sub_sub.compile(sub_sub_opts),
                   node_options{.destinations = {"sub_child_3"}});
      sub.add_node("sub_child_3", [](const value&, node_context&) -> value {
        return appends("dialog_state", "sub_child_3");
      });
      sub.add_edge("__start__", "sub_child_1").add_edge("sub_child_1", "sub_child_2");
      compile_options sub_opts = subgraph_opts(subgraph_persist);
      sub_opts.name = "sub_graph";

      state_graph b;
      b.add_key("dialog_state", "add");
      b.add_node("child_1", [](const value&, node_context&) -> value {
        return appends("dialog_state", "child_1");
      });
      b.add_node("child_2", sub.compile(sub_opts));
      b.add_edge("__start__", "child_1").add_edge("child_1", "child_2");
      compile_options o = opts_with_saver();
      o.name = "main_graph";
      auto graph = b.compile(o);
      BOOST_TEST(graph->invoke(object{{"dialog_state", list{"init"}}}, thread("1")).to_json() ==
                 R"({"dialog_state":["init","child_1","init","child_1","sub_child_1",)"
                 R"("sub_sub_child","sub_child_3"]})");
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_timeout_with_parent_command (both with_timeout: the
// Command for the parent leaves the run, not a timeout)
BOOST_AUTO_TEST_CASE(test_timeout_with_parent_command) {
  for (bool with_timeout : {false, true}) {
    BOOST_TEST_CONTEXT("with_timeout " << with_timeout) {
      state_graph b;
      b.add_key("value");
      b.add_node("parent_cmd", [](const value&, node_context&) -> value {
        return make_cmd(object{{"key", "value"}}, {value("test_cmd")}, std::nullopt,
                        command::parent);
      });
      b.set_entry_point("parent_cmd");
      compile_options o = opts_with_saver();
      if (with_timeout) o.step_timeout_ms = 1000;
      auto graph = b.compile(o);
      try {
        graph->invoke(object{{"value", "start"}}, thread("1"));
        BOOST_FAIL("a Command for the parent of the top-level graph must fail the run");
      } catch (const error& e) {
        BOOST_TEST(e.code() == error_code::parent_command);
        auto c = as_command(value::parse_json(e.what()));
        BOOST_TEST_REQUIRE(c.has_value());
        BOOST_TEST(c->go_to.size() == 1u);
        BOOST_TEST(c->go_to.at(0) == value("test_cmd"));
        BOOST_TEST(c->update.to_json() == R"({"key":"value"})");
      }
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_node_destinations
BOOST_AUTO_TEST_CASE(test_node_destinations) {
  state_graph sub;
  sub.add_key("foo", "add");
  sub.add_node("node_a", [](const value& s, node_context&) -> value {
    const value& v = s.get("foo");
    return make_cmd(object{{"foo", v}}, {value(v == value("a") ? "node_b" : "node_c")},
                    std::nullopt, command::parent);
  });
  sub.add_edge("__start__", "node_a");
  std::shared_ptr<const pregel> subgraph = sub.compile(opts());

  // get_graph().edges as "source->target" ("-.->" when conditional, ":data" when labelled).
  const auto edges_of = [](const pregel& g) {
    strings out;
    for (const auto& e : g.get_graph().edges)
      out.push_back(e.source + (e.conditional ? "-.->" : "->") + e.target +
                    (e.data ? ":" + *e.data : ""));
    return out;
  };
  for (const bool called : {false, true}) {
    // Destinations as LangGraph's tuple (names), then as its dict (names to edge labels).
    for (const bool labelled : {false, true}) {
      BOOST_TEST_CONTEXT((called ? "a node invoking the subgraph" : "the subgraph as the node")
                         << (labelled ? ", destinations with labels" : ", destinations")) {
        state_graph b;
        b.add_key("foo", "add");
        b.add_edge("__start__", "child");
        node_options child_options;
        if (labelled)
          child_options.destinations = {{"node_b", "foo"}, {"node_c", "bar"}};
        else
          child_options.destinations = {"node_b", "node_c"};
        if (called)
          b.add_node(
              "child",
              [subgraph](const value& s, node_context&) -> value { return subgraph->invoke(s); },
              child_options);
        else
          b.add_node("child", subgraph, child_options);
        b.add_node("node_b", [](const value&, node_context&) -> value {
          return object{{"foo", "b"}};
        });
        b.add_node("node_c", [](const value&, node_context&) -> value {
          return object{{"foo", "c"}};
        });
        auto graph = b.compile(opts());
        BOOST_TEST(graph->invoke(object{{"foo", ""}}).to_json() == R"({"foo":"c"})");
        BOOST_TEST(
            edges_of(*graph) ==
                (strings{"__start__->child", labelled ? "child-.->node_b:foo" : "child-.->node_b",
                         labelled ? "child-.->node_c:bar" : "child-.->node_c", "node_b->__end__",
                         "node_c->__end__"}),
            boost::test_tools::per_element());
      }
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_multiple_subgraphs
BOOST_AUTO_TEST_CASE(test_multiple_subgraphs) {
  const auto subgraph = [](const char* name, auto op) {
    state_graph b;
    b.add_key("a").add_key("b").add_key("result");
    b.set_output_keys({"result"});
    b.add_node(name, [op](const value& s, node_context&) -> value {
      return object{{"result", op(s.get("a").as_int(), s.get("b").as_int())}};
    });
    b.add_edge("__start__", name);
    return std::shared_ptr<const pregel>(b.compile(opts()));
  };
  auto add_subgraph = subgraph("add", [](std::int64_t a, std::int64_t b) { return a + b; });
  auto multiply_subgraph =
      subgraph("multiply", [](std::int64_t a, std::int64_t b) { return a * b; });

  state_graph same;
  same.add_key("a").add_key("b").add_key("result");
  same.set_output_keys({"result"});
  same.add_node("call_same_subgraph", [add_subgraph](const value& s, node_context&) -> value {
    value result = add_subgraph->invoke(s);
    return add_subgraph->invoke(object{{"a", result.get("result")}, {"b", 10}});
  });
  same.add_edge("__start__", "call_same_subgraph");
  BOOST_TEST(
      same.compile(opts_with_saver())->invoke(object{{"a", 2}, {"b", 3}}, thread("1")).to_json() ==
      R"({"result":15})");

  state_graph multiple;
  multiple.add_key("a").add_key("b").add_key("add_result").add_key("multiply_result");
  multiple.set_output_keys({"add_result", "multiply_result"});
  multiple.add_node("call_multiple_subgraphs",
                    [add_subgraph, multiply_subgraph](const value& s, node_context&) -> value {
                      value add_result = add_subgraph->invoke(s);
                      value multiply_result = multiply_subgraph->invoke(s);
                      return object{{"add_result", add_result.get("result")},
                                    {"multiply_result", multiply_result.get("result")}};
                    });
  multiple.add_edge("__start__", "call_multiple_subgraphs");
  BOOST_TEST(multiple.compile(opts_with_saver())
                 ->invoke(object{{"a", 2}, {"b", 3}}, thread("2"))
                 .to_json() == R"({"add_result":5,"multiply_result":6})");
}
