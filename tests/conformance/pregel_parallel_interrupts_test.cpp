// LangGraph's tests of interrupts raised by several tasks of one step
// (libs/langgraph/tests/test_pregel.py): resumed one interrupt id at a time, all at once, or
// refused with a null resume; the `updates` and `values` streams at those steps; see
// conformance.hpp.
#include <algorithm>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

strings sorted(strings s) {
  std::sort(s.begin(), s.end());
  return s;
}

// Child graph: `nodes` run in parallel from START, each asking interrupt(prompt) and
// appending the answer to human_inputs (LangGraph's get_human_input / get_dolphin_input).
std::shared_ptr<pregel> child_graph(const std::vector<std::string>& nodes) {
  state_graph child;
  child.add_key("prompt").add_key("human_input").add_key("human_inputs", "add", list{});
  for (const auto& name : nodes) {
    child.add_node(name, [](const value& s, node_context& ctx) -> value {
      value human_input = ctx.interrupt(s.get("prompt"));
      return object{{"human_inputs", list{human_input}}};
    });
    child.add_edge("__start__", name);
  }
  return child.compile(opts());
}

// Parent: one Send to child_graph per prompt, then cleanup, which checks `per_prompt` inputs
// arrived per prompt.
std::shared_ptr<pregel> parent_graph(std::shared_ptr<pregel> child, std::size_t per_prompt) {
  state_graph parent;
  parent.add_key("prompts").add_key("human_inputs", "add", list{});
  parent.add_node("child_graph", std::move(child));
  parent.add_node("cleanup", [per_prompt](const value& s, node_context&) -> value {
    if (s.get("human_inputs").as_list().size() != s.get("prompts").as_list().size() * per_prompt)
      throw std::runtime_error("cleanup: missing human inputs");
    return value();
  });
  parent.add_conditional_edges(
      "__start__",
      [](const value& s, node_context&) -> value {
        list sends;
        for (const auto& prompt : s.get("prompts").as_list())
          sends.push_back(make_send("child_graph", object{{"prompt", prompt}}));
        return sends;
      },
      {{"child_graph", "child_graph"}});
  parent.add_edge("child_graph", "cleanup").add_edge("cleanup", "__end__");
  return parent.compile(opts_with_saver());
}

// LangGraph's client loop of the parallel-interrupt tests: run, and while the run reports
// interrupts, resume the first of them by its id with "Resume #<n>". The updates of each run.
std::vector<strings> resume_one_at_a_time(const pregel& graph, value input) {
  const value cfg = thread("1");
  std::vector<strings> runs;
  for (int n = 1; n <= 10; ++n) {
    strings events;
    std::vector<std::string> ids;
    graph.stream(input, cfg, stream_options{{stream_mode::updates}, false},
                 [&](const stream_event& e) {
                   events.push_back(json(e.data));
                   for (auto& id : interrupt_ids(e.data)) ids.push_back(id);
                 });
    for (auto& e : events) BOOST_TEST_MESSAGE("run " << n << ": " << e);
    runs.push_back(std::move(events));
    if (ids.empty()) return runs;
    input = resume(object{{ids.front(), "Resume #" + std::to_string(n)}});
  }
  BOOST_FAIL("Detected infinite loop");
  return runs;
}

std::string interrupt_of(const char* v) {
  return std::string(R"({"__interrupt__":[{"value":")") + v + R"(","id":"*"}]})";
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_parallel_interrupts
BOOST_AUTO_TEST_CASE(test_parallel_interrupts) {
  auto graph = parent_graph(child_graph({"get_human_input"}), 1);
  auto runs = resume_one_at_a_time(*graph, object{{"prompts", list{"a", "b"}}});
  BOOST_TEST_REQUIRE(runs.size() == 3u);
  BOOST_TEST(sorted(runs[0]) == sorted({interrupt_of("a"), interrupt_of("b")}),
             boost::test_tools::per_element());
  const std::string resumed = R"({"child_graph":{"human_inputs":["Resume #1"]}})";
  BOOST_TEST((sorted(runs[1]) == sorted({interrupt_of("a"), resumed}) ||
              sorted(runs[1]) == sorted({interrupt_of("b"), resumed})),
             "second run: " << value(list(runs[1].begin(), runs[1].end())).to_json());
  BOOST_TEST(
      sorted(runs[2]) ==
          sorted(
              {R"({"child_graph":{"human_inputs":["Resume #1"]},"__metadata__":{"cached":true}})",
               R"({"child_graph":{"human_inputs":["Resume #2"]}})", R"({"cleanup":null})"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_parallel_interrupts_double
BOOST_AUTO_TEST_CASE(test_parallel_interrupts_double) {
  auto graph = parent_graph(child_graph({"get_human_input", "get_dolphin_input"}), 2);
  auto runs = resume_one_at_a_time(*graph, object{{"prompts", list{"a", "b"}}});
  BOOST_TEST(runs.size() == 5u);
}

// libs/langgraph/tests/test_pregel.py::test_null_resume_disallowed_with_multiple_interrupts
BOOST_AUTO_TEST_CASE(test_null_resume_disallowed_with_multiple_interrupts) {
  state_graph b;
  b.add_key("text_1").add_key("text_2");
  b.add_node("human_node_1", [](const value& s, node_context& ctx) -> value {
    return object{{"text_1", ctx.interrupt(object{{"text_to_revise", s.get("text_1")}})}};
  });
  b.add_node("human_node_2", [](const value& s, node_context& ctx) -> value {
    return object{{"text_2", ctx.interrupt(object{{"text_to_revise", s.get("text_2")}})}};
  });
  b.add_edge("__start__", "human_node_1").add_edge("__start__", "human_node_2");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  graph->invoke(object{{"text_1", "original text 1"}, {"text_2", "original text 2"}}, cfg);

  object resume_map;
  for (const auto& t : graph->get_state(cfg).tasks)
    for (const auto& i : t.interrupts)
      resume_map.set(i.get("id").as_string(),
                     "resume for prompt: " + i.get("value").get("text_to_revise").as_string());
  BOOST_TEST(resume_map.size() == 2u);
  try {
    graph->invoke(resume("singular resume"), cfg);
    BOOST_FAIL("a resume without interrupt ids must be refused while two interrupts pend");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::invalid_argument);
    BOOST_TEST(
        std::string(e.what()).find("When there are multiple pending interrupts, you must "
                                   "specify the interrupt id when resuming") != std::string::npos,
        e.what());
  }
  BOOST_TEST(graph->invoke(resume(value(resume_map)), cfg).to_json() ==
             R"({"text_1":"resume for prompt: original text 1",)"
             R"("text_2":"resume for prompt: original text 2"})");
}

// libs/langgraph/tests/test_pregel.py::test_interrupt_stream_mode_values
BOOST_AUTO_TEST_CASE(test_interrupt_stream_mode_values) {
  state_graph b;
  b.add_key("robot_input").add_key("human_input");
  b.add_node("robot_input_node", [](const value&, node_context&) -> value {
    return object{{"robot_input", "beep boop i am a robot"}};
  });
  b.add_node("human_input_node", [](const value&, node_context& ctx) -> value {
    return make_cmd(object{{"human_input", ctx.interrupt("interrupt")}});
  });
  b.add_edge("__start__", "robot_input_node").add_edge("robot_input_node", "human_input_node");
  auto app = b.compile(opts_with_saver());
  const value cfg = thread("1");
  const std::vector<stream_mode> modes{stream_mode::updates, stream_mode::values};
  BOOST_TEST(
      stream_all(*app, object{}, cfg, modes) ==
          (strings{R"(["updates",{"robot_input_node":{"robot_input":"beep boop i am a robot"}}])",
                   R"(["values",{"robot_input":"beep boop i am a robot"}])",
                   R"(["updates",{"__interrupt__":[{"value":"interrupt","id":"*"}]}])",
                   R"(["values",{"robot_input":"beep boop i am a robot",)"
                   R"("__interrupt__":[{"value":"interrupt","id":"*"}]}])"}),
      boost::test_tools::per_element());
  BOOST_TEST(stream_all(*app, resume("i am a human"), cfg, modes) ==
                 (strings{R"(["values",{"robot_input":"beep boop i am a robot"}])",
                          R"(["updates",{"human_input_node":{"human_input":"i am a human"}}])",
                          R"(["values",{"robot_input":"beep boop i am a robot",)"
                          R"("human_input":"i am a human"}])"}),
             boost::test_tools::per_element());
}
