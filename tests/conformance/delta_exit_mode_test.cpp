// libs/langgraph/tests/test_delta_channel_exit_mode.py: delta keys under exit durability (the
// run's last checkpoint snapshots the keys whose counters say so; the writes of the others
// are saved against the checkpoint the run started from, or an empty stub one); see
// conformance.hpp.
#include <algorithm>
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

// messages (snapshot every `freq` updates), START -> respond, which replies "reply-<n>".
std::shared_ptr<pregel> build_graph(std::shared_ptr<checkpoint_saver> saver,
                                    std::int64_t freq = 1000) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta", {freq, std::nullopt});
  b.add_node("respond", [](const value& s, node_context&) -> value {
    const std::string i = std::to_string(s.get("messages").as_list().size());
    return object{{"messages", list{message("ai", "reply-" + i, "ai" + i)}}};
  });
  b.add_edge("__start__", "respond");
  compile_options o = opts();
  o.checkpointer = std::move(saver);
  return b.compile(o);
}

value with_durability(const char* thread_id, const char* durability = "exit") {
  object c = thread(thread_id).as_object();
  c.set("durability", durability);
  return value(std::move(c));
}

value human(const std::string& content, const std::string& id, const char* key = "messages") {
  return object{{key, list{message("human", content, id)}}};
}

std::vector<std::string> contents(const value& values, const char* key = "messages") {
  std::vector<std::string> out;
  for (const auto& m : values.get(key).as_list()) out.push_back(m.get("content").as_string());
  return out;
}

std::size_t stubs(checkpoint_saver& saver, const char* thread_id) {
  std::size_t n = 0;
  for (const auto& t : saver.list(checkpoint_config{thread_id, "", ""}, {}))
    if (t.metadata.step == -2) ++n;
  return n;
}

checkpoint_tuple head(checkpoint_saver& saver, const char* thread_id) {
  auto t = saver.get_tuple(checkpoint_config{thread_id, "", ""});
  BOOST_TEST_REQUIRE(t.has_value());
  return std::move(*t);
}

bool snapshotted(const checkpoint_tuple& t, const char* key = "messages") {
  auto it = t.checkpoint.channel_values.find(key);
  return it != t.checkpoint.channel_values.end() && channels::as_delta_snapshot(it->second);
}

// (updates, steps) of `key` in `t`'s counters; (0, 0) when absent.
std::pair<std::int64_t, std::int64_t> counters(const checkpoint_tuple& t,
                                               const char* key = "messages") {
  const value* all = t.metadata.extra.find("counters_since_delta_snapshot");
  const value* c = all ? all->find(key) : nullptr;
  if (!c) return {0, 0};
  return {c->as_list()[0].as_int(), c->as_list()[1].as_int()};
}

using strings = std::vector<std::string>;

}  // namespace

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_first_run_no_delta_writes
BOOST_AUTO_TEST_CASE(test_exit_first_run_no_delta_writes) {
  auto s = saver();
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  b.add_key("value");
  b.add_node("noop", [](const value&, node_context&) -> value {
    return object{{"value", "done"}};
  });
  b.add_edge("__start__", "noop");
  compile_options o = opts();
  o.checkpointer = s;
  auto graph = b.compile(o);
  graph->invoke(object{{"value", "start"}}, with_durability("no-delta-writes"));
  BOOST_TEST(s->list(checkpoint_config{"no-delta-writes", "", ""}, {}).size() == 1u);
  BOOST_TEST(stubs(*s, "no-delta-writes") == 0u);
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_first_run_all_snapshot
BOOST_AUTO_TEST_CASE(test_exit_first_run_all_snapshot) {
  auto s = saver();
  auto graph = build_graph(s, 1);
  const value result = graph->invoke(human("hi", "h1"), with_durability("all-snapshot"));
  BOOST_TEST(result.get("messages").as_list().size() == 2u);
  BOOST_TEST(stubs(*s, "all-snapshot") == 0u);
  BOOST_TEST(snapshotted(head(*s, "all-snapshot")));
  BOOST_TEST(
      contents(graph->get_state(thread("all-snapshot")).values) == (strings{"hi", "reply-1"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_first_run_sub_freq_with_writes
BOOST_AUTO_TEST_CASE(test_exit_first_run_sub_freq_with_writes) {
  auto s = saver();
  auto graph = build_graph(s);
  const value result = graph->invoke(human("hello", "h1"), with_durability("sub-freq-first"));
  BOOST_TEST(contents(result) == (strings{"hello", "reply-1"}), boost::test_tools::per_element());
  BOOST_TEST(stubs(*s, "sub-freq-first") == 1u);
  checkpoint_tuple h = head(*s, "sub-freq-first");
  BOOST_TEST(!h.checkpoint.channel_values.count("messages"));
  BOOST_TEST(h.checkpoint.channel_versions.count("messages"));
  BOOST_TEST(
      contents(graph->get_state(thread("sub-freq-first")).values) == (strings{"hello", "reply-1"}),
      boost::test_tools::per_element());
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_resumed_run_sub_freq
BOOST_AUTO_TEST_CASE(test_exit_resumed_run_sub_freq) {
  auto s = saver();
  auto graph = build_graph(s);
  graph->invoke(human("msg1", "h1"), with_durability("resumed-sub-freq"));
  graph->invoke(human("msg2", "h2"), with_durability("resumed-sub-freq"));
  BOOST_TEST(stubs(*s, "resumed-sub-freq") == 1u);
  const auto c = contents(graph->get_state(thread("resumed-sub-freq")).values);
  BOOST_TEST_REQUIRE(c.size() == 4u);
  BOOST_TEST(c[0] == "msg1");
  BOOST_TEST(c[2] == "msg2");
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_count_parity_sync_vs_exit
BOOST_AUTO_TEST_CASE(test_exit_count_parity_sync_vs_exit) {
  for (const char* durability : {"sync", "exit"}) {
    auto s = saver();
    auto graph = build_graph(s);
    const std::string thread_id = std::string("parity-") + durability;
    graph->invoke(human("hi", "h1"), with_durability(thread_id.c_str(), durability));
    auto [updates, steps] = counters(head(*s, thread_id.c_str()));
    BOOST_TEST(updates == 2, durability);
    BOOST_TEST(steps >= 2, durability);
  }
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_snapshot_fires_at_frequency
BOOST_AUTO_TEST_CASE(test_exit_snapshot_fires_at_frequency) {
  auto s = saver();
  auto graph = build_graph(s, 3);
  graph->invoke(human("m1", "h1"), with_durability("snapshot-at-freq"));
  BOOST_TEST(counters(head(*s, "snapshot-at-freq")).first == 2);
  graph->invoke(human("m2", "h2"), with_durability("snapshot-at-freq"));
  checkpoint_tuple h = head(*s, "snapshot-at-freq");
  BOOST_TEST(counters(h).first == 0, "reset after the snapshot");
  BOOST_TEST(snapshotted(h));
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_mixed_snapshot_and_non_snapshot
BOOST_AUTO_TEST_CASE(test_exit_mixed_snapshot_and_non_snapshot) {
  auto s = saver();
  state_graph b;
  b.add_delta_key("fast", "messages_delta", {1, std::nullopt});
  b.add_delta_key("slow", "messages_delta", {1000, std::nullopt});
  b.add_node("respond", [](const value&, node_context&) -> value {
    return object{{"fast", list{message("ai", "fast-reply", "f1")}},
                  {"slow", list{message("ai", "slow-reply", "s1")}}};
  });
  b.add_edge("__start__", "respond");
  compile_options o = opts();
  o.checkpointer = s;
  auto graph = b.compile(o);
  graph->invoke(object{{"fast", list{message("human", "fast-in", "fi")}},
                       {"slow", list{message("human", "slow-in", "si")}}},
                with_durability("mixed-freq"));
  checkpoint_tuple h = head(*s, "mixed-freq");
  BOOST_TEST(snapshotted(h, "fast"));
  BOOST_TEST(!h.checkpoint.channel_values.count("slow"));
  const value values = graph->get_state(thread("mixed-freq")).values;
  BOOST_TEST(contents(values, "fast") == (strings{"fast-in", "fast-reply"}),
             boost::test_tools::per_element());
  BOOST_TEST(contents(values, "slow") == (strings{"slow-in", "slow-reply"}),
             boost::test_tools::per_element());
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_multi_run_replay_chain
BOOST_AUTO_TEST_CASE(test_exit_multi_run_replay_chain) {
  auto s = saver();
  auto graph = build_graph(s);
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    graph->invoke(human("user-" + n, "h" + n), with_durability("replay-chain"));
    const auto c = contents(graph->get_state(thread("replay-chain")).values);
    strings users, expected;
    for (const auto& x : c)
      if (x.rfind("user-", 0) == 0) users.push_back(x);
    for (int j = 0; j <= i; ++j) expected.push_back("user-" + std::to_string(j));
    BOOST_TEST(users == expected, boost::test_tools::per_element());
    BOOST_TEST(c.size() == static_cast<std::size_t>((i + 1) * 2));
  }
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_metadata_round_trip
BOOST_AUTO_TEST_CASE(test_exit_metadata_round_trip) {
  const std::int64_t freq = 5;
  auto s = saver();
  auto graph = build_graph(s, freq);
  for (int i = 1; i <= 5; ++i) {
    const std::string n = std::to_string(i);
    graph->invoke(human("m" + n, "h" + n), with_durability("metadata-rt"));
    const std::int64_t updates = counters(head(*s, "metadata-rt")).first;
    const std::int64_t cumulative = i * 2;
    if (cumulative >= freq)
      BOOST_TEST((updates == 0 || updates == cumulative % freq || updates < freq),
                 "after run " << i << ": updates " << updates);
    else
      BOOST_TEST(updates == cumulative, "after run " << i);
  }
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_mixed_durability_round_trip
BOOST_AUTO_TEST_CASE(test_exit_mixed_durability_round_trip) {
  auto s = saver();
  auto graph = build_graph(s);
  const char* modes[] = {"sync", "exit", "sync", "exit"};
  for (int i = 0; i < 4; ++i) {
    const std::string n = std::to_string(i);
    graph->invoke(human("msg-" + n, "h" + n), with_durability("mixed-durability", modes[i]));
    const auto c = contents(graph->get_state(thread("mixed-durability")).values);
    strings users, expected;
    for (const auto& x : c)
      if (x.rfind("msg-", 0) == 0) users.push_back(x);
    for (int j = 0; j <= i; ++j) expected.push_back("msg-" + std::to_string(j));
    BOOST_TEST(users == expected, boost::test_tools::per_element());
    BOOST_TEST(c.size() == static_cast<std::size_t>((i + 1) * 2), modes[i]);
  }
}

// libs/langgraph/tests/test_delta_channel_exit_mode.py::test_exit_snapshot_then_tail_deltas
BOOST_AUTO_TEST_CASE(test_exit_snapshot_then_tail_deltas) {
  auto s = saver();
  build_graph(s, 1)->invoke(human("seed-msg", "h1"), with_durability("snapshot-then-tail"));
  BOOST_TEST(snapshotted(head(*s, "snapshot-then-tail")));
  auto graph2 = build_graph(s, 1000);
  graph2->invoke(human("tail-msg", "h2"), with_durability("snapshot-then-tail"));
  const auto c = contents(graph2->get_state(thread("snapshot-then-tail")).values);
  auto seed = std::find(c.begin(), c.end(), "seed-msg");
  auto tail = std::find(c.begin(), c.end(), "tail-msg");
  BOOST_TEST((seed != c.end()));
  BOOST_TEST((tail != c.end()));
  BOOST_TEST((seed < tail));
}
