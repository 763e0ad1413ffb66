// libs/langgraph/tests/test_channels.py: DeltaChannel (a reducer channel checkpointed as its
// writes, rebuilt through its reducer) and its messages reducer; see conformance.hpp.
#include <atomic>
#include <memory>
#include <vector>

#include "conformance.hpp"
#include "superstep/channels/delta_channel.hpp"
#include "superstep/core/error.hpp"
#include "support/expect_error.hpp"

using namespace superstep;
using namespace superstep::conformance;
using channels::delta_channel;

namespace {

value J(std::string_view json) { return value::parse_json(json); }

bool update(channels::channel& c, std::vector<value> writes) { return c.update(writes); }

void replay(channels::channel& c, std::vector<value> writes) {
  static_cast<delta_channel&>(c).replay(writes);
}

value msg(const char* type, const char* content, const char* id) {
  return object{{"type", type}, {"content", content}, {"id", id}};
}
value human(const char* content, const char* id) { return msg("human", content, id); }
value ai(const char* content, const char* id) { return msg("ai", content, id); }
value remove_message(const char* id) { return object{{"type", "remove"}, {"id", id}}; }

const channels::reducer& messages_delta() { return *channels::builtin_reducer("messages_delta"); }

// The message reducer's channel, as LangGraph's DeltaChannel(_messages_delta_reducer, list).
delta_channel messages_channel(std::int64_t frequency = 1000) {
  return delta_channel("messages", messages_delta(), list{}, frequency);
}

// The dict reducers of the tests: merge each write into the state (None deletes, with
// `deletions`).
channels::reducer merge_dicts(bool deletions = false) {
  channels::reducer r;
  r.name = deletions ? "merge_files" : "merge_dicts";
  r.fold = [deletions](const value& state, std::span<const value> writes) {
    object out = state.as_object();
    for (const value& w : writes)
      for (const auto& [k, v] : w.as_object())
        if (deletions && v.is_null())
          out.erase(k);
        else
          out.set(k, v);
    return value(std::move(out));
  };
  return r;
}

delta_channel dict_channel(bool deletions = false) {
  return delta_channel("files", merge_dicts(deletions), object{});
}

// A list reducer extending the state with each write (a list).
channels::reducer extend() {
  channels::reducer r;
  r.name = "extend";
  r.fold = [](const value& state, std::span<const value> writes) {
    list out = state.as_list();
    for (const value& w : writes) out.insert(out.end(), w.as_list().begin(), w.as_list().end());
    return value(std::move(out));
  };
  return r;
}

std::string contents(const value& messages) {
  std::string out;
  for (const auto& m : messages.as_list()) out += m.get("content").as_string() + ",";
  return out;
}

}  // namespace

// libs/langgraph/tests/test_channels.py::test_delta_channel_basic_two_steps
BOOST_AUTO_TEST_CASE(test_delta_channel_basic_two_steps) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  update(*ch, {human("hi", "h1")});
  BOOST_TEST(!ch->checkpoint().has_value());
  update(*ch, {ai("hello", "a1")});
  BOOST_TEST(!ch->checkpoint().has_value());
  BOOST_TEST(contents(ch->get()) == "hi,hello,");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_from_checkpoint_writes_list
BOOST_AUTO_TEST_CASE(test_delta_channel_from_checkpoint_writes_list) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  replay(*ch, {human("hi", "h1"), ai("hello", "a1"), human("bye", "h2")});
  BOOST_TEST(contents(ch->get()) == "hi,hello,bye,");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_from_checkpoint_backwards_compat
BOOST_AUTO_TEST_CASE(test_delta_channel_from_checkpoint_backwards_compat) {
  value old_value = list{human("old", "h1")};
  auto ch = messages_channel().from_checkpoint(old_value);
  BOOST_TEST(ch->get() == old_value);
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_overwrite
BOOST_AUTO_TEST_CASE(test_delta_channel_overwrite) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  update(*ch, {human("old", "h1")});
  update(*ch, {channels::overwrite(list{human("new", "h2")})});
  BOOST_TEST(!ch->checkpoint().has_value());
  BOOST_TEST(contents(ch->get()) == "new,");
  // As LangGraph: only one Overwrite per step.
  test::expect_error(
      [&] {
        update(*ch, {channels::overwrite(list{}), channels::overwrite(list{})});
      },
      error_code::invalid_update, "Overwrite");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_remove_message_and_replay
BOOST_AUTO_TEST_CASE(test_delta_channel_remove_message_and_replay) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  update(*ch, {human("hi", "h1")});
  update(*ch, {ai("hello", "a1")});
  BOOST_TEST(ch->get() == value(list{human("hi", "h1"), ai("hello", "a1")}));
  update(*ch, {remove_message("a1")});
  BOOST_TEST(ch->get() == value(list{human("hi", "h1")}));

  auto ch2 = messages_channel().from_checkpoint(std::nullopt);
  replay(*ch2, {human("hi", "h1"), ai("hello", "a1"), remove_message("a1")});
  BOOST_TEST(ch2->get() == value(list{human("hi", "h1")}));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_update_by_id_and_replay
BOOST_AUTO_TEST_CASE(test_delta_channel_update_by_id_and_replay) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  update(*ch, {human("original", "h1")});
  update(*ch, {human("updated", "h1")});
  BOOST_TEST(ch->get() == value(list{human("updated", "h1")}));

  auto ch2 = messages_channel().from_checkpoint(std::nullopt);
  replay(*ch2, {human("original", "h1"), human("updated", "h1")});
  BOOST_TEST(ch2->get().as_list().size() == 1u);
  BOOST_TEST(contents(ch2->get()) == "updated,");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_coercion
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_coercion) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  // {"role": ...} objects, as JSON input brings them, become messages of that type.
  update(*ch, {J(R"({"role": "human", "content": "hello", "id": "h1"})")});
  BOOST_TEST(ch->get() == value(list{human("hello", "h1")}));
  update(*ch, {J(R"({"role": "ai", "content": "world", "id": "h1"})")});
  BOOST_TEST(ch->get() == value(list{ai("world", "h1")}));
  update(*ch, {remove_message("h1")});
  BOOST_TEST(ch->get() == value(list{}));
}

// libs/langgraph/tests/test_channels.py::test_messages_delta_reducer_coerces_state
BOOST_AUTO_TEST_CASE(test_messages_delta_reducer_coerces_state) {
  value state = J(R"([{"role": "human", "content": "hello", "id": "h1"}])");
  std::vector<value> writes{J(R"([{"role": "ai", "content": "world", "id": "h1"}])")};
  value result = messages_delta().apply(state, writes);
  BOOST_TEST(result == value(list{ai("world", "h1")}));
}

// libs/langgraph/tests/test_channels.py::test_messages_delta_reducer_tuple_write_is_one_message
BOOST_AUTO_TEST_CASE(test_messages_delta_reducer_tuple_write_is_one_message) {
  // A [role, content] pair written alone is one message, not a list of two.
  std::vector<value> writes{list{"user", "hi"}};
  value result = messages_delta().apply(list{}, writes);
  BOOST_TEST_REQUIRE(result.as_list().size() == 1u);
  BOOST_TEST(result.as_list()[0].get("type") == value("human"));
  BOOST_TEST(result.as_list()[0].get("content") == value("hi"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_checkpoint_returns_missing
BOOST_AUTO_TEST_CASE(test_delta_channel_checkpoint_returns_missing) {
  auto ch = messages_channel().from_checkpoint(std::nullopt);
  BOOST_TEST(!ch->checkpoint().has_value());
  update(*ch, {human("hi", "h1")});
  BOOST_TEST(!ch->checkpoint().has_value());
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_snapshot_version_based
BOOST_AUTO_TEST_CASE(test_delta_channel_snapshot_version_based) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta", {5, std::nullopt});
  b.add_key("other");
  b.add_node("a", [](const value& s, node_context&) -> value {
    const std::string i = std::to_string(s.get("messages").as_list().size() / 2);
    return object{
        {"messages", list{object{{"type", "ai"}, {"content", "a" + i}, {"id", "a" + i}}}}};
  });
  b.add_node("b", [](const value&, node_context&) -> value { return object{{"other", "y"}}; });
  b.add_edge("__start__", "a").add_edge("a", "b");
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto graph = b.compile(o);
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    graph->invoke(
        object{{"messages", list{object{{"type", "human"}, {"content", "h" + n}, {"id", "h" + n}}}},
               {"other", ""}},
        thread("t1"));
  }
  int snapshots = 0;
  for (const auto& tuple : saver->list(checkpoint_config{"t1", "", ""}, {}))
    if (auto it = tuple.checkpoint.channel_values.find("messages");
        it != tuple.checkpoint.channel_values.end() && channels::as_delta_snapshot(it->second))
      ++snapshots;
  BOOST_TEST(snapshots > 0, "expected at least one snapshot of messages");
  BOOST_TEST(graph->get_state(thread("t1")).values.get("messages").as_list().size() == 12u);
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_inmemory_saver_assembles_writes
BOOST_AUTO_TEST_CASE(test_delta_channel_inmemory_saver_assembles_writes) {
  state_graph b;
  b.add_delta_key("messages", "messages_delta");
  auto n = std::make_shared<std::atomic<int>>(0);
  b.add_node("respond", [n](const value&, node_context&) -> value {
    const std::string i = std::to_string(++*n);
    return object{
        {"messages", list{object{{"type", "ai"}, {"content", "ok" + i}, {"id", "ai" + i}}}}};
  });
  b.add_edge("__start__", "respond");
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto graph = b.compile(o);
  graph->invoke(object{{"messages", list{human("hi", "h1")}}}, thread("t1"));
  graph->invoke(object{{"messages", list{human("bye", "h2")}}}, thread("t1"));
  auto saved = saver->get_tuple(checkpoint_config{"t1", "", ""});
  BOOST_TEST_REQUIRE(saved.has_value());
  BOOST_TEST(!saved->checkpoint.channel_values.count("messages"));
  BOOST_TEST(graph->get_state(thread("t1")).values.get("messages").as_list().size() == 4u);
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_overwrite_superstep_snapshots
BOOST_AUTO_TEST_CASE(test_delta_channel_overwrite_superstep_snapshots) {
  state_graph b;
  b.add_delta_key("items", extend(), {1000, std::nullopt});
  b.add_node("node_a", [](const value&, node_context&) -> value {
    return object{{"items", list{"a"}}};
  });
  b.add_node("node_b", [](const value&, node_context&) -> value {
    return object{{"items", channels::overwrite(list{"b"})}};
  });
  b.add_node("node_c", [](const value&, node_context&) -> value {
    return object{{"items", list{"c"}}};
  });
  b.add_edge("__start__", "node_a").add_edge("node_a", "node_b").add_edge("node_a", "node_c");
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto graph = b.compile(o);
  const value config = thread("overwrite-snapshot");
  BOOST_TEST(graph->invoke(object{{"items", list{"START"}}}, config).to_json() ==
             R"({"items":["b"]})");
  auto saved = saver->get_tuple(checkpoint_config{"overwrite-snapshot", "", ""});
  BOOST_TEST_REQUIRE(saved.has_value());
  auto it = saved->checkpoint.channel_values.find("items");
  BOOST_TEST_REQUIRE((it != saved->checkpoint.channel_values.end()));
  const value* snapshot = channels::as_delta_snapshot(it->second);
  BOOST_TEST_REQUIRE(snapshot);
  BOOST_TEST(snapshot->to_json() == R"(["b"])");
  const value* counters = saved->metadata.extra.find("counters_since_delta_snapshot");
  BOOST_TEST((!counters || !counters->find("items")));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_replay_after_overwrite_snapshot
BOOST_AUTO_TEST_CASE(test_delta_channel_replay_after_overwrite_snapshot) {
  state_graph b;
  b.add_delta_key("items", extend(), {1000, std::nullopt});
  auto calls = std::make_shared<std::atomic<int>>(0);
  b.add_node("node", [calls](const value&, node_context&) -> value {
    if (++*calls == 1) return object{{"items", channels::overwrite(list{"reset"})}};
    return object{{"items", list{"after"}}};
  });
  b.add_edge("__start__", "node");
  compile_options o = opts_with_saver();
  auto saver = o.checkpointer;
  auto graph = b.compile(o);
  const value config = thread("overwrite-replay");
  const checkpoint_config latest{"overwrite-replay", "", ""};
  BOOST_TEST(graph->invoke(object{{"items", list{"before"}}}, config).to_json() ==
             R"({"items":["reset"]})");
  auto first_saved = saver->get_tuple(latest);
  BOOST_TEST_REQUIRE(first_saved.has_value());
  auto it = first_saved->checkpoint.channel_values.find("items");
  BOOST_TEST_REQUIRE((it != first_saved->checkpoint.channel_values.end()));
  BOOST_TEST(channels::as_delta_snapshot(it->second));

  BOOST_TEST(graph->invoke(object{{"items", list{}}}, config).to_json() ==
             R"({"items":["reset","after"]})");
  auto second_saved = saver->get_tuple(latest);
  BOOST_TEST_REQUIRE(second_saved.has_value());
  BOOST_TEST(!second_saved->checkpoint.channel_values.count("items"));
  BOOST_TEST(graph->get_state(config).values.to_json() == R"({"items":["reset","after"]})");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_fresh_channel
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_fresh_channel) {
  auto ch = dict_channel().from_checkpoint(std::nullopt);
  BOOST_TEST(ch->is_available());
  BOOST_TEST(ch->get() == value(object{}));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_basic_updates
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_basic_updates) {
  auto ch = dict_channel().from_checkpoint(std::nullopt);
  update(*ch, {J(R"({"a": 1})")});
  BOOST_TEST(!ch->checkpoint().has_value());
  update(*ch, {J(R"({"b": 2})")});
  BOOST_TEST(!ch->checkpoint().has_value());
  BOOST_TEST(ch->get() == J(R"({"a": 1, "b": 2})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_writes_reconstruction
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_writes_reconstruction) {
  auto ch = dict_channel().from_checkpoint(std::nullopt);
  replay(*ch, {J(R"({"a": 1})"), J(R"({"b": 2})"), J(R"({"c": 3})")});
  BOOST_TEST(ch->get() == J(R"({"a": 1, "b": 2, "c": 3})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_with_deletions
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_with_deletions) {
  auto ch = dict_channel(true).from_checkpoint(std::nullopt);
  update(*ch, {J(R"({"file1.py": "content1", "file2.py": "content2"})")});
  update(*ch, {J(R"({"file1.py": null, "file3.py": "content3"})")});
  BOOST_TEST(ch->get() == J(R"({"file2.py": "content2", "file3.py": "content3"})"));

  auto ch2 = dict_channel(true).from_checkpoint(std::nullopt);
  replay(*ch2, {J(R"({"file1.py": "content1", "file2.py": "content2"})"),
                J(R"({"file1.py": null, "file3.py": "content3"})")});
  BOOST_TEST(ch2->get() == J(R"({"file2.py": "content2", "file3.py": "content3"})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_overwrite_in_update
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_overwrite_in_update) {
  auto ch = dict_channel().from_checkpoint(std::nullopt);
  update(*ch, {J(R"({"a": 1})")});
  update(*ch, {channels::overwrite(J(R"({"b": 2, "c": 3})"))});
  BOOST_TEST(ch->get() == J(R"({"b": 2, "c": 3})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_overwrite_in_writes_replay
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_overwrite_in_writes_replay) {
  auto ch = dict_channel().from_checkpoint(std::nullopt);
  replay(*ch,
         {J(R"({"a": 1})"), channels::overwrite(J(R"({"x": 10, "y": 20})")), J(R"({"z": 30})")});
  BOOST_TEST(ch->get() == J(R"({"x": 10, "y": 20, "z": 30})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_with_notrequired_annotation
// (the value type comes from an Annotated[NotRequired[dict], ...] hint in Python; here a delta
// key declared with an empty object as its value before any write)
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_with_notrequired_annotation) {
  state_graph b;
  b.add_delta_key("files", merge_dicts(), {1000, value(object{})});
  b.add_node("n", [](const value&, node_context&) -> value { return object{}; });
  b.add_edge("__start__", "n");
  auto graph = b.compile(opts());
  const auto& proto = *graph->graph().channels.at("files");
  auto ch = proto.from_checkpoint(std::nullopt);
  BOOST_TEST(ch->get() == value(object{}));
  update(*ch, {J(R"({"a": 1})")});
  update(*ch, {J(R"({"b": 2})")});
  BOOST_TEST(ch->get() == J(R"({"a": 1, "b": 2})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_end_to_end_filesystem
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_end_to_end_filesystem) {
  auto turn = std::make_shared<std::atomic<int>>(0);
  node_function write_file = [turn](const value&, node_context&) -> value {
    const std::string n = std::to_string(++*turn);
    return object{{"files", object{{"/doc_" + n + ".txt", "content for turn " + n}}}};
  };
  {
    state_graph b;
    b.add_delta_key("files", merge_dicts(true), {1000, value(object{})});
    b.add_node("write_file", write_file);
    b.add_edge("__start__", "write_file");
    compile_options o = opts_with_saver();
    auto saver = o.checkpointer;
    auto graph = b.compile(o);
    for (int i = 0; i < 3; ++i) graph->invoke(object{{"files", object{}}}, thread("fs"));
    auto saved = saver->get_tuple(checkpoint_config{"fs", "", ""});
    BOOST_TEST_REQUIRE(saved.has_value());
    BOOST_TEST(!saved->checkpoint.channel_values.count("files"));
    BOOST_TEST(graph->get_state(thread("fs")).values.get("files") ==
               J(R"({"/doc_1.txt": "content for turn 1", "/doc_2.txt": "content for turn 2",
                     "/doc_3.txt": "content for turn 3"})"));
  }
  state_graph b2;
  b2.add_delta_key("files", merge_dicts(true), {1000, value(object{})});
  b2.add_node("write_file", write_file);
  b2.add_node("delete_file", [](const value&, node_context&) -> value {
    return J(R"({"files": {"/doc_1.txt": null}})");
  });
  b2.add_edge("__start__", "write_file").add_edge("write_file", "delete_file");
  *turn = 0;
  auto graph2 = b2.compile(opts_with_saver());
  graph2->invoke(object{{"files", object{}}}, thread("fs2"));
  BOOST_TEST(graph2->get_state(thread("fs2")).values.get("files") == value(object{}));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_dict_reducer_backwards_compat
BOOST_AUTO_TEST_CASE(test_delta_channel_dict_reducer_backwards_compat) {
  auto ch = dict_channel().from_checkpoint(J(R"({"a": 1, "b": 2})"));
  BOOST_TEST(ch->get() == J(R"({"a": 1, "b": 2})"));
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_from_checkpoint_honors_seed
BOOST_AUTO_TEST_CASE(test_delta_channel_from_checkpoint_honors_seed) {
  auto ch = messages_channel().from_checkpoint(value(list{human("pre-delta", "p1")}));
  replay(*ch, {ai("delta-1", "d1"), human("delta-2", "d2")});
  BOOST_TEST(contents(ch->get()) == "pre-delta,delta-1,delta-2,");
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_from_checkpoint_seed_without_writes
BOOST_AUTO_TEST_CASE(test_delta_channel_from_checkpoint_seed_without_writes) {
  value seed = list{human("only-snap", "s1")};
  auto ch = messages_channel().from_checkpoint(seed);
  replay(*ch, {});
  BOOST_TEST(ch->get() == seed);
}

// libs/langgraph/tests/test_channels.py::test_delta_channel_from_checkpoint_seed_none_is_distinct_from_sentinel
BOOST_AUTO_TEST_CASE(test_delta_channel_from_checkpoint_seed_none_is_distinct_from_sentinel) {
  channels::reducer replace;
  replace.name = "replace";
  replace.fold = [](const value& state, std::span<const value> writes) {
    return writes.empty() ? state : writes.back();
  };
  // A null seed is a value (the reducer gets null), not "no seed" (nullopt: the empty list).
  auto ch = delta_channel("x", replace).from_checkpoint(value());
  BOOST_TEST(ch->get().is_null());
  replay(*ch, {"after"});
  BOOST_TEST(ch->get() == value("after"));
  BOOST_TEST(delta_channel("x", replace).from_checkpoint(std::nullopt)->get() == value(list{}));
}

// DeltaChannel(snapshot_frequency=0) raises ValueError (not a LangGraph test of its own: the
// check of channels/delta.py); here at the key, naming it and the value.
BOOST_AUTO_TEST_CASE(delta_key_rejects_a_snapshot_frequency_that_is_not_positive) {
  state_graph b;
  test::expect_error(
      [&] {
        b.add_delta_key("messages", "messages_delta", {0, std::nullopt});
      },
      error_code::invalid_graph,
      "'messages': snapshot_frequency must be a positive integer, got 0");
  test::expect_error([&] { delta_channel("m", messages_delta(), list{}, -3); },
                     error_code::invalid_argument,
                     "At key 'm': snapshot_frequency must be a positive integer, got -3");
}
