// libs/langgraph/tests/test_remote_graph.py (state, history, updates, the drawing, and a
// remote graph as a node of a local one): superstep::remote_graph against a real head
// (remote_graph_support.hpp; see remote_graph_test.cpp). LangGraph's mocks return one fixed
// snapshot; here the head's graphs make real checkpoints, and the cases check what
// LangGraph's do of them: values, next, config (thread, namespace, checkpoint id,
// checkpoint_map), metadata, parent config, tasks and interrupts. LangGraph's async twins run
// the same calls from a second thread.
#include <future>

#include "remote_graph_support.hpp"
#include "superstep/graph/state_graph.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value json(const char* text) { return value::parse_json(text); }

// Runs the `steps` graph on thread `t` on the head: four checkpoints.
void run_steps(const remote_graph& g, const std::string& t) {
  BOOST_TEST(g.invoke(json(R"({"foo": ""})"), thread(t)) ==
             json(R"({"foo": "b", "bar": ["a", "b"]})"));
}

// libs/langgraph/tests/test_remote_graph.py::test_get_graph
void check_get_graph() {
  graph_description d = remote_head::get().graph("agent").get_graph();
  BOOST_REQUIRE_EQUAL(d.nodes.size(), 3u);
  BOOST_TEST(d.nodes[0].id == "__start__");
  BOOST_TEST(d.nodes[0].name == "__start__");
  BOOST_TEST(d.nodes[1].id == "agent");
  BOOST_TEST(d.nodes[1].name == "agent");
  BOOST_TEST(d.nodes[1].runnable == (std::vector<std::string>{"langgraph", "_internal", "_runnable",
                                                              "RunnableCallable"}),
             boost::test_tools::per_element());
  BOOST_TEST(d.nodes[2].id == "__end__");
  BOOST_TEST(d.nodes[2].name == "__end__");
  BOOST_REQUIRE_EQUAL(d.edges.size(), 2u);
  BOOST_TEST(d.edges[0].source == "__start__");
  BOOST_TEST(d.edges[0].target == "agent");
  BOOST_TEST(d.edges[1].source == "agent");
  BOOST_TEST(d.edges[1].target == "__end__");
  // As the graph draws itself here.
  BOOST_TEST(d.to_json() == remote_head::local(agent_spec, nullptr)->get_graph().to_json());
}

// libs/langgraph/tests/test_remote_graph.py::test_get_state, on thread `t`.
void check_get_state(const std::string& t) {
  remote_graph g = remote_head::get().graph("steps");
  run_steps(g, t);
  state_snapshot s = g.get_state(thread(t));
  BOOST_TEST(s.values == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(s.next.empty());
  BOOST_TEST(s.config.thread_id == t);
  BOOST_TEST(s.config.checkpoint_ns == "");
  BOOST_TEST(!s.config.checkpoint_id.empty());
  BOOST_TEST(s.metadata.get("source") == value("loop"));
  BOOST_TEST(s.metadata.get("step") == value(2));
  BOOST_TEST(!s.created_at.empty());
  BOOST_REQUIRE(s.parent_config.has_value());
  BOOST_TEST(s.parent_config->thread_id == t);
  BOOST_TEST(s.tasks.empty());
  // At a checkpoint id: the one before, whose task is node_b.
  value at = object{{"configurable",
                     object{{"thread_id", t}, {"checkpoint_id", s.parent_config->checkpoint_id}}}};
  state_snapshot before = g.get_state(at);
  BOOST_TEST(before.config.checkpoint_id == s.parent_config->checkpoint_id);
  BOOST_TEST(before.values == json(R"({"foo": "a", "bar": ["a"]})"));
  BOOST_TEST(before.next == std::vector<std::string>{"node_b"}, boost::test_tools::per_element());
  BOOST_REQUIRE_EQUAL(before.tasks.size(), 1u);
  BOOST_TEST(before.tasks[0].name == "node_b");
  BOOST_TEST(before.tasks[0].result == json(R"({"foo": "b", "bar": ["b"]})"));
  BOOST_TEST(before.tasks[0].interrupts.empty());
}

// libs/langgraph/tests/test_remote_graph.py::test_get_state_history, on thread `t`.
void check_get_state_history(const std::string& t) {
  remote_head& head = remote_head::get();
  remote_graph g = head.graph("steps");
  run_steps(g, t);
  std::vector<state_snapshot> all = g.get_state_history(thread(t));
  // LangGraph's RemoteGraph asks for 10 when given no limit.
  BOOST_TEST(head.last_request(t).find("history limit 10 before '' filter {}") != std::string::npos,
             head.last_request(t));
  BOOST_REQUIRE_EQUAL(all.size(), 4u);
  BOOST_TEST(all[0].values == json(R"({"foo": "b", "bar": ["a", "b"]})"));
  BOOST_TEST(all[0].next.empty());
  BOOST_TEST(all[0].config.checkpoint_id == g.get_state(thread(t)).config.checkpoint_id);
  BOOST_TEST(all[3].metadata.get("source") == value("input"));
  BOOST_TEST(!all[3].parent_config.has_value());
  for (std::size_t i = 0; i + 1 < all.size(); ++i)
    BOOST_TEST(all[i].parent_config->checkpoint_id == all[i + 1].config.checkpoint_id);
  // filter, before and limit.
  list_options loop;
  loop.filter = object{{"source", "loop"}};
  BOOST_TEST(g.get_state_history(thread(t), loop).size() == 3u);
  list_options before;
  before.before = all[1].config;
  auto older = g.get_state_history(thread(t), before);
  BOOST_REQUIRE_EQUAL(older.size(), 2u);
  BOOST_TEST(older[0].config.checkpoint_id == all[2].config.checkpoint_id);
  list_options one;
  one.limit = 1;
  auto newest = g.get_state_history(thread(t), one);
  BOOST_REQUIRE_EQUAL(newest.size(), 1u);
  BOOST_TEST(newest[0].config.checkpoint_id == all[0].config.checkpoint_id);
}

// libs/langgraph/tests/test_remote_graph.py::test_update_state, on thread `t`.
void check_update_state(const std::string& t) {
  remote_graph g = remote_head::get().graph("steps");
  run_steps(g, t);
  value cfg = g.update_state(thread(t), json(R"({"foo": "x", "bar": ["x"]})"));
  const std::string id = g.get_state(thread(t)).config.checkpoint_id;
  BOOST_TEST(cfg == value(object{{"configurable", object{{"thread_id", t},
                                                         {"checkpoint_ns", ""},
                                                         {"checkpoint_id", id},
                                                         {"checkpoint_map", object{}}}}}));
  BOOST_TEST(g.get_state(thread(t)).values == json(R"({"foo": "x", "bar": ["a", "b", "x"]})"));
  // As a node: its successors run next.
  (void)g.update_state(thread(t), json(R"({"foo": "y"})"), "node_a");
  BOOST_TEST(g.get_state(thread(t)).next == std::vector<std::string>{"node_b"},
             boost::test_tools::per_element());
}

// A local graph whose node `node` is `g` (LangGraph's StateGraph(MessagesState) with the
// remote graph as a node), with a checkpointer of the backend under test.
std::shared_ptr<pregel> parent_of(node_function node, const std::string& name,
                                  std::vector<std::string> interrupt_before = {}) {
  state_graph p;
  p.add_key("messages", "add_messages");
  p.add_node(name, std::move(node));
  p.add_edge(std::string(START), name).add_edge(name, std::string(END));
  compile_options o = opts_with_saver();
  o.interrupt_before = std::move(interrupt_before);
  return p.compile(o);
}

}  // namespace

// libs/langgraph/tests/test_remote_graph.py::test_get_graph
BOOST_AUTO_TEST_CASE(test_get_graph) { check_get_graph(); }

// libs/langgraph/tests/test_remote_graph.py::test_aget_graph
BOOST_AUTO_TEST_CASE(test_aget_graph) { std::async(std::launch::async, check_get_graph).get(); }

// libs/langgraph/tests/test_remote_graph.py::test_get_state
BOOST_AUTO_TEST_CASE(test_get_state) { check_get_state("get_state"); }

// libs/langgraph/tests/test_remote_graph.py::test_aget_state
BOOST_AUTO_TEST_CASE(test_aget_state) {
  std::async(std::launch::async, [] { check_get_state("aget_state"); }).get();
}

// libs/langgraph/tests/test_remote_graph.py::test_get_state_history
BOOST_AUTO_TEST_CASE(test_get_state_history) { check_get_state_history("get_state_history"); }

// libs/langgraph/tests/test_remote_graph.py::test_aget_state_history
BOOST_AUTO_TEST_CASE(test_aget_state_history) {
  std::async(std::launch::async, [] { check_get_state_history("aget_state_history"); }).get();
}

// libs/langgraph/tests/test_remote_graph.py::test_update_state
BOOST_AUTO_TEST_CASE(test_update_state) { check_update_state("update_state"); }

// libs/langgraph/tests/test_remote_graph.py::test_aupdate_state
BOOST_AUTO_TEST_CASE(test_aupdate_state) {
  std::async(std::launch::async, [] { check_update_state("aupdate_state"); }).get();
}

// libs/langgraph/tests/test_remote_graph.py::test_langgraph_cloud_integration (skipped in
// LangGraph's suite, for a live server; here the head is live): the remote graph as a node
// of a local graph, then each call on the remote graph itself.
BOOST_AUTO_TEST_CASE(test_langgraph_cloud_integration) {
  remote_head& head = remote_head::get();
  remote_graph remote = head.graph("agent");
  const value input = json(
      R"({"messages": [{"role": "human", "content": "What's the weather in SF?", "id": "h1"}]})");

  // invoke with interrupt_before the remote node: the parent stops before it.
  auto app = parent_of(remote.as_node(), "agent", {"agent"});
  const std::string t1 = "cloud_integration_1";
  value out = app->invoke(input, thread(t1));
  BOOST_TEST(out.get("messages").as_list().size() == 1u);
  BOOST_TEST(app->get_state(thread(t1)).next == std::vector<std::string>{"agent"},
             boost::test_tools::per_element());
  // Continuing runs the remote graph on the parent's thread id.
  out = app->invoke(value(), thread(t1));
  BOOST_TEST(out.get("messages").as_list().size() == 2u);
  BOOST_TEST(out.get("messages").as_list()[1].get("id") == value("ai3"));
  BOOST_TEST(head.last_request(t1).find("thread '" + t1 + "' graph 'agent'") != std::string::npos,
             head.last_request(t1));

  // stream with subgraphs, debug and messages: the remote events join the parent's stream
  // under the node's namespace.
  auto streamed = parent_of(remote.as_node(), "agent");
  const std::string t2 = "cloud_integration_2";
  std::vector<stream_event> events;
  stream_options so;
  so.modes = {stream_mode::debug, stream_mode::messages};
  so.subgraphs = true;
  (void)streamed->stream(input, thread(t2), so,
                         [&](const stream_event& e) { events.push_back(e); });
  std::size_t remote_messages = 0, remote_debug = 0;
  for (const auto& e : events) {
    if (e.ns.empty()) continue;
    BOOST_TEST(e.ns[0].rfind("agent:", 0) == 0, e.ns[0]);
    if (e.mode == stream_mode::messages) {
      ++remote_messages;
      BOOST_TEST(e.data.as_list()[0].get("id") == value("ai3"));
    }
    if (e.mode == stream_mode::debug) ++remote_debug;
  }
  BOOST_TEST(remote_messages == 1u);
  BOOST_TEST(remote_debug > 0u);
  // The head was asked for the parent's modes and the subgraphs' events; the caller's
  // namespace stayed here.
  const std::string r = head.last_request(t2);
  BOOST_TEST(
      r.find(R"(stream ["values","messages","debug","updates"] subgraphs)") != std::string::npos,
      r);
  BOOST_TEST(r.find("checkpoint_ns") == std::string::npos, r);

  // get_state with subgraphs, update_state, history, the drawing with xray.
  state_snapshot s = remote.get_state(thread(t2), true);
  BOOST_TEST(s.values.get("messages").as_list().size() == 2u);
  value cfg = remote.update_state(
      thread(t2),
      json(R"({"messages": [{"role": "ai", "content": "Hello world again!", "id": "a2"}]})"));
  BOOST_TEST(cfg.get("configurable").get("thread_id") == value(t2));
  auto history = remote.get_state_history(thread(t2));
  BOOST_TEST(history.size() == 4u);
  BOOST_TEST(history[0].metadata.get("source") == value("update"));
  BOOST_TEST(remote.get_graph(1).to_json() ==
             remote_head::local(agent_spec, nullptr)->get_graph(1).to_json());

  // An interrupt in the remote graph pauses the parent with the remote interrupt.
  auto asking = parent_of(head.graph("chunks").as_node(), "remote");
  const std::string t3 = "cloud_integration_3";
  value paused = asking->invoke(json(R"({"messages": []})"), thread(t3));
  const value* ints = paused.find("__interrupt__");
  BOOST_REQUIRE(ints);
  BOOST_REQUIRE_EQUAL(ints->as_list().size(), 1u);
  BOOST_TEST(ints->as_list()[0].get("value") == json(R"({"question": "Does this look good?"})"));
  // The same interrupt, by id, as the remote thread holds.
  state_snapshot remote_state = head.graph("chunks").get_state(thread(t3));
  BOOST_REQUIRE_EQUAL(remote_state.tasks.size(), 1u);
  BOOST_TEST(ints->as_list()[0] == remote_state.tasks[0].interrupts.at(0));
  state_snapshot parent_state = asking->get_state(thread(t3));
  BOOST_TEST(parent_state.next == std::vector<std::string>{"remote"},
             boost::test_tools::per_element());
  // Resuming the parent resumes the remote thread with the value.
  value resumed = asking->invoke(resume(value("go")), thread(t3));
  BOOST_TEST(!resumed.find("__interrupt__"));
  BOOST_TEST(head.last_request(t3).find("run with resume") != std::string::npos,
             head.last_request(t3));
  BOOST_TEST(head.graph("chunks").get_state(thread(t3)).values.get("answer") == value("go"));
  BOOST_TEST(asking->get_state(thread(t3)).next.empty());
}

// libs/langgraph/tests/test_remote_graph.py::test_remote_graph_stream_messages_tuple
BOOST_AUTO_TEST_CASE(test_remote_graph_stream_messages_tuple) {
  const value input = json(R"({"messages": [{"role": "user", "content": "hello", "id": "h1"}]})");
  stream_options so;
  so.modes = {stream_mode::messages};
  so.subgraphs = true;
  std::vector<stream_event> remote_events, local_events;
  auto nested_remote = parent_of(remote_head::get().graph("agent").as_node(), "nested");
  (void)nested_remote->stream(input, thread("messages_tuple_remote"), so,
                              [&](const stream_event& e) { remote_events.push_back(e); });
  state_graph local;
  local.add_key("messages", "add_messages");
  local.add_node("nested", remote_head::local(agent_spec, nullptr));
  local.add_edge(std::string(START), "nested");
  auto nested_local = local.compile(opts_with_saver());
  (void)nested_local->stream(input, thread("messages_tuple_local"), so,
                             [&](const stream_event& e) { local_events.push_back(e); });
  BOOST_REQUIRE_EQUAL(remote_events.size(), local_events.size());
  BOOST_REQUIRE(!remote_events.empty());
  for (std::size_t i = 0; i < remote_events.size(); ++i) {
    BOOST_TEST(remote_events[i].data.as_list()[0] == local_events[i].data.as_list()[0]);
    BOOST_TEST(remote_events[i].ns.size() == local_events[i].ns.size());
  }
}
