// LangGraph's large cases of plain state graphs (libs/langgraph/tests/test_large_cases.py):
// fan-out and fan-in with every stream mode, and a tool-calling loop whose tool calls are
// Sends ("packets"), paused after the agent or before the tools, its AI message edited with
// update_state; see conformance.hpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "interrupts_helpers.hpp"

using namespace superstep;
using namespace superstep::conformance;
using strings = std::vector<std::string>;

namespace {

value call(const char* id, value args) {
  return object{{"id", id}, {"name", "search_api"}, {"args", std::move(args)}};
}

value ai(const char* id, const char* content, list calls = {}) {
  object m{{"type", "ai"}, {"content", content}, {"id", id}};
  if (!calls.empty()) m.set("tool_calls", value(std::move(calls)));
  return m;
}

value tool_message(const char* content, const char* call_id) {
  return object{
      {"type", "tool"}, {"content", content}, {"name", "search_api"}, {"tool_call_id", call_id}};
}

// LangGraph's FakeMessagesListChatModel: its responses in turn, from the first again after
// the last.
struct fake_model {
  std::vector<value> responses{
      ai("ai1", "", list{call("tool_call123", object{{"query", "query"}})}),
      ai("ai2", "",
         list{call("tool_call234", object{{"query", "another"}, {"idx", 0}}),
              call("tool_call567", object{{"query", "a third one"}, {"idx", 1}})}),
      ai("ai3", "answer")};
  std::atomic<std::size_t> i{0};
  value invoke() {
    std::size_t at = i.load();
    i = at + 1 < responses.size() ? at + 1 : 0;
    return responses[at];
  }
};

// A one-shot event, waited for with a bound so a broken run fails instead of hanging.
struct latch {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void set(bool v) {
    std::lock_guard lock(m);
    open = v;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock lock(m);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return open; });
  }
};

// Messages as LangGraph's test compares them: human and tool messages with any id.
value any_ids(const value& messages) {
  list out;
  for (const auto& m : messages.as_list()) {
    object o = m.as_object();
    if (m.get("type") != value("ai")) o.erase("id");
    out.push_back(value(std::move(o)));
  }
  return out;
}

// An `updates` event with its messages compared as any_ids does.
std::string update_json(const value& update) {
  object out;
  for (const auto& [node, u] : update.as_object()) {
    if (!u.is_object() || !u.as_object().contains("messages")) {
      out.set(node, u);
      continue;
    }
    object o = u.as_object();
    const value& m = u.get("messages");
    o.set("messages", m.is_list() ? any_ids(m) : any_ids(list{m}).as_list().front());
    out.set(node, value(std::move(o)));
  }
  return value(std::move(out)).to_json();
}

std::string u(const char* node, const value& message) {
  return value(object{{node, object{{"messages", any_ids(list{message}).as_list().front()}}}})
      .to_json();
}

// A `debug` event with its timestamp and task id masked (LangGraph's AnyStr()).
value mask_debug(const value& event) {
  object o = event.as_object();
  if (o.contains("timestamp")) o.set("timestamp", "*");
  if (const value* p = o.find("payload"); p && p->is_object() && p->as_object().contains("id")) {
    object payload = p->as_object();
    payload.set("id", "*");
    o.set("payload", value(std::move(payload)));
  }
  return o;
}

// A one-shot event a node can wait for, with a bound so a broken run fails instead of hanging.
class one_shot {
 public:
  void open() {
    std::lock_guard lock(m_);
    open_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(m_);
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return open_; });
  }
  void reset() {
    std::lock_guard lock(m_);
    open_ = false;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
};

value with_durability(const value& cfg, const char* durability) {
  object o = cfg.as_object();
  o.set("durability", durability);
  return o;
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_state_graph_packets
// (the tools' sleeps, which order the two parallel tool calls' updates, are here a wait of
// the second for the first's update to be streamed; snapshots' task paths are not in ours)
BOOST_AUTO_TEST_CASE(test_state_graph_packets) {
  auto model = std::make_shared<fake_model>();
  auto first_streamed = std::make_shared<latch>();
  auto wait_for_first = std::make_shared<std::atomic<bool>>(false);

  state_graph workflow;
  workflow.add_key("messages", "add_messages");
  workflow.add_node("agent", [model](const value&, node_context&) -> value {
    return object{{"messages", model->invoke()}, {"something_extra", "hi there"}};
  });
  workflow.add_node(
      "tools", [first_streamed, wait_for_first](const value& input, node_context&) -> value {
        if (*wait_for_first && input.get("args").get("idx") == value(1)) first_streamed->wait();
        return object{
            {"messages",
             object{{"type", "tool"},
                    {"content", "result for " + input.get("args").get("query").as_string()},
                    {"name", input.get("name")},
                    {"tool_call_id", input.get("id")}}}};
      });
  workflow.set_entry_point("agent");
  workflow.add_conditional_edges("agent", [](const value& data, node_context&) -> value {
    if (data.get("something_extra") != value("hi there"))
      throw std::runtime_error("nodes can pass extra data to their cond edges");
    const value& calls = data.get("messages").as_list().back().get("tool_calls");
    if (!calls.is_list() || calls.as_list().empty()) return "__end__";
    list sends;
    for (const auto& c : calls.as_list()) sends.push_back(make_send("tools", c));
    return sends;
  });
  workflow.add_edge("tools", "agent");

  const value question = object{{"type", "human"}, {"content", "what is weather in sf"}};
  const value ai1 = model->responses[0], ai2 = model->responses[1], ai3 = model->responses[2];
  const value answered_query = tool_message("result for query", "tool_call123");
  const value answered_another = tool_message("result for another", "tool_call234");
  const value answered_third = tool_message("result for a third one", "tool_call567");

  auto app = workflow.compile(opts());
  BOOST_TEST(
      any_ids(app->invoke(object{{"messages", question}}).get("messages")).to_json() ==
      any_ids(list{question, ai1, answered_query, ai2, answered_another, answered_third, ai3})
          .to_json());

  // Streams `input`; in a step with both tool calls, the second's ends after the first's
  // update was streamed.
  const auto stream = [&](const pregel& graph, const value& input, const value& cfg) {
    first_streamed->set(false);
    *wait_for_first = true;
    strings out;
    graph.stream(
        input, cfg, stream_options{{stream_mode::updates}, false}, [&](const stream_event& e) {
          out.push_back(update_json(e.data));
          if (e.data.get("tools").get("messages").get("tool_call_id") == value("tool_call234"))
            first_streamed->set(true);
        });
    *wait_for_first = false;
    return out;
  };
  BOOST_TEST(
      stream(*app, object{{"messages", list{question}}}, value()) ==
          (strings{u("agent", ai1), u("tools", answered_query), u("agent", ai2),
                   u("tools", answered_another), u("tools", answered_third), u("agent", ai3)}),
      boost::test_tools::per_element());

  value edited_ai1 =
      ai("ai1", "", list{call("tool_call123", object{{"query", "a different query"}})});
  const value answered_different = tool_message("result for a different query", "tool_call123");
  for (const bool after_agent : {true, false}) {
    BOOST_TEST_CONTEXT((after_agent ? "interrupt after agent" : "interrupt before tools")) {
      compile_options o = opts_with_saver();
      (after_agent ? o.interrupt_after : o.interrupt_before) =
          std::vector<std::string>{after_agent ? "agent" : "tools"};
      auto paused_app = workflow.compile(o);
      model->i = 0;
      const value config = thread("1");
      BOOST_TEST(
          stream(*paused_app, object{{"messages", question}}, with_durability(config, "exit")) ==
              (strings{u("agent", ai1), R"({"__interrupt__":[]})"}),
          boost::test_tools::per_element());
      state_snapshot s = paused_app->get_state(config);
      BOOST_TEST(any_ids(s.values.get("messages")).to_json() ==
                 any_ids(list{question, ai1}).to_json());
      BOOST_TEST_REQUIRE(s.tasks.size() == 1u);
      BOOST_TEST(s.tasks[0].name == "tools");
      BOOST_TEST(s.next == strings{"tools"}, boost::test_tools::per_element());
      BOOST_TEST(s.metadata.to_json() == R"({"source":"loop","step":1,"parents":{}})");
      BOOST_TEST(!s.parent_config.has_value());

      // Modify the AI message: replaced, not appended, and the tools' Send follows it.
      paused_app->update_state(config,
                               object{{"messages", edited_ai1}, {"something_extra", "hi there"}});
      state_snapshot edited = paused_app->get_state(config);
      BOOST_TEST(any_ids(edited.values.get("messages")).to_json() ==
                 any_ids(list{question, edited_ai1}).to_json());
      BOOST_TEST_REQUIRE(edited.tasks.size() == 1u);
      BOOST_TEST(edited.tasks[0].name == "tools");
      BOOST_TEST(edited.next == strings{"tools"}, boost::test_tools::per_element());
      BOOST_TEST(edited.metadata.to_json() == R"({"source":"update","step":2,"parents":{}})");
      BOOST_TEST_REQUIRE(edited.parent_config.has_value());
      BOOST_TEST(edited.parent_config->checkpoint_id == s.config.checkpoint_id);

      BOOST_TEST(
          stream(*paused_app, value(), config) ==
              (strings{u("tools", answered_different), u("agent", ai2), R"({"__interrupt__":[]})"}),
          boost::test_tools::per_element());
      state_snapshot second = paused_app->get_state(config);
      BOOST_TEST(any_ids(second.values.get("messages")).to_json() ==
                 any_ids(list{question, edited_ai1, answered_different, ai2}).to_json());
      BOOST_TEST_REQUIRE(second.tasks.size() == 2u);
      BOOST_TEST(second.tasks[0].name == "tools");
      BOOST_TEST(second.tasks[1].name == "tools");
      BOOST_TEST(second.next == (strings{"tools", "tools"}), boost::test_tools::per_element());
      BOOST_TEST(second.metadata.to_json() == R"({"source":"loop","step":4,"parents":{}})");
      BOOST_TEST_REQUIRE(second.parent_config.has_value());

      // The same id replaces the message, whatever else differs.
      paused_app->update_state(
          config, object{{"messages", ai("ai2", "answer")}, {"something_extra", "hi there"}});
      state_snapshot done = paused_app->get_state(config);
      BOOST_TEST(
          any_ids(done.values.get("messages")).to_json() ==
          any_ids(list{question, edited_ai1, answered_different, ai("ai2", "answer")}).to_json());
      BOOST_TEST(done.tasks.empty());
      BOOST_TEST(done.next.empty());
      BOOST_TEST(done.metadata.to_json() == R"({"source":"update","step":5,"parents":{}})");
      BOOST_TEST_REQUIRE(done.parent_config.has_value());
      BOOST_TEST(done.parent_config->checkpoint_id == second.config.checkpoint_id);
      // LangGraph's second flow reuses thread "1" and asserts a fresh thread's snapshots
      // (step 1, no parent): start it afresh.
      paused_app->checkpointer()->delete_thread("1");
    }
  }
}

// libs/langgraph/tests/test_large_cases.py::test_in_one_fan_out_out_one_graph_state
// (retriever_one's sleep, which makes it stream after retriever_two, is here a wait until
// retriever_two's update was streamed; the debug events' timestamps and ids masked, as
// LangGraph's AnyStr).
BOOST_AUTO_TEST_CASE(test_in_one_fan_out_out_one_graph_state) {
  auto two_streamed = std::make_shared<one_shot>();
  auto wait_for_two = std::make_shared<std::atomic<bool>>(false);
  channels::reducer sorted_add{"sorted_add",
                               [](const value& x, const value& y) -> value {
                                 std::vector<std::string> items;
                                 for (const auto& v : x.as_list()) items.push_back(v.as_string());
                                 for (const auto& v : y.as_list()) items.push_back(v.as_string());
                                 std::sort(items.begin(), items.end());
                                 list out;
                                 for (auto& i : items) out.emplace_back(std::move(i));
                                 return out;
                               },
                               nullptr};
  state_graph w;
  w.add_key("query").add_key("answer").add_key("docs", sorted_add, list{});
  w.add_node("rewrite_query", [](const value& d, node_context&) -> value {
    return object{{"query", "query: " + d.get("query").as_string()}};
  });
  w.add_node("retriever_one", [two_streamed, wait_for_two](const value&, node_context&) -> value {
    if (*wait_for_two) two_streamed->wait();
    return object{{"docs", list{"doc1", "doc2"}}};
  });
  w.add_node("retriever_two", [](const value&, node_context&) -> value {
    return object{{"docs", list{"doc3", "doc4"}}};
  });
  w.add_node("qa", [](const value& d, node_context&) -> value {
    std::string joined;
    for (const auto& doc : d.get("docs").as_list())
      joined += (joined.empty() ? "" : ",") + doc.as_string();
    return object{{"answer", joined}};
  });
  w.set_entry_point("rewrite_query");
  w.add_edge("rewrite_query", "retriever_one").add_edge("rewrite_query", "retriever_two");
  w.add_edge("retriever_one", "qa").add_edge("retriever_two", "qa");
  w.set_finish_point("qa");
  auto app = w.compile(opts());
  const value input = object{{"query", "what is weather in sf"}};

  BOOST_TEST(app->invoke(input).to_json() ==
             R"({"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
             R"("docs":["doc1","doc2","doc3","doc4"]})");

  // Streams `modes`, retriever_one finishing once retriever_two's result was streamed.
  const auto run = [&](std::vector<stream_mode> modes) {
    two_streamed->reset();
    *wait_for_two = std::find(modes.begin(), modes.end(), stream_mode::updates) != modes.end();
    strings out;
    stream_options o{modes, false};
    app->stream(input, value(), o, [&](const stream_event& e) {
      value data = e.mode == stream_mode::debug ? mask_debug(e.data) : e.data;
      out.push_back(modes.size() > 1
                        ? value::array({std::string(stream_mode_name(e.mode)), data}).to_json()
                        : data.to_json());
      const bool two_done =
          (e.mode == stream_mode::debug && e.data.get("type") == value("task_result") &&
           e.data.get("payload").get("name") == value("retriever_two")) ||
          (e.mode == stream_mode::updates && e.data.get("retriever_two").is_object() &&
           std::find(modes.begin(), modes.end(), stream_mode::debug) == modes.end());
      if (two_done) two_streamed->open();
    });
    return out;
  };

  BOOST_TEST(run({stream_mode::updates}) ==
                 (strings{R"({"rewrite_query":{"query":"query: what is weather in sf"}})",
                          R"({"retriever_two":{"docs":["doc3","doc4"]}})",
                          R"({"retriever_one":{"docs":["doc1","doc2"]}})",
                          R"({"qa":{"answer":"doc1,doc2,doc3,doc4"}})"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      run({stream_mode::values}) ==
          (strings{
              R"({"query":"what is weather in sf","docs":[]})",
              R"({"query":"query: what is weather in sf","docs":[]})",
              R"({"query":"query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]})",
              R"({"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
              R"("docs":["doc1","doc2","doc3","doc4"]})"}),
      boost::test_tools::per_element());

  const std::string q0 = R"({"query":"what is weather in sf","docs":[]})";
  const std::string q1 = R"({"query":"query: what is weather in sf","docs":[]})";
  const std::string q2 =
      R"({"query":"query: what is weather in sf","docs":["doc1","doc2","doc3","doc4"]})";
  const auto task = [](int step, const char* name, const std::string& input) {
    return std::string(R"(["debug",{"type":"task","timestamp":"*","step":)") +
           std::to_string(step) + R"(,"payload":{"id":"*","name":")" + name + R"(","input":)" +
           input + R"(,"triggers":["branch:to:)" + name + R"("]}}])";
  };
  const auto result = [](int step, const char* name, const std::string& update) {
    return std::string(R"(["debug",{"type":"task_result","timestamp":"*","step":)") +
           std::to_string(step) + R"(,"payload":{"id":"*","name":")" + name +
           R"(","error":null,"result":)" + update + R"(,"interrupts":[]}}])";
  };
  BOOST_TEST(
      run({stream_mode::values, stream_mode::updates, stream_mode::debug}) ==
          (strings{
              R"(["values",)" + q0 + "]", task(1, "rewrite_query", q0),
              R"(["updates",{"rewrite_query":{"query":"query: what is weather in sf"}}])",
              result(1, "rewrite_query", R"({"query":"query: what is weather in sf"})"),
              R"(["values",)" + q1 + "]", task(2, "retriever_one", q1),
              task(2, "retriever_two", q1),
              R"(["updates",{"retriever_two":{"docs":["doc3","doc4"]}}])",
              result(2, "retriever_two", R"({"docs":["doc3","doc4"]})"),
              R"(["updates",{"retriever_one":{"docs":["doc1","doc2"]}}])",
              result(2, "retriever_one", R"({"docs":["doc1","doc2"]})"), R"(["values",)" + q2 + "]",
              task(3, "qa", q2), R"(["updates",{"qa":{"answer":"doc1,doc2,doc3,doc4"}}])",
              result(3, "qa", R"({"answer":"doc1,doc2,doc3,doc4"})"),
              R"(["values",{"query":"query: what is weather in sf","answer":"doc1,doc2,doc3,doc4",)"
              R"("docs":["doc1","doc2","doc3","doc4"]}])"}),
      boost::test_tools::per_element());
}
