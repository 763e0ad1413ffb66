// LangGraph's libs/langgraph/tests/test_config_async.py: a config bound to a compiled graph
// (pregel::with_config) is merged with each run's, key by key; see conformance.hpp. The cases
// are async there (ainvoke); our invoke takes the same config.
#include <algorithm>
#include <functional>
#include <memory>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// StateGraph(dict) with one node that hands its config to `capture` and returns the state.
std::shared_ptr<pregel> capturing_graph(std::function<void(const value& config)> capture) {
  state_graph b;
  b.add_key("value");
  b.add_node("node", [capture = std::move(capture)](const value& state, node_context& ctx) {
    capture(ctx.config());
    return state;
  });
  b.add_edge("__start__", "node");
  return b.compile(opts());
}

}  // namespace

// libs/langgraph/tests/test_config_async.py::test_with_config_configurable_preserved_on_invoke
BOOST_AUTO_TEST_CASE(test_with_config_configurable_preserved_on_invoke) {
  value captured;
  auto graph = capturing_graph([&](const value& config) {
                 captured = config.get("configurable");
               })->with_config(object{{"configurable", object{{"ls_agent_type", "root"}}}});
  graph->invoke(object{}, object{{"configurable", object{{"thread_id", "T1"}}}});
  BOOST_TEST(captured.get("ls_agent_type") == value("root"),
             "bound configurable key was dropped: " << captured);
  BOOST_TEST(captured.get("thread_id") == value("T1"), "invoke-time key not present: " << captured);
}

// libs/langgraph/tests/test_config_async.py::test_with_config_metadata_preserved_on_invoke
BOOST_AUTO_TEST_CASE(test_with_config_metadata_preserved_on_invoke) {
  value captured;
  auto graph = capturing_graph([&](const value& config) {
                 captured = config.get("metadata");
               })->with_config(object{{"metadata", object{{"user_id", "U1"}}}});
  graph->invoke(object{}, object{{"metadata", object{{"correlation_id", "C1"}}}});
  BOOST_TEST(captured.get("user_id") == value("U1"),
             "bound metadata key was dropped: " << captured);
  BOOST_TEST(captured.get("correlation_id") == value("C1"),
             "invoke-time key not present: " << captured);
}

// libs/langgraph/tests/test_config_async.py::test_with_config_tags_preserved_on_invoke
BOOST_AUTO_TEST_CASE(test_with_config_tags_preserved_on_invoke) {
  list captured;
  auto graph = capturing_graph([&](const value& config) {
                 if (config.get("tags").is_list()) captured = config.get("tags").as_list();
               })->with_config(object{{"tags", value::array({"bound"})}});
  graph->invoke(object{}, object{{"tags", value::array({"invoke"})}});
  auto has = [&](const char* tag) {
    return std::find(captured.begin(), captured.end(), value(tag)) != captured.end();
  };
  BOOST_TEST(has("bound"), "bound tag was dropped: " << value(captured));
  BOOST_TEST(has("invoke"), "invoke-time tag not present: " << value(captured));
}
