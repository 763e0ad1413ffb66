// Nodes reach the long-term store through their context (the seed's memory example): what a
// node stores under (user_id, "memories") in one thread, a node of another thread of the same
// user finds; another user's threads do not.
#include <boost/test/unit_test.hpp>

#include "coordinator/test_execution.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/embedder.hpp"
#include "superstep/storage/store_memory.hpp"

using namespace superstep;

namespace {

// Recalls the user's memories that match the last message, then keeps the message as a
// memory when it starts with "remember: ".
value remember(const value& state, node_context& ctx) {
  storage::store* st = ctx.store();
  if (!st) throw error(error_code::internal, "the node has no store");
  const value& user = ctx.config().get("configurable").get("user_id");
  if (!user.is_string()) throw error(error_code::invalid_argument, "no configurable.user_id");
  const storage::namespace_path ns{user.as_string(), "memories"};
  const std::string message = state.get("messages").as_list().back().as_string();
  storage::search_options query;
  query.ns_prefix = ns;
  query.query = message;
  list recalled;
  for (const auto& it : st->search(query)) recalled.push_back(it.v.get("data"));
  const std::string prefix = "remember: ";
  if (message.rfind(prefix, 0) == 0)
    st->put(ns, "m-" + std::to_string(std::hash<std::string>{}(message)),
            object{{"data", message.substr(prefix.size())}});
  return object{{"recalled", value(std::move(recalled))}};
}

value config_of(const std::string& thread, const std::string& user) {
  return object{{"configurable", object{{"thread_id", thread}, {"user_id", user}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_second_thread_of_the_same_user_sees_the_memories_of_the_first) {
  auto memories = std::make_shared<storage::memory_store>(
      storage::index_config{64, storage::make_hashing_embedder(64), {"data"}});
  state_graph b;
  b.add_key("messages", "append").add_key("recalled");
  b.add_node("remember", remember);
  b.add_edge(std::string(START), "remember");
  compile_options o = test::opts();
  o.store = memories;
  auto graph = b.compile(o);

  auto said = [&](const std::string& message, const std::string& thread, const std::string& user) {
    return graph->invoke(object{{"messages", value::array({message})}}, config_of(thread, user))
        .get("recalled");
  };
  BOOST_TEST(said("remember: I like pizza", "t1", "1").to_json() == "[]");
  BOOST_TEST(said("What do I like to eat?", "t2", "1").to_json() == R"(["I like pizza"])");
  BOOST_TEST(said("What do I like to eat?", "t3", "2").to_json() == "[]");
  // The item itself, as LangGraph's store returns it.
  auto items = memories->search(storage::search_options{{"1", "memories"}, {}, {}, 10, 0, {}});
  BOOST_REQUIRE_EQUAL(items.size(), 1u);
  BOOST_TEST(items[0].v.get("data").as_string() == "I like pizza");
  BOOST_TEST(!items[0].created_at.empty());
}

BOOST_AUTO_TEST_CASE(a_graph_without_a_store_gives_its_nodes_none) {
  state_graph b;
  b.add_key("messages", "append").add_key("recalled");
  b.add_node("remember", remember);
  b.add_edge(std::string(START), "remember");
  auto graph = b.compile(test::opts());
  try {
    graph->invoke(object{{"messages", value::array({"hi"})}}, config_of("t", "1"));
    BOOST_FAIL("ran without a store");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("the node has no store") != std::string::npos);
  }
}
