// libs/langgraph/tests/test_large_cases.py::test_root_graph, with the agents library: a chat
// model answering from a scripted list (its FakeFunctionChatModel) and the prebuilt tool node,
// in a graph whose state is one message list (a ROOT key). LangGraph's deterministic uuids are
// not reproduced: the messages it gives ids to are compared as its _AnyId* messages (any
// string id). Python's ("human", "text") tuple is one message; a superstep list is a list of
// messages, so the tuple is given inside one: [["human", "text"]].
#include "prebuilt_large_cases_support.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;
using namespace superstep::conformance::large_cases;

// libs/langgraph/tests/test_large_cases.py::test_root_graph
BOOST_AUTO_TEST_CASE(test_root_graph) {
  tool search_api = make_tool(
      "search_api", args_schema({{"query", "string"}}),
      [](const value& args, tool_runtime&) -> value {
        return "result for " + args.get("query").as_string();
      },
      "Searches the API for the query.");
  const std::vector<tool> tools{search_api};

  const value ai1 = ai_calling("ai1", "tool_call123", "query");
  const value ai2 = ai_calling("ai2", "tool_call456", "another");
  const value ai3 = ai_message("answer", {}, "ai3");
  auto model = std::make_shared<fake_function_chat_model>(list{ai1, ai2, ai3});

  // Define the function that determines whether to continue or not
  router_function should_continue = [](const value& messages, node_context&) -> value {
    // If there is no function call, then we finish; otherwise we continue.
    return tool_calls_of(messages.as_list().back()).empty() ? "end" : "continue";
  };

  state_graph workflow;
  workflow.add_key(std::string(ROOT), "add_messages");
  workflow.add_node("agent", [model](const value& messages, node_context&) -> value {
    return model->invoke(messages.as_list());
  });
  workflow.add_node("tools", tool_node(tools).as_node());
  workflow.set_entry_point("agent");
  workflow.add_conditional_edges("agent", should_continue,
                                 {{"continue", "tools"}, {"end", "__end__"}});
  workflow.add_edge("tools", "agent");

  auto app = workflow.compile(opts());
  const value question = human_message("what is weather in sf");
  check_messages(
      app->invoke(question),
      {any_id(question), exact(ai1), any_id(answered("result for query", "tool_call123")),
       exact(ai2), any_id(answered("result for another", "tool_call456")), exact(ai3)});

  check_updates(*app, list{question}, value(),
                {{"agent", ai1},
                 {"tools", answered("result for query", "tool_call123")},
                 {"agent", ai2},
                 {"tools", answered("result for another", "tool_call456")},
                 {"agent", ai3}});

  const std::shared_ptr<checkpoint_saver> sync_checkpointer = saver();
  const value edited_ai1 = with_args(ai1, object{{"query", "a different query"}});
  const value answered_different = answered("result for a different query", "tool_call123");
  const value answer_ai2 = ai_message("answer", {}, "ai2");

  for (const bool after_agent : {true, false}) {
    BOOST_TEST_CONTEXT((after_agent ? "interrupt_after agent" : "interrupt_before tools")) {
      compile_options o = opts();
      o.checkpointer = sync_checkpointer;
      if (after_agent)
        o.interrupt_after = {"agent"};
      else
        o.interrupt_before = {"tools"};
      auto app_w_interrupt = workflow.compile(o);
      const std::string thread_id = after_agent ? "1" : "2";
      const value config = thread(thread_id);
      model->reset();  // reset the llm

      // ("human", "what is weather in sf") in the first flow, the plain string in the second.
      const value input = after_agent
                              ? value::array({value::array({"human", "what is weather in sf"})})
                              : value("what is weather in sf");
      check_updates(*app_w_interrupt, input, with_durability(config, "exit"),
                    {{"agent", ai1}, {"__interrupt__", value()}});

      state_snapshot s = app_w_interrupt->get_state(config);
      check_messages(s.values, {any_id(question), exact(ai1)});
      check_snapshot(s, {"tools"}, "loop", 1, std::nullopt, thread_id);

      // modify ai message
      const value last_message =
          with_args(s.values.as_list().back(), object{{"query", "a different query"}});
      const value next_config = app_w_interrupt->update_state(config, last_message);

      // message was replaced instead of appended
      s = app_w_interrupt->get_state(config);
      check_messages(s.values, {any_id(question), exact(edited_ai1)});
      check_snapshot(s, {"tools"}, "update", 2, previous_checkpoint(*app_w_interrupt, config),
                     thread_id);
      BOOST_TEST(next_config.get("configurable").get("checkpoint_id") ==
                 value(s.config.checkpoint_id));

      check_updates(*app_w_interrupt, value(), config,
                    {{"tools", answered_different}, {"agent", ai2}, {"__interrupt__", value()}});

      s = app_w_interrupt->get_state(config);
      check_messages(s.values,
                     {any_id(question), exact(edited_ai1), any_id(answered_different), exact(ai2)});
      check_snapshot(s, {"tools"}, "loop", 4, previous_checkpoint(*app_w_interrupt, config),
                     thread_id);

      // replaces message even if object identity is different, as long as id is the same
      app_w_interrupt->update_state(config, answer_ai2);
      s = app_w_interrupt->get_state(config);
      check_messages(s.values, {any_id(question), exact(edited_ai1), any_id(answered_different),
                                exact(answer_ai2)});
      check_snapshot(s, {}, "update", 5, previous_checkpoint(*app_w_interrupt, config), thread_id);
    }
  }

  // add an extra message as if it came from "tools" node
  const value config = thread("2");
  {
    compile_options o = opts();
    o.checkpointer = sync_checkpointer;
    o.interrupt_before = {"tools"};
    auto app_w_interrupt = workflow.compile(o);
    app_w_interrupt->update_state(config, value::array({value::array({"ai", "an extra message"})}),
                                  "tools");

    // extra message is coerced BaseMessage and appended
    // now the next node is "agent" per the graph edges
    const state_snapshot s = app_w_interrupt->get_state(config);
    check_messages(s.values, {any_id(question), exact(edited_ai1), any_id(answered_different),
                              exact(answer_ai2),
                              any_id(object{{"type", "ai"}, {"content", "an extra message"}})});
    check_snapshot(s, {"agent"}, "update", 6, previous_checkpoint(*app_w_interrupt, config), "2");
  }

  // create new graph with one more state key, reuse previous thread history
  channels::reducer simple_add{"simple_add",
                               [](const value& left, const value& right) -> value {
                                 list out = left.as_list();
                                 if (right.is_list())
                                   out.insert(out.end(), right.as_list().begin(),
                                              right.as_list().end());
                                 else
                                   out.push_back(right);
                                 return out;
                               },
                               nullptr};
  state_graph new_workflow;
  new_workflow.add_key(std::string(ROOT), simple_add, list{});
  new_workflow.add_key("something_else");
  new_workflow.add_node("agent", [model](const value& state, node_context&) -> value {
    return object{{std::string(ROOT), model->invoke(state.get(ROOT).as_list())}};
  });
  const tool_node tool_runner(tools);
  new_workflow.add_node("tools", [tool_runner](const value& state, node_context& ctx) -> value {
    return object{{std::string(ROOT), tool_runner.invoke(state.get(ROOT), tool_node_call{&ctx})}};
  });
  new_workflow.set_entry_point("agent");
  new_workflow.add_conditional_edges(
      "agent",
      [should_continue](const value& state, node_context& ctx) -> value {
        return should_continue(state.get(ROOT), ctx);
      },
      {{"continue", "tools"}, {"end", "__end__"}});
  new_workflow.add_edge("tools", "agent");
  compile_options new_opts = opts();
  new_opts.checkpointer = sync_checkpointer;
  auto new_app = new_workflow.compile(new_opts);
  model->reset();  // reset the llm

  // previous state is converted to new schema
  const state_snapshot s = new_app->get_state(config);
  BOOST_TEST_REQUIRE(s.values.is_object(), s.values.to_json());
  BOOST_TEST(s.values.as_object().size() == 1u, s.values.to_json());
  check_messages(
      s.values.get(ROOT),
      {any_id(question), exact(edited_ai1), any_id(answered_different), exact(answer_ai2),
       any_id(object{{"type", "ai"}, {"content", "an extra message"}})});
  check_snapshot(s, {"agent"}, "update", 6, previous_checkpoint(*new_app, config), "2");

  // new input is merged to old state (LangGraph's invoke(..., interrupt_before=["agent"]): the
  // same graph compiled with that breakpoint, on the same checkpointer)
  new_opts.interrupt_before = {"agent"};
  const value la = human_message("what is weather in la");
  const value out = new_workflow.compile(new_opts)->invoke(
      object{{std::string(ROOT), list{la}}, {"something_else", "value"}}, config);
  BOOST_TEST_REQUIRE(out.is_object(), out.to_json());
  BOOST_TEST(out.as_object().size() == 2u, out.to_json());
  BOOST_TEST(out.get("something_else") == value("value"));
  check_messages(
      out.get(ROOT),
      {any_id(question), exact(edited_ai1), any_id(answered_different), exact(answer_ai2),
       any_id(object{{"type", "ai"}, {"content", "an extra message"}}), exact(la)});
}
