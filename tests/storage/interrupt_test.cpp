// Human in the loop: interrupt() in nodes, Command(resume=...), static interrupt_before/after.
#include <atomic>
#include <boost/test/unit_test.hpp>

#include "coordinator/test_execution.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "support/expect_error.hpp"
#include "test_saver.hpp"

using namespace superstep;
using superstep::test::expect_error;

namespace {

using test::thread;

using test::resume;

compile_options with_saver(std::shared_ptr<checkpoint_saver> saver) {
  compile_options o = test::opts();
  o.checkpointer = std::move(saver);
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(interrupt_pauses_and_resume_reruns_the_node_with_the_answer) {
  auto runs = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key("name").add_key("greeting");
  b.add_node("ask", [runs](const value&, node_context& ctx) -> value {
    runs->fetch_add(1);
    value name = ctx.interrupt("what is your name?");
    return object{{"name", name}};
  });
  b.add_node("greet", [](const value& st, node_context&) -> value {
    return object{{"greeting", "hello " + st.get("name").as_string()}};
  });
  b.add_edge("__start__", "ask").add_edge("ask", "greet");
  auto graph = b.compile(with_saver(test::make_saver()));

  value first = graph->invoke(object{{"name", ""}}, thread("t"));
  const value& pending = first.get("__interrupt__");
  BOOST_TEST_REQUIRE(pending.is_list());
  BOOST_TEST_REQUIRE(pending.as_list().size() == 1u);
  BOOST_TEST(pending.as_list()[0].get("value").as_string() == "what is your name?");
  BOOST_TEST(pending.as_list()[0].get("id").as_string().size() == 32u);
  BOOST_TEST(first.get("name").as_string() == "");

  state_snapshot s = graph->get_state(thread("t"));
  BOOST_TEST((s.next == std::vector<std::string>{"ask"}));
  BOOST_TEST_REQUIRE(s.tasks.size() == 1u);
  BOOST_TEST(s.tasks[0].interrupts.size() == 1u);

  value done = graph->invoke(resume("Lance"), thread("t"));
  BOOST_TEST(done.to_json() == R"({"name":"Lance","greeting":"hello Lance"})");
  BOOST_TEST(runs->load() == 2);  // the node re-runs from its start
  BOOST_TEST(graph->get_state(thread("t")).next.empty());

  // As LangGraph: a resume with no pending interrupt is no error; nothing is left to run.
  BOOST_TEST(graph->invoke(resume("again"), thread("t")).to_json() == done.to_json());
  BOOST_TEST(runs->load() == 2);
}

BOOST_AUTO_TEST_CASE(several_interrupt_calls_in_one_node_are_answered_in_order) {
  state_graph b;
  b.add_key("answers", "append");
  b.add_node("form", [](const value&, node_context& ctx) -> value {
    value a = ctx.interrupt("first?");
    value c = ctx.interrupt("second?");
    return object{{"answers", value::array({a, c})}};
  });
  b.add_edge("__start__", "form");
  auto graph = b.compile(with_saver(test::make_saver()));
  value r1 = graph->invoke(object{{"answers", list{}}}, thread("t"));
  BOOST_TEST(r1.get("__interrupt__").as_list()[0].get("value").as_string() == "first?");
  value r2 = graph->invoke(resume(1), thread("t"));
  BOOST_TEST(r2.get("__interrupt__").as_list()[0].get("value").as_string() == "second?");
  value r3 = graph->invoke(resume(2), thread("t"));
  BOOST_TEST(r3.to_json() == R"({"answers":[1,2]})");
}

BOOST_AUTO_TEST_CASE(parallel_interrupts_are_resumed_by_id_and_siblings_do_not_rerun) {
  auto sibling_runs = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key("log", "append");
  auto asker = [](std::string name) {
    return [name](const value&, node_context& ctx) -> value {
      return object{{"log", value::array({name + "=" + ctx.interrupt(name + "?").to_json()})}};
    };
  };
  b.add_node("left", asker("left")).add_node("right", asker("right"));
  b.add_node("quiet", [sibling_runs](const value&, node_context&) -> value {
    sibling_runs->fetch_add(1);
    return object{{"log", value::array({"quiet"})}};
  });
  b.add_edge("__start__", "left").add_edge("__start__", "right").add_edge("__start__", "quiet");
  auto graph = b.compile(with_saver(test::make_saver()));

  value r1 = graph->invoke(object{{"log", list{}}}, thread("t"));
  const list& pending = r1.get("__interrupt__").as_list();
  BOOST_TEST_REQUIRE(pending.size() == 2u);
  expect_error([&] { graph->invoke(resume("one answer"), thread("t")); },
               error_code::invalid_argument, "multiple pending interrupts");

  object by_id;
  for (const auto& i : pending)
    by_id.set(i.get("id").as_string(), value(i.get("value").as_string() == "left?" ? 1 : 2));
  value r2 = graph->invoke(resume(value(std::move(by_id))), thread("t"));
  BOOST_TEST(r2.to_json() == R"({"log":["left=1","quiet","right=2"]})");
  BOOST_TEST(sibling_runs->load() == 1);  // its writes were saved when the others interrupted
}

BOOST_AUTO_TEST_CASE(interrupt_before_and_after_stop_the_run_and_resuming_continues) {
  auto make = [](std::vector<std::string> before, std::vector<std::string> after) {
    state_graph b;
    b.add_key("trail", "append");
    for (std::string n : {"a", "b", "c"})
      b.add_node(n, [n](const value&, node_context&) -> value {
        return object{{"trail", value::array({n})}};
      });
    b.add_edge("__start__", "a").add_edge("a", "b").add_edge("b", "c");
    compile_options o = with_saver(test::make_saver());
    o.interrupt_before = std::move(before);
    o.interrupt_after = std::move(after);
    return b.compile(o);
  };
  auto g1 = make({"b"}, {});
  BOOST_TEST(g1->invoke(object{{"trail", list{}}}, thread("t")).to_json() == R"({"trail":["a"]})");
  BOOST_TEST((g1->get_state(thread("t")).next == std::vector<std::string>{"b"}));
  BOOST_TEST(g1->invoke(value(), thread("t")).to_json() == R"({"trail":["a","b","c"]})");

  auto g2 = make({}, {"a"});
  BOOST_TEST(g2->invoke(object{{"trail", list{}}}, thread("t")).to_json() == R"({"trail":["a"]})");
  BOOST_TEST((g2->get_state(thread("t")).next == std::vector<std::string>{"b"}));
  BOOST_TEST(g2->invoke(value(), thread("t")).to_json() == R"({"trail":["a","b","c"]})");
}

BOOST_AUTO_TEST_CASE(the_updates_stream_reports_the_interrupt) {
  state_graph b;
  b.add_key("x");
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    return object{{"x", ctx.interrupt("?")}};
  });
  b.add_edge("__start__", "ask");
  auto graph = b.compile(with_saver(test::make_saver()));
  std::vector<std::string> events;
  graph->stream(object{{"x", 0}}, thread("t"), stream_options{{stream_mode::updates}, false},
                [&](const stream_event& e) { events.push_back(e.data.to_json()); });
  BOOST_TEST_REQUIRE(events.size() == 1u);
  BOOST_TEST(events[0].rfind(R"({"__interrupt__":[{"value":"?","id":")", 0) == 0, events[0]);
}

BOOST_AUTO_TEST_CASE(with_exit_durability_an_interrupted_run_can_still_be_resumed) {
  state_graph b;
  b.add_key("x").add_key("log", "append");
  b.add_node("first", [](const value&, node_context&) -> value {
    return object{{"log", value::array({"first"})}};
  });
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    return object{{"x", ctx.interrupt("?")}};
  });
  b.add_edge("__start__", "first").add_edge("first", "ask");
  auto graph = b.compile(with_saver(test::make_saver()));
  value cfg = object{{"configurable", object{{"thread_id", "t"}}}, {"durability", "exit"}};
  BOOST_TEST(graph->invoke(object{{"x", 0}, {"log", list{}}}, cfg).get("__interrupt__").is_list());
  BOOST_TEST(graph->get_state_history(thread("t")).size() == 1u);
  BOOST_TEST(graph->invoke(resume(42), cfg).to_json() == R"({"x":42,"log":["first"]})");
}

BOOST_AUTO_TEST_CASE(a_command_update_on_resume_is_saved_with_the_next_checkpoint) {
  // The update changes `note`, which the resumed step does not touch again: its new value must
  // still reach the saver, or a later read of the thread would lose it.
  auto saver = test::make_saver();
  state_graph b;
  b.add_key("x").add_key("note");
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    return object{{"x", ctx.interrupt("?")}};
  });
  b.add_edge("__start__", "ask");
  auto graph = b.compile(with_saver(saver));
  graph->invoke(object{{"x", 0}, {"note", "old"}}, thread("t"));
  command c;
  c.resume = value(1);
  c.update = object{{"note", "new"}};
  BOOST_TEST(graph->invoke(make_command(c), thread("t")).to_json() == R"({"x":1,"note":"new"})");
  // Read back through a fresh view of the saver: values come from what was stored.
  BOOST_TEST(graph->get_state(thread("t")).values.to_json() == R"({"x":1,"note":"new"})");
}

namespace {

// "mode json" per event, the interrupt ids blanked (they are random).
std::vector<std::string> stream_lines(const std::shared_ptr<pregel>& graph, const value& input,
                                      const value& cfg, std::vector<stream_mode> modes) {
  std::vector<std::string> out;
  graph->stream(input, cfg, stream_options{std::move(modes), false}, [&](const stream_event& e) {
    std::string j = e.data.to_json();
    for (auto p = j.find(R"("id":")"); p != std::string::npos; p = j.find(R"("id":")", p + 1)) {
      auto end = j.find('"', p + 6);
      j.replace(p + 6, end - (p + 6), "*");
    }
    out.push_back(std::string(stream_mode_name(e.mode)) + " " + j);
  });
  return out;
}

}  // namespace

// LangGraph libs/langgraph/tests/test_pregel.py::test_interrupt_stream_mode_values
BOOST_AUTO_TEST_CASE(test_interrupt_stream_mode_values) {
  state_graph b;
  b.add_key("robot_input").add_key("human_input");
  b.add_node("robot_input_node", [](const value&, node_context&) -> value {
    return object{{"robot_input", "beep boop i am a robot"}};
  });
  b.add_node("human_input_node", [](const value&, node_context& ctx) -> value {
    value human = ctx.interrupt("interrupt");
    command c;
    c.update = object{{"human_input", human}};
    return make_command(c);
  });
  b.add_edge("__start__", "robot_input_node").add_edge("robot_input_node", "human_input_node");
  auto graph = b.compile(with_saver(test::make_saver()));
  const std::vector<stream_mode> modes{stream_mode::updates, stream_mode::values};
  auto first = stream_lines(graph, object{{"human_input", value()}}, thread("t"), modes);
  // The input (null for human_input) is a values event here; LangGraph's empty State() is not.
  const std::vector<std::string> expected{
      R"(values {"human_input":null})",
      R"(updates {"robot_input_node":{"robot_input":"beep boop i am a robot"}})",
      R"(values {"robot_input":"beep boop i am a robot","human_input":null})",
      R"(updates {"__interrupt__":[{"value":"interrupt","id":"*"}]})",
      R"(values {"robot_input":"beep boop i am a robot","human_input":null,"__interrupt__":[{"value":"interrupt","id":"*"}]})"};
  BOOST_TEST(first == expected, boost::test_tools::per_element());
  auto second = stream_lines(graph, resume("i am a human"), thread("t"), modes);
  const std::vector<std::string> expected2{
      R"(values {"robot_input":"beep boop i am a robot","human_input":null})",
      R"(updates {"human_input_node":{"human_input":"i am a human"}})",
      R"(values {"robot_input":"beep boop i am a robot","human_input":"i am a human"})"};
  BOOST_TEST(second == expected2, boost::test_tools::per_element());
}
