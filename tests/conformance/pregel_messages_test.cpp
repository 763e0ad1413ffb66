// LangGraph's `messages` stream of the messages nodes return (StreamMessagesHandler's
// on_chain_end): their metadata, Commands' updates, and the run-wide deduplication by id.
// LangChain messages are objects {"type", "content", "id"?}; chat models are node functions
// returning the model's reply.
#include <mutex>
#include <set>

#include "conformance.hpp"
#include "superstep/pregel/pregel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value message(std::string type, std::string content, std::optional<std::string> id = {}) {
  object m{{"type", std::move(type)}, {"content", std::move(content)}};
  if (id) m.set("id", *id);
  return m;
}

// The [message, metadata] pairs (and their namespaces) a run streams in `messages` mode.
struct messages_stream {
  std::vector<std::vector<std::string>> ns;
  std::vector<value> chunks;
};

messages_stream stream_messages(const pregel& g, const value& input, const value& config,
                                bool subgraphs) {
  messages_stream out;
  std::mutex m;
  g.stream(input, config, stream_options{{stream_mode::messages}, subgraphs},
           [&](const stream_event& e) {
             std::lock_guard lock(m);
             BOOST_TEST_REQUIRE(e.data.as_list().size() == 2u, e.data.to_json());
             out.ns.push_back(e.ns);
             out.chunks.push_back(e.data);
           });
  return out;
}

// A message with any (string) id: the id, and the message without it.
value without_id(const value& m) {
  BOOST_TEST(m.get("id").is_string(), m.to_json());
  object o;
  for (const auto& [k, v] : m.as_object())
    if (k != "id") o.set(k, v);
  return o;
}

value goto_parent(std::string node) {
  command c;
  c.go_to = {value(std::move(node))};
  c.graph = command::parent;
  return make_command(c);
}

value update_command(value update, std::vector<value> go_to = {}) {
  command c;
  c.update = std::move(update);
  c.go_to = std::move(go_to);
  return make_command(c);
}

state_graph messages_state() {
  state_graph g;
  g.add_key("messages", "add_messages");
  return g;
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_configurable_propagates_to_stream_metadata
BOOST_AUTO_TEST_CASE(test_configurable_propagates_to_stream_metadata) {
  state_graph b = messages_state();
  b.add_node("my_node", [](const value&, node_context&) -> value {
    return object{{"messages", message("human", "hello")}};
  });
  b.add_edge(std::string(START), "my_node");
  auto graph = b.compile(opts());
  const value config =
      object{{"configurable", object{{"thread_id", "th-123"},
                                     {"checkpoint_id", "ckpt-1"},
                                     {"checkpoint_ns", "ns-1"},
                                     {"task_id", "task-1"},
                                     {"run_id", "run-456"},
                                     {"assistant_id", "asst-789"},
                                     {"graph_id", "graph-0"},
                                     {"model", "gpt-4o"},
                                     {"user_id", "uid-1"},
                                     {"cron_id", "cron-1"},
                                     {"langgraph_auth_user_id", "user-1"},
                                     {"some_api_key", "secret"},
                                     {"custom_setting", object{{"nested", true}}}}}};
  const auto results = stream_messages(*graph, object{{"messages", list{}}}, config, false);
  BOOST_TEST_REQUIRE(results.chunks.size() == 1u);
  const value& metadata = results.chunks[0].as_list()[1];
  BOOST_TEST(metadata.get("thread_id") == value("th-123"));
  BOOST_TEST(metadata.get("checkpoint_id") == value("ckpt-1"));
  BOOST_TEST(metadata.get("checkpoint_ns") == value("ns-1"));
  BOOST_TEST(metadata.get("task_id") == value("task-1"));
  BOOST_TEST(metadata.get("run_id") == value("run-456"));
  BOOST_TEST(metadata.get("assistant_id") == value("asst-789"));
  BOOST_TEST(metadata.get("graph_id") == value("graph-0"));
  for (const char* key :
       {"model", "user_id", "cron_id", "langgraph_auth_user_id", "some_api_key", "custom_setting"})
    BOOST_TEST(!metadata.find(key), key << " in " << metadata.to_json());
}

// libs/langgraph/tests/test_pregel.py::test_stream_mode_messages_command
BOOST_AUTO_TEST_CASE(test_stream_mode_messages_command) {
  state_graph b = messages_state();
  b.add_sequence(
      {{"my_node",
        [](const value&, node_context&) -> value {
          return object{{"messages", message("human", "foo")}};
        }},
       {"my_other_node",
        [](const value&, node_context&) -> value {
          return update_command(object{{"messages", message("human", "bar")}});
        }},
       {"my_last_node", [](const value&, node_context&) -> value {
          return value::array({update_command(object{{"messages", message("human", "baz")}})});
        }}});
  b.add_edge(std::string(START), "my_node");
  auto graph = b.compile(opts());
  const auto out = stream_messages(*graph, object{{"messages", list{}}}, value(), false);
  BOOST_TEST_REQUIRE(out.chunks.size() == 3u);
  const char* nodes[] = {"my_node", "my_other_node", "my_last_node"};
  const char* contents[] = {"foo", "bar", "baz"};
  for (std::size_t i = 0; i < 3; ++i) {
    const list& chunk = out.chunks[i].as_list();
    BOOST_TEST(without_id(chunk[0]) == message("human", contents[i]), chunk[0].to_json());
    const value ns = chunk[1].get("langgraph_checkpoint_ns");
    BOOST_TEST_REQUIRE(ns.is_string());
    BOOST_TEST(ns.as_string().starts_with(std::string(nodes[i]) + ":"), ns.to_json());
    object metadata;
    for (const auto& [k, v] : chunk[1].as_object())
      if (k != "langgraph_checkpoint_ns") metadata.set(k, v);
    const value expected =
        object{{"langgraph_step", static_cast<std::int64_t>(i + 1)},
               {"langgraph_node", nodes[i]},
               {"langgraph_triggers", value::array({"branch:to:" + std::string(nodes[i])})},
               {"langgraph_path", value::array({std::string(PULL), nodes[i]})},
               {"ls_integration", "langgraph"}};
    BOOST_TEST(value(metadata) == expected, value(metadata).to_json());
    BOOST_TEST(out.ns[i].empty());
  }
}

namespace {

// The subgraph of the dedupe tests: `call_model` replies, `route` sends its parent to node_2.
std::shared_ptr<const pregel> dedupe_subgraph(node_function call_model) {
  state_graph sb = messages_state();
  sb.add_node("call_model", std::move(call_model));
  sb.add_node("route", [](const value&, node_context&) -> value { return goto_parent("node_2"); });
  sb.add_edge(std::string(START), "call_model").add_edge("call_model", "route");
  return sb.compile(opts());
}

std::shared_ptr<const pregel> dedupe_graph(std::shared_ptr<const pregel> subgraph,
                                           compile_options o) {
  state_graph g = messages_state();
  g.add_node("node_1", std::move(subgraph));
  g.add_node("node_2", [](const value& state, node_context&) -> value { return state; });
  g.add_edge(std::string(START), "node_1");
  return g.compile(o);
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_stream_messages_dedupe_inputs
BOOST_AUTO_TEST_CASE(test_stream_messages_dedupe_inputs) {
  auto graph = dedupe_graph(dedupe_subgraph([](const value&, node_context&) -> value {
                              return object{{"messages", message("ai", "hi", "1")}};
                            }),
                            opts());
  const auto out = stream_messages(*graph, object{{"messages", "hi"}}, value(), true);
  BOOST_TEST_REQUIRE(out.chunks.size() == 1u);
  BOOST_TEST(out.chunks[0].as_list()[0] == message("ai", "hi", "1"));
  BOOST_TEST(out.chunks[0].as_list()[1].get("langgraph_node") == value("call_model"));
}

// libs/langgraph/tests/test_pregel.py::test_stream_messages_dedupe_state
BOOST_AUTO_TEST_CASE(test_stream_messages_dedupe_state) {
  auto to_emit = std::make_shared<std::vector<value>>(
      std::vector<value>{message("ai", "bye", "1"), message("ai", "bye again", "2")});
  auto graph = dedupe_graph(dedupe_subgraph([to_emit](const value&, node_context&) -> value {
                              value next = to_emit->front();
                              to_emit->erase(to_emit->begin());
                              return object{{"messages", next}};
                            }),
                            opts_with_saver());
  const value thread1 = thread("1");
  auto out = stream_messages(*graph, object{{"messages", "hi"}}, thread1, true);
  BOOST_TEST_REQUIRE(out.chunks.size() == 1u);
  BOOST_TEST(out.chunks[0].as_list()[0] == message("ai", "bye", "1"));
  BOOST_TEST(out.chunks[0].as_list()[1].get("langgraph_node") == value("call_model"));

  out = stream_messages(*graph, object{{"messages", "hi again"}}, thread1, true);
  BOOST_TEST_REQUIRE(out.chunks.size() == 1u);
  BOOST_TEST(out.chunks[0].as_list()[0] == message("ai", "bye again", "2"));
  BOOST_TEST(out.chunks[0].as_list()[1].get("langgraph_node") == value("call_model"));
}

// libs/langgraph/tests/test_pregel.py::test_stream_messages_dedupe_pydantic_subgraph_interrupt
// (the state is a "messages" key with add_messages; the regression was about pydantic
// inputs not being scanned for seen messages)
BOOST_AUTO_TEST_CASE(test_stream_messages_dedupe_pydantic_subgraph_interrupt) {
  state_graph sb = messages_state();
  sb.add_node("proposal", [](const value&, node_context&) -> value {
    return update_command(
        object{{"messages", value::array({message("ai", "Proposal", "proposal_msg")})}},
        {value("subgraph_approval")});
  });
  sb.add_node("subgraph_approval", [](const value&, node_context& ctx) -> value {
    const value resumed = ctx.interrupt(object{{"message", "Waiting for approval"}});
    const value* user = resumed.find("user_message");
    list msgs;
    if (user && user->is_string() && !user->as_string().empty())
      msgs.push_back(message("human", user->as_string()));
    return update_command(object{{"messages", value(std::move(msgs))}}, {value(std::string(END))});
  });
  sb.add_edge(std::string(START), "proposal");
  auto subgraph = sb.compile(opts());

  state_graph b = messages_state();
  b.add_node("subgraph", subgraph);
  b.add_node("finalize", [](const value&, node_context&) -> value {
    return update_command(
        object{{"messages", value::array({message("ai", "Finalized", "finalize_msg")})}},
        {value(std::string(END))});
  });
  b.add_edge(std::string(START), "subgraph").add_edge("subgraph", "finalize");
  auto graph = b.compile(opts_with_saver());
  const value thread1 = thread("1");

  const auto ids_of = [](const messages_stream& s) {
    std::multiset<std::string> ids;
    for (const auto& chunk : s.chunks) ids.insert(chunk.as_list()[0].get("id").as_string());
    return ids;
  };
  const auto req0 = ids_of(stream_messages(
      *graph, object{{"messages", value::array({message("human", "Create a proposal")})}}, thread1,
      true));
  BOOST_TEST(req0.count("proposal_msg") == 1u);
  BOOST_TEST(!graph->get_state(thread1).next.empty());

  const auto req1 =
      ids_of(stream_messages(*graph, resume(object{{"user_message", "Yes"}}), thread1, true));
  BOOST_TEST(req1.count("finalize_msg") == 1u);
  for (const auto& id : req0) BOOST_TEST(req1.count(id) == 0u, "duplicate message id " << id);
  // Each message once (LangGraph's: the human reply streamed by subgraph_approval is not
  // streamed again with the subgraph's output).
  BOOST_TEST(req1.size() == std::set<std::string>(req1.begin(), req1.end()).size());
}
