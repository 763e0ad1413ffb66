// LangGraph's end-to-end tests of DeltaChannel keys (libs/langgraph/tests/test_pregel.py):
// runs over several turns, time travel, removals and updates by id, exit durability, and
// the order in which a delta checkpoint's writes reach the saver; see conformance.hpp.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/delta_channel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value message(const std::string& type, const std::string& content, const std::string& id) {
  return object{{"type", type}, {"content", content}, {"id", id}};
}

value human_input(const std::string& content, const std::string& id) {
  return object{{"messages", list{message("human", content, id)}}};
}

std::vector<std::string> field_of(const value& messages, const char* field) {
  std::vector<std::string> out;
  for (const auto& m : messages.as_list()) out.push_back(m.get(field).as_string());
  return out;
}

// A saver that records the order of put_writes and puts: "aput_delta" for a checkpoint where
// `messages` has a version but no value (no snapshot), "aput_other" for any other.
class recording_saver final : public checkpoint_saver {
 public:
  explicit recording_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  std::vector<std::string> order() {
    std::lock_guard lock(m_);
    return order_;
  }

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    record_put(cp);
    return inner_->put(config, cp, metadata, new_versions);
  }
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override {
    record_put(cp);
    return inner_->put_changes(config, cp, metadata, changes);
  }
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    inner_->put_writes(config, writes, task_id, task_path);
    record("aput_writes");
  }
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override {
    inner_->put_writes_many(config, tasks);
    record("aput_writes");
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override {
    return inner_->get_tuple(config);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override {
    return inner_->list(config, options);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& source, const std::string& target) override {
    inner_->copy_thread(source, target);
  }
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) override {
    inner_->prune(thread_ids, keep_last);
  }
  std::map<std::string, delta_channel_history> get_delta_channel_history(
      const checkpoint_config& config, const std::vector<std::string>& channels) override {
    return inner_->get_delta_channel_history(config, channels);
  }
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  void record(std::string what) {
    std::lock_guard lock(m_);
    order_.push_back(std::move(what));
  }
  void record_put(const checkpoint& cp) {
    const bool delta =
        cp.channel_versions.count("messages") && !cp.channel_values.count("messages");
    record(delta ? "aput_delta" : "aput_other");
  }

  std::shared_ptr<checkpoint_saver> inner_;
  std::mutex m_;
  std::vector<std::string> order_;
};

}  // namespace

// libs/langgraph/tests/test_pregel.py::test_delta_channel_end_to_end_inmemory
BOOST_AUTO_TEST_CASE(test_delta_channel_end_to_end_inmemory) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("respond", [](const value& s, node_context&) -> value {
    const std::string n = std::to_string(s.get("messages").as_list().size());
    return object{{"messages", list{message("ai", "reply-" + n, "ai-" + n)}}};
  });
  b.add_edge("__start__", "respond");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("diff-test-1");
  graph->invoke(human_input("hello", "h1"), config);
  graph->invoke(human_input("world", "h2"), config);
  graph->invoke(human_input("bye", "h3"), config);
  const value messages = graph->get_state(config).values.get("messages");
  BOOST_TEST(
      field_of(messages, "content") ==
          (std::vector<std::string>{"hello", "reply-1", "world", "reply-3", "bye", "reply-5"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_delta_channel_time_travel
BOOST_AUTO_TEST_CASE(test_delta_channel_time_travel) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  auto counter = std::make_shared<std::atomic<int>>(0);
  b.add_node("respond", [counter](const value&, node_context&) -> value {
    const std::string n = std::to_string(++*counter);
    return object{{"messages", list{message("ai", "ai-" + n, "ai-" + n)}}};
  });
  b.add_edge("__start__", "respond");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("diff-time-travel");
  graph->invoke(human_input("h1", "h1"), config);
  graph->invoke(human_input("h2", "h2"), config);

  // The newest checkpoint holding 2 messages: h1 and ai-1, before turn 2's deltas.
  std::optional<state_snapshot> after_turn1;
  for (auto& s : graph->get_state_history(config))
    if (s.values.get("messages").as_list().size() == 2) {
      after_turn1 = std::move(s);
      break;
    }
  BOOST_TEST_REQUIRE(after_turn1.has_value());
  BOOST_TEST(field_of(after_turn1->values.get("messages"), "content") ==
                 (std::vector<std::string>{"h1", "ai-1"}),
             boost::test_tools::per_element());

  // Resumed from there with h3: turn 2's messages do not bleed in.
  object fork_config = config.as_object();
  fork_config.set("configurable", object{{"thread_id", "diff-time-travel"},
                                         {"checkpoint_id", after_turn1->config.checkpoint_id}});
  const value result = graph->invoke(human_input("h3", "h3"), value(std::move(fork_config)));
  const auto contents = field_of(result.get("messages"), "content");
  BOOST_TEST_REQUIRE(contents.size() == 4u);
  BOOST_TEST(contents[0] == "h1");
  BOOST_TEST(contents[1] == "ai-1");
  BOOST_TEST(contents[2] == "h3");
}

// libs/langgraph/tests/test_pregel.py::test_delta_channel_remove_message_end_to_end
BOOST_AUTO_TEST_CASE(test_delta_channel_remove_message_end_to_end) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("respond", [](const value&, node_context&) -> value {
    return object{{"messages", list{message("ai", "reply", "ai-1")}}};
  });
  b.add_node("delete_first", [](const value& s, node_context&) -> value {
    const value& first = s.get("messages").as_list().front();
    return object{{"messages", list{object{{"type", "remove"}, {"id", first.get("id")}}}}};
  });
  b.add_edge("__start__", "respond").add_edge("respond", "delete_first");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("diff-remove-test");
  graph->invoke(human_input("hello", "h1"), config);
  BOOST_TEST(field_of(graph->get_state(config).values.get("messages"), "id") ==
                 (std::vector<std::string>{"ai-1"}),
             boost::test_tools::per_element());

  // The next turn starts from the rebuilt state: h1 stays removed.
  graph->invoke(human_input("again", "h2"), config);
  for (const auto& id : field_of(graph->get_state(config).values.get("messages"), "id"))
    BOOST_TEST(id != "h1");
}

// libs/langgraph/tests/test_pregel.py::test_delta_channel_update_by_id_end_to_end
BOOST_AUTO_TEST_CASE(test_delta_channel_update_by_id_end_to_end) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("update_msg", [](const value&, node_context&) -> value {
    return object{{"messages", list{message("human", "updated", "h1")}}};
  });
  b.add_edge("__start__", "update_msg");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("diff-update-id-test");
  graph->invoke(human_input("original", "h1"), config);
  const value messages = graph->get_state(config).values.get("messages");
  BOOST_TEST_REQUIRE(messages.as_list().size() == 1u);
  BOOST_TEST(messages.as_list()[0].get("content") == value("updated"));
  BOOST_TEST(messages.as_list()[0].get("id") == value("h1"));

  graph->invoke(human_input("new", "h2"), config);
  const auto ids = field_of(graph->get_state(config).values.get("messages"), "id");
  BOOST_TEST(std::count(ids.begin(), ids.end(), "h1") == 1);
  BOOST_TEST(std::count(ids.begin(), ids.end(), "h2") == 1);
}

// libs/langgraph/tests/test_pregel.py::test_delta_channel_durability_exit_stores_snapshot
BOOST_AUTO_TEST_CASE(test_delta_channel_durability_exit_stores_snapshot) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("respond", [](const value&, node_context&) -> value {
    return object{{"messages", list{message("ai", "reply", "ai1")}}};
  });
  b.add_edge("__start__", "respond");
  auto graph = b.compile(opts_with_saver());
  object config = thread("delta-exit-test").as_object();
  config.set("durability", "exit");
  const value result = graph->invoke(human_input("hello", "h1"), value(config));
  BOOST_TEST(
      field_of(result.get("messages"), "content") == (std::vector<std::string>{"hello", "reply"}),
      boost::test_tools::per_element());
  BOOST_TEST(field_of(graph->get_state(thread("delta-exit-test")).values.get("messages"),
                      "content") == (std::vector<std::string>{"hello", "reply"}),
             boost::test_tools::per_element());
  // A second turn, saved at exit again, starts from the first one's snapshot.
  graph->invoke(human_input("again", "h2"), value(config));
  BOOST_TEST(field_of(graph->get_state(thread("delta-exit-test")).values.get("messages"),
                      "content") == (std::vector<std::string>{"hello", "reply", "again"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_pregel.py::test_delta_channel_async_write_ordering (LangGraph's
// async loop awaits the delta writes before the checkpoint; here under async and sync
// durability: every checkpoint without a snapshot comes after the writes that make it)
BOOST_AUTO_TEST_CASE(test_delta_channel_async_write_ordering) {
  for (const char* durability : {"async", "sync"}) {
    state_graph b;
    b.add_delta_key("messages", "messages_delta");
    b.add_node("respond", [](const value& s, node_context&) -> value {
      const std::string i = std::to_string(s.get("messages").as_list().size());
      return object{{"messages", list{message("ai", "r" + i, "ai" + i)}}};
    });
    b.add_edge("__start__", "respond");
    auto recorder = std::make_shared<recording_saver>(saver());
    compile_options o = opts();
    o.checkpointer = recorder;
    auto graph = b.compile(o);
    object config = thread("async-ordering-test").as_object();
    config.set("durability", durability);
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i);
      graph->invoke(human_input("h" + n, "h" + n), value(config));
    }
    const auto order = recorder->order();
    int deltas = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (order[i] != "aput_delta") continue;
      ++deltas;
      const bool writes_before =
          std::find(order.begin(), order.begin() + i, "aput_writes") != order.begin() + i;
      BOOST_TEST(writes_before,
                 durability << ": aput_delta at " << i << " had no aput_writes before it");
    }
    BOOST_TEST(deltas > 0, durability);
    BOOST_TEST(
        graph->get_state(thread("async-ordering-test")).values.get("messages").as_list().size() ==
        6u);
  }
}

namespace {

// START -> respond, which appends "ai-<n>" (n counts the calls) to a messages delta key.
std::shared_ptr<pregel> counting_graph() {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  auto counter = std::make_shared<std::atomic<int>>(0);
  b.add_node("respond", [counter](const value&, node_context&) -> value {
    const std::string n = std::to_string(++*counter);
    return object{{"messages", list{message("ai", "ai-" + n, "ai-" + n)}}};
  });
  b.add_edge("__start__", "respond");
  return b.compile(opts_with_saver());
}

value at(const char* thread_id, const checkpoint_config& c) {
  return object{
      {"configurable", object{{"thread_id", thread_id}, {"checkpoint_id", c.checkpoint_id}}}};
}

// The config of the newest checkpoint of the thread whose next tasks are `next`.
checkpoint_config newest_with_next(const pregel& graph, const char* thread_id, const char* next) {
  for (const auto& s : graph.get_state_history(thread(thread_id)))
    if (s.next == std::vector<std::string>{next}) return s.config;
  BOOST_FAIL("no checkpoint with next " << next);
  return {};
}

}  // namespace

// Not a LangGraph test: LangGraph rebuilds a fork from the saved writes of the checkpoint it
// forks from, the writes of the branch it left among them. A replay here shows the replayed
// step's writes only.
BOOST_AUTO_TEST_CASE(replaying_a_checkpoint_rebuilds_it_without_the_branch_it_left) {
  auto graph = counting_graph();
  graph->invoke(human_input("h1", "h1"), thread("replay"));
  const checkpoint_config before = newest_with_next(*graph, "replay", "respond");
  const value replayed = graph->invoke(value(), at("replay", before));
  using strings = std::vector<std::string>;
  BOOST_TEST(field_of(replayed.get("messages"), "content") == (strings{"h1", "ai-2"}),
             boost::test_tools::per_element());
  BOOST_TEST(field_of(graph->get_state(thread("replay")).values.get("messages"), "content") ==
                 (strings{"h1", "ai-2"}),
             boost::test_tools::per_element());
}

// Not a LangGraph test: new input on a checkpoint whose tasks had run discards them; their
// saved writes are not part of the new branch (test_delta_channel_time_travel checks the run's
// output, this the state saved).
BOOST_AUTO_TEST_CASE(new_input_on_a_past_checkpoint_leaves_its_discarded_writes_out) {
  auto graph = counting_graph();
  graph->invoke(human_input("h1", "h1"), thread("discard"));
  graph->invoke(human_input("h2", "h2"), thread("discard"));
  const checkpoint_config turn2_input = newest_with_next(*graph, "discard", "__start__");
  graph->invoke(human_input("h3", "h3"), at("discard", turn2_input));
  using strings = std::vector<std::string>;
  BOOST_TEST(field_of(graph->get_state(thread("discard")).values.get("messages"), "content") ==
                 (strings{"h1", "ai-1", "h3", "ai-3"}),
             boost::test_tools::per_element());
}

// Not a LangGraph test: update_state on a past checkpoint forks from it; the writes of the
// step that followed it on the old branch are not part of the fork.
BOOST_AUTO_TEST_CASE(update_state_on_a_past_checkpoint_leaves_the_old_branch_out) {
  auto graph = counting_graph();
  graph->invoke(human_input("h1", "h1"), thread("fork-update"));
  const checkpoint_config before = newest_with_next(*graph, "fork-update", "respond");
  const value forked =
      graph->update_state(at("fork-update", before), human_input("x", "x"), "respond");
  using strings = std::vector<std::string>;
  BOOST_TEST(
      field_of(graph->get_state(forked).values.get("messages"), "content") == (strings{"h1", "x"}),
      boost::test_tools::per_element());
}

// Not a LangGraph test: a run that stops at an interrupt resumes from a checkpoint whose
// delta key is rebuilt from the saved writes, and the Command's update to it is kept.
BOOST_AUTO_TEST_CASE(a_resumed_run_continues_from_the_rebuilt_delta_key) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("ask", [](const value&, node_context& ctx) -> value {
    const value answer = ctx.interrupt("name?");
    return object{{"messages", list{message("human", answer.as_string(), "answer")}}};
  });
  b.add_node("respond", [](const value& s, node_context&) -> value {
    const std::string n = std::to_string(s.get("messages").as_list().size());
    return object{{"messages", list{message("ai", "reply-" + n, "ai-" + n)}}};
  });
  b.add_edge("__start__", "ask").add_edge("ask", "respond");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("resume");
  graph->invoke(human_input("hello", "h1"), config);
  BOOST_TEST(graph->get_state(config).next == std::vector<std::string>{"ask"},
             boost::test_tools::per_element());
  command c;
  c.resume = "Ada";
  c.update = object{{"messages", list{message("system", "be nice", "s1")}}};
  const value result = graph->invoke(make_command(c), config);
  using strings = std::vector<std::string>;
  const strings expected{"hello", "be nice", "Ada", "reply-3"};
  BOOST_TEST(field_of(result.get("messages"), "content") == expected,
             boost::test_tools::per_element());
  BOOST_TEST(field_of(graph->get_state(config).values.get("messages"), "content") == expected,
             boost::test_tools::per_element());
}

// Not a LangGraph test: a subgraph with a delta key of its own, kept across invocations
// (checkpointer=True), rebuilt in its own namespace.
BOOST_AUTO_TEST_CASE(a_stateful_subgraph_rebuilds_its_delta_key) {
  state_graph sb;
  sb.add_delta_key("messages", "messages_delta");
  sb.add_node("inner", [](const value& s, node_context&) -> value {
    const std::string n = std::to_string(s.get("messages").as_list().size());
    return object{{"messages", list{message("ai", "inner-" + n, "inner-" + n)}}};
  });
  sb.add_edge("__start__", "inner");
  compile_options so = opts();
  so.as_subgraph = subgraph_checkpointer::stateful;
  auto sub = sb.compile(so);
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_node("sub", sub);
  b.add_edge("__start__", "sub");
  auto graph = b.compile(opts_with_saver());
  const value config = thread("sub");
  graph->invoke(human_input("a", "h1"), config);
  const value second = graph->invoke(human_input("b", "h2"), config);
  using strings = std::vector<std::string>;
  // The subgraph's own key holds both turns: [a, inner-1] then b, the parent's messages
  // (a, inner-1, b) merged by id, and inner-3.
  BOOST_TEST(
      field_of(second.get("messages"), "content") == (strings{"a", "inner-1", "b", "inner-3"}),
      boost::test_tools::per_element());
  BOOST_TEST(field_of(graph->get_state(config).values.get("messages"), "content") ==
                 (strings{"a", "inner-1", "b", "inner-3"}),
             boost::test_tools::per_element());
}

// Not a LangGraph test: parallel tasks writing a delta key in one step; the state rebuilt from
// the saved writes has them in the order the step applied them (task-path order), as the
// run's output. Fails: savers return a checkpoint's pending writes in task id order, and
// pending_write carries no task path to reorder them by (LangGraph's InMemorySaver sorts by
// task id as well); an order-insensitive reducer (messages_delta with ids, merge) is exact.
BOOST_AUTO_TEST_CASE(parallel_writes_to_a_delta_key_rebuild_in_task_path_order,
                     *boost::unit_test::disabled()) {
  state_graph b;
  b.add_delta_key("items", "append");
  for (const char* name : {"a", "b", "c", "d", "e", "f"})
    b.add_node(name, [name](const value&, node_context&) -> value {
      return object{{"items", list{name}}};
    });
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) b.add_edge("__start__", name);
  auto graph = b.compile(opts_with_saver());
  const value out = graph->invoke(object{{"items", list{}}}, thread("parallel"));
  BOOST_TEST(out.get("items").to_json() == R"(["a","b","c","d","e","f"])");
  BOOST_TEST(graph->get_state(thread("parallel")).values.get("items") == out.get("items"));
}
