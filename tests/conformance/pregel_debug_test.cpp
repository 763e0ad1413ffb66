// LangGraph's `debug`, `tasks` and `checkpoints` stream modes (libs/langgraph/tests/
// test_pregel.py and test_pregel_debug.py): the streamed checkpoints are the ones the saver
// keeps, task events leave out the internal __start__ task, and task results are the task's
// update.
#include <map>
#include <mutex>
#include <vector>

#include "conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// Collects the events of a run.
struct recorder {
  std::mutex m;
  std::vector<stream_event> events;
  stream_sink sink() {
    return [this](const stream_event& e) {
      std::lock_guard lock(m);
      events.push_back(e);
    };
  }
};

node_function append(std::string name) {
  return [name](const value&, node_context&) -> value {
    return object{{"messages", value::array({"entered " + name + " node"})}};
  };
}

// A graph START -> one -> two -> END over an appended "messages" list.
state_graph two_nodes(const std::string& a, node_function fa, const std::string& b,
                      node_function fb) {
  state_graph g;
  g.add_key("messages", "append");
  g.add_node(a, std::move(fa)).add_node(b, std::move(fb));
  g.add_edge("__start__", a).add_edge(a, b).add_edge(b, "__end__");
  return g;
}

value configurable_of(const value& config) { return config.get("configurable"); }

// The checkpoint payloads of `events` streamed in namespace `ns_depth` deep, oldest first.
std::vector<value> checkpoint_payloads(const std::vector<stream_event>& events, std::size_t depth) {
  std::vector<value> out;
  for (const auto& e : events)
    if (e.mode == stream_mode::debug && e.ns.size() == depth &&
        e.data.get("type") == value("checkpoint"))
      out.push_back(e.data.get("payload"));
  return out;
}

// Each streamed checkpoint is the one get_state_history shows (history is newest first).
void check_against_history(const std::vector<value>& streamed,
                           const std::vector<state_snapshot>& history) {
  BOOST_TEST_REQUIRE(streamed.size() == history.size());
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    const value& s = streamed[i];
    const value h = history[history.size() - 1 - i].to_value();
    BOOST_TEST(s.get("values") == h.get("values"), s.get("values").to_json());
    BOOST_TEST(s.get("next") == h.get("next"), s.get("next").to_json());
    BOOST_TEST(configurable_of(s.get("config")) == configurable_of(h.get("config")));
    BOOST_TEST(configurable_of(s.get("parent_config")) == configurable_of(h.get("parent_config")),
               s.get("parent_config").to_json() << " vs " << h.get("parent_config").to_json());
    const list& st = s.get("tasks").as_list();
    const list& ht = h.get("tasks").as_list();
    BOOST_TEST_REQUIRE(st.size() == ht.size());
    for (std::size_t k = 0; k < st.size(); ++k) {
      BOOST_TEST(st[k].get("id") == ht[k].get("id"));
      BOOST_TEST(st[k].get("name") == ht[k].get("name"));
      BOOST_TEST(st[k].get("interrupts") == ht[k].get("interrupts"));
      BOOST_TEST(st[k].get("error") == ht[k].get("error"));
    }
  }
}

const std::vector<std::string> durabilities = {"sync", "async", "exit"};

value with_durability(value config, const std::string& d) {
  object o = config.as_object();
  o.set("durability", d);
  return value(std::move(o));
}

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_debug_retry
BOOST_AUTO_TEST_CASE(test_debug_retry) {
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto graph = two_nodes("one", append("one"), "two", append("two")).compile(o);
  const value config = with_durability(thread("1"), "async");
  graph->invoke(object{{"messages", list{}}}, config);

  // Re-run step 1: from the parent of the checkpoint of step 1, as a fork.
  std::optional<checkpoint_config> target;
  for (const auto& t : saver->list(checkpoint_config{"1", "", ""}, {}))
    if (t.metadata.step == 1) target = t.parent_config;
  BOOST_TEST_REQUIRE(target.has_value());
  const value target_config =
      object{{"configurable", object{{"thread_id", target->thread_id},
                                     {"checkpoint_ns", target->checkpoint_ns},
                                     {"checkpoint_id", target->checkpoint_id}}}};
  const value update_config = graph->update_state(target_config, value(), std::nullopt);

  recorder r;
  stream_options so;
  so.modes = {stream_mode::debug};
  graph->stream(value(), with_durability(update_config, "async"), so, r.sink());

  std::map<std::string, state_snapshot> history;
  for (auto& s : graph->get_state_history(thread("1"))) history.emplace(s.config.checkpoint_id, s);
  const auto streamed = checkpoint_payloads(r.events, 0);
  BOOST_TEST(!streamed.empty());
  for (const auto& s : streamed) {
    const value conf = configurable_of(s.get("config"));
    BOOST_TEST(conf != configurable_of(s.get("parent_config")));
    auto it = history.find(conf.get("checkpoint_id").as_string());
    BOOST_TEST_REQUIRE((it != history.end()), conf.to_json());
    const value h = it->second.to_value();
    BOOST_TEST(conf == configurable_of(h.get("config")));
    BOOST_TEST(configurable_of(s.get("parent_config")) == configurable_of(h.get("parent_config")));
  }
}

// libs/langgraph/tests/test_pregel.py::test_debug_subgraphs
BOOST_AUTO_TEST_CASE(test_debug_subgraphs) {
  for (const auto& d : durabilities) {
    BOOST_TEST_CONTEXT("durability " << d) {
      auto child = two_nodes("c_one", append("c_one"), "c_two", append("c_two")).compile(opts());
      state_graph parent;
      parent.add_key("messages", "append");
      parent.add_node("p_one", append("p_one")).add_node("p_two", child);
      parent.add_edge("__start__", "p_one").add_edge("p_one", "p_two").add_edge("p_two", "__end__");
      auto graph = parent.compile(opts_with_saver());

      recorder r;
      stream_options so;
      so.modes = {stream_mode::debug};
      graph->stream(object{{"messages", list{}}}, with_durability(thread("1"), d), so, r.sink());
      auto streamed = checkpoint_payloads(r.events, 0);
      // The task of the subgraph names where its checkpoints live.
      bool saw_state = false;
      for (const auto& s : streamed)
        for (const auto& t : s.get("tasks").as_list())
          if (t.get("name") == value("p_two")) {
            saw_state = true;
            BOOST_TEST(t.get("state").get("configurable").get("checkpoint_ns") ==
                       value("p_two:" + t.get("id").as_string()));
          }
      BOOST_TEST(saw_state);

      if (d == "exit") streamed.erase(streamed.begin(), streamed.end() - 1);
      check_against_history(streamed, graph->get_state_history(thread("1")));
    }
  }
}

// libs/langgraph/tests/test_pregel.py::test_debug_nested_subgraphs
BOOST_AUTO_TEST_CASE(test_debug_nested_subgraphs) {
  for (const auto& d : durabilities) {
    BOOST_TEST_CONTEXT("durability " << d) {
      auto child = two_nodes("c_one", append("c_one"), "c_two", append("c_two")).compile(opts());
      state_graph pb;
      pb.add_key("messages", "append");
      pb.add_node("p_one", append("p_one")).add_node("p_two", child);
      pb.add_edge("__start__", "p_one").add_edge("p_one", "p_two").add_edge("p_two", "__end__");
      auto parent = pb.compile(opts());
      state_graph gb;
      gb.add_key("messages", "append");
      gb.add_node("gp_one", append("gp_one")).add_node("gp_two", parent);
      gb.add_edge("__start__", "gp_one").add_edge("gp_one", "gp_two").add_edge("gp_two", "__end__");
      compile_options o = opts_with_saver();
      auto saver = o.checkpointer;
      auto graph = gb.compile(o);

      recorder r;
      stream_options so;
      so.modes = {stream_mode::debug};
      so.subgraphs = true;
      graph->stream(object{{"messages", list{}}}, with_durability(thread("1"), d), so, r.sink());

      // Namespaces in the order their first checkpoint was streamed.
      std::vector<std::vector<std::string>> order;
      std::map<std::vector<std::string>, std::vector<value>> by_ns;
      for (const auto& e : r.events)
        if (e.mode == stream_mode::debug && e.data.get("type") == value("checkpoint")) {
          if (!by_ns.count(e.ns)) order.push_back(e.ns);
          by_ns[e.ns].push_back(e.data.get("payload"));
        }
      BOOST_TEST_REQUIRE(order.size() == 3u);
      BOOST_TEST(order[0].empty());
      BOOST_TEST_REQUIRE(order[1].size() == 1u);
      BOOST_TEST(order[1][0].starts_with("gp_two:"));
      BOOST_TEST_REQUIRE(order[2].size() == 2u);
      BOOST_TEST(order[2][0] == order[1][0]);
      BOOST_TEST(order[2][1].starts_with("p_two:"));

      // Each namespace's history, read from the root graph (a namespace leads to its subgraph).
      for (std::size_t i = 0; i < order.size(); ++i) {
        std::string ns;
        for (std::size_t k = 0; k < order[i].size(); ++k) ns += (k ? "|" : "") + order[i][k];
        auto history = graph->get_state_history(
            object{{"configurable", object{{"thread_id", "1"}, {"checkpoint_ns", ns}}}});
        auto streamed = by_ns[order[i]];
        if (d == "exit") {
          streamed.erase(streamed.begin(), streamed.end() - 1);
          if (!ns.empty()) {  // subgraphs save no checkpoints with durability exit
            BOOST_TEST(history.empty());
            continue;
          }
        }
        check_against_history(streamed, history);
      }
    }
  }
}

// The task and task_result events of a run: no internal __start__ task, the result is the
// task's update, a failed task reports its error. Not a LangGraph test by itself; LangGraph's
// shapes are map_debug_tasks / map_debug_task_results (langgraph/pregel/debug.py), exercised by
// test_pregel_debug.py below.
// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_omits_metadata_when_absent
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_omits_metadata_when_absent) {
  for (bool with_saver : {false, true}) {
    auto graph = two_nodes("one", append("one"), "two", append("two"))
                     .compile(with_saver ? opts_with_saver() : opts());
    recorder r;
    stream_options so;
    so.modes = {stream_mode::debug};
    graph->stream(object{{"messages", list{}}}, thread("1"), so, r.sink());
    std::vector<std::string> seen;
    for (const auto& e : r.events) {
      const std::string type = e.data.get("type").as_string();
      if (type == "checkpoint") {
        seen.push_back("checkpoint");
        continue;
      }
      const value& p = e.data.get("payload");
      seen.push_back(type + ":" + p.get("name").as_string());
      BOOST_TEST(!p.find("metadata"), p.to_json());
      if (type == "task") {
        BOOST_TEST(p.get("input").get("messages").is_list());
        BOOST_TEST(p.get("triggers").to_json() ==
                   "[\"branch:to:" + p.get("name").as_string() + "\"]");
      } else {
        BOOST_TEST(p.get("error").is_null());
        BOOST_TEST(p.get("interrupts").to_json() == "[]");
        BOOST_TEST(p.get("result").to_json() ==
                   R"({"messages":["entered )" + p.get("name").as_string() + R"( node"]})");
      }
    }
    const std::vector<std::string> expected =
        with_saver ? std::vector<std::string>{"checkpoint",      "checkpoint", "task:one",
                                              "task_result:one", "checkpoint", "task:two",
                                              "task_result:two", "checkpoint"}
                   : std::vector<std::string>{"task:one", "task_result:one", "task:two",
                                              "task_result:two"};
    BOOST_TEST(seen == expected, with_saver);
  }
}

namespace {

// The payload of the task event of a one-node graph ("tools") run with `config`.
value tools_task_payload(const value& config) {
  state_graph g;
  g.add_key("messages", "append");
  g.add_node("tools", append("tools"));
  g.add_edge("__start__", "tools");
  auto graph = g.compile(opts());
  recorder r;
  stream_options so;
  so.modes = {stream_mode::tasks};
  graph->stream(object{{"messages", list{}}}, config, so, r.sink());
  for (const auto& e : r.events) {
    BOOST_TEST((e.mode == stream_mode::tasks));
    if (e.data.find("input")) {
      BOOST_TEST(e.data.get("name") == value("tools"));
      return e.data;
    }
  }
  BOOST_FAIL("no task event");
  return value();
}

}  // namespace

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_forwards_metadata_when_present
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_forwards_metadata_when_present) {
  const value p =
      tools_task_payload(object{{"metadata", object{{"lc_agent_name", "weather_agent"}}}});
  BOOST_TEST(p.get("metadata").to_json() == R"({"lc_agent_name":"weather_agent"})");
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_omits_metadata_when_empty
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_omits_metadata_when_empty) {
  BOOST_TEST(!tools_task_payload(object{{"metadata", object{}}}).find("metadata"));
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_handles_none_config
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_handles_none_config) {
  BOOST_TEST(!tools_task_payload(value()).find("metadata"));
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_filters_framework_metadata_keys
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_filters_framework_metadata_keys) {
  const value p = tools_task_payload(
      object{{"metadata", object{{"lc_agent_name", "weather_agent"},
                                 {"ls_integration", "langchain_create_agent"},
                                 {"my_user_key", "x"},
                                 {"thread_id", "thread-1"},
                                 {"langgraph_step", 1},
                                 {"langgraph_node", "tools"},
                                 {"langgraph_path", value::array({"__pregel_pull", "tools"})},
                                 {"langgraph_checkpoint_ns", "tools:abc"},
                                 {"checkpoint_ns", ""}}}});
  BOOST_TEST(
      p.get("metadata").to_json() ==
      R"({"lc_agent_name":"weather_agent","ls_integration":"langchain_create_agent","my_user_key":"x"})");
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_omits_metadata_when_only_framework_keys
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_omits_metadata_when_only_framework_keys) {
  const value p = tools_task_payload(object{{"metadata", object{{"thread_id", "thread-1"},
                                                                {"langgraph_step", 1},
                                                                {"langgraph_node", "worker"},
                                                                {"langgraph_checkpoint_ns", "w:a"},
                                                                {"checkpoint_ns", ""}}}});
  BOOST_TEST(!p.find("metadata"), p.to_json());
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_folds_filtered_tags_into_metadata
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_folds_filtered_tags_into_metadata) {
  const value p =
      tools_task_payload(object{{"metadata", object{{"lc_agent_name", "weather_agent"}}},
                                {"tags", value::array({"seq:step:1", "user-tag", "session-123"})}});
  BOOST_TEST(p.get("metadata").get("lc_agent_name") == value("weather_agent"));
  BOOST_TEST(p.get("metadata").get("tags").to_json() == R"(["user-tag","session-123"])");
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_omits_tags_when_only_seq_step
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_omits_tags_when_only_seq_step) {
  const value p = tools_task_payload(
      object{{"metadata", object{{"lc_agent_name", "a"}}}, {"tags", value::array({"seq:step:1"})}});
  BOOST_TEST(!p.get("metadata").find("tags"), p.to_json());
}

// libs/langgraph/tests/test_pregel_debug.py::test_map_debug_tasks_adds_tags_even_without_other_metadata
BOOST_AUTO_TEST_CASE(test_map_debug_tasks_adds_tags_even_without_other_metadata) {
  const value p = tools_task_payload(object{{"tags", value::array({"user-tag"})}});
  BOOST_TEST(p.get("metadata").to_json() == R"({"tags":["user-tag"]})");
}
