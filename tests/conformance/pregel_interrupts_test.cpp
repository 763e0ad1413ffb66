// LangGraph's interrupt tests (libs/langgraph/tests/test_pregel.py): interrupt() in nodes, in
// loops and subgraphs, several per node, resumed one by one; see conformance.hpp.
#include <set>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/pregel/pregel.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

value resume_update(value v, value update) {
  command c;
  c.resume = std::move(v);
  c.update = std::move(update);
  return make_command(c);
}

// The interrupts of a snapshot (LangGraph StateSnapshot.interrupts): every task's, in order.
list snapshot_interrupts(const state_snapshot& s) {
  list out;
  for (const auto& t : s.tasks)
    for (const auto& i : t.interrupts) out.push_back(i);
  return out;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_interrupt_subgraph
BOOST_AUTO_TEST_CASE(test_interrupt_subgraph) {
  state_graph child;
  child.add_key("baz");
  child.add_node("bar", [](const value&, node_context& ctx) -> value {
    return object{{"baz", ctx.interrupt("Please provide baz value:")}};
  });
  child.add_edge("__start__", "bar");

  state_graph b;
  b.add_key("baz");
  b.add_node("foo", [](const value&, node_context&) -> value { return object{{"baz", "foo"}}; });
  b.add_node("bar", child.compile(opts()));
  b.add_edge("__start__", "foo").add_edge("foo", "bar");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  BOOST_TEST(json(graph->invoke(object{{"baz", ""}}, cfg)) ==
             R"({"baz":"foo","__interrupt__":[{"value":"Please provide baz value:","id":"*"}]})");
  BOOST_TEST(json(graph->invoke(resume("bar"), cfg)) == R"({"baz":"bar"})");
}

// libs/langgraph/tests/test_pregel.py::test_interrupt_multiple
BOOST_AUTO_TEST_CASE(test_interrupt_multiple) {
  for (const bool by_id : {false, true}) {
    state_graph b;
    b.add_key("my_key", "add");
    b.add_node("node", [](const value&, node_context& ctx) -> value {
      value answer = ctx.interrupt(object{{"value", 1}});
      value answer2 = ctx.interrupt(object{{"value", 2}});
      return object{{"my_key", answer.as_string() + " " + answer2.as_string()}};
    });
    b.add_edge("__start__", "node");
    auto graph = b.compile(opts_with_saver());
    const value cfg = thread("1");
    std::string last_id;
    // Streams a run's updates, remembering the id of the last interrupt it reports.
    const auto run = [&](const value& input) {
      strings out;
      graph->stream(input, cfg, stream_options{{stream_mode::updates}, false},
                    [&](const stream_event& e) {
                      out.push_back(json(e.data));
                      if (auto ids = interrupt_ids(e.data); !ids.empty()) last_id = ids.front();
                    });
      return out;
    };
    const auto answer = [&](const char* text) {
      return by_id ? value(object{{last_id, text}}) : value(text);
    };

    BOOST_TEST(run(object{{"my_key", "DE"}, {"market", "DE"}}) ==
                   strings{R"({"__interrupt__":[{"value":{"value":1},"id":"*"}]})"},
               boost::test_tools::per_element());
    BOOST_TEST(run(resume_update(answer("answer 1"), object{{"my_key", " foofoo "}})) ==
                   strings{R"({"__interrupt__":[{"value":{"value":2},"id":"*"}]})"},
               boost::test_tools::per_element());
    // test_pregel_async.py::test_interrupt_multiple: the update shows between the resumes.
    BOOST_TEST(graph->get_state(cfg).values.get("my_key") == value("DE foofoo "));

    BOOST_TEST(
        stream_all(*graph, resume(answer("answer 2")), cfg, {stream_mode::values}) ==
            (strings{R"({"my_key":"DE foofoo "})", R"({"my_key":"DE foofoo answer 1 answer 2"})"}),
        boost::test_tools::per_element());
  }
}

// libs/langgraph/tests/test_pregel.py::test_interrupt_loop
BOOST_AUTO_TEST_CASE(test_interrupt_loop) {
  state_graph b;
  b.add_key("age").add_key("other");
  b.add_node("node", [](const value&, node_context& ctx) -> value {
    std::string question = "How old are you?";
    value answer;
    for (int i = 0; i < 10; ++i) {
      answer = ctx.interrupt(question);
      const std::string& text = answer.as_string();
      const bool digits =
          !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoi(text) < 18) {
        question = "invalid response";
        answer = value();
      } else {
        break;
      }
    }
    return object{{"age", std::stoi(answer.as_string())}};
  });
  b.add_edge("__start__", "node");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  BOOST_TEST(stream_all(*graph, object{{"other", ""}}, cfg) ==
                 strings{R"({"__interrupt__":[{"value":"How old are you?","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*graph, resume("13"), cfg) ==
                 strings{R"({"__interrupt__":[{"value":"invalid response","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*graph, resume("15"), cfg) ==
                 strings{R"({"__interrupt__":[{"value":"invalid response","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*graph, resume("19"), cfg) == strings{R"({"node":{"age":19}})"},
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_multiple_interrupt_state_persistence
BOOST_AUTO_TEST_CASE(test_multiple_interrupt_state_persistence) {
  state_graph b;
  b.add_key("steps", "add");
  b.add_node("node", [](const value&, node_context& ctx) -> value {
    value first = ctx.interrupt("First interrupt");
    value second = ctx.interrupt("Second interrupt");
    return object{{"steps", list{first, second}}};
  });
  b.add_edge("__start__", "node");
  auto app = b.compile(opts_with_saver());
  const value cfg = thread("1");
  app->invoke(object{{"steps", list{}}}, cfg);
  BOOST_TEST(app->get_state(cfg).values.to_json() == R"({"steps":[]})");
  app->invoke(resume("step1"), cfg);
  BOOST_TEST(app->get_state(cfg).values.to_json() == R"({"steps":[]})");
  value result = app->invoke(resume("step2"), cfg);
  BOOST_TEST(result.get("steps").to_json() == R"(["step1","step2"])");
  BOOST_TEST(app->get_state(cfg).values.get("steps").to_json() == R"(["step1","step2"])");
}

// libs/langgraph/tests/test_pregel.py::test_node_before_interrupt_resume_graph_api
BOOST_AUTO_TEST_CASE(test_node_before_interrupt_resume_graph_api) {
  state_graph b;
  b.add_key("topics").add_key("answers", "add");
  b.add_node("setup", [](const value& s, node_context&) -> value {
    list topics;
    for (std::size_t i = 0; i < s.get("topics").as_list().size(); ++i)
      topics.emplace_back("topic " + std::to_string(i + 1));
    return object{{"topics", topics}};
  });
  b.add_node("ask", [](const value& s, node_context& ctx) -> value {
    list answers;
    for (const auto& topic : s.get("topics").as_list())
      answers.push_back(ctx.interrupt("Whats the answer for " + topic.as_string() + "?"));
    return object{{"answers", answers}};
  });
  b.add_edge("__start__", "setup").add_edge("setup", "ask").add_edge("ask", "__end__");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  value result = graph->invoke(object{{"topics", list{"a", "b"}}, {"answers", list{}}}, cfg);
  BOOST_TEST_REQUIRE(result.get("__interrupt__").as_list().size() == 1u);
  BOOST_TEST(result.get("__interrupt__").as_list()[0].get("value") ==
             value("Whats the answer for topic 1?"));
  result = graph->invoke(resume("answer1"), cfg);
  BOOST_TEST_REQUIRE(result.get("__interrupt__").as_list().size() == 1u);
  BOOST_TEST(result.get("__interrupt__").as_list()[0].get("value") ==
             value("Whats the answer for topic 2?"));
  BOOST_TEST(graph->invoke(resume("answer2"), cfg).to_json() ==
             R"({"topics":["topic 1","topic 2"],"answers":["answer1","answer2"]})");
}

// libs/langgraph/tests/test_pregel.py::test_multiple_nodes_before_interrupt_resume_graph_api
BOOST_AUTO_TEST_CASE(test_multiple_nodes_before_interrupt_resume_graph_api) {
  state_graph b;
  b.add_key("value").add_key("answer");
  b.add_node("step_a", [](const value& s, node_context&) -> value {
    return object{{"value", s.get("value").as_int() + 1}};
  });
  b.add_node("step_b", [](const value& s, node_context&) -> value {
    return object{{"value", s.get("value").as_int() * 2}};
  });
  b.add_node("ask", [](const value& s, node_context& ctx) -> value {
    return object{
        {"answer", ctx.interrupt("Result so far is " + std::to_string(s.get("value").as_int()) +
                                 ". What next?")}};
  });
  b.add_edge("__start__", "step_a").add_edge("step_a", "step_b").add_edge("step_b", "ask");
  b.add_edge("ask", "__end__");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  value result = graph->invoke(object{{"value", 5}, {"answer", ""}}, cfg);
  BOOST_TEST_REQUIRE(result.get("__interrupt__").is_list());
  BOOST_TEST(result.get("__interrupt__").as_list()[0].get("value") ==
             value("Result so far is 12. What next?"));
  BOOST_TEST(graph->invoke(resume("continue"), cfg).to_json() ==
             R"({"value":12,"answer":"continue"})");
}

// libs/langgraph/tests/test_pregel.py::test_node_before_multiple_interrupt_cycles_graph_api
BOOST_AUTO_TEST_CASE(test_node_before_multiple_interrupt_cycles_graph_api) {
  state_graph b;
  b.add_key("count").add_key("data");
  b.add_node("prepare", [](const value& s, node_context&) -> value {
    return object{{"count", s.get("count").as_int() + 10}};
  });
  b.add_node("multi_interrupt", [](const value&, node_context& ctx) -> value {
    value first = ctx.interrupt("First question?");
    value second = ctx.interrupt("Second question?");
    return object{{"data", first.as_string() + "," + second.as_string()}};
  });
  b.add_edge("__start__", "prepare").add_edge("prepare", "multi_interrupt");
  b.add_edge("multi_interrupt", "__end__");
  auto graph = b.compile(opts_with_saver());
  const value cfg = thread("1");
  value result = graph->invoke(object{{"count", 0}, {"data", ""}}, cfg);
  BOOST_TEST(result.get("__interrupt__").as_list().at(0).get("value") == value("First question?"));
  result = graph->invoke(resume("first_answer"), cfg);
  BOOST_TEST(result.get("__interrupt__").as_list().at(0).get("value") == value("Second question?"));
  BOOST_TEST(graph->invoke(resume("second_answer"), cfg).to_json() ==
             R"({"count":10,"data":"first_answer,second_answer"})");
}

// libs/langgraph/tests/test_pregel.py::test_double_interrupt_subgraph
BOOST_AUTO_TEST_CASE(test_double_interrupt_subgraph) {
  const auto builder = [] {
    state_graph b;
    b.add_key("input");
    b.add_node("node_1", [](const value&, node_context& ctx) -> value {
      return object{{"input", ctx.interrupt("interrupt node 1")}};
    });
    b.add_node("node_2", [](const value&, node_context& ctx) -> value {
      return object{{"input", ctx.interrupt("interrupt node 2")}};
    });
    b.add_edge("__start__", "node_1").add_edge("node_1", "node_2").add_edge("node_2", "__end__");
    return b;
  };
  auto saver_ = saver();
  compile_options with_shared = opts();
  with_shared.checkpointer = saver_;

  auto subgraph = builder().compile(with_shared);
  value cfg = thread("sub");
  BOOST_TEST(stream_all(*subgraph, object{{"input", "test"}}, cfg) ==
                 strings{R"({"__interrupt__":[{"value":"interrupt node 1","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*subgraph, resume("123"), cfg) ==
                 (strings{R"({"node_1":{"input":"123"}})",
                          R"({"__interrupt__":[{"value":"interrupt node 2","id":"*"}]})"}),
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*subgraph, resume("123"), cfg) == strings{R"({"node_2":{"input":"123"}})"},
             boost::test_tools::per_element());

  // The same graph without a checkpointer, invoked from inside a node of a parent.
  std::shared_ptr<const pregel> inner = builder().compile(opts());
  state_graph parent;
  parent.add_key("input");
  parent.add_node("invoke_sub_agent",
                  [inner](const value& s, node_context&) -> value { return inner->invoke(s); });
  parent.add_edge("__start__", "invoke_sub_agent").add_edge("invoke_sub_agent", "__end__");
  auto parent_agent = parent.compile(with_shared);
  cfg = thread("parent");
  BOOST_TEST(stream_all(*parent_agent, object{{"input", "test"}}, cfg) ==
                 strings{R"({"__interrupt__":[{"value":"interrupt node 1","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*parent_agent, resume(true), cfg) ==
                 strings{R"({"__interrupt__":[{"value":"interrupt node 2","id":"*"}]})"},
             boost::test_tools::per_element());
  BOOST_TEST(stream_all(*parent_agent, resume(true), cfg) ==
                 strings{R"({"invoke_sub_agent":{"input":true}})"},
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_multi_resume
BOOST_AUTO_TEST_CASE(test_multi_resume) {
  auto saver_ = saver();
  compile_options with_shared = opts();
  with_shared.checkpointer = saver_;
  state_graph child;
  child.add_key("prompt").add_key("human_input").add_key("human_inputs");
  child.add_node("get_human_input", [](const value& s, node_context& ctx) -> value {
    value human_input = ctx.interrupt(s.get("prompt"));
    return object{{"human_input", human_input}, {"human_inputs", list{human_input}}};
  });
  child.add_edge("__start__", "get_human_input").add_edge("get_human_input", "__end__");

  state_graph parent;
  parent.add_key("prompts").add_key("human_inputs", "add");
  parent.add_node("child_graph", child.compile(with_shared));
  parent.add_node("cleanup", [](const value& s, node_context&) -> value {
    if (s.get("human_inputs").as_list().size() != s.get("prompts").as_list().size())
      throw std::runtime_error("cleanup: one human input per prompt expected");
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
  auto parent_graph = parent.compile(with_shared);
  const value cfg = thread("1");
  const list prompts{"a", "b", "c", "d", "e"};

  value events = parent_graph->invoke(object{{"prompts", prompts}}, cfg);
  BOOST_TEST_REQUIRE(events.get("__interrupt__").is_list());
  std::set<std::string> asked;
  for (const auto& i : events.get("__interrupt__").as_list())
    asked.insert(i.get("value").as_string());
  BOOST_TEST((asked == std::set<std::string>{"a", "b", "c", "d", "e"}));

  object resume_map;
  for (const auto& i : snapshot_interrupts(parent_graph->get_state(cfg)))
    resume_map.set(i.get("id").as_string(), "human input for prompt " + i.get("value").as_string());
  BOOST_TEST(resume_map.size() == prompts.size());
  BOOST_TEST(parent_graph->invoke(resume(value(resume_map)), cfg).to_json() ==
             R"({"prompts":["a","b","c","d","e"],"human_inputs":["human input for prompt a",)"
             R"("human input for prompt b","human input for prompt c","human input for prompt d",)"
             R"("human input for prompt e"]})");
}

// A low-level graph may stream the tasks topic like any channel (LangGraph's Pregel streams
// every channel unless told otherwise): its Sends stay readable while their tasks run, as when
// a PUSH task interrupts and the run shows the channels with the interrupt.
BOOST_AUTO_TEST_CASE(a_graph_streaming_the_tasks_topic_sees_its_sends_while_they_run) {
  const std::string tasks = "__pregel_tasks";
  pregel_graph g;
  g.input_channels = {"input"};
  g.input_single = true;
  g.output_channels = {"out"};
  g.state_channels = {"out", tasks};
  g.channels = {{"input", std::make_shared<channels::last_value>("input")},
                {"out", std::make_shared<channels::topic>("out", true)},
                {"never", std::make_shared<channels::last_value>("never")},
                {tasks, std::make_shared<channels::topic>(tasks)}};
  g.nodes.push_back(subscribe_node("fan", {"input"},
                                   [](const value& n, node_context&) -> value {
                                     list sends;
                                     for (std::int64_t i = 0; i < n.as_int(); ++i)
                                       sends.push_back(make_send("ask", i));
                                     return value(std::move(sends));
                                   },
                                   {tasks}));
  g.nodes.push_back(
      subscribe_node("ask", {"never"},  // runs only from Sends
                     [](const value& i, node_context& ctx) -> value {
                       return object{{"i", i}, {"answer", ctx.interrupt("answer " + i.to_json())}};
                     },
                     {"out"}));
  runtime_options o;
  o.mode = mode();
  o.checkpointer = saver();
  auto app = std::make_shared<pregel>(std::move(g), o);
  list values;
  app->stream(2, thread("1"), stream_options{{stream_mode::values}, false},
              [&](const stream_event& e) { values.push_back(e.data); });
  BOOST_REQUIRE(!values.empty());
  const value sends_shown = values.front().get(tasks);
  BOOST_TEST(sends_shown == value(list{make_send("ask", 0), make_send("ask", 1)}),
             value(values).to_json());
  // Each interrupted task shows its interrupt, beside the Sends still waiting.
  BOOST_REQUIRE_EQUAL(values.size(), 3u);
  for (std::size_t i = 1; i < values.size(); ++i) {
    BOOST_TEST(values[i].get(tasks) == sends_shown, value(values).to_json());
    BOOST_TEST(values[i].get("__interrupt__").as_list().size() == 1u, value(values).to_json());
  }
}
