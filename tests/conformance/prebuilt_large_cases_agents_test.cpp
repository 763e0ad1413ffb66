// libs/langgraph/tests/test_large_cases.py::test_prebuilt_tool_chat and ::test_message_graph,
// with the agents library: chat models answering from scripted lists (its FakeChatModel and
// FakeFunctionChatModel), the prebuilt ReAct agent and tool node. LangGraph's deterministic
// uuids (and LangChain's run ids) are not reproduced: the messages it gives ids to are
// compared as its _AnyId* messages (any string id). The JSON schema, graph JSON and mermaid
// snapshots are not ported (pydantic schemas and syrupy snapshot files).
#include <algorithm>
#include <mutex>

#include "prebuilt_large_cases_support.hpp"
#include "superstep/agents/react_agent.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;
using namespace superstep::conformance::large_cases;

namespace {

/// The one chunk FakeChatModel's streaming gives for `m`: the message as an AIMessageChunk, its
/// tool calls also as tool call chunks with the arguments as text, chunk_position "last".
value last_chunk(const value& m) {
  object chunk = m.as_object();
  chunk.set("type", "AIMessageChunk");
  list chunks;
  if (const value* calls = m.find("tool_calls"); calls && calls->is_list())
    for (const value& c : calls->as_list())
      chunks.push_back(object{{"name", c.get("name")},
                              {"args", c.get("args").to_json()},
                              {"id", c.get("id")},
                              {"index", value()},
                              {"type", "tool_call_chunk"}});
  if (!chunks.empty()) chunk.set("tool_call_chunks", value(std::move(chunks)));
  chunk.set("chunk_position", "last");
  return value(std::move(chunk));
}

/// FakeChatModel (tests/fake_chat.py): answers with `messages[i]`, then the next, back to the
/// first after the last, streaming it as one chunk (last_chunk).
class fake_chat_model final : public chat_model {
 public:
  explicit fake_chat_model(list messages) : messages_(std::move(messages)) {}
  void reset() {
    std::lock_guard lock(mutex_);
    i_ = 0;
  }
  std::string describe() const override { return "fake chat model"; }

 protected:
  value generate(const list&, const chat_options&) const override {
    std::lock_guard lock(mutex_);
    if (i_ >= messages_.size()) i_ = 0;
    return messages_.at(i_++);
  }
  value generate_stream(const list& messages, const chat_options& options,
                        const chunk_callback& on_chunk) const override {
    value m = generate(messages, options);
    if (on_chunk) on_chunk(last_chunk(m));
    return m;
  }

 private:
  list messages_;
  mutable std::mutex mutex_;
  mutable std::size_t i_ = 0;
};

tool search_api_tool() {
  return make_tool(
      "search_api", args_schema({{"query", "string"}}),
      [](const value& args, tool_runtime&) -> value {
        return "result for " + args.get("query").as_string();
      },
      "Searches the API for the query.");
}

// ---- test_prebuilt_tool_chat ----

/// Checks a `messages` event's metadata: LangGraph's langgraph_* keys, and for a message a node
/// wrote (not a model chunk), ls_integration "langgraph". A model chunk's other keys in
/// LangGraph (checkpoint_ns, ls_provider, ls_model_type, ls_integration "langchain_chat_model",
/// lc_versions) are LangChain's callback metadata and not compared. `send_path_flag`: also
/// expect LangGraph's third element `false` ("no call") of a Send task's langgraph_path.
void check_metadata(const value& meta, std::int64_t step, const char* node, bool send_path_flag) {
  BOOST_TEST_CONTEXT(meta.to_json()) {
    BOOST_TEST(meta.get("langgraph_step") == value(step));
    BOOST_TEST(meta.get("langgraph_node") == value(node));
    const bool tools = std::string(node) == "tools";
    const value ns = meta.get("langgraph_checkpoint_ns");
    BOOST_TEST_REQUIRE(ns.is_string());
    BOOST_TEST(ns.as_string().starts_with(std::string(node) + ":"));
    if (!tools) {
      BOOST_TEST(meta.get("langgraph_triggers") == value::array({"branch:to:agent"}));
      BOOST_TEST(meta.get("langgraph_path") == value::array({std::string(PULL), "agent"}));
      return;
    }
    BOOST_TEST(meta.get("langgraph_triggers") == value::array({std::string(PUSH)}));
    BOOST_TEST(meta.get("ls_integration") == value("langgraph"));
    const value path = meta.get("langgraph_path");
    BOOST_TEST_REQUIRE(path.is_list());
    BOOST_TEST_REQUIRE(path.as_list().size() >= 2u);
    BOOST_TEST(path.as_list()[0] == value(std::string(PUSH)));
    BOOST_TEST(path.as_list()[1].is_int());
    if (send_path_flag) {
      BOOST_TEST_REQUIRE(path.as_list().size() == 3u);
      BOOST_TEST(path.as_list()[2] == value(false));
    }
  }
}

/// Tool messages of one step, in either order (LangGraph's UnsortedSequence), matched by
/// tool_call_id.
const value& by_call_id(const std::vector<value>& messages, const char* call_id) {
  const auto it = std::find_if(messages.begin(), messages.end(), [&](const value& m) {
    return m.get("tool_call_id") == value(call_id);
  });
  BOOST_TEST_REQUIRE((it != messages.end()), "no tool message for " << call_id);
  return *it;
}

struct tool_chat_fixture {
  value ai1 = ai_message("", {call("search_api", object{{"query", "query"}}, "tool_call123")});
  value ai2 =
      ai_message("", {call("search_api", object{{"query", "another"}}, "tool_call234"),
                      call("search_api", object{{"query", "a third one"}}, "tool_call567")});
  value ai3 = ai_message("answer");
  std::shared_ptr<fake_chat_model> model = std::make_shared<fake_chat_model>(list{ai1, ai2, ai3});
  std::shared_ptr<pregel> app;
  value input = object{{"messages", list{human_message("what is weather in sf")}}};

  tool_chat_fixture() {
    react_agent_options o;
    o.compile = opts();
    app = create_react_agent(model, {search_api_tool()}, o);
  }

  /// The `messages` stream of a run, checked as LangGraph does.
  void check_messages_stream(bool send_path_flag) {
    std::vector<value> events;
    stream_options so;
    so.modes = {stream_mode::messages};
    app->stream(input, value(), so, [&](const stream_event& e) { events.push_back(e.data); });
    BOOST_TEST_REQUIRE(events.size() == 6u);
    const auto message = [&](std::size_t i) { return events[i].as_list().at(0); };
    const auto meta = [&](std::size_t i) { return events[i].as_list().at(1); };
    check_message(message(0), any_id(last_chunk(ai1)));
    check_metadata(meta(0), 1, "agent", send_path_flag);
    check_message(message(1), any_id(answered("result for query", "tool_call123")));
    check_metadata(meta(1), 2, "tools", send_path_flag);
    check_message(message(2), any_id(last_chunk(ai2)));
    check_metadata(meta(2), 3, "agent", send_path_flag);
    const std::vector<value> step4{message(3), message(4)};
    check_message(by_call_id(step4, "tool_call234"),
                  any_id(answered("result for another", "tool_call234")));
    check_message(by_call_id(step4, "tool_call567"),
                  any_id(answered("result for a third one", "tool_call567")));
    check_metadata(meta(3), 4, "tools", send_path_flag);
    check_metadata(meta(4), 4, "tools", send_path_flag);
    check_message(message(5), any_id(last_chunk(ai3)));
    check_metadata(meta(5), 5, "agent", send_path_flag);
  }
};

/// {node: {"messages": [one message]}} of an `updates` chunk: the node and the message.
std::pair<std::string, value> update_of(const value& chunk) {
  BOOST_TEST_REQUIRE(chunk.is_object(), chunk.to_json());
  BOOST_TEST_REQUIRE(chunk.as_object().size() == 1u, chunk.to_json());
  const auto& [node, update] = *chunk.as_object().begin();
  BOOST_TEST_REQUIRE(update.is_object(), chunk.to_json());
  BOOST_TEST_REQUIRE(update.as_object().size() == 1u, chunk.to_json());
  const value messages = update.get("messages");
  BOOST_TEST_REQUIRE(messages.is_list(), chunk.to_json());
  BOOST_TEST_REQUIRE(messages.as_list().size() == 1u, chunk.to_json());
  return {node, messages.as_list()[0]};
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_prebuilt_tool_chat
BOOST_AUTO_TEST_CASE(test_prebuilt_tool_chat) {
  tool_chat_fixture f;
  check_messages(f.app->invoke(f.input).get("messages"),
                 {any_id(human_message("what is weather in sf")), any_id(f.ai1),
                  any_id(answered("result for query", "tool_call123")), any_id(f.ai2),
                  any_id(answered("result for another", "tool_call234")),
                  any_id(answered("result for a third one", "tool_call567")), any_id(f.ai3)});

  // The model is not reset: it goes on from the first message after the last.
  f.check_messages_stream(true);

  check_messages(f.app->invoke(f.input, object{{"recursion_limit", 2}}).get("messages"),
                 {any_id(human_message("what is weather in sf")),
                  any_id(ai_message("Sorry, need more steps to process this request."))});

  f.model->reset();  // reset the model

  stream_options updates;
  updates.modes = {stream_mode::updates};
  std::vector<value> invoke_updates_events;
  for (const stream_part& p : f.app->invoke_parts(f.input, value(), updates))
    invoke_updates_events.push_back(p.data);
  std::vector<value> stream_updates_events;
  f.app->stream(f.input, value(), updates,
                [&](const stream_event& e) { stream_updates_events.push_back(e.data); });

  for (const auto* output : {&invoke_updates_events, &stream_updates_events}) {
    BOOST_TEST_CONTEXT((output == &invoke_updates_events ? "invoke" : "stream")) {
      BOOST_TEST_REQUIRE(output->size() == 6u);
      const auto u = [&](std::size_t i) { return update_of((*output)[i]); };
      BOOST_TEST(u(0).first == "agent");
      check_message(u(0).second, any_id(f.ai1));
      BOOST_TEST(u(1).first == "tools");
      BOOST_TEST(without_any_id(u(1).second) == answered("result for query", "tool_call123"));
      BOOST_TEST(u(2).first == "agent");
      check_message(u(2).second, any_id(f.ai2));
      BOOST_TEST(u(3).first == "tools");
      BOOST_TEST(u(4).first == "tools");
      const std::vector<value> step4{u(3).second, u(4).second};
      BOOST_TEST(without_any_id(by_call_id(step4, "tool_call234")) ==
                 answered("result for another", "tool_call234"));
      BOOST_TEST(without_any_id(by_call_id(step4, "tool_call567")) ==
                 answered("result for a third one", "tool_call567"));
      BOOST_TEST(u(5).first == "agent");
      check_message(u(5).second, any_id(f.ai3));
    }
  }
}

// libs/langgraph/tests/test_large_cases.py::test_message_graph
BOOST_AUTO_TEST_CASE(test_message_graph) {
  const std::vector<tool> tools{search_api_tool()};
  const value ai1 = ai_calling("ai1", "tool_call123", "query");
  const value ai2 = ai_calling("ai2", "tool_call456", "another");
  const value ai3 = ai_message("answer", {}, "ai3");
  auto model = std::make_shared<fake_function_chat_model>(list{ai1, ai2, ai3});

  // Define the function that determines whether to continue or not
  router_function should_continue = [](const value& messages, node_context&) -> value {
    // If there is no function call, then we finish; otherwise we continue.
    return tool_calls_of(messages.as_list().back()).empty() ? "end" : "continue";
  };

  // MessageGraph: the state is one message list with the add_messages reducer.
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
  check_messages(app->invoke(list{question}),
                 {any_id(question), exact(ai1),  // respects ids passed in
                  any_id(answered("result for query", "tool_call123")), exact(ai2),
                  any_id(answered("result for another", "tool_call456")), exact(ai3)});

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

  std::shared_ptr<pregel> app_w_interrupt;
  for (const bool after_agent : {true, false}) {
    BOOST_TEST_CONTEXT((after_agent ? "interrupt_after agent" : "interrupt_before tools")) {
      compile_options o = opts();
      o.checkpointer = sync_checkpointer;
      if (after_agent)
        o.interrupt_after = {"agent"};
      else
        o.interrupt_before = {"tools"};
      app_w_interrupt = workflow.compile(o);
      const std::string thread_id = after_agent ? "1" : "2";
      const value config = thread(thread_id);
      if (!after_agent) model->reset();  // reset the llm

      // ("human", "what is weather in sf") in the first flow, the plain string in the
      // second; Python's tuple is one message, given inside a list here.
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

      // replace existing message
      app_w_interrupt->update_state(config, answer_ai2);

      // replaces message even if object identity is different, as long as id is the same
      s = app_w_interrupt->get_state(config);
      check_messages(s.values, {any_id(question), exact(edited_ai1), any_id(answered_different),
                                exact(answer_ai2)});
      check_snapshot(s, {}, "update", 5, previous_checkpoint(*app_w_interrupt, config), thread_id);
    }
  }

  // add an extra message as if it came from "tools" node
  const value config = thread("2");
  app_w_interrupt->update_state(config, value::array({value::array({"ai", "an extra message"})}),
                                "tools");

  // extra message is coerced BaseMessage and appended
  // now the next node is "agent" per the graph edges
  const state_snapshot s = app_w_interrupt->get_state(config);
  check_messages(
      s.values, {any_id(question), exact(edited_ai1), any_id(answered_different), exact(answer_ai2),
                 any_id(object{{"type", "ai"}, {"content", "an extra message"}})});
  check_snapshot(s, {"agent"}, "update", 6, previous_checkpoint(*app_w_interrupt, config), "2");
}
