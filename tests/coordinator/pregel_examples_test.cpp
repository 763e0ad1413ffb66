// The five Pregel examples of LangGraph's runtime guide, with its exact outputs.
#include <boost/test/unit_test.hpp>

#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"

using namespace superstep;
namespace ch = superstep::channels;

namespace {

value twice(const value& x, node_context&) {
  if (x.is_string()) return value(x.as_string() + x.as_string());
  throw std::runtime_error("expected a string");
}

template <class C, class... A>
std::shared_ptr<const ch::channel> make(std::string key, A&&... args) {
  return std::make_shared<C>(std::move(key), std::forward<A>(args)...);
}

}  // namespace

BOOST_AUTO_TEST_CASE(single_node_doubles_its_input) {
  pregel_graph g;
  g.channels = {{"a", make<ch::ephemeral_value>("a")}, {"b", make<ch::ephemeral_value>("b")}};
  g.nodes.push_back(subscribe_node("node1", {"a"}, twice, {"b"}));
  g.input_channels = {"a"};
  g.output_channels = {"b"};
  pregel app(std::move(g));
  BOOST_TEST(app.invoke(object{{"a", "foo"}}) == value(object{{"b", "foofoo"}}));
}

BOOST_AUTO_TEST_CASE(two_nodes_chain_through_a_last_value) {
  pregel_graph g;
  g.channels = {{"a", make<ch::ephemeral_value>("a")},
                {"b", make<ch::last_value>("b")},
                {"c", make<ch::ephemeral_value>("c")}};
  g.nodes.push_back(subscribe_node("node1", {"a"}, twice, {"b"}));
  g.nodes.push_back(subscribe_node("node2", {"b"}, twice, {"c"}));
  g.input_channels = {"a"};
  g.output_channels = {"b", "c"};
  pregel app(std::move(g));
  BOOST_TEST(app.invoke(object{{"a", "foo"}}).to_json() == R"({"b":"foofoo","c":"foofoofoofoo"})");
}

BOOST_AUTO_TEST_CASE(topic_accumulates_writes_of_both_steps) {
  pregel_graph g;
  g.channels = {{"a", make<ch::ephemeral_value>("a")},
                {"b", make<ch::ephemeral_value>("b")},
                {"c", make<ch::topic>("c", true)}};
  g.nodes.push_back(subscribe_node("node1", {"a"}, twice, {"b", "c"}));
  g.nodes.push_back(subscribe_node("node2", {"b"}, twice, {"c"}));
  g.input_channels = {"a"};
  g.output_channels = {"c"};
  pregel app(std::move(g));
  BOOST_TEST(app.invoke(object{{"a", "foo"}}).to_json() == R"({"c":["foofoo","foofoofoofoo"]})");
}

BOOST_AUTO_TEST_CASE(binary_operator_folds_with_a_user_reducer) {
  ch::reducer r{"bar",
                [](const value& current, const value& update) {
                  if (current.truthy()) return value(current.as_string() + " | update");
                  return update;
                },
                {}};
  pregel_graph g;
  g.channels = {{"a", make<ch::ephemeral_value>("a")},
                {"b", make<ch::ephemeral_value>("b")},
                {"c", make<ch::binary_operator_aggregate>("c", r)}};
  g.nodes.push_back(subscribe_node("node1", {"a"}, twice, {"b", "c"}));
  g.nodes.push_back(subscribe_node("node2", {"b"}, twice, {"c"}));
  g.input_channels = {"a"};
  g.output_channels = {"c"};
  pregel app(std::move(g));
  BOOST_TEST(app.invoke(object{{"a", "foo"}}).to_json() == R"({"c":"foofoo | update"})");
}

BOOST_AUTO_TEST_CASE(cycle_runs_until_the_node_writes_none) {
  pregel_graph g;
  g.channels = {{"value", make<ch::ephemeral_value>("value")}};
  g.nodes.push_back(subscribe_node(
      "example_node", {"value"},
      [](const value& x, node_context&) -> value {
        if (x.as_string().size() < 10) return value(x.as_string() + x.as_string());
        return value();
      },
      {"value"}, /*skip_none=*/true));
  g.input_channels = {"value"};
  g.output_channels = {"value"};
  pregel app(std::move(g));
  BOOST_TEST(app.invoke(object{{"value", "a"}}).to_json() == R"({"value":"aaaaaaaaaaaaaaaa"})");
}

BOOST_AUTO_TEST_CASE(rejects_a_node_subscribed_to_an_unknown_channel) {
  pregel_graph g;
  g.channels = {{"a", make<ch::ephemeral_value>("a")}};
  g.nodes.push_back(subscribe_node("n", {"nope"}, twice, {"a"}));
  g.input_channels = {"a"};
  g.output_channels = {"a"};
  try {
    pregel app(std::move(g));
    BOOST_FAIL("accepted");
  } catch (const superstep::error& e) {
    BOOST_TEST(std::string(e.what()) == "node 'n' names unknown channel 'nope'");
  }
}
