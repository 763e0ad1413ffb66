// libs/langgraph/tests/test_large_cases.py::test_prebuilt_tool_chat and ::test_message_graph,
// with the agents library: chat models answering from scripted lists (its FakeChatModel and
// FakeFunctionChatModel), the prebuilt ReAct agent and tool node. LangGraph's deterministic
// uuids (and LangChain's run ids) are not reproduced: the messages it gives ids to are
// compared as its _AnyId* messages (any string id). The JSON schema, graph JSON and mermaid
// snapshots are not ported (pydantic schemas and syrupy snapshot files).
#include <algorithm>
#include <mutex>

#include "prebuilt_support.hpp"
#include "superstep/agents/react_agent.hpp"

using namespace superstep;
using namespace superstep::agents;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

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

/// FakeFunctionChatModel of test_message_graph: answers with `responses[i]`, then the next,
/// back to the first after the last.
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

void check_message(const value& got, const expected& want) {
  const value g = want.any_id ? without_id(got) : got;
  BOOST_TEST(g == want.message, g.to_json() << " != " << want.message.to_json());
}

void check_messages(const value& actual, const std::vector<expected>& want) {
  BOOST_TEST_REQUIRE(actual.is_list(), actual.to_json());
  const list& got = actual.as_list();
  BOOST_TEST_REQUIRE(got.size() == want.size(), actual.to_json());
  for (std::size_t i = 0; i < got.size(); ++i) BOOST_TEST_CONTEXT("message " << i) {
      check_message(got[i], want[i]);
    }
}

value answered(const char* content, const char* call_id) {
  return tool_message(content, call_id, "search_api");
}

tool search_api_tool() {
  return make_tool(
      "search_api", args_schema({{"query", "string"}}),
      [](const value& args, tool_runtime&) -> value {
        return "result for " + args.get("query").as_string();
      },
      "Searches the API for the query.");
}

/// A tool node's update message compared without its id: LangGraph's shows the id the
/// reducer gave the message later in the step (the streamed object is the one add_messages
/// mutates), ours the node's output as it was.
value without_any_id(const value& m) {
  object o = m.as_object();
  o.erase("id");
  return value(std::move(o));
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

// ---- test_message_graph ----

value ai_calling(const char* id, const char* call_id, const char* query) {
  return ai_message("", {call("search_api", object{{"query", query}}, call_id)}, id);
}

/// The run's `updates`, each {node: update} checked against `want` (null: {"__interrupt__":
/// []}); a tool node's update is a list of one tool message, compared without its id.
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
        BOOST_TEST(without_any_id(update.as_list()[0]) == want[i].second);
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

/// The snapshot's checks: next (the tasks' names the same, no errors or interrupts), metadata,
/// config, created_at, and the parent checkpoint (none for the first).
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
  BOOST_TEST(!s.created_at.empty());
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

/// A message with its first tool call's args changed (LangGraph edits the object).
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
