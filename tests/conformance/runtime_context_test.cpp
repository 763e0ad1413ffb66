// LangGraph's libs/langgraph/tests/test_runtime.py, beside its drain tests
// (runtime_drain_test.cpp): the run's context (LangGraph `context=`, our config's "context"
// read through node_context::context()) and the execution info a node sees
// (node_context::runtime().execution_info: thread, task, namespace, attempt); see
// conformance.hpp. The Runtime, ExecutionInfo and ServerInfo values: runtime_value_test.cpp.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A run config carrying `context`, and the thread `thread_id` when given.
value with_context(value context, const char* thread_id = nullptr) {
  object cfg{{"context", std::move(context)}};
  if (thread_id) cfg.set("configurable", object{{"thread_id", thread_id}});
  return cfg;
}

// START -> node -> END over one key, `message`.
std::shared_ptr<pregel> message_graph(node_function fn, compile_options o = opts()) {
  state_graph b;
  b.add_key("message");
  b.add_node("node", std::move(fn));
  b.add_edge("__start__", "node").add_edge("node", "__end__");
  return b.compile(o);
}

}  // namespace

// libs/langgraph/tests/test_runtime.py::test_injected_runtime
BOOST_AUTO_TEST_CASE(test_injected_runtime) {
  auto graph = message_graph([](const value&, node_context& ctx) -> value {
    return object{{"message", "api key: " + ctx.context().get("api_key").as_string()}};
  });
  BOOST_TEST(graph
                 ->invoke(object{{"message", "hello world"}},
                          with_context(object{{"api_key", "sk_123456"}}))
                 .to_json() == R"({"message":"api key: sk_123456"})");
}

// libs/langgraph/tests/test_runtime.py::test_runtime_propogated_to_subgraph
BOOST_AUTO_TEST_CASE(test_runtime_propogated_to_subgraph) {
  state_graph sub;
  sub.add_key("subgraph").add_key("main");
  sub.add_node("subgraph_node_1", [](const value&, node_context& ctx) -> value {
    return object{{"subgraph", ctx.context().get("username").as_string() + "!"}};
  });
  sub.add_edge("__start__", "subgraph_node_1");

  state_graph b;
  b.add_key("subgraph").add_key("main");
  b.add_node("main_node", [](const value&, node_context& ctx) -> value {
    return object{{"main", ctx.context().get("username").as_string() + "!"}};
  });
  b.add_node("node_1", sub.compile(opts()));
  b.add_edge("__start__", "main_node").add_edge("main_node", "node_1");
  auto graph = b.compile(opts());
  const value out = graph->invoke(object{}, with_context(object{{"username", "Alice"}}));
  BOOST_TEST(out.get("subgraph").to_json() == R"("Alice!")");
  BOOST_TEST(out.get("main").to_json() == R"("Alice!")");
  BOOST_TEST(out.as_object().size() == 2u);
}

// libs/langgraph/tests/test_runtime.py::test_context_coercion_typeddict
BOOST_AUTO_TEST_CASE(test_context_coercion_typeddict) {
  auto graph = message_graph([](const value&, node_context& ctx) -> value {
    return object{{"message", "api_key: " + ctx.context().get("api_key").as_string() +
                                  ", timeout: " + ctx.context().get("timeout").to_json()}};
  });
  BOOST_TEST(graph
                 ->invoke(object{{"message", "test"}},
                          with_context(object{{"api_key", "sk_test"}, {"timeout", 60}}))
                 .to_json() == R"({"message":"api_key: sk_test, timeout: 60"})");
}

// libs/langgraph/tests/test_runtime.py::test_context_coercion_none
BOOST_AUTO_TEST_CASE(test_context_coercion_none) {
  auto graph = message_graph([](const value&, node_context& ctx) -> value {
    return object{{"message", std::string("context is None: ") +
                                  (ctx.context().is_null() ? "True" : "False")}};
  });
  BOOST_TEST(graph->invoke(object{{"message", "test"}}, with_context(value())).to_json() ==
             R"({"message":"context is None: True"})");
  BOOST_TEST(graph->invoke(object{{"message", "test"}}).to_json() ==
             R"({"message":"context is None: True"})");
}

// libs/langgraph/tests/test_runtime.py::test_context_coercion_stream
BOOST_AUTO_TEST_CASE(test_context_coercion_stream) {
  auto graph = message_graph([](const value&, node_context& ctx) -> value {
    return object{{"message", "stream api_key: " + ctx.context().get("api_key").as_string() +
                                  ", mode: " + ctx.context().get("stream_mode").as_string()}};
  });
  std::vector<value> chunks;
  graph->stream(object{{"message", "test"}},
                with_context(object{{"api_key", "sk_stream"}, {"stream_mode", "fast"}}),
                stream_options{{stream_mode::updates}, false},
                [&](const stream_event& e) { chunks.push_back(e.data); });
  value node_output;
  for (const auto& c : chunks)
    if (c.find("node")) {
      node_output = c.get("node");
      break;
    }
  BOOST_TEST(node_output.to_json() == R"({"message":"stream api_key: sk_stream, mode: fast"})");
}

// libs/langgraph/tests/test_runtime.py::test_execution_info_populated_in_graph
BOOST_AUTO_TEST_CASE(test_execution_info_populated_in_graph) {
  std::optional<execution_info> info;
  auto graph = message_graph(
      [&](const value&, node_context& ctx) -> value {
        info = ctx.runtime().execution_info;
        return object{{"message", "done"}};
      },
      opts_with_saver());
  graph->invoke(object{{"message", "hi"}}, thread("t-123"));
  BOOST_TEST_REQUIRE(info.has_value());
  BOOST_TEST(info->thread_id.value_or("") == "t-123");
  BOOST_TEST(!info->task_id.empty());
  BOOST_TEST(!info->checkpoint_ns.empty());
  // The checkpoint of the step the task ran in: the one before the run's last.
  const auto history = graph->get_state_history(thread("t-123"));
  BOOST_TEST_REQUIRE(history.size() == 3u);
  BOOST_TEST(info->checkpoint_id == history[1].config.checkpoint_id);
  BOOST_TEST(info->node_attempt == 1);
  BOOST_TEST_REQUIRE(info->node_first_attempt_time.has_value());
  BOOST_TEST(*info->node_first_attempt_time > 0);
}

// libs/langgraph/tests/test_runtime.py::test_execution_info_inherited_by_subgraph
BOOST_AUTO_TEST_CASE(test_execution_info_inherited_by_subgraph) {
  std::optional<execution_info> main_info, sub_info;
  std::mutex m;
  state_graph sub;
  sub.add_key("message");
  sub.add_node("sub_node", [&](const value&, node_context& ctx) -> value {
    std::lock_guard lock(m);
    sub_info = ctx.runtime().execution_info;
    return object{{"message", "from_sub"}};
  });
  sub.add_edge("__start__", "sub_node");

  state_graph b;
  b.add_key("message");
  b.add_node("main_node", [&](const value&, node_context& ctx) -> value {
    std::lock_guard lock(m);
    main_info = ctx.runtime().execution_info;
    return object{{"message", "from_main"}};
  });
  b.add_node("subgraph", sub.compile(opts()));
  b.add_edge("__start__", "main_node").add_edge("main_node", "subgraph");
  auto graph = b.compile(opts_with_saver());
  graph->invoke(object{{"message", "hi"}}, thread("sub-thread"));

  BOOST_TEST_REQUIRE(main_info.has_value());
  BOOST_TEST_REQUIRE(sub_info.has_value());
  BOOST_TEST(main_info->thread_id.value_or("") == "sub-thread");
  BOOST_TEST(sub_info->thread_id.value_or("") == "sub-thread");
  BOOST_TEST(main_info->node_attempt == 1);
  BOOST_TEST(sub_info->node_attempt == 1);
  // "main_node:<task id>" at the top level; "subgraph:<task id>|sub_node:<task id>" nested.
  BOOST_TEST(main_info->checkpoint_ns.starts_with("main_node:"), main_info->checkpoint_ns);
  BOOST_TEST(main_info->checkpoint_ns.find('|') == std::string::npos, main_info->checkpoint_ns);
  BOOST_TEST(sub_info->checkpoint_ns.starts_with("subgraph:"), sub_info->checkpoint_ns);
  BOOST_TEST(sub_info->checkpoint_ns.find("|sub_node:") != std::string::npos,
             sub_info->checkpoint_ns);
  BOOST_TEST(main_info->checkpoint_ns.find(main_info->task_id) != std::string::npos);
  BOOST_TEST(sub_info->checkpoint_ns.find(sub_info->task_id) != std::string::npos);
}
