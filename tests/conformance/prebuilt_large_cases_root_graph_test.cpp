// libs/langgraph/tests/test_large_cases.py::test_root_graph, with the agents library: a chat
// model answering from a scripted list (its FakeFunctionChatModel) and the prebuilt tool node,
// in a graph whose state is one message list (a ROOT key). LangGraph's deterministic uuids are
// not reproduced: the messages it gives ids to are compared as its _AnyId* messages (any
// string id). Python's ("human", "text") tuple is one message; a superstep list is a list of
// messages, so the tuple is given inside one: [["human", "text"]].
#include <mutex>

#include "prebuilt_support.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

/// FakeFunctionChatModel: answers with `responses[i]`, then the next, back to the first after
/// the last.
class fake_function_chat_model final : public chat_model {
 public:
  explicit fake_function_chat_model(list responses) : responses_(std::move(responses)) {}
  void reset() {
    std::lock_guard lock(mutex_);
    i_ = 0;
  }
  std::string describe() const override { return "fake function chat model"; }

 protected:
  value generate(const list&, const chat_options&) const override {
    std::lock_guard lock(mutex_);
    value response = responses_.at(i_);
    i_ = i_ + 1 < responses_.size() ? i_ + 1 : 0;
    return response;
  }
  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback& on_chunk) const override {
    value m = generate(messages, options);
    if (on_chunk) on_chunk(m);
    return m;
  }

 private:
  list responses_;
  mutable std::mutex mutex_;
  mutable std::size_t i_ = 0;
};

/// An expected message: `any_id` for LangGraph's _AnyId* (any string id).
struct expected {
  value message;
  bool any_id = false;
};
expected any_id(value m) { return {std::move(m), true}; }
expected exact(value m) { return {std::move(m), false}; }

void check_messages(const value& actual, const std::vector<expected>& want) {
  BOOST_TEST_REQUIRE(actual.is_list(), actual.to_json());
  const list& got = actual.as_list();
  BOOST_TEST_REQUIRE(got.size() == want.size(), actual.to_json());
  for (std::size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("message " << i) {
      const value g = want[i].any_id ? without_id(got[i]) : got[i];
      BOOST_TEST(g == want[i].message, g.to_json() << " != " << want[i].message.to_json());
    }
  }
}

value ai_calling(const char* id, const char* call_id, const char* query) {
  return ai_message("", {call("search_api", object{{"query", query}}, call_id)}, id);
}

value answered(const char* content, const char* call_id) {
  return tool_message(content, call_id, "search_api");
}

/// The run's `updates`, each {node: update} checked against `want` (null: {"__interrupt__":
/// []}); a tool node's update is one tool message, compared without its id: LangGraph's
/// shows the id the reducer gave the message later in the step (the streamed object is the
/// one add_messages mutates), ours the node's output as it was.
void check_updates(const pregel& graph, const value& input, const value& config,
                   const std::vector<std::pair<std::string, value>>& want) {
  std::vector<value> got;
  stream_options o;
  o.modes = {stream_mode::updates};
  graph.stream(input, config, o, [&](const stream_event& e) { got.push_back(e.data); });
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST_CONTEXT("update " << i << ": " << got[i].to_json()) {
      BOOST_TEST_REQUIRE(got[i].is_object());
      BOOST_TEST_REQUIRE(got[i].as_object().size() == 1u);
      const auto& [node, update] = *got[i].as_object().begin();
      BOOST_TEST(node == want[i].first);
      if (node == "__interrupt__") {
        BOOST_TEST(update == value(list{}));
      } else if (node == "tools") {
        BOOST_TEST_REQUIRE(update.is_list());
        BOOST_TEST_REQUIRE(update.as_list().size() == 1u);
        object message = update.as_list()[0].as_object();
        message.erase("id");
        BOOST_TEST(value(std::move(message)) == want[i].second);
      } else {
        BOOST_TEST(update == want[i].second);
      }
    }
  }
}

value with_durability(value config, const char* durability) {
  object o = config.as_object();
  o.set("durability", durability);
  return value(std::move(o));
}

/// The snapshot's checks of this test: next (the tasks' names the same), metadata, and the
/// parent checkpoint (none for the first).
void check_snapshot(const state_snapshot& s, const strings& next, const char* source,
                    std::int64_t step, const std::optional<std::string>& parent_id,
                    const std::string& thread_id) {
  BOOST_TEST(s.next == next, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(s.tasks.size() == next.size());
  for (std::size_t i = 0; i < next.size(); ++i) {
    BOOST_TEST(s.tasks[i].name == next[i]);
    BOOST_TEST(!s.tasks[i].error.has_value());
    BOOST_TEST(s.tasks[i].interrupts.empty());
  }
  BOOST_TEST(s.metadata == value(object{{"parents", object{}}, {"source", source}, {"step", step}}),
             s.metadata.to_json());
  BOOST_TEST(s.config.thread_id == thread_id);
  BOOST_TEST(s.config.checkpoint_ns == "");
  BOOST_TEST(!s.config.checkpoint_id.empty());
  if (parent_id) {
    BOOST_TEST_REQUIRE(s.parent_config.has_value());
    BOOST_TEST(s.parent_config->checkpoint_id == *parent_id);
  } else {
    BOOST_TEST(!s.parent_config.has_value());
  }
}

/// `list(checkpointer.list(config, limit=2))[-1].config`'s checkpoint id.
std::string previous_checkpoint(const pregel& graph, const value& config) {
  list_options lo;
  lo.limit = 2;
  const auto history = graph.get_state_history(config, lo);
  BOOST_TEST_REQUIRE(history.size() == 2u);
  return history.back().config.checkpoint_id;
}

/// A message of `values` with its first tool call's args changed (LangGraph edits the object).
value with_args(const value& message, value args) {
  object m = message.as_object();
  list calls = m.find("tool_calls")->as_list();
  object first = calls.at(0).as_object();
  first.set("args", std::move(args));
  calls[0] = value(std::move(first));
  m.set("tool_calls", value(std::move(calls)));
  return value(std::move(m));
}

}  // namespace

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
