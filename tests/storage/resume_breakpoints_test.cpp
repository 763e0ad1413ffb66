// Resuming past breakpoints and forks as LangGraph does: Command(resume) with no pending
// interrupt, Command(goto) on resume, update_state as END and __copy__, interrupt_after "*",
// and new input discarding the tasks a thread had left. Runs against both savers and both
// execution modes (tests/CMakeLists.txt).
#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/test_execution.hpp"
#include "superstep/coordinator/send.hpp"
#include "superstep/coordinator/state_graph.hpp"
#include "superstep/core/error.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

using test::resume;

value go_to(std::vector<value> nodes) {
  command c;
  c.go_to = std::move(nodes);
  return make_command(c);
}

compile_options with_saver(std::vector<std::string> before = {},
                           std::vector<std::string> after = {}) {
  compile_options o = test::opts();
  o.checkpointer = test::make_saver();
  o.interrupt_before = std::move(before);
  o.interrupt_after = std::move(after);
  return o;
}

// Nodes that append their name to `foo` (an `add` key), as LangGraph's static-breakpoint
// tests do.
state_graph node1_node2() {
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node1", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-1"}};
  });
  b.add_node("node2", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  return b;
}

// node_a → ask_human (interrupt) → node_b, each appending to `value`.
std::shared_ptr<pregel> ask_graph(std::shared_ptr<std::atomic<int>> asked = nullptr) {
  state_graph b;
  b.add_key("value", "append");
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"a"})}};
  });
  b.add_node("ask_human", [asked](const value&, node_context& ctx) -> value {
    if (asked) ++*asked;
    value answer = ctx.interrupt("What is your input?");
    return object{{"value", value::array({"human:" + answer.as_string()})}};
  });
  b.add_node("node_b", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"b"})}};
  });
  b.add_edge("__start__", "node_a").add_edge("node_a", "ask_human").add_edge("ask_human", "node_b");
  return b.compile(with_saver());
}

std::string before(const std::shared_ptr<pregel>& graph, const value& cfg, const char* node) {
  std::string id;  // the oldest checkpoint whose next is `node`
  for (const auto& s : graph->get_state_history(cfg))
    if (s.next == std::vector<std::string>{node}) id = s.config.checkpoint_id;
  return id;
}

value at(const char* thread_id, const std::string& checkpoint_id) {
  return object{
      {"configurable", object{{"thread_id", thread_id}, {"checkpoint_id", checkpoint_id}}}};
}

// A snapshot's config as a RunnableConfig value.
value snapshot_config(const state_snapshot& s) {
  return object{{"configurable", object{{"thread_id", s.config.thread_id},
                                        {"checkpoint_ns", s.config.checkpoint_ns},
                                        {"checkpoint_id", s.config.checkpoint_id}}}};
}

}  // namespace

// LangGraph test_time_travel.py, test_fork_from_before_interrupt_refires.
BOOST_AUTO_TEST_CASE(test_fork_from_before_interrupt_refires) {
  auto asked = std::make_shared<std::atomic<int>>(0);
  auto graph = ask_graph(asked);
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  graph->invoke(resume("hello"), cfg);
  const std::string before_ask = before(graph, cfg, "ask_human");
  BOOST_TEST_REQUIRE(!before_ask.empty());

  value fork_config = graph->update_state(at("1", before_ask), object{{"value", list{"forked"}}});
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST_REQUIRE(fork_result.get("__interrupt__").is_list());
  BOOST_TEST(fork_result.get("__interrupt__").as_list().at(0).get("value") ==
             value("What is your input?"));

  // Resumed from the fork's config, whose checkpoint holds no pending interrupt.
  value final_result = graph->invoke(resume("world"), fork_config);
  BOOST_TEST(final_result.to_json() == R"({"value":["a","forked","human:world","b"]})");
}

// LangGraph test_time_travel.py, test_sequential_interrupts_fork_from_middle.
BOOST_AUTO_TEST_CASE(test_sequential_interrupts_fork_from_middle) {
  auto called = std::make_shared<std::vector<std::string>>();
  auto mutex = std::make_shared<std::mutex>();
  const auto note = [called, mutex](const char* name) {
    std::lock_guard lock(*mutex);
    called->push_back(name);
  };
  state_graph b;
  b.add_key("value", "append");
  b.add_node("node_a", [note](const value&, node_context&) -> value {
    note("node_a");
    return object{{"value", value::array({"a"})}};
  });
  b.add_node("interrupt_1", [note](const value&, node_context& ctx) -> value {
    note("interrupt_1");
    value answer = ctx.interrupt("First question?");
    return object{{"value", value::array({"i1:" + answer.as_string()})}};
  });
  b.add_node("interrupt_2", [note](const value&, node_context& ctx) -> value {
    note("interrupt_2");
    value answer = ctx.interrupt("Second question?");
    return object{{"value", value::array({"i2:" + answer.as_string()})}};
  });
  b.add_node("node_b", [note](const value&, node_context&) -> value {
    note("node_b");
    return object{{"value", value::array({"b"})}};
  });
  b.add_edge("__start__", "node_a")
      .add_edge("node_a", "interrupt_1")
      .add_edge("interrupt_1", "interrupt_2")
      .add_edge("interrupt_2", "node_b");
  auto graph = b.compile(with_saver());
  const value cfg = thread("1");
  const auto first_interrupt = [](const value& r) {
    return r.get("__interrupt__").as_list().at(0).get("value");
  };

  BOOST_TEST(first_interrupt(graph->invoke(object{{"value", list{}}}, cfg)) ==
             value("First question?"));
  BOOST_TEST(first_interrupt(graph->invoke(resume("ans1"), cfg)) == value("Second question?"));
  BOOST_TEST(graph->invoke(resume("ans2"), cfg).to_json() ==
             R"({"value":["a","i1:ans1","i2:ans2","b"]})");

  const std::string between = before(graph, cfg, "interrupt_2");
  const std::string before_i1 = before(graph, cfg, "interrupt_1");
  BOOST_TEST_REQUIRE(!between.empty());
  value fork_config = graph->update_state(at("1", between), object{{"value", list{"mid_fork"}}});
  BOOST_TEST(first_interrupt(graph->invoke(value(), fork_config)) == value("Second question?"));
  std::string final_value = graph->invoke(resume("new_b"), fork_config).get("value").to_json();
  BOOST_TEST(final_value.find("i2:new_b") != std::string::npos);
  BOOST_TEST(final_value.find("i1:ans1") != std::string::npos);

  called->clear();
  value replay = graph->invoke(value(), at("1", before_i1));
  BOOST_TEST(first_interrupt(replay) == value("First question?"));
  std::lock_guard lock(*mutex);
  BOOST_TEST(std::count(called->begin(), called->end(), "interrupt_1") == 1);
  BOOST_TEST(std::count(called->begin(), called->end(), "interrupt_2") == 0);
}

// LangGraph test_time_travel.py, test_copy_fork_retriggers_interrupt.
BOOST_AUTO_TEST_CASE(test_copy_fork_retriggers_interrupt) {
  auto graph = ask_graph();
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  graph->invoke(resume("hello"), cfg);
  const std::string before_ask = before(graph, cfg, "ask_human");
  BOOST_TEST_REQUIRE(!before_ask.empty());

  value fork_config = graph->update_state(at("1", before_ask), value(), std::string("__copy__"));
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST_REQUIRE(fork_result.get("__interrupt__").is_list());
  BOOST_TEST(fork_result.get("__interrupt__").as_list().at(0).get("value") ==
             value("What is your input?"));
  BOOST_TEST(graph->invoke(resume("new_answer"), fork_config).to_json() ==
             R"({"value":["a","human:new_answer","b"]})");
}

// LangGraph test_time_travel.py, test_copy_fork_creates_sibling_checkpoint.
BOOST_AUTO_TEST_CASE(test_copy_fork_creates_sibling_checkpoint) {
  state_graph b;
  b.add_key("value", "append");
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"a"})}};
  });
  b.add_node("node_b", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"b"})}};
  });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  auto graph = b.compile(with_saver());
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  std::optional<state_snapshot> before_b;
  for (const auto& s : graph->get_state_history(cfg))
    if (s.next == std::vector<std::string>{"node_b"}) before_b = s;
  BOOST_TEST_REQUIRE(before_b.has_value());

  value copy_config = graph->update_state(at("1", before_b->config.checkpoint_id), value(),
                                          std::string("__copy__"));
  state_snapshot copy_state = graph->get_state(copy_config);
  BOOST_TEST(copy_state.metadata.get("source") == value("fork"));
  // A sibling: same parent, same values and next as the checkpoint copied.
  BOOST_TEST_REQUIRE(copy_state.parent_config.has_value());
  BOOST_TEST_REQUIRE(before_b->parent_config.has_value());
  BOOST_TEST(copy_state.parent_config->checkpoint_id == before_b->parent_config->checkpoint_id);
  BOOST_TEST(copy_state.values.to_json() == before_b->values.to_json());
  BOOST_TEST((copy_state.next == std::vector<std::string>{"node_b"}));
  BOOST_TEST(graph->invoke(value(), copy_config).to_json() == R"({"value":["a","b"]})");

  value regular_config =
      graph->update_state(at("1", before_b->config.checkpoint_id), object{{"value", list{"x"}}});
  BOOST_TEST(graph->get_state(regular_config).metadata.get("source") == value("update"));
}

// LangGraph test_interruption.py, test_interruption_without_state_updates (sync and exit
// durability).
BOOST_AUTO_TEST_CASE(test_interruption_without_state_updates) {
  for (const char* durability : {"sync", "exit"}) {
    state_graph b;
    b.add_key("input");
    for (const char* n : {"step_1", "step_2", "step_3"})
      b.add_node(n, [](const value&, node_context&) -> value { return value(); });
    b.add_edge("__start__", "step_1")
        .add_edge("step_1", "step_2")
        .add_edge("step_2", "step_3")
        .add_edge("step_3", "__end__");
    auto graph = b.compile(with_saver({}, {"*"}));
    value cfg = object{{"configurable", object{{"thread_id", "1"}}}, {"durability", durability}};
    const bool exit = std::string(durability) == "exit";

    graph->invoke(object{{"input", "hello world"}}, cfg);
    BOOST_TEST((graph->get_state(cfg).next == std::vector<std::string>{"step_2"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 1u : 3u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST((graph->get_state(cfg).next == std::vector<std::string>{"step_3"}), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 2u : 4u), durability);

    graph->invoke(value(), cfg);
    BOOST_TEST(graph->get_state(cfg).next.empty(), durability);
    BOOST_TEST(graph->get_state_history(cfg).size() == (exit ? 3u : 5u), durability);
  }
}

// Not a LangGraph test: Command(goto) together with a resume value, at a static breakpoint and
// at a dynamic interrupt. The goto target runs alongside the resumed node, then again after it.
BOOST_AUTO_TEST_CASE(
    a_command_with_resume_and_goto_runs_the_goto_target_alongside_the_resumed_node) {
  command c;
  c.resume = value("x");
  c.go_to = {value("node2")};
  {
    auto graph = node1_node2().compile(with_saver({"node1"}));
    graph->invoke(object{{"foo", "abc"}}, thread("1"));
    BOOST_TEST(graph->invoke(make_command(c), thread("1")).to_json() ==
               R"({"foo":"abc|node-1|node-2|node-2"})");
  }
  state_graph b;
  b.add_key("foo", "add");
  b.add_node("node1", [](const value&, node_context& ctx) -> value {
    return object{{"foo", "|node-1:" + ctx.interrupt("q").as_string()}};
  });
  b.add_node("node2", [](const value&, node_context&) -> value {
    return object{{"foo", "|node-2"}};
  });
  b.add_edge("__start__", "node1").add_edge("node1", "node2");
  auto graph = b.compile(with_saver());
  graph->invoke(object{{"foo", "abc"}}, thread("1"));
  BOOST_TEST(graph->invoke(make_command(c), thread("1")).to_json() ==
             R"({"foo":"abc|node-1:x|node-2|node-2"})");
}

BOOST_AUTO_TEST_CASE(a_command_goto_to_an_unknown_node_is_rejected_naming_it) {
  auto graph = node1_node2().compile(with_saver({"node1"}));
  graph->invoke(object{{"foo", "abc"}}, thread("1"));
  try {
    graph->invoke(go_to({value("nodeX")}), thread("1"));
    BOOST_FAIL("goto to an unknown node ran");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
    BOOST_TEST(std::string(e.what()).find("unknown node 'nodeX'") != std::string::npos, e.what());
  }
}

// LangGraph test_time_travel.py, test_fork_creates_branch_preserving_old_checkpoints.
BOOST_AUTO_TEST_CASE(test_fork_creates_branch_preserving_old_checkpoints) {
  auto call_count = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key("value", "append");
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"a"})}};
  });
  b.add_node("node_b", [call_count](const value&, node_context&) -> value {
    return object{{"value", value::array({"b" + std::to_string(++*call_count)})}};
  });
  b.add_node("node_c", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"c"})}};
  });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_b", "node_c");
  auto graph = b.compile(with_saver());
  const value cfg = thread("1");
  BOOST_TEST(graph->invoke(object{{"value", list{}}}, cfg).to_json() ==
             R"({"value":["a","b1","c"]})");

  const auto summary = [](const std::vector<state_snapshot>& history) {
    std::vector<std::string> out;
    for (const auto& s : history) {
      std::string next;
      for (const auto& n : s.next) next += (next.empty() ? "" : ",") + n;
      out.push_back("(" + next + ") " + s.values.to_json());
    }
    return out;
  };
  std::vector<state_snapshot> original_history = graph->get_state_history(cfg);
  const std::vector<std::string> original{
      R"(() {"value":["a","b1","c"]})", R"((node_c) {"value":["a","b1"]})",
      R"((node_b) {"value":["a"]})", R"((node_a) {"value":[]})", R"((__start__) {"value":[]})"};
  BOOST_TEST(summary(original_history) == original, boost::test_tools::per_element());

  const std::string before_b_id = before(graph, cfg, "node_b");
  BOOST_TEST_REQUIRE(!before_b_id.empty());
  value fork_config = graph->update_state(at("1", before_b_id), object{{"value", list{"x"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).to_json() == R"({"value":["a","x","b2","c"]})");

  // 5 original + 1 fork checkpoint (update_state) + 2 new nodes (node_b, node_c).
  std::vector<state_snapshot> post_fork_history = graph->get_state_history(cfg);
  std::vector<std::string> expected{R"(() {"value":["a","x","b2","c"]})",
                                    R"((node_c) {"value":["a","x","b2"]})",
                                    R"((node_b) {"value":["a","x"]})"};
  expected.insert(expected.end(), original.begin(), original.end());
  BOOST_TEST(summary(post_fork_history) == expected, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(post_fork_history.size() == 8u);
  BOOST_TEST_REQUIRE(post_fork_history[2].parent_config.has_value());
  BOOST_TEST(post_fork_history[2].parent_config->checkpoint_id == before_b_id);
  for (std::size_t i = 0; i < original_history.size(); ++i)
    BOOST_TEST(post_fork_history[3 + i].config.checkpoint_id ==
               original_history[i].config.checkpoint_id);
  BOOST_TEST(graph->get_state(cfg).values.to_json() == R"({"value":["a","x","b2","c"]})");
}

// LangGraph test_time_travel.py, test_fork_from_interrupt_checkpoint_refires.
BOOST_AUTO_TEST_CASE(test_fork_from_interrupt_checkpoint_refires) {
  auto graph = ask_graph();
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  graph->invoke(resume("hello"), cfg);
  std::string interrupt_checkpoint;
  for (const auto& s : graph->get_state_history(cfg))
    if (s.next == std::vector<std::string>{"ask_human"} && interrupt_checkpoint.empty())
      for (const auto& t : s.tasks)
        if (!t.interrupts.empty()) interrupt_checkpoint = s.config.checkpoint_id;
  BOOST_TEST_REQUIRE(!interrupt_checkpoint.empty());

  value fork_config =
      graph->update_state(at("1", interrupt_checkpoint), object{{"value", list{"forked"}}});
  BOOST_TEST(graph->invoke(value(), fork_config).get("__interrupt__").is_list());
  std::string final_value = graph->invoke(resume("different"), fork_config).get("value").to_json();
  BOOST_TEST(final_value.find("human:different") != std::string::npos, final_value);
}

// LangGraph test_time_travel.py, test_update_state_with_none_values.
BOOST_AUTO_TEST_CASE(test_update_state_with_none_values) {
  auto graph = ask_graph();
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  graph->invoke(resume("hello"), cfg);
  const std::string before_ask = before(graph, cfg, "ask_human");
  BOOST_TEST_REQUIRE(!before_ask.empty());
  value fork_config = graph->update_state(at("1", before_ask), value());
  value fork_result = graph->invoke(value(), fork_config);
  BOOST_TEST_REQUIRE(fork_result.get("__interrupt__").is_list());
  BOOST_TEST(fork_result.get("__interrupt__").as_list().at(0).get("value") ==
             value("What is your input?"));
  BOOST_TEST(graph->get_state(fork_config).metadata.get("source") == value("update"));
}

// LangGraph test_time_travel.py, test_multiple_interrupts_in_one_node.
BOOST_AUTO_TEST_CASE(test_multiple_interrupts_in_one_node) {
  state_graph b;
  b.add_key("value", "append");
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    value answer1 = ctx.interrupt("First question?");
    value answer2 = ctx.interrupt("Second question?");
    return object{
        {"value", value::array({"a1:" + answer1.as_string(), "a2:" + answer2.as_string()})}};
  });
  b.add_node("after", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"done"})}};
  });
  b.add_edge("__start__", "ask").add_edge("ask", "after");
  auto graph = b.compile(with_saver());
  const value cfg = thread("1");
  const auto first_interrupt = [](const value& r) {
    return r.get("__interrupt__").as_list().at(0).get("value");
  };
  BOOST_TEST(first_interrupt(graph->invoke(object{{"value", list{}}}, cfg)) ==
             value("First question?"));
  value state_config = snapshot_config(graph->get_state(cfg));
  BOOST_TEST(first_interrupt(graph->invoke(resume("ans1"), state_config)) ==
             value("Second question?"));
  state_config = snapshot_config(graph->get_state(cfg));
  BOOST_TEST(graph->invoke(resume("ans2"), state_config).to_json() ==
             R"({"value":["a1:ans1","a2:ans2","done"]})");
  const std::string before_ask = before(graph, cfg, "ask");
  BOOST_TEST_REQUIRE(!before_ask.empty());
  BOOST_TEST(first_interrupt(graph->invoke(value(), at("1", before_ask))) ==
             value("First question?"));
}

// LangGraph test_time_travel.py, test_multiple_forks_from_same_checkpoint.
BOOST_AUTO_TEST_CASE(test_multiple_forks_from_same_checkpoint) {
  state_graph b;
  b.add_key("value", "append");
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"a"})}};
  });
  b.add_node("node_b", [](const value&, node_context&) -> value {
    return object{{"value", value::array({"b"})}};
  });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  auto graph = b.compile(with_saver());
  const value cfg = thread("1");
  graph->invoke(object{{"value", list{}}}, cfg);
  const std::string before_b = before(graph, cfg, "node_b");
  BOOST_TEST_REQUIRE(!before_b.empty());
  value fork1 = graph->update_state(at("1", before_b), object{{"value", list{"fork1"}}});
  std::string result1 = graph->invoke(value(), fork1).get("value").to_json();
  value fork2 = graph->update_state(at("1", before_b), object{{"value", list{"fork2"}}});
  std::string result2 = graph->invoke(value(), fork2).get("value").to_json();
  BOOST_TEST(result1 == R"(["a","fork1","b"])");
  BOOST_TEST(result2 == R"(["a","fork2","b"])");
}

BOOST_AUTO_TEST_CASE(a_resume_on_a_thread_with_no_checkpoint_is_rejected_naming_the_thread) {
  auto graph = node1_node2().compile(with_saver());
  try {
    graph->invoke(resume("x"), thread("empty"));
    BOOST_FAIL("a resume of a thread with no checkpoint ran");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
    BOOST_TEST(std::string(e.what()).find("thread empty has no checkpoint") != std::string::npos,
               e.what());
  }
}
