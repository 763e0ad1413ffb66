// libs/langgraph/tests/test_subgraph_persistence.py: what a subgraph keeps across its parent's
// invocations under each of LangGraph's checkpointer settings (None: per invocation, True:
// stateful, False: nothing). LangGraph's subgraphs here are invoked inside a node function,
// which hands them the node's config implicitly; ours are run the same way through
// `pregel::run_nested(input, ctx)`.
#include <atomic>

#include "superstep/core/error.hpp"
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

value human(const std::string& text) { return object{{"type", "human"}, {"content", text}}; }
value ai(const std::string& text) { return object{{"type", "ai"}, {"content", text}}; }

// LangGraph's MessagesState.
state_graph messages_graph() {
  state_graph b;
  b.add_key("messages", "add_messages", value(list{}));
  return b;
}

strings texts(const value& state) {
  strings out;
  for (const auto& m : state.get("messages").as_list()) out.push_back(m.get("content").as_string());
  return out;
}

std::string last_text(const value& state) { return texts(state).back(); }

// START -> echo ("<prefix>: <last message>").
std::shared_ptr<pregel> echo_graph(const std::string& prefix, compile_options o = opts()) {
  state_graph b = messages_graph();
  b.add_node("echo", [prefix](const value& state, node_context&) -> value {
    return object{{"messages", value::array({ai(prefix + ": " + last_text(state))})}};
  });
  b.add_edge("__start__", "echo");
  return b.compile(std::move(o));
}

// START -> process (interrupt, then "Processing: <last>") -> respond ("Done").
std::shared_ptr<pregel> process_respond_graph(compile_options o = opts()) {
  state_graph b = messages_graph();
  b.add_node("process", [](const value& state, node_context& ctx) -> value {
    ctx.interrupt("continue?");
    return object{{"messages", value::array({ai("Processing: " + last_text(state))})}};
  });
  b.add_node("respond", [](const value&, node_context&) -> value {
    return object{{"messages", value::array({ai("Done")})}};
  });
  b.add_edge("__start__", "process").add_edge("process", "respond");
  return b.compile(std::move(o));
}

// START -> <node> (the subgraph), compiled stateful (LangGraph's wrapper with
// checkpointer=True).
std::shared_ptr<pregel> stateful_wrapper(const std::string& node, std::shared_ptr<pregel> inner) {
  state_graph b = messages_graph();
  b.add_node(node, std::move(inner));
  b.add_edge("__start__", node);
  return b.compile(sub_opts(subgraph_checkpointer::stateful));
}

// The parent: START -> call_inner, which runs `inner` on "tell me about <topic>" (apples, then
// bananas) and keeps the texts of what it returned in `seen`.
struct calls_inner {
  std::shared_ptr<std::vector<strings>> seen = std::make_shared<std::vector<strings>>();
  std::shared_ptr<std::mutex> m = std::make_shared<std::mutex>();
  std::shared_ptr<pregel> parent;

  explicit calls_inner(std::shared_ptr<pregel> inner) {
    state_graph b;
    b.add_key("result");
    b.add_node("call_inner", [inner, seen = seen, m = m](const value&, node_context& ctx) -> value {
      std::size_t done;
      {
        std::lock_guard lock(*m);
        done = seen->size();
      }
      const std::string topic = done == 0 ? "apples" : "bananas";
      value resp = inner->run_nested(
          object{{"messages", value::array({human("tell me about " + topic)})}}, ctx);
      std::lock_guard lock(*m);
      seen->push_back(texts(resp));
      return object{{"result", last_text(resp)}};
    });
    b.add_edge("__start__", "call_inner");
    parent = b.compile(opts_with_saver());
  }

  strings at(std::size_t i) const {
    std::lock_guard lock(*m);
    BOOST_TEST_REQUIRE(seen->size() > i);
    return (*seen)[i];
  }
};

const value empty_result = object{{"result", ""}};

// {"result": "", "__interrupt__": [{"value": "continue?", "id": <any string>}]}.
void check_interrupted(const value& result) {
  BOOST_TEST(result.get("result") == value(""));
  const value& i = result.get("__interrupt__");
  BOOST_TEST_REQUIRE(i.is_list());
  BOOST_TEST_REQUIRE(i.as_list().size() == 1u);
  BOOST_TEST(i.as_list()[0].get("value") == value("continue?"));
  BOOST_TEST(i.as_list()[0].get("id").is_string());
  BOOST_TEST(result.as_object().size() == 2u);
}

}  // namespace

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateless_interrupt_resume
BOOST_AUTO_TEST_CASE(test_stateless_interrupt_resume) {
  calls_inner p(process_respond_graph());
  const value config = thread("t");
  check_interrupted(p.parent->invoke(empty_result, config));
  BOOST_TEST(p.parent->invoke(resume(true), config).to_json() == R"({"result":"Done"})");
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateless_state_resets
BOOST_AUTO_TEST_CASE(test_stateless_state_resets) {
  calls_inner p(echo_graph("Processing"));
  const value config = thread("t");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processing: tell me about apples"})");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processing: tell me about bananas"})");
  BOOST_TEST(p.at(0) == (strings{"tell me about apples", "Processing: tell me about apples"}),
             boost::test_tools::per_element());
  BOOST_TEST(p.at(1) == (strings{"tell me about bananas", "Processing: tell me about bananas"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateless_state_resets_with_interrupt
BOOST_AUTO_TEST_CASE(test_stateless_state_resets_with_interrupt) {
  calls_inner p(process_respond_graph());
  const value config = thread("t");
  for (int round = 0; round < 2; ++round) {
    check_interrupted(p.parent->invoke(empty_result, config));
    BOOST_TEST(p.parent->invoke(resume(true), config).to_json() == R"({"result":"Done"})");
  }
  BOOST_TEST(
      p.at(0) == (strings{"tell me about apples", "Processing: tell me about apples", "Done"}),
      boost::test_tools::per_element());
  BOOST_TEST(
      p.at(1) == (strings{"tell me about bananas", "Processing: tell me about bananas", "Done"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_checkpointer_false_no_persistence
BOOST_AUTO_TEST_CASE(test_checkpointer_false_no_persistence) {
  auto inner = echo_graph("Processed", sub_opts(subgraph_checkpointer::none));
  calls_inner p(inner);
  const value config = thread("t");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processed: tell me about apples"})");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processed: tell me about bananas"})");
  BOOST_TEST(p.at(0) == (strings{"tell me about apples", "Processed: tell me about apples"}),
             boost::test_tools::per_element());
  BOOST_TEST(p.at(1) == (strings{"tell me about bananas", "Processed: tell me about bananas"}),
             boost::test_tools::per_element());
  // No checkpoint of the subgraph's, in any namespace: only the parent's.
  list_options every;
  every.every_namespace = true;
  for (const auto& t : p.parent->checkpointer()->list(checkpoint_config{"t", "", ""}, every))
    BOOST_TEST(t.config.checkpoint_ns == "");
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateful_state_accumulates
BOOST_AUTO_TEST_CASE(test_stateful_state_accumulates) {
  calls_inner p(stateful_wrapper("agent", echo_graph("Processing")));
  const value config = thread("t");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processing: tell me about apples"})");
  BOOST_TEST(p.parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Processing: tell me about bananas"})");
  BOOST_TEST(p.at(0) == (strings{"tell me about apples", "Processing: tell me about apples"}),
             boost::test_tools::per_element());
  BOOST_TEST(p.at(1) == (strings{"tell me about apples", "Processing: tell me about apples",
                                 "tell me about bananas", "Processing: tell me about bananas"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateful_state_accumulates_with_interrupt
BOOST_AUTO_TEST_CASE(test_stateful_state_accumulates_with_interrupt) {
  calls_inner p(stateful_wrapper("agent", process_respond_graph()));
  const value config = thread("t");
  for (int round = 0; round < 2; ++round) {
    check_interrupted(p.parent->invoke(empty_result, config));
    BOOST_TEST(p.parent->invoke(resume(true), config).to_json() == R"({"result":"Done"})");
  }
  const strings first{"tell me about apples", "Processing: tell me about apples", "Done"};
  BOOST_TEST(p.at(0) == first, boost::test_tools::per_element());
  strings second = first;
  for (const char* t : {"tell me about bananas", "Processing: tell me about bananas", "Done"})
    second.push_back(t);
  BOOST_TEST(p.at(1) == second, boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateful_interrupt_resume
BOOST_AUTO_TEST_CASE(test_stateful_interrupt_resume) {
  calls_inner p(stateful_wrapper("agent", process_respond_graph()));
  const value config = thread("t");
  check_interrupted(p.parent->invoke(empty_result, config));
  BOOST_TEST(p.parent->invoke(resume(true), config).to_json() == R"({"result":"Done"})");
  const strings first{"tell me about apples", "Processing: tell me about apples", "Done"};
  BOOST_TEST(p.at(0) == first, boost::test_tools::per_element());
  check_interrupted(p.parent->invoke(empty_result, config));
  BOOST_TEST(p.parent->invoke(resume(true), config).to_json() == R"({"result":"Done"})");
  strings second = first;
  for (const char* t : {"tell me about bananas", "Processing: tell me about bananas", "Done"})
    second.push_back(t);
  BOOST_TEST(p.at(1) == second, boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_stateful_namespace_isolation
BOOST_AUTO_TEST_CASE(test_stateful_namespace_isolation) {
  auto fruit = stateful_wrapper("fruit_agent", echo_graph("Fruit"));
  auto veggie = stateful_wrapper("veggie_agent", echo_graph("Veggie"));
  auto fruit_msgs = std::make_shared<std::vector<strings>>();
  auto veggie_msgs = std::make_shared<std::vector<strings>>();
  auto calls = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key("result");
  b.add_node("call_both", [=](const value&, node_context& ctx) -> value {
    const std::string suffix = ++*calls == 1 ? "round 1" : "round 2";
    value f =
        fruit->run_nested(object{{"messages", value::array({human("cherries " + suffix)})}}, ctx);
    value v =
        veggie->run_nested(object{{"messages", value::array({human("broccoli " + suffix)})}}, ctx);
    fruit_msgs->push_back(texts(f));
    veggie_msgs->push_back(texts(v));
    return object{{"result", last_text(f)}};
  });
  b.add_edge("__start__", "call_both");
  auto parent = b.compile(opts_with_saver());
  const value config = thread("t");
  BOOST_TEST(parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Fruit: cherries round 1"})");
  BOOST_TEST(parent->invoke(empty_result, config).to_json() ==
             R"({"result":"Fruit: cherries round 2"})");
  BOOST_TEST_REQUIRE(fruit_msgs->size() == 2u);
  BOOST_TEST_REQUIRE(veggie_msgs->size() == 2u);
  BOOST_TEST((*fruit_msgs)[0] == (strings{"cherries round 1", "Fruit: cherries round 1"}),
             boost::test_tools::per_element());
  BOOST_TEST((*veggie_msgs)[0] == (strings{"broccoli round 1", "Veggie: broccoli round 1"}),
             boost::test_tools::per_element());
  BOOST_TEST((*fruit_msgs)[1] == (strings{"cherries round 1", "Fruit: cherries round 1",
                                          "cherries round 2", "Fruit: cherries round 2"}),
             boost::test_tools::per_element());
  BOOST_TEST((*veggie_msgs)[1] == (strings{"broccoli round 1", "Veggie: broccoli round 1",
                                           "broccoli round 2", "Veggie: broccoli round 2"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_subgraph_persistence.py::test_child_with_own_thread_id_keeps_namespace
BOOST_AUTO_TEST_CASE(test_child_with_own_thread_id_keeps_namespace) {
  auto saver = conformance::saver();
  state_graph cb;
  cb.add_key("count");
  cb.add_node("n", [](const value& state, node_context&) -> value {
    const value& c = state.get("count");
    return object{{"count", (c.is_int() ? c.as_int() : 0) + 1}};
  });
  cb.add_edge("__start__", "n");
  compile_options co = opts();
  co.checkpointer = saver;
  auto child = cb.compile(co);
  const value child_config = thread("child-thread");
  state_graph pb;
  pb.add_key("result");
  pb.add_node("p", [child, child_config](const value&, node_context&) -> value {
    child->invoke(object{}, child_config);
    return object{{"result", "ok"}};
  });
  pb.add_edge("__start__", "p");
  compile_options po = opts();
  po.checkpointer = saver;
  auto parent = pb.compile(po);
  const value parent_config = thread("parent-thread");
  parent->invoke(empty_result, parent_config);
  state_snapshot state1 = child->get_state(child_config);
  BOOST_TEST(state1.values.get("count") == value(1));
  BOOST_TEST(state1.config.checkpoint_ns == "");
  parent->invoke(empty_result, parent_config);
  BOOST_TEST(child->get_state(child_config).values.get("count") == value(2));
}
