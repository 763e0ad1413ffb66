// LangGraph's `set_node_defaults` tests (libs/langgraph/tests/test_retry.py), ported: a graph's
// default error handler and retry policy, overridden per node. Python exceptions become error
// codes and messages; the handler reads LangGraph's NodeError from node_context::node_error().

#include <atomic>
#include <stdexcept>
#include <vector>

#include "conformance.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string start{START};

retry_policy policy(std::int64_t max_attempts) {
  retry_policy p;
  p.max_attempts = max_attempts;
  p.initial_interval_ms = 1;
  p.jitter = false;
  p.retry_on = [](const error& e) { return e.code() == error_code::node_error; };
  return p;
}

node_function failing(std::string message, std::atomic<int>* calls = nullptr) {
  return [message, calls](const value&, node_context&) -> value {
    if (calls) ++*calls;
    throw std::runtime_error(message);
  };
}

// route_node routes with Command(goto=route) and conditional edges to fail_a or fail_b.
state_graph routing_graph() {
  state_graph b;
  b.add_key("route");
  b.add_key("foo", "add");
  return b;
}

void add_routing(state_graph& b) {
  b.add_node("route_node", [](const value& s, node_context&) -> value {
    command c;
    c.go_to = {s.get("route")};
    return make_command(c);
  });
  b.add_edge(start, "route_node");
  b.add_conditional_edges("route_node",
                          [](const value& s, node_context&) { return s.get("route"); },
                          {{"fail_a", "fail_a"}, {"fail_b", "fail_b"}});
}

value input_route(const char* route) { return object{{"route", route}, {"foo", list{}}}; }

}  // namespace

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_catches_all_nodes
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_catches_all_nodes) {
  std::vector<std::string> nodes;
  state_graph b = routing_graph();
  b.set_node_defaults({.error_handler = [&](const value&, node_context& ctx) -> value {
    nodes.push_back(ctx.node_error()->node);
    return object{{"foo", list{"handled_" + ctx.node_error()->node}}};
  }});
  b.add_node("fail_a", failing("a failed"));
  b.add_node("fail_b", failing("b failed"));
  add_routing(b);
  auto graph = b.compile(opts());
  BOOST_TEST(graph->invoke(input_route("fail_a")).get("foo") == value(list{"handled_fail_a"}));
  BOOST_TEST(graph->invoke(input_route("fail_b")).get("foo") == value(list{"handled_fail_b"}));
  BOOST_TEST(std::count(nodes.begin(), nodes.end(), "fail_a") > 0);
  BOOST_TEST(std::count(nodes.begin(), nodes.end(), "fail_b") > 0);
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_overridden_by_node_handler
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_overridden_by_node_handler) {
  std::vector<std::string> handler;
  state_graph b = routing_graph();
  b.set_node_defaults({.error_handler = [&](const value&, node_context& ctx) -> value {
    handler.push_back("default:" + ctx.node_error()->node);
    return object{{"foo", list{"default_handled_" + ctx.node_error()->node}}};
  }});
  b.add_node("fail_a", failing("a failed"),
             {.error_handler = [&](const value&, node_context& ctx) -> value {
               handler.push_back("node:" + ctx.node_error()->node);
               return object{{"foo", list{"node_handled_" + ctx.node_error()->node}}};
             }});
  b.add_node("fail_b", failing("b failed"));
  add_routing(b);
  auto graph = b.compile(opts());
  auto seen = [&](const char* s) {
    return std::find(handler.begin(), handler.end(), s) != handler.end();
  };
  BOOST_TEST(graph->invoke(input_route("fail_a")).get("foo") == value(list{"node_handled_fail_a"}));
  BOOST_TEST(seen("node:fail_a"));
  BOOST_TEST(!seen("default:fail_a"));
  BOOST_TEST(graph->invoke(input_route("fail_b")).get("foo") ==
             value(list{"default_handled_fail_b"}));
  BOOST_TEST(seen("default:fail_b"));
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_skips_per_node_handler_nodes
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_skips_per_node_handler_nodes) {
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.error_handler = [](const value&, node_context&) -> value {
    return object{{"foo", "default recovered"}};
  }});
  b.add_node("always_failing", failing("node boom"), {.error_handler = failing("handler boom")});
  b.add_edge(start, "always_failing");
  auto graph = b.compile(opts());
  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::node_error, "handler boom");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_failure_fails_run
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_failure_fails_run) {
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.error_handler = failing("default handler boom")});
  b.add_node("always_failing", failing("node boom"));
  b.add_edge(start, "always_failing");
  auto graph = b.compile(opts());
  test::expect_error(
      [&] {
        graph->invoke(object{{"foo", ""}});
      },
      error_code::node_error, "default handler boom");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_receives_runnable_config
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_receives_runnable_config) {
  std::string thread_id;
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.error_handler = [&](const value&, node_context& ctx) -> value {
    thread_id = ctx.configurable("thread_id").as_string();
    return object{{"foo", "handled"}};
  }});
  b.add_node("always_failing", failing("boom"));
  b.add_edge(start, "always_failing");
  auto graph = b.compile(opts_with_saver());
  value result = graph->invoke(object{{"foo", ""}}, thread("a-fresh-thread"));
  BOOST_TEST(result.get("foo").as_string() == "handled");
  BOOST_TEST(thread_id == "a-fresh-thread");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_error_handler_collides_with_user_node
BOOST_AUTO_TEST_CASE(test_set_node_defaults_error_handler_collides_with_user_node) {
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.error_handler = [](const value&, node_context&) -> value {
    return object{{"foo", "handled"}};
  }});
  b.add_node("__default_error_handler__", [](const value& s, node_context&) { return s; });
  b.add_edge(start, "__default_error_handler__");
  test::expect_error([&] { b.compile(opts()); }, error_code::invalid_graph,
                     "__default_error_handler__");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_retry_policy
BOOST_AUTO_TEST_CASE(test_set_node_defaults_retry_policy) {
  std::atomic<int> attempts = 0;
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.retry = {policy(3)}});
  b.add_node("flaky", [&](const value&, node_context&) -> value {
    if (++attempts < 3) throw std::runtime_error("not yet");
    return object{{"foo", "ok"}};
  });
  b.add_edge(start, "flaky");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "ok");
  BOOST_TEST(attempts == 3);
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_retry_policy_per_node_wins
BOOST_AUTO_TEST_CASE(test_set_node_defaults_retry_policy_per_node_wins) {
  std::atomic<int> attempts = 0;
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults({.retry = {policy(1)}});
  b.add_node("flaky",
             [&](const value&, node_context&) -> value {
               if (++attempts < 2) throw std::runtime_error("not yet");
               return object{{"foo", "ok"}};
             },
             {.retry = {policy(3)}});
  b.add_edge(start, "flaky");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "ok");
  BOOST_TEST(attempts == 2);
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_chaining
BOOST_AUTO_TEST_CASE(test_set_node_defaults_chaining) {
  retry_policy once = policy(1);
  once.retry_on = nullptr;  // LangGraph's default retry_on
  state_graph b;
  b.add_key("foo");
  b.add_node("a", failing("boom"))
      .add_edge(start, "a")
      .set_node_defaults(
          {.retry = {once}, .error_handler = [](const value&, node_context&) -> value {
             return object{{"foo", "handled"}};
           }});
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "handled");
}

// libs/langgraph/tests/test_retry.py::test_set_node_defaults_combined_retry_and_error_handler
BOOST_AUTO_TEST_CASE(test_set_node_defaults_combined_retry_and_error_handler) {
  std::atomic<int> attempts = 0;
  std::string captured;
  state_graph b;
  b.add_key("foo");
  b.set_node_defaults(
      {.retry = {policy(2)}, .error_handler = [&](const value&, node_context& ctx) -> value {
         captured = ctx.node_error()->message;
         return object{{"foo", "handled"}};
       }});
  b.add_node("fail", failing("Always fails", &attempts));
  b.add_edge(start, "fail");
  value result = b.compile(opts())->invoke(object{{"foo", ""}});
  BOOST_TEST(result.get("foo").as_string() == "handled");
  BOOST_TEST(attempts == 2);
  BOOST_TEST(captured == "Always fails");
}
