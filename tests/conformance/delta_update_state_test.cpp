// libs/langgraph/tests/test_delta_channel_update_state.py: update_state and bulk_update_state
// on a delta key (a thread's first checkpoint snapshots it; later updates save their writes
// on the parent and count as a step); see conformance.hpp.
#include <algorithm>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/delta_channel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

struct fixture {
  std::shared_ptr<checkpoint_saver> saver = conformance::saver();
  std::shared_ptr<pregel> graph;

  // A messages delta key, START -> model (-> assistant with two_nodes); nodes write nothing.
  explicit fixture(bool two_nodes = false, std::int64_t snapshot_frequency = 1000) {
    state_graph b;
    b.add_delta_key("messages", "messages_delta", {snapshot_frequency, std::nullopt});
    node_function none = [](const value&, node_context&) -> value { return object{}; };
    b.add_node("model", none);
    b.add_edge("__start__", "model");
    if (two_nodes) {
      b.add_node("assistant", none);
      b.add_edge("model", "assistant");
      b.set_finish_point("assistant");
    } else {
      b.set_finish_point("model");
    }
    compile_options o = opts();
    o.checkpointer = saver;
    graph = b.compile(o);
  }

  checkpoint_tuple head(const std::string& thread_id) {
    auto t = saver->get_tuple(checkpoint_config{thread_id, "", ""});
    BOOST_TEST_REQUIRE(t.has_value());
    return std::move(*t);
  }

  std::vector<std::string> field(const value& config, const char* name) {
    std::vector<std::string> out;
    const value values = graph->get_state(config).values;
    for (const auto& m : values.get("messages").as_list()) out.push_back(m.get(name).as_string());
    return out;
  }
};

value messages(const char* content, const char* id) {
  return object{{"messages", list{object{{"type", "human"}, {"content", content}, {"id", id}}}}};
}

bool snapshotted(const checkpoint_tuple& t) {
  auto it = t.checkpoint.channel_values.find("messages");
  return it != t.checkpoint.channel_values.end() && channels::as_delta_snapshot(it->second);
}

const value* counters(const checkpoint_tuple& t) {
  return t.metadata.extra.find("counters_since_delta_snapshot");
}

using strings = std::vector<std::string>;

}  // namespace

// libs/langgraph/tests/test_delta_channel_update_state.py::test_update_state_fresh_thread_delta_channel
BOOST_AUTO_TEST_CASE(test_update_state_fresh_thread_delta_channel) {
  fixture f;
  const value config = thread("fresh-sync");
  f.graph->update_state(config, messages("hello", "m1"), "model");
  BOOST_TEST(f.field(config, "content") == strings{"hello"}, boost::test_tools::per_element());
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_fresh_update_state_head_snapshots_delta_channel
BOOST_AUTO_TEST_CASE(test_fresh_update_state_head_snapshots_delta_channel) {
  fixture f;
  f.graph->update_state(thread("fresh-head-snapshot"), messages("hello", "m1"), "model");
  checkpoint_tuple head = f.head("fresh-head-snapshot");
  BOOST_TEST(snapshotted(head));
  BOOST_TEST(!counters(head));
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_update_state_after_invoke_delta_channel
BOOST_AUTO_TEST_CASE(test_update_state_after_invoke_delta_channel) {
  fixture f;
  const value config = thread("after-invoke-sync");
  f.graph->invoke(messages("seed", "m1"), config);
  f.graph->update_state(config, messages("appended", "m2"), "model");
  BOOST_TEST(f.field(config, "content") == (strings{"seed", "appended"}),
             boost::test_tools::per_element());
  BOOST_TEST(f.field(config, "id") == (strings{"m1", "m2"}), boost::test_tools::per_element());
  checkpoint_tuple head = f.head("after-invoke-sync");
  BOOST_TEST(!head.checkpoint.channel_values.count("messages"));
  BOOST_TEST_REQUIRE(counters(head));
  // Written by START's step and the update; four steps: input, START, model, the update.
  BOOST_TEST(counters(head)->get("messages").to_json() == "[2,4]");
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_consecutive_update_states_delta_channel
BOOST_AUTO_TEST_CASE(test_consecutive_update_states_delta_channel) {
  fixture f;
  const value config = thread("consecutive-sync");
  f.graph->update_state(config, messages("first", "m1"), "model");
  f.graph->update_state(config, messages("second", "m2"), "model");
  BOOST_TEST(f.field(config, "content") == (strings{"first", "second"}),
             boost::test_tools::per_element());
  BOOST_TEST(f.field(config, "id") == (strings{"m1", "m2"}), boost::test_tools::per_element());
  checkpoint_tuple head = f.head("consecutive-sync");
  BOOST_TEST(!head.checkpoint.channel_values.count("messages"));
  BOOST_TEST_REQUIRE(counters(head));
  BOOST_TEST(counters(head)->get("messages").to_json() == "[1,1]");
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_update_state_snapshots_at_frequency
BOOST_AUTO_TEST_CASE(test_update_state_snapshots_at_frequency) {
  fixture f(false, 1);
  const value config = thread("snapshot-at-freq");
  f.graph->update_state(config, messages("first", "m1"), "model");
  f.graph->update_state(config, messages("second", "m2"), "model");
  BOOST_TEST(f.field(config, "content") == (strings{"first", "second"}),
             boost::test_tools::per_element());
  checkpoint_tuple head = f.head("snapshot-at-freq");
  BOOST_TEST(snapshotted(head));
  BOOST_TEST(!counters(head));
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_update_state_replaces_message_by_id_delta_channel
BOOST_AUTO_TEST_CASE(test_update_state_replaces_message_by_id_delta_channel) {
  fixture f;
  const value config = thread("update-by-id");
  f.graph->invoke(messages("original", "h1"), config);
  f.graph->update_state(config, messages("updated", "h1"), "model");
  BOOST_TEST(f.field(config, "id") == strings{"h1"}, boost::test_tools::per_element());
  BOOST_TEST(f.field(config, "content") == strings{"updated"}, boost::test_tools::per_element());
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_bulk_update_state_multi_task_per_superstep_delta_channel
BOOST_AUTO_TEST_CASE(test_bulk_update_state_multi_task_per_superstep_delta_channel) {
  // Two updates of one superstep as two tasks of "model" (explicit task ids), each saving its
  // writes; on a fresh thread, so the snapshot holds both. Then the same on a thread with a
  // checkpoint, where the writes saved on the parent rebuild the value.
  fixture f(true);
  for (const char* thread_id : {"bulk-multi-task", "bulk-multi-task-after-invoke"}) {
    const value config = thread(thread_id);
    if (std::string(thread_id) != "bulk-multi-task")
      f.graph->invoke(messages("seed", "m0"), config);
    f.graph->bulk_update_state(config,
                               {{state_update{messages("first", "m1"), "model", "task-1"},
                                 state_update{messages("second", "m2"), "model", "task-2"}}});
    strings ids = f.field(config, "id");
    std::sort(ids.begin(), ids.end());
    const strings expected = std::string(thread_id) == "bulk-multi-task"
                                 ? strings{"m1", "m2"}
                                 : strings{"m0", "m1", "m2"};
    BOOST_TEST(ids == expected, boost::test_tools::per_element());
  }
}

// libs/langgraph/tests/test_delta_channel_update_state.py::test_state_history_chain_after_fresh_update_state_delta_channel
BOOST_AUTO_TEST_CASE(test_state_history_chain_after_fresh_update_state_delta_channel) {
  fixture f;
  const value config = thread("history-chain");
  f.graph->update_state(config, messages("hello", "m1"), "model");
  auto history = f.graph->get_state_history(config);
  BOOST_TEST_REQUIRE(history.size() == 1u);
  const state_snapshot& update = history.front();
  BOOST_TEST(update.metadata.get("source") == value("update"));
  BOOST_TEST(update.metadata.get("step") == value(0));
  BOOST_TEST(!update.parent_config.has_value());
  BOOST_TEST(update.values.get("messages").as_list().size() == 1u);
  BOOST_TEST(update.values.get("messages").as_list()[0].get("content") == value("hello"));
}
