// Subgraphs save their checkpoints in the parent's saver under their own namespace, and an
// interrupt inside a subgraph pauses and resumes through its parent.
#include <atomic>
#include <boost/test/unit_test.hpp>

#include "coordinator/test_execution.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "test_saver.hpp"

using namespace superstep;

namespace {

using test::thread;

struct graphs {
  std::shared_ptr<checkpoint_saver> saver = test::make_saver();
  std::shared_ptr<std::atomic<int>> prepare_runs = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<pregel> parent;

  explicit graphs(bool ask) {
    state_graph sb;
    sb.add_key("text").add_key("log", "append");
    sb.add_node("prepare", [runs = prepare_runs](const value& st, node_context&) -> value {
      runs->fetch_add(1);
      return object{{"text", "[" + st.get("text").as_string() + "]"},
                    {"log", value::array({"prepare"})}};
    });
    sb.add_node("finish", [ask](const value& st, node_context& ctx) -> value {
      std::string suffix = ask ? ctx.interrupt("suffix?").as_string() : "!";
      return object{{"text", st.get("text").as_string() + suffix},
                    {"log", value::array({"finish"})}};
    });
    sb.add_edge("__start__", "prepare").add_edge("prepare", "finish");
    auto sub = sb.compile(test::opts());

    state_graph b;
    b.add_key("text").add_key("log", "append");
    b.add_node("child", sub);
    b.add_edge("__start__", "child");
    compile_options o = test::opts();
    o.checkpointer = saver;
    parent = b.compile(o);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_subgraph_saves_its_checkpoints_under_its_own_namespace) {
  graphs g(false);
  value out = g.parent->invoke(object{{"text", "hi"}, {"log", list{}}}, thread("t"));
  BOOST_TEST(out.to_json() == R"({"text":"[hi]!","log":["prepare","finish"]})");

  // The parent's own history: input, START, child.
  auto history = g.parent->get_state_history(thread("t"));
  BOOST_TEST_REQUIRE(history.size() == 3u);
  const state_snapshot& before_child = history[1];
  BOOST_TEST_REQUIRE(before_child.tasks.size() == 1u);
  const std::string ns = "child:" + before_child.tasks[0].id;

  auto sub = g.saver->list(checkpoint_config{"t", ns, ""}, {});
  BOOST_TEST_REQUIRE(sub.size() == 4u);  // the subgraph's input, START, prepare, finish
  for (const auto& t : sub) {
    BOOST_TEST(t.config.checkpoint_ns == ns);
    BOOST_TEST(t.metadata.parents.at("") == before_child.config.checkpoint_id);
  }
  BOOST_TEST(sub.back().metadata.source == "input");
}

BOOST_AUTO_TEST_CASE(an_interrupt_inside_a_subgraph_pauses_the_parent_and_resumes_through_it) {
  graphs g(true);
  value first = g.parent->invoke(object{{"text", "hi"}, {"log", list{}}}, thread("t"));
  const value& pending = first.get("__interrupt__");
  BOOST_TEST_REQUIRE(pending.is_list());
  BOOST_TEST_REQUIRE(pending.as_list().size() == 1u);
  BOOST_TEST(pending.as_list()[0].get("value").as_string() == "suffix?");
  BOOST_TEST((g.parent->get_state(thread("t")).next == std::vector<std::string>{"child"}));

  command c;
  c.resume = value("?!");
  value done = g.parent->invoke(make_command(c), thread("t"));
  BOOST_TEST(done.to_json() == R"({"text":"[hi]?!","log":["prepare","finish"]})");
  BOOST_TEST(g.prepare_runs->load() == 1);  // the subgraph continued; it did not start over
}

BOOST_AUTO_TEST_CASE(an_interrupt_inside_a_subgraph_is_resumed_by_its_id) {
  graphs g(true);
  value first = g.parent->invoke(object{{"text", "x"}, {"log", list{}}}, thread("t"));
  const std::string id = first.get("__interrupt__").as_list()[0].get("id").as_string();
  command c;
  c.resume = value(object{{id, "#"}});
  BOOST_TEST(g.parent->invoke(make_command(c), thread("t")).get("text").as_string() == "[x]#");
}
