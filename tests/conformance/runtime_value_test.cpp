// LangGraph's libs/langgraph/tests/test_runtime.py, the Runtime, ExecutionInfo and ServerInfo
// values (superstep/pregel/runtime.hpp): built by hand, combined with override and merge,
// and as a node reads them through node_context::runtime(); see conformance.hpp. The run's
// context and execution info in graphs: runtime_context_test.cpp; draining:
// runtime_drain_test.cpp.
#include <memory>
#include <optional>
#include <string>

#include "conformance.hpp"
#include "superstep/pregel/run_control.hpp"
#include "superstep/pregel/runtime.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A Context dataclass with one field, `api_key`.
value api_key_context(const char* key) { return object{{"api_key", key}}; }

// What the capture node saw of its runtime (LangGraph's _make_capture_graph).
struct captured_runtime {
  std::optional<superstep::execution_info> execution_info;
  std::optional<superstep::server_info> server_info;
};

// START -> capture -> END over one key, `message`; the node records its runtime's execution
// and server info.
std::shared_ptr<pregel> capture_graph(captured_runtime& capture) {
  state_graph b;
  b.add_key("message");
  b.add_node("capture", [&capture](const value&, node_context& ctx) -> value {
    const superstep::runtime rt = ctx.runtime();
    capture.execution_info = rt.execution_info;
    capture.server_info = rt.server_info;
    return object{{"message", "done"}};
  });
  b.add_edge("__start__", "capture").add_edge("capture", "__end__");
  return b.compile(opts());
}

value with_configurable(object configurable) {
  return object{{"configurable", std::move(configurable)}};
}

}  // namespace

// libs/langgraph/tests/test_runtime.py::test_override_runtime
BOOST_AUTO_TEST_CASE(test_override_runtime) {
  const superstep::runtime prev{.context = api_key_context("abc")};
  const superstep::runtime next = prev.override({.context = api_key_context("def")});
  BOOST_TEST(next.override({.context = api_key_context("def")}).context.get("api_key") ==
             value("def"));
}

// libs/langgraph/tests/test_runtime.py::test_merge_runtime
BOOST_AUTO_TEST_CASE(test_merge_runtime) {
  const superstep::runtime runtime1{.context = api_key_context("abc")};
  const superstep::runtime runtime2{.context = api_key_context("def")};
  const superstep::runtime runtime3{.context = value()};
  BOOST_TEST(runtime1.merge(runtime2).context.get("api_key") == value("def"));
  // only what the other runtime sets (a truthy context) wins
  BOOST_TEST(runtime1.merge(runtime3).context.get("api_key") == value("abc"));
}

// libs/langgraph/tests/test_runtime.py::test_merge_runtime_preserves_run_control
BOOST_AUTO_TEST_CASE(test_merge_runtime_preserves_run_control) {
  auto control = std::make_shared<run_control>();
  const superstep::runtime runtime1{.control = control};
  const superstep::runtime runtime2{.context = value()};
  BOOST_TEST(runtime1.merge(runtime2).control == control);
}

// libs/langgraph/tests/test_runtime.py::test_execution_info_defaults_and_patch
// LangGraph's ExecutionInfo is a frozen dataclass (assigning a field raises AttributeError);
// ours is a value, and patch leaves the original as it was.
BOOST_AUTO_TEST_CASE(test_execution_info_defaults_and_patch) {
  const execution_info info{.checkpoint_id = "c1", .checkpoint_ns = "ns1", .task_id = "t1"};
  BOOST_TEST(info.checkpoint_id == "c1");
  BOOST_TEST(info.checkpoint_ns == "ns1");
  BOOST_TEST(info.task_id == "t1");
  BOOST_TEST(!info.thread_id.has_value());
  BOOST_TEST(!info.run_id.has_value());
  BOOST_TEST(info.node_attempt == 1);
  BOOST_TEST(!info.node_first_attempt_time.has_value());

  // patch returns a new value, the original unchanged
  const execution_info patched =
      info.patch({.task_id = "tk1", .thread_id = "th1", .node_attempt = 3});
  BOOST_TEST(patched.thread_id.value_or("") == "th1");
  BOOST_TEST(patched.node_attempt == 3);
  BOOST_TEST(patched.task_id == "tk1");
  BOOST_TEST(info.node_attempt == 1);
  BOOST_TEST(info.task_id == "t1");
}

// libs/langgraph/tests/test_runtime.py::test_server_info_and_runtime_merge
// (LangGraph's "is" of the merged server info: the same fields here; ServerInfo is frozen
// there, a value here)
BOOST_AUTO_TEST_CASE(test_server_info_and_runtime_merge) {
  const server_info si{.assistant_id = "asst-1", .graph_id = "graph-1"};
  BOOST_TEST(si.assistant_id == "asst-1");
  BOOST_TEST(si.user.is_null());

  // a runtime's default is none
  BOOST_TEST(!superstep::runtime().server_info.has_value());

  // merge keeps this runtime's server info when the other has none
  const superstep::runtime r1{.server_info = si};
  const auto merged = r1.merge(superstep::runtime());
  BOOST_TEST_REQUIRE(merged.server_info.has_value());
  BOOST_TEST(merged.server_info->assistant_id == "asst-1");
  BOOST_TEST(merged.server_info->graph_id == "graph-1");

  // merge takes the other's server info when it has one
  const server_info si2{.assistant_id = "asst-2", .graph_id = "graph-2"};
  const auto merged2 = r1.merge(superstep::runtime{.server_info = si2});
  BOOST_TEST_REQUIRE(merged2.server_info.has_value());
  BOOST_TEST(merged2.server_info->assistant_id == "asst-2");
  BOOST_TEST(merged2.server_info->graph_id == "graph-2");
}

// libs/langgraph/tests/test_runtime.py::test_server_info_from_configurable
BOOST_AUTO_TEST_CASE(test_server_info_from_configurable) {
  captured_runtime captured;
  capture_graph(captured)->invoke(
      object{{"message", "hi"}},
      with_configurable(object{{"assistant_id", "asst-abc"}, {"graph_id", "my-graph"}}));
  BOOST_TEST_REQUIRE(captured.server_info.has_value());
  BOOST_TEST(captured.server_info->assistant_id == "asst-abc");
  BOOST_TEST(captured.server_info->graph_id == "my-graph");
  BOOST_TEST(captured.server_info->user.is_null());
}

// libs/langgraph/tests/test_runtime.py::test_server_info_none_without_configurable
BOOST_AUTO_TEST_CASE(test_server_info_none_without_configurable) {
  captured_runtime captured;
  capture_graph(captured)->invoke(object{{"message", "hi"}});
  BOOST_TEST_REQUIRE(captured.execution_info.has_value());  // the node ran
  BOOST_TEST(!captured.server_info.has_value());
}

// libs/langgraph/tests/test_runtime.py::test_server_info_user_from_auth_user
// LangGraph's user is any object with an `identity` (its BaseUser protocol, or the server's
// proxy); ours is an object value with an "identity" key.
BOOST_AUTO_TEST_CASE(test_server_info_user_from_auth_user) {
  const value proxy = object{{"identity", "proxy-user"},
                             {"display_name", "Proxy User"},
                             {"is_authenticated", true},
                             {"permissions", value::array({"read"})}};
  captured_runtime captured;
  capture_graph(captured)->invoke(object{{"message", "hi"}},
                                  with_configurable(object{{"langgraph_auth_user", proxy},
                                                           {"assistant_id", "asst-proxy"},
                                                           {"graph_id", "graph-proxy"}}));
  BOOST_TEST_REQUIRE(captured.server_info.has_value());
  BOOST_TEST(captured.server_info->assistant_id == "asst-proxy");
  BOOST_TEST_REQUIRE(!captured.server_info->user.is_null());
  BOOST_TEST(captured.server_info->user.get("identity") == value("proxy-user"));
  BOOST_TEST(captured.server_info->user.get("display_name") == value("Proxy User"));
}
