// libs/langgraph/tests/test_large_cases.py: graphs whose state is one value (a ROOT key).
#include <atomic>

#include "functional_support.hpp"
#include "stream_support.hpp"
#include "superstep/pregel/send.hpp"
#include "time_travel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

using strings = std::vector<std::string>;

value checkpoint_id_of(const std::optional<checkpoint_config>& c) {
  return c ? value(c->checkpoint_id) : value();
}

// A node's input as Python's str() shows it: a Command whose goto is one Send as
// "Command(goto=Send(node='n', arg=a))", a string as is, anything else as JSON.
std::string py_str(const value& v) {
  if (auto c = as_command(v)) {
    std::string out = "Command(goto=";
    for (const auto& g : c->go_to)
      if (auto s = as_send(g)) out += "Send(node='" + s->node + "', arg=" + py_str(s->arg) + ")";
    return out + ")";
  }
  return v.is_string() ? v.as_string() : v.to_json();
}

}  // namespace

// libs/langgraph/tests/test_large_cases.py::test_fork_always_re_runs_nodes
BOOST_AUTO_TEST_CASE(test_fork_always_re_runs_nodes) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  state_graph b;
  b.add_key(std::string(ROOT), "add", value(0));  // Annotated[int, add]: int() before any write
  b.add_node("add_one", [calls](const value&, node_context&) -> value {
    ++*calls;
    return value(1);
  });
  b.add_edge("__start__", "add_one");
  b.add_conditional_edges("add_one", [](const value& cnt, node_context&) -> value {
    return value(cnt.as_int() < 6 ? "add_one" : "__end__");
  });
  auto graph = b.compile(opts_with_saver());
  const value thread1 = thread("1");

  // start execution, stop at inbox
  recorder r;
  r.with_mode = true;
  stream_options so;
  so.modes = {stream_mode::values, stream_mode::updates};
  graph->stream(value(1), with_durability(thread1, "async"), so, r.sink());
  BOOST_TEST(r.texts() == (strings{"values () 1", R"(updates () {"add_one":1})", "values () 2",
                                   R"(updates () {"add_one":1})", "values () 3",
                                   R"(updates () {"add_one":1})", "values () 4",
                                   R"(updates () {"add_one":1})", "values () 5",
                                   R"(updates () {"add_one":1})", "values () 6"}),
             boost::test_tools::per_element());

  // list history
  const auto history = graph->get_state_history(thread1);
  BOOST_TEST_REQUIRE(history.size() == 7u);
  for (std::size_t i = 0; i < history.size(); ++i) {
    BOOST_TEST_CONTEXT("history[" << i << "]") {
      const state_snapshot& s = history[i];
      const std::int64_t step = 5 - static_cast<std::int64_t>(i);
      BOOST_TEST(s.values == value(step + 1));
      BOOST_TEST(s.metadata.get("source").as_string() == (step == -1 ? "input" : "loop"));
      BOOST_TEST(s.metadata.get("step").as_int() == step);
      BOOST_TEST(s.metadata.get("parents").to_json() == "{}");
      BOOST_TEST(s.config.thread_id == "1");
      BOOST_TEST(s.config.checkpoint_ns == "");
      if (i + 1 < history.size())
        BOOST_TEST(checkpoint_id_of(s.parent_config) == value(history[i + 1].config.checkpoint_id));
      else
        BOOST_TEST(!s.parent_config.has_value());
      if (i == 0) {
        BOOST_TEST(s.tasks.empty());
        BOOST_TEST(s.next.empty());
      } else {
        const std::string node = step == -1 ? "__start__" : "add_one";
        BOOST_TEST_REQUIRE(s.tasks.size() == 1u);
        BOOST_TEST(s.tasks[0].name == node);
        BOOST_TEST(!s.tasks[0].error.has_value());
        BOOST_TEST(s.tasks[0].interrupts.empty());
        BOOST_TEST(s.tasks[0].result == value(1));
        BOOST_TEST(s.next == strings{node}, boost::test_tools::per_element());
      }
    }
  }

  // forking from any previous checkpoint should re-run nodes
  const int before = calls->load();
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[0]), {stream_mode::updates}).empty());
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[1]), {stream_mode::updates}) ==
                 (strings{R"(() {"add_one":1})"}),
             boost::test_tools::per_element());
  BOOST_TEST(stream_texts(*graph, value(), config_of(history[2]), {stream_mode::updates}) ==
                 (strings{R"(() {"add_one":1})", R"(() {"add_one":1})"}),
             boost::test_tools::per_element());
  BOOST_TEST(calls->load() == before + 3);
}

// libs/langgraph/tests/test_large_cases.py::test_send_dedupe_on_resume
BOOST_AUTO_TEST_CASE(test_send_dedupe_on_resume) {
  for (const auto& durability : durabilities()) {
    BOOST_TEST_CONTEXT("durability " << durability) {
      std::map<std::string, std::shared_ptr<std::atomic<int>>> ticks;
      for (const char* n : {"1", "2", "3", "3.1", "flaky"})
        ticks[n] = std::make_shared<std::atomic<int>>(0);
      auto node = [&](std::string name) -> node_function {
        auto count = ticks[name];
        return [name, count](const value& state, node_context&) -> value {
          ++*count;
          value update =
              value::array({state.is_list() ? value(name) : value(name + "|" + py_str(state))});
          if (auto c = as_command(state)) {
            c->update = update;
            return make_command(*c);
          }
          return update;
        };
      };
      state_graph b;
      b.add_key(std::string(ROOT), "add", value(list{}));  // Annotated[list, add]
      for (const char* n : {"1", "2", "3", "3.1"}) b.add_node(n, node(n));
      auto flaky_ticks = ticks["flaky"];
      b.add_node("flaky", [flaky_ticks](const value& state, node_context& ctx) -> value {
        if (++*flaky_ticks == 1) ctx.interrupt(value("Bahh"));
        return value::array({value("flaky|" + py_str(state))});
      });
      b.add_edge("__start__", "1");
      b.add_conditional_edges("1", [](const value&, node_context&) -> value {
        command to_two, to_flaky;
        to_two.go_to = {make_send("2", value(3))};
        to_flaky.go_to = {make_send("flaky", value(4))};
        return value::array({make_send("2", make_command(to_two)),
                             make_send("2", make_command(to_flaky)), value("3.1")});
      });
      b.add_conditional_edges("2", [](const value&, node_context&) -> value { return "3"; });
      auto graph = b.compile(opts_with_saver());
      const value thread1 = with_durability(thread("1"), durability);

      const value out = graph->invoke(value::array({value("0")}), thread1);
      BOOST_TEST_REQUIRE(out.get(std::string(INTERRUPT)).is_list());
      BOOST_TEST(interrupt_values(out) == std::vector<value>{value("Bahh")},
                 boost::test_tools::per_element());
      BOOST_TEST(out.as_object().size() == 1u);
      BOOST_TEST(ticks["2"]->load() == 3);
      BOOST_TEST(ticks["flaky"]->load() == 1);
      // check state
      BOOST_TEST(graph->get_state(thread("1")).next == strings{"flaky"},
                 boost::test_tools::per_element());
      // check history
      BOOST_TEST(graph->get_state_history(thread("1")).size() == (durability != "exit" ? 4u : 1u));

      // resume execution
      const strings final_values{"0",
                                 "1",
                                 "3.1",
                                 "2|Command(goto=Send(node='2', arg=3))",
                                 "2|Command(goto=Send(node='flaky', arg=4))",
                                 "3",
                                 "2|3",
                                 "flaky|4",
                                 "3"};
      auto as_list = [](const strings& items, std::size_t n) {
        list l;
        for (std::size_t i = 0; i < n; ++i) l.emplace_back(items[i]);
        return value(std::move(l));
      };
      BOOST_TEST(graph->invoke(value(), thread1) == as_list(final_values, 9));
      // node "2" doesn't get called again, as we recover writes saved before
      BOOST_TEST(ticks["2"]->load() == 3);
      // node "flaky" gets called again, as it was interrupted
      BOOST_TEST(ticks["flaky"]->load() == 2);
      // check state
      BOOST_TEST(graph->get_state(thread("1")).next.empty());
      // check history
      const auto history = graph->get_state_history(thread("1"));
      BOOST_TEST_REQUIRE(history.size() == (durability != "exit" ? 6u : 2u));

      // The expected history, newest first: values (as many of final_values), step, next,
      // and each task as "name=result interrupts".
      struct expected_snapshot {
        std::size_t values;
        std::int64_t step;
        strings next;
        strings tasks;
      };
      const std::string flaky_result = durability != "exit" ? R"(["flaky|4"])" : "null";
      const std::vector<expected_snapshot> expected{
          {9, 4, {}, {}},
          {8, 3, {"3"}, {R"(3=["3"] [])"}},
          {5,
           2,
           {"2", "flaky", "3"},
           {R"(2=["2|3"] [])", "flaky=" + flaky_result + R"( ["Bahh"])", R"(3=["3"] [])"}},
          {2,
           1,
           {"2", "2", "3.1"},
           {R"x(2=["2|Command(goto=Send(node='2', arg=3))"] [])x",
            R"x(2=["2|Command(goto=Send(node='flaky', arg=4))"] [])x", R"(3.1=["3.1"] [])"}},
          {1, 0, {"1"}, {R"(1=["1"] [])"}},
          {0, -1, {"__start__"}, {R"(__start__=["0"] [])"}}};
      auto check = [&](const state_snapshot& s, const expected_snapshot& e) {
        BOOST_TEST(s.values == as_list(final_values, e.values));
        BOOST_TEST(s.metadata.get("step").as_int() == e.step);
        BOOST_TEST(s.metadata.get("source").as_string() == (e.step == -1 ? "input" : "loop"));
        BOOST_TEST(s.next == e.next, boost::test_tools::per_element());
        strings tasks;
        for (const auto& t : s.tasks) {
          list interrupts;
          for (const auto& i : t.interrupts) interrupts.push_back(i.get("value"));
          tasks.push_back(t.name + "=" + t.result.to_json() + " " +
                          value(std::move(interrupts)).to_json());
          BOOST_TEST(!t.error.has_value());
        }
        BOOST_TEST(tasks == e.tasks, boost::test_tools::per_element());
      };
      if (durability != "exit") {
        for (std::size_t i = 0; i < history.size(); ++i) {
          BOOST_TEST_CONTEXT("history[" << i << "]") {
            check(history[i], expected[i]);
            if (i + 1 < history.size())
              BOOST_TEST(checkpoint_id_of(history[i].parent_config) ==
                         value(history[i + 1].config.checkpoint_id));
            else
              BOOST_TEST(!history[i].parent_config.has_value());
          }
        }
      } else {
        check(history[0], expected[0]);
        BOOST_TEST(checkpoint_id_of(history[0].parent_config) ==
                   value(history[1].config.checkpoint_id));
        check(history[1], expected[2]);
        BOOST_TEST(!history[1].parent_config.has_value());
      }
    }
  }
}
