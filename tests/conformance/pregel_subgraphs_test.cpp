// Nested graphs and their streams (libs/langgraph/tests/test_pregel.py, test_simple_multi_edge
// to test_nested_graph_interrupts_parallel): subgraph events stream live, interrupts inside
// subgraphs pause their parents.
#include <array>
#include <atomic>

#include "stream_support.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

node_function returns(value v) {
  return [v](const value&, node_context&) -> value { return v; };
}

std::string s(const value& v) { return v.is_string() ? v.as_string() : v.to_json(); }

using texts = std::vector<std::string>;

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_simple_multi_edge
BOOST_AUTO_TEST_CASE(test_simple_multi_edge) {
  state_graph g;
  g.add_key("my_key", "add");
  g.add_node("up", returns(value())).add_node("side", returns(value()));
  g.add_node("other", returns(object{{"my_key", "_more"}})).add_node("down", returns(value()));
  g.set_entry_point("up");
  g.add_edge("up", "side").add_edge("up", "other");
  g.add_edge(std::vector<std::string>{"up", "side"}, "down");
  g.set_finish_point("down");
  auto app = g.compile(opts());
  mermaid_options bare;
  bare.with_styles = false;
  BOOST_TEST(app->get_graph().draw_mermaid(bare) ==
             "graph TD;\n"
             "\t__start__ --> up;\n"
             "\tside --> down;\n"
             "\tup --> down;\n"
             "\tup --> other;\n"
             "\tup --> side;\n"
             "\tdown --> __end__;\n"
             "\tother --> __end__;\n");
  BOOST_TEST(app->invoke(object{{"my_key", "my_value"}}).to_json() ==
             R"({"my_key":"my_value_more"})");
  const texts got =
      stream_texts(*app, object{{"my_key", "my_value"}}, value(), {stream_mode::updates});
  const texts a = {"() {\"up\":null}", "() {\"side\":null}", R"(() {"other":{"my_key":"_more"}})",
                   "() {\"down\":null}"};
  const texts b = {"() {\"up\":null}", R"(() {"other":{"my_key":"_more"}})", "() {\"side\":null}",
                   "() {\"down\":null}"};
  BOOST_TEST((got == a || got == b), got.size());
}

// libs/langgraph/tests/test_pregel.py::test_nested_graph (the RunnablePassthrough chain is
// Python)
BOOST_AUTO_TEST_CASE(test_nested_graph) {
  state_graph ib;
  ib.add_key("my_key").add_key("my_other_key");
  ib.add_node("up", [](const value& st, node_context&) -> value {
    return object{{"my_key", s(st.get("my_key")) + " there"}, {"my_other_key", st.get("my_key")}};
  });
  ib.set_entry_point("up").set_finish_point("up");
  state_graph g;
  g.add_key("my_key").add_key("never_called");
  g.add_node("inner", ib.compile(opts()));
  g.add_node("side", [](const value& st, node_context&) -> value {
    return object{{"my_key", s(st.get("my_key")) + " and back again"}};
  });
  g.set_entry_point("inner").add_edge("inner", "side").set_finish_point("side");
  auto app = g.compile(opts());
  mermaid_options bare;
  bare.with_styles = false;
  const std::string drawn =
      "graph TD;\n"
      "\t__start__ --> inner;\n"
      "\tinner --> side;\n"
      "\tside --> __end__;\n";
  BOOST_TEST(app->get_graph().draw_mermaid(bare) == drawn);
  const std::string xray =
      "---\n"
      "config:\n"
      "  flowchart:\n"
      "    curve: linear\n"
      "---\n"
      "graph TD;\n"
      "\t__start__([<p>__start__</p>]):::first\n"
      "\tside(side)\n"
      "\t__end__([<p>__end__</p>]):::last\n"
      "\t__start__ --> inner\\3aup;\n"
      "\tinner\\3aup --> side;\n"
      "\tside --> __end__;\n"
      "\tsubgraph inner\n"
      "\tinner\\3aup(up)\n"
      "\tend\n"
      "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
      "\tclassDef first fill-opacity:0\n"
      "\tclassDef last fill:#bfb6fc\n";
  BOOST_TEST(app->get_graph(-1).draw_mermaid() == xray);
  const value never_called = object{{"never", "called"}};
  const value input = object{{"my_key", "my value"}, {"never_called", never_called}};
  BOOST_TEST(app->invoke(input) == value(object{{"my_key", "my value there and back again"},
                                                {"never_called", never_called}}));
  BOOST_TEST(stream_texts(*app, input, value(), {stream_mode::updates}) ==
                 (texts{R"(() {"inner":{"my_key":"my value there"}})",
                        R"(() {"side":{"my_key":"my value there and back again"}})"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      stream_texts(*app, input, value(), {stream_mode::values}) ==
          (texts{
              R"(() {"my_key":"my value","never_called":{"never":"called"}})",
              R"(() {"my_key":"my value there","never_called":{"never":"called"}})",
              R"(() {"my_key":"my value there and back again","never_called":{"never":"called"}})"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_stream_subgraphs_during_execution: the subgraph's
// first event reaches the caller while the subgraph still runs and its sibling waits for it.
// LangGraph's sleeps become gates: outer_1 ends once inner_1's event arrived, inner_2 once
// outer_1's had.
BOOST_AUTO_TEST_CASE(test_stream_subgraphs_during_execution) {
  auto inner_1_seen = std::make_shared<gate>();
  auto outer_1_seen = std::make_shared<gate>();
  // Whether each wait ended with the event (not timed out): the events arrived live.
  auto live = std::make_shared<std::array<std::atomic<bool>, 2>>();
  state_graph ib;
  ib.add_key("my_key", "add").add_key("my_other_key");
  ib.add_node("inner_1", [](const value& st, node_context&) -> value {
    return object{{"my_key", "got here"}, {"my_other_key", st.get("my_key")}};
  });
  ib.add_node("inner_2", [outer_1_seen, live](const value& st, node_context&) -> value {
    (*live)[1] = outer_1_seen->wait();
    return object{{"my_key", " and there"}, {"my_other_key", st.get("my_key")}};
  });
  ib.add_edge("inner_1", "inner_2").set_entry_point("inner_1").set_finish_point("inner_2");

  state_graph g;
  g.add_key("my_key", "add");
  g.add_node("inner", ib.compile(opts()));
  g.add_node("outer_1", [inner_1_seen, live](const value&, node_context&) -> value {
    (*live)[0] = inner_1_seen->wait();
    return object{{"my_key", " and parallel"}};
  });
  g.add_node("outer_2", returns(object{{"my_key", " and back again"}}));
  g.add_edge("__start__", "inner").add_edge("__start__", "outer_1");
  g.add_edge(std::vector<std::string>{"inner", "outer_1"}, "outer_2")
      .add_edge("outer_2", "__end__");
  auto app = g.compile(opts_with_saver());

  recorder r;
  r.on_event = [&](const stream_event& e) {
    if (e.data.find("inner_1")) inner_1_seen->open();
    if (e.data.find("outer_1")) outer_1_seen->open();
  };
  stream_options so;
  so.modes = {stream_mode::updates};
  so.subgraphs = true;
  app->stream(object{{"my_key", ""}}, thread("2"), so, r.sink());
  BOOST_TEST((*live)[0].load());  // inner_1's event came while inner ran and outer_1 waited
  BOOST_TEST((*live)[1].load());
  BOOST_TEST(r.texts() ==
                 (texts{R"((inner:) {"inner_1":{"my_key":"got here","my_other_key":""}})",
                        R"(() {"outer_1":{"my_key":" and parallel"}})",
                        R"((inner:) {"inner_2":{"my_key":" and there","my_other_key":"got here"}})",
                        R"(() {"inner":{"my_key":"got here and there"}})",
                        R"(() {"outer_2":{"my_key":" and back again"}})"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_stream_buffering_single_node: a custom event
// reaches the caller while its node still runs (the node waits for it instead of sleeping).
BOOST_AUTO_TEST_CASE(test_stream_buffering_single_node) {
  auto before_seen = std::make_shared<gate>();
  auto waited = std::make_shared<std::atomic<bool>>(false);
  state_graph g;
  g.add_key("my_key", "add");
  g.add_node("node", [before_seen, waited](const value&, node_context& ctx) -> value {
    ctx.emit_custom("Before sleep");
    waited->store(before_seen->wait());
    ctx.emit_custom("After sleep");
    return object{{"my_key", "got here"}};
  });
  g.add_edge("__start__", "node").add_edge("node", "__end__");
  auto app = g.compile(opts_with_saver());
  recorder r;
  r.on_event = [&](const stream_event&) { before_seen->open(); };
  stream_options so;
  so.modes = {stream_mode::custom};
  app->stream(object{{"my_key", ""}}, thread("2"), so, r.sink());
  BOOST_TEST(waited->load());
  BOOST_TEST(r.texts() == (texts{R"(() "Before sleep")", R"(() "After sleep")"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_doubly_nested_graph_interrupts (for each
// durability; LangGraph's CONFIG_KEY_NODE_FINISHED callback is stream_options::node_finished)
BOOST_AUTO_TEST_CASE(test_doubly_nested_graph_interrupts) {
  for (const char* durability : {"sync", "async", "exit"}) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      state_graph gb;
      gb.add_key("my_key");
      gb.add_node("grandchild_1", [](const value& st, node_context&) -> value {
        return object{{"my_key", s(st.get("my_key")) + " here"}};
      });
      gb.add_node("grandchild_2", [](const value& st, node_context&) -> value {
        return object{{"my_key", s(st.get("my_key")) + " and there"}};
      });
      gb.add_edge("grandchild_1", "grandchild_2");
      gb.set_entry_point("grandchild_1").set_finish_point("grandchild_2");
      compile_options go = opts();
      go.interrupt_before = {"grandchild_2"};
      state_graph cb;
      cb.add_key("my_key");
      cb.add_node("child_1", gb.compile(go));
      cb.set_entry_point("child_1").set_finish_point("child_1");
      state_graph g;
      g.add_key("my_key");
      g.add_node("parent_1", [](const value& st, node_context&) -> value {
        return object{{"my_key", "hi " + s(st.get("my_key"))}};
      });
      g.add_node("child", cb.compile(opts()));
      g.add_node("parent_2", [](const value& st, node_context&) -> value {
        return object{{"my_key", s(st.get("my_key")) + " and back again"}};
      });
      g.set_entry_point("parent_1").add_edge("parent_1", "child").add_edge("child", "parent_2");
      g.set_finish_point("parent_2");
      auto app = g.compile(opts_with_saver());
      auto config = [&](const char* id) {
        value c = thread(id);
        object o = c.as_object();
        o.set("durability", durability);
        return value(std::move(o));
      };

      BOOST_TEST(app->invoke(object{{"my_key", "my value"}}, config("1")).to_json() ==
                 R"({"my_key":"hi my value"})");
      BOOST_TEST(app->invoke(value(), config("1")).to_json() ==
                 R"({"my_key":"hi my value here and there and back again"})");

      std::vector<std::string> nodes;
      auto stream_noting_nodes = [&](const value& input) {
        recorder r;
        stream_options so;
        so.modes = {stream_mode::updates};
        so.node_finished = [&](const std::string& node) { nodes.push_back(node); };
        app->stream(input, config("2"), so, r.sink());
        return r.texts();
      };
      BOOST_TEST(
          stream_noting_nodes(object{{"my_key", "my value"}}) ==
              (texts{R"(() {"parent_1":{"my_key":"hi my value"}})", R"(() {"__interrupt__":[]})"}),
          boost::test_tools::per_element());
      BOOST_TEST(nodes == (texts{"parent_1", "grandchild_1"}), boost::test_tools::per_element());
      BOOST_TEST(
          stream_noting_nodes(value()) ==
              (texts{R"(() {"child":{"my_key":"hi my value here and there"}})",
                     R"(() {"parent_2":{"my_key":"hi my value here and there and back again"}})"}),
          boost::test_tools::per_element());
      BOOST_TEST(nodes == (texts{"parent_1", "grandchild_1", "grandchild_2", "child_1", "child",
                                 "parent_2"}),
                 boost::test_tools::per_element());

      BOOST_TEST(
          stream_texts(*app, object{{"my_key", "my value"}}, config("3"), {stream_mode::values}) ==
              (texts{R"(() {"my_key":"my value"})", R"(() {"my_key":"hi my value"})"}),
          boost::test_tools::per_element());
      BOOST_TEST(stream_texts(*app, value(), config("3"), {stream_mode::values}) ==
                     (texts{R"(() {"my_key":"hi my value"})",
                            R"(() {"my_key":"hi my value here and there"})",
                            R"(() {"my_key":"hi my value here and there and back again"})"}),
                 boost::test_tools::per_element());
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_enum_node_names (a Python enum's value is its
// name: the node is "baz")
BOOST_AUTO_TEST_CASE(test_enum_node_names) {
  state_graph g;
  g.add_key("foo").add_key("bar");
  g.add_node("baz", [](const value& st, node_context&) -> value {
    return object{{"bar", s(st.get("foo")) + "!"}};
  });
  g.add_edge("__start__", "baz").add_edge("baz", "__end__");
  BOOST_TEST(g.compile(opts())->invoke(object{{"foo", "hello"}}).to_json() ==
             R"({"foo":"hello","bar":"hello!"})");
}
