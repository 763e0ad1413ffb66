// libs/langgraph/tests/test_pregel.py: bulk_update_state (several update_state supersteps as
// one series of checkpoints).
#include "superstep/core/error.hpp"
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

// Expects `f` to throw superstep::error with `code` and a message holding `text`.
template <class F>
void expect_error(F&& f, error_code code, const std::string& text) {
  try {
    f();
    BOOST_FAIL("no error; expected one with '" << text << "'");
  } catch (const error& e) {
    BOOST_TEST((e.code() == code), e.what());
    BOOST_TEST(std::string(e.what()).find(text) != std::string::npos, e.what());
  }
}

value with_durability(const char* thread_id, const char* durability) {
  return object{{"configurable", object{{"thread_id", thread_id}}}, {"durability", durability}};
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_bulk_state_updates
BOOST_AUTO_TEST_CASE(test_bulk_state_updates) {
  state_graph b;
  b.add_key("foo").add_key("baz");
  b.add_node("node_a", [](const value&, node_context&) -> value { return object{{"foo", "bar"}}; });
  b.add_node("node_b", [](const value&, node_context&) -> value { return object{{"baz", "qux"}}; });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b");
  auto s = saver();
  compile_options o = opts();
  o.checkpointer = s;
  auto graph = b.compile(o);
  list_options every;
  every.every_namespace = true;

  value config = thread("1");
  graph->bulk_update_state(config, {{state_update{object{{"foo", "bar"}}, "node_a"}}});
  graph->bulk_update_state(config, {{state_update{object{{"foo", "updated"}}, "node_a"},
                                     state_update{object{{"baz", "new"}}, "node_b"}}});
  BOOST_TEST(graph->get_state(config).values.to_json() == R"({"foo":"updated","baz":"new"})");
  BOOST_TEST(s->list(checkpoint_config{"1", "", ""}, every).size() == 2u);

  // Several supersteps at once.
  config = thread("2");
  graph->bulk_update_state(config, {{state_update{object{{"foo", "bar"}}, "node_a"}},
                                    {state_update{object{{"foo", "updated"}}, "node_a"},
                                     state_update{object{{"baz", "new"}}, "node_b"}}});
  BOOST_TEST(graph->get_state(config).values.to_json() == R"({"foo":"updated","baz":"new"})");
  BOOST_TEST(s->list(checkpoint_config{"2", "", ""}, every).size() == 2u);

  expect_error(
      [&] {
        graph->bulk_update_state(config, {{state_update{object{{"foo", "error"}}},
                                           state_update{object{{"bar", "error"}}}}});
      },
      error_code::invalid_argument, "as_node is required");
  expect_error([&] { graph->bulk_update_state(config, {}); }, error_code::invalid_argument,
               "No supersteps provided");
  expect_error(
      [&] {
        graph->bulk_update_state(config, {{}, {}});
      },
      error_code::invalid_argument, "No updates provided");
  expect_error(
      [&] {
        graph->bulk_update_state(
            config, {{state_update{value(), "__end__"}, state_update{value(), "__copy__"}}});
      },
      error_code::invalid_argument, "cannot be applied with other updates");
  // None of the failed calls saved anything.
  BOOST_TEST(s->list(checkpoint_config{"2", "", ""}, every).size() == 2u);
}

// libs/langgraph/tests/test_pregel.py::test_batch_update_as_input
BOOST_AUTO_TEST_CASE(test_batch_update_as_input) {
  const auto sends = [] {
    command c;
    c.update = object{{"foo", "map"}};
    for (int i = 0; i < 3; ++i) c.go_to.push_back(make_send("task", object{{"index", i}}));
    return make_command(c);
  };
  for (const char* durability : {"sync", "async", "exit"}) {
    state_graph b;
    b.add_key("foo").add_key("tasks", "add", value(list{}));
    b.add_node("agent", [](const value&, node_context&) -> value {
      return object{{"foo", "agent"}};
    });
    b.add_node(
        "map", [sends](const value&, node_context&) -> value { return sends(); },
        node_options{.destinations = {"task"}});
    b.add_node("task", [](const value& s, node_context&) -> value {
      return object{{"tasks", value::array({s.get("index")})}};
    });
    b.add_edge("__start__", "agent").add_edge("agent", "map");
    auto graph = b.compile(opts_with_saver());
    BOOST_TEST(
        graph->invoke(object{{"foo", "input"}}, with_durability("1", durability)).to_json() ==
        R"({"foo":"map","tasks":[0,1,2]})");
    const auto map_snapshots = [&](const char* thread_id) {
      strings out;
      for (const auto& s : graph->get_state_history(thread(thread_id))) {
        std::string next, tasks;
        for (const auto& n : s.next) next += (next.empty() ? "" : ",") + n;
        for (const auto& t : s.tasks) tasks += (tasks.empty() ? "" : ",") + t.name;
        out.push_back(s.values.to_json() + " next=(" + next +
                      ") step=" + s.metadata.get("step").to_json() + " tasks=[" + tasks + "]");
      }
      return out;
    };
    strings history = map_snapshots("1");

    graph->bulk_update_state(thread("2"),
                             {{state_update{object{{"foo", "input"}}, "__input__"}},
                              {state_update{object{{"foo", "input"}}, "__start__"}},
                              {state_update{object{{"foo", "agent"}, {"tasks", list{}}}, "agent"}},
                              {state_update{sends(), "map"}},
                              {state_update{object{{"tasks", list{0}}}, "task"},
                               state_update{object{{"tasks", list{1}}}, "task"},
                               state_update{object{{"tasks", list{2}}}, "task"}}});
    BOOST_TEST(graph->get_state(thread("2")).values.to_json() ==
               R"({"foo":"map","tasks":[0,1,2]})");
    strings new_history = map_snapshots("2");
    if (std::string(durability) != "exit") {
      BOOST_TEST(new_history == history, boost::test_tools::per_element());
    } else {
      BOOST_TEST_REQUIRE(!new_history.empty());
      BOOST_TEST_REQUIRE(!history.empty());
      BOOST_TEST(new_history.front() == history.front());
    }
  }
}
