#pragma once

// The checks of the saver conformance suite (see saver_conformance.hpp). Each takes a fresh,
// empty saver.

#include <set>
#include <thread>

#include "saver_test_support.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/storage/write_index.hpp"

namespace superstep::conformance {

inline value values_of(const std::optional<checkpoint_tuple>& t) {
  BOOST_REQUIRE(t);
  object o;
  for (const auto& [channel, v] : t->checkpoint.channel_values) o.set(channel, v);
  return value(std::move(o));
}

inline void put_round_trips_every_value_kind_and_the_checkpoint(checkpoint_saver& saver) {
  checkpoint_builder b;
  const std::map<std::string, value> values{
      {"null", value()},
      {"bool", true},
      {"int", -42},
      {"real", 2.5},
      {"string", "h\xc3\xa9llo"},
      {"bytes", bytes{std::string("\0\x01\xff", 3)}},
      {"list", value::array({1, "two", value::array({3.5})})},
      {"object", object{{"b", 1}, {"a", object{{"nested", list{}}}}}},
      {"empty_object", object{}}};
  std::map<std::string, channel_version> versions;
  channel_version next = 1;
  for (const auto& [channel, v] : values) versions[channel] = next++;
  checkpoint cp = b.make(values, versions);
  cp.versions_seen = {{"node_a", {{"int", 3}, {"string", 5}}}, {"__input__", {}}};
  cp.updated_channels = {"int", "list"};
  checkpoint_metadata meta = loop_metadata(3, object{{"node_a", object{{"int", -42}}}});
  meta.parents = {{"", "parent-id"}};
  meta.extra = object{{"user", "u1"}, {"score", 7}};

  const checkpoint_config stored = put_all(saver, "t", "", "", cp, meta);
  BOOST_TEST(config_value(stored) == config_value({"t", "", cp.id}));
  auto tuple = saver.get_tuple(stored);
  BOOST_REQUIRE(tuple);
  BOOST_TEST(config_value(tuple->config) == config_value(stored));
  BOOST_TEST(checkpoint_value(tuple->checkpoint) == checkpoint_value(cp));
  for (const auto& [channel, v] : values) {
    auto it = tuple->checkpoint.channel_values.find(channel);
    BOOST_REQUIRE_MESSAGE(it != tuple->checkpoint.channel_values.end(), channel);
    BOOST_TEST((it->second.kind() == v.kind()), channel << " changed kind");
  }
  BOOST_TEST(metadata_to_value(tuple->metadata) == metadata_to_value(meta));
  BOOST_TEST(!tuple->parent_config);
  BOOST_TEST(tuple->pending_writes.empty());
}

inline void put_tracks_the_parent_of_each_checkpoint(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto c1 = b.make({{"a", 1}}, {{"a", 1}});
  auto c2 = b.make({{"a", 2}}, {{"a", 2}});
  auto c3 = b.make({{"a", 3}}, {{"a", 3}});
  // As the run loop does: the config passed to put names the parent.
  auto s1 = put_all(saver, "t", "", "", c1, loop_metadata(-1));
  auto s2 = saver.put(s1, c2, loop_metadata(0), {{"a", 2}});
  auto s3 = saver.put(s2, c3, loop_metadata(1), {{"a", 3}});
  BOOST_TEST(!saver.get_tuple(s1)->parent_config);
  BOOST_TEST(optional_config_value(saver.get_tuple(s2)->parent_config) == config_value(s1));
  BOOST_TEST(optional_config_value(saver.get_tuple(s3)->parent_config) == config_value(s2));
  auto history = saver.list({"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), 3u);
  BOOST_TEST(optional_config_value(history[0].parent_config) == config_value(s2));
  BOOST_TEST(optional_config_value(history[1].parent_config) == config_value(s1));
  BOOST_TEST(!history[2].parent_config);
}

inline void namespaces_of_a_thread_are_isolated(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto root = b.make({{"x", "root"}}, {{"x", 1}});
  auto sub = b.make({{"x", "sub"}}, {{"x", 1}});  // same channel and version, newer id
  auto stored_root = put_all(saver, "t", "", "", root, loop_metadata(0));
  auto stored_sub = put_all(saver, "t", "child:1", "", sub, loop_metadata(0));
  BOOST_TEST(config_value(stored_sub) == config_value({"t", "child:1", sub.id}));
  saver.put_writes(stored_root, {{"x", "w"}}, "task", "path");

  auto latest_root = saver.get_tuple({"t", "", ""});
  auto latest_sub = saver.get_tuple({"t", "child:1", ""});
  BOOST_REQUIRE(latest_root);
  BOOST_REQUIRE(latest_sub);
  BOOST_TEST(latest_root->checkpoint.id == root.id);
  BOOST_TEST(latest_sub->checkpoint.id == sub.id);
  BOOST_TEST(latest_sub->config.checkpoint_ns == "child:1");
  BOOST_TEST(values_of(latest_root) == value(object{{"x", "root"}}));
  BOOST_TEST(values_of(latest_sub) == value(object{{"x", "sub"}}));
  BOOST_TEST(latest_root->pending_writes.size() == 1u);
  BOOST_TEST(latest_sub->pending_writes.empty());
  BOOST_TEST(!saver.get_tuple({"t", "child:1", root.id}));
  BOOST_TEST(!saver.get_tuple({"t", "other", ""}));
  BOOST_TEST(ids_of(saver.list({"t", "", ""}, {})) == std::vector{root.id});
  BOOST_TEST(ids_of(saver.list({"t", "child:1", ""}, {})) == std::vector{sub.id});
}

inline void unchanged_channels_keep_their_older_value(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto c1 = b.make({{"a", 1}, {"b", "first"}}, {{"a", 1}, {"b", 1}});
  auto s1 = put_all(saver, "t", "", "", c1, loop_metadata(0));
  // b keeps version 1, so its blob is not stored again: the saver must not even look at it.
  auto c2 = b.make({{"a", 2}, {"b", "not stored"}}, {{"a", 2}, {"b", 1}});
  auto s2 = saver.put(s1, c2, loop_metadata(1), {{"a", 2}});
  // a gets a new version but no value (it was cleared); z names a version nobody stored.
  auto c3 = b.make({{"b", "first"}, {"z", "no blob"}}, {{"a", 3}, {"b", 1}, {"z", 9}});
  auto s3 = saver.put(s2, c3, loop_metadata(2), {{"a", 3}});

  BOOST_TEST(values_of(saver.get_tuple(s1)) == value(object{{"a", 1}, {"b", "first"}}));
  BOOST_TEST(values_of(saver.get_tuple(s2)) == value(object{{"a", 2}, {"b", "first"}}));
  auto t3 = saver.get_tuple(s3);
  BOOST_TEST(values_of(t3) == value(object{{"b", "first"}}));
  BOOST_TEST(versions_value(t3->checkpoint.channel_versions) ==
             versions_value(std::map<std::string, channel_version>{{"a", 3}, {"b", 1}, {"z", 9}}));
}

// Pending writes come grouped by task id, each task's in index order (special writes, whose
// indices are negative, first).
inline void put_writes_is_idempotent_per_task_and_index(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto cp = b.make({}, {});
  auto s = put_all(saver, "t", "", "", cp, loop_metadata(0));
  saver.put_writes(s, {{"a", 1}, {"b", 2}, {"a", 3}}, "task-1", "~__pregel_pull,node_a");
  saver.put_writes(s, {{"a", 100}, {"b", 200}, {"a", 300}}, "task-1", "~__pregel_pull,node_a");
  saver.put_writes(s, {{"c", "x"}}, "task-2", "~__pregel_pull,node_b");
  const value expected =
      value::array({value::array({"task-1", "a", 1}), value::array({"task-1", "b", 2}),
                    value::array({"task-1", "a", 3}), value::array({"task-2", "c", "x"})});
  BOOST_TEST(writes_value(saver.get_tuple(s)->pending_writes) == expected);
  BOOST_TEST(writes_value(saver.list({"t", "", ""}, {}).at(0).pending_writes) == expected);

  // Writes belong to one checkpoint: a child starts with none and the parent keeps its own.
  auto child = b.make({}, {});
  auto sc = saver.put(s, child, loop_metadata(1), {});
  BOOST_TEST(saver.get_tuple(sc)->pending_writes.empty());
  BOOST_TEST(writes_value(saver.get_tuple(s)->pending_writes) == expected);
}

// put_writes_many (the engine saving a batch of finished tasks): every task's writes come
// back once; a task saved again keeps its first writes, and nothing else is lost.
inline void writes_of_several_tasks_saved_together(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto s = put_all(saver, "t", "", "", b.make({}, {}), loop_metadata(0));
  saver.put_writes_many(s, {task_writes{"task-1", "p1", {{"a", 1}, {"a", 2}}},
                            task_writes{"task-2", "p2", {{"b", 3}}}});
  saver.put_writes_many(
      s, {task_writes{"task-1", "p1", {{"a", 100}}}, task_writes{"task-3", "p3", {{"c", 4}}}});
  const value expected =
      value::array({value::array({"task-1", "a", 1}), value::array({"task-1", "a", 2}),
                    value::array({"task-2", "b", 3}), value::array({"task-3", "c", 4})});
  BOOST_TEST(writes_value(saver.get_tuple(s)->pending_writes) == expected);
  // Many tasks in one call.
  auto s2 = put_all(saver, "t2", "", "", b.make({}, {}), loop_metadata(0));
  std::vector<task_writes> many;
  for (int i = 0; i < 1000; ++i)
    many.push_back(task_writes{"task-" + std::to_string(1000 + i), "p", {{"x", i}}});
  saver.put_writes_many(s2, many);
  auto got = saver.get_tuple(s2)->pending_writes;
  BOOST_REQUIRE_EQUAL(got.size(), 1000u);
  for (int i = 0; i < 1000; ++i) BOOST_TEST(got[i].v.as_int() == i);
  // One task with many writes (a node sending many Sends), saved twice: the first copy stays.
  auto s3 = put_all(saver, "t3", "", "", b.make({}, {}), loop_metadata(0));
  std::vector<std::pair<std::string, value>> sends, other;
  for (int i = 0; i < 500; ++i) sends.emplace_back("x", i), other.emplace_back("x", -i);
  saver.put_writes(s3, sends, "big", "p");
  saver.put_writes(s3, other, "big", "p");
  got = saver.get_tuple(s3)->pending_writes;
  BOOST_REQUIRE_EQUAL(got.size(), 500u);
  for (int i = 0; i < 500; ++i) BOOST_TEST(got[i].v.as_int() == i);
}

// A task with more writes than one record of a bundle holds (16384 in the RocksDB saver: a
// node sending 10^6 Sends), saved with other tasks' in one call: every write comes back once,
// in its order; saving it again keeps the first copy; its error saved later shows too.
inline void a_task_with_very_many_writes_comes_back_whole(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto s = put_all(saver, "t", "", "", b.make({}, {}), loop_metadata(0));
  constexpr int n = 40000;
  std::vector<std::pair<std::string, value>> sends, again;
  for (int i = 0; i < n; ++i) {
    sends.emplace_back("s", i);
    again.emplace_back("s", -i);
  }
  saver.put_writes_many(
      s, {task_writes{"a-small", "p1", {{"x", 1}}}, task_writes{"b-big", "p2", sends},
          task_writes{"c-small", "p3", {{"x", 3}}}});
  saver.put_writes(s, again, "b-big", "p2");
  saver.put_writes(s, {{std::string(ERROR), "e"}}, "b-big", "p2");
  auto got = saver.get_tuple(s)->pending_writes;
  BOOST_REQUIRE_EQUAL(got.size(), static_cast<std::size_t>(n + 3));
  BOOST_TEST(got[0].task_id == "a-small");
  BOOST_TEST(got[1].channel == std::string(ERROR));
  bool in_order = true;
  for (int i = 0; i < n; ++i)
    in_order = in_order && got[2 + i].task_id == "b-big" && got[2 + i].v.as_int() == i;
  BOOST_TEST(in_order);
  BOOST_TEST(got[n + 2].task_id == "c-small");
  BOOST_TEST(got[n + 2].v.as_int() == 3);
  // Alone in a call, saved once more with more writes: only the new ones are added.
  auto s2 = put_all(saver, "t2", "", "", b.make({}, {}), loop_metadata(0));
  saver.put_writes(s2, sends, "big", "p");
  auto more = sends;
  more.emplace_back("s", n);
  saver.put_writes(s2, more, "big", "p");
  got = saver.get_tuple(s2)->pending_writes;
  BOOST_REQUIRE_EQUAL(got.size(), static_cast<std::size_t>(n + 1));
  in_order = true;
  for (int i = 0; i <= n; ++i) in_order = in_order && got[i].v.as_int() == i;
  BOOST_TEST(in_order);
}

// A task whose writes were saved with others' (put_writes_many) and whose error or interrupt
// came later on its own shows both, whichever of its ids sorts first; the order is memory
// saver's: by task id, each task's special writes first.
inline void writes_saved_together_and_alone_all_come_back(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto s = put_all(saver, "t", "", "", b.make({}, {}), loop_metadata(0));
  const std::string error(ERROR), interrupt(INTERRUPT);
  saver.put_writes_many(
      s, {task_writes{"m-first", "p1", {{"x", 1}, {"y", 2}}},
          task_writes{"a-second", "p2", {{"x", 3}}}, task_writes{"z-third", "p3", {{"x", 4}}}});
  saver.put_writes(s, {{interrupt, "i"}}, "m-first", "p1");
  saver.put_writes(s, {{error, "e2"}}, "a-second", "p2");
  saver.put_writes(s, {{error, "e3"}}, "z-third", "p3");
  // One task with many writes is saved as a bundle of its own.
  std::vector<std::pair<std::string, value>> sends;
  for (int i = 0; i < 100; ++i) sends.emplace_back("s", i);
  saver.put_writes(s, sends, "k-big", "p4");
  saver.put_writes(s, {{error, "e4"}}, "k-big", "p4");
  list expected{value::array({"a-second", error, "e2"}), value::array({"a-second", "x", 3}),
                value::array({"k-big", error, "e4"})};
  for (int i = 0; i < 100; ++i) expected.push_back(value::array({"k-big", "s", i}));
  for (value w : {value::array({"m-first", interrupt, "i"}), value::array({"m-first", "x", 1}),
                  value::array({"m-first", "y", 2}), value::array({"z-third", error, "e3"}),
                  value::array({"z-third", "x", 4})})
    expected.push_back(std::move(w));
  BOOST_TEST(writes_value(saver.get_tuple(s)->pending_writes).to_json() ==
             value(expected).to_json());
  BOOST_TEST(writes_value(saver.list({"t", "", ""}, {}).at(0).pending_writes).to_json() ==
             value(expected).to_json());
}

// A fork's head may have lower versions than the branch it left: latest_version is the
// highest of every branch of the namespace, a cleared channel's version included, so a run
// going on from the fork never stores a value under a version the other branch used.
inline void latest_version_is_the_highest_of_every_branch(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto root = put_all(saver, "t", "", "", b.make({{"a", 1}, {"b", 1}}, {{"a", 1}, {"b", 1}}),
                      loop_metadata(0));
  // The old branch: `a` at version 5, `b` cleared at version 7.
  checkpoint old = b.make({{"a", 5}}, {{"a", 5}, {"b", 7}});
  saver.put(root, old, loop_metadata(1), {{"a", 5}, {"b", 7}});
  BOOST_TEST(saver.latest_version({"t", "", ""}) == 7u);
  // The fork: a copy of the root, the thread's latest checkpoint now.
  checkpoint fork = b.make({{"a", 1}, {"b", 1}}, {{"a", 1}, {"b", 1}});
  saver.put(root, fork, loop_metadata(1), {});
  BOOST_TEST(saver.get_tuple({"t", "", ""})->checkpoint.id == fork.id);
  BOOST_TEST(saver.latest_version({"t", "", ""}) == 7u);
  BOOST_TEST(saver.latest_version({"t", "", fork.id}) == 7u);  // the id is ignored
  // Other namespaces and threads have their own.
  BOOST_TEST(saver.latest_version({"t", "sub", ""}) == 0u);
  BOOST_TEST(saver.latest_version({"other", "", ""}) == 0u);
  // The old branch reads as it was.
  auto back = saver.get_tuple({"t", "", old.id});
  BOOST_TEST(values_of(back).to_json() == R"({"a":5})");
}

// A task saved again with more writes than before (the writes of no task, which Commands on
// one checkpoint add to): the first copy of each index stays and the new ones are added.
inline void a_task_saved_again_with_more_writes_keeps_its_first(checkpoint_saver& saver) {
  checkpoint_builder b;
  for (const std::size_t first : {std::size_t{3}, std::size_t{100}}) {
    const std::string thread = "t" + std::to_string(first);
    auto s = put_all(saver, thread, "", "", b.make({}, {}), loop_metadata(0));
    std::vector<std::pair<std::string, value>> before, after;
    for (std::size_t i = 0; i < first; ++i) before.emplace_back("x", static_cast<int>(i));
    for (std::size_t i = 0; i < first + 70; ++i) after.emplace_back("x", -static_cast<int>(i));
    saver.put_writes(s, before, std::string(NULL_TASK_ID), "__input__");
    saver.put_writes(s, after, std::string(NULL_TASK_ID), "__input__");
    auto got = saver.get_tuple(s)->pending_writes;
    BOOST_REQUIRE_EQUAL(got.size(), first + 70);
    for (std::size_t i = 0; i < got.size(); ++i)
      BOOST_TEST(got[i].v.as_int() == (i < first ? 1 : -1) * static_cast<int>(i),
                 thread << " " << i);
  }
}

inline void special_writes_replace_the_stored_one(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto cp = b.make({}, {});
  auto s = put_all(saver, "t", "", "", cp, loop_metadata(0));
  const std::string error(ERROR), interrupt(INTERRUPT), resume(RESUME);
  const std::string scheduled(storage::SCHEDULED);
  saver.put_writes(s, {{error, "first"}}, "task-1", "p1");
  saver.put_writes(s, {{error, "second"}}, "task-1", "p1");
  saver.put_writes(s, {{interrupt, "i1"}}, "task-2", "p2");
  saver.put_writes(s, {{interrupt, "i2"}}, "task-2", "p2");
  saver.put_writes(s, {{resume, "r1"}}, "task-3", "p3");
  saver.put_writes(s, {{resume, "r2"}}, "task-3", "p3");
  saver.put_writes(s, {{scheduled, 1}}, "task-4", "p4");
  saver.put_writes(s, {{scheduled, 2}}, "task-4", "p4");
  // In a mixed batch the normal write is kept, the special one replaced.
  saver.put_writes(s, {{"x", 1}, {error, "e1"}}, "task-5", "p5");
  saver.put_writes(s, {{"x", 2}, {error, "e2"}}, "task-5", "p5");
  BOOST_TEST(
      writes_value(saver.get_tuple(s)->pending_writes) ==
      value::array({value::array({"task-1", error, "second"}),
                    value::array({"task-2", interrupt, "i2"}),
                    value::array({"task-3", resume, "r2"}), value::array({"task-4", scheduled, 2}),
                    value::array({"task-5", error, "e2"}), value::array({"task-5", "x", 1})}));
}

inline void get_tuple_finds_latest_exact_or_nothing(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto c1 = b.make({{"a", 1}}, {{"a", 1}});
  auto c2 = b.make({{"a", 2}}, {{"a", 2}});
  auto c3 = b.make({{"a", 3}}, {{"a", 3}});
  auto s1 = put_all(saver, "t", "", "", c1, loop_metadata(0));
  // Put the newest before the middle one (as a fork could): the latest is the greatest id.
  auto s3 = put_all(saver, "t", "", s1.checkpoint_id, c3, loop_metadata(2));
  put_all(saver, "t", "", s1.checkpoint_id, c2, loop_metadata(1));

  auto latest = saver.get_tuple({"t", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(config_value(latest->config) == config_value(s3));
  BOOST_TEST(values_of(latest) == value(object{{"a", 3}}));
  BOOST_TEST(latest->metadata.step == 2);

  auto exact = saver.get_tuple({"t", "", c2.id});
  BOOST_REQUIRE(exact);
  BOOST_TEST(config_value(exact->config) == config_value({"t", "", c2.id}));
  BOOST_TEST(values_of(exact) == value(object{{"a", 2}}));
  BOOST_TEST(optional_config_value(exact->parent_config) == config_value(s1));

  BOOST_TEST(!saver.get_tuple({"t", "", "no-such-checkpoint"}));
  BOOST_TEST(!saver.get_tuple({"unknown", "", ""}));
  BOOST_TEST(!saver.get_tuple({"unknown", "", c1.id}));
}

inline void list_is_newest_first_and_filters_by_metadata(checkpoint_saver& saver) {
  checkpoint_builder b;
  std::vector<checkpoint> cps;
  for (int i = 0; i < 4; ++i) cps.push_back(b.make({{"i", i}}, {{"i", i + 1}}));
  std::vector<checkpoint_metadata> metas{loop_metadata(-1, object{{"foo", ""}}), loop_metadata(0),
                                         loop_metadata(1), loop_metadata(2)};
  metas[2].extra = object{{"user", "u1"}, {"run", 1}};
  metas[3].extra = object{{"user", "u2"}, {"run", 1}};
  std::string parent;
  for (int i = 0; i < 4; ++i)
    parent = put_all(saver, "t", "", parent, cps[i], metas[i]).checkpoint_id;

  const auto ids = [&](object filter) {
    return ids_of(saver.list({"t", "", ""}, list_options{std::move(filter), {}, {}, false}));
  };
  using ids_t = std::vector<std::string>;
  BOOST_TEST(ids({}) == (ids_t{cps[3].id, cps[2].id, cps[1].id, cps[0].id}));
  BOOST_TEST(ids({{"source", "loop"}}) == (ids_t{cps[3].id, cps[2].id, cps[1].id}));
  BOOST_TEST(ids({{"source", "loop"}, {"step", 1}}) == ids_t{cps[2].id});
  BOOST_TEST(ids({{"source", "input"}, {"step", -1}}) == ids_t{cps[0].id});
  BOOST_TEST(ids({{"foo", ""}}) == ids_t{cps[0].id});
  BOOST_TEST(ids({{"run", 1}}) == (ids_t{cps[3].id, cps[2].id}));
  BOOST_TEST(ids({{"run", 1}, {"user", "u1"}}) == ids_t{cps[2].id});
  BOOST_TEST(ids({{"source", "loop"}, {"step", 7}}).empty());
  BOOST_TEST(ids({{"user", "nobody"}}).empty());
  BOOST_TEST(ids({{"missing_key", "x"}}).empty());

  auto tuples = saver.list({"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(tuples.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    BOOST_TEST(metadata_to_value(tuples[3 - i].metadata) == metadata_to_value(metas[i]));
    BOOST_TEST(values_of(tuples[3 - i]) == value(object{{"i", i}}));
  }
  BOOST_TEST(ids_of(saver.list({"t", "", cps[1].id}, {})) == ids_t{cps[1].id});
  BOOST_TEST(saver.list({"t", "", "no-such-checkpoint"}, {}).empty());
  BOOST_TEST(saver.list({"unknown", "", ""}, {}).empty());
}

inline void list_pages_with_exclusive_before_and_limit(checkpoint_saver& saver) {
  checkpoint_builder b;
  std::vector<std::string> id;  // oldest first
  std::string parent;
  for (int i = 0; i < 5; ++i) {
    auto cp = b.make({{"i", i}}, {{"i", i + 1}});
    id.push_back(cp.id);
    parent = put_all(saver, "t", "", parent, cp, loop_metadata(i - 1)).checkpoint_id;
  }
  using ids_t = std::vector<std::string>;
  const auto page = [&](std::optional<std::string> before, std::optional<std::size_t> limit,
                        object filter = {}, std::string only = {}) {
    list_options o{std::move(filter), std::nullopt, limit};
    if (before) o.before = checkpoint_config{"t", "", *before};
    return ids_of(saver.list({"t", "", std::move(only)}, o));
  };
  BOOST_TEST(page(id[2], {}) == (ids_t{id[1], id[0]}));
  BOOST_TEST(page(id[0], {}).empty());
  BOOST_TEST(page({}, 2) == (ids_t{id[4], id[3]}));
  BOOST_TEST(page({}, 0).empty());
  BOOST_TEST(page({}, 99).size() == 5u);
  BOOST_TEST(page(id[4], 2, object{{"source", "loop"}}) == (ids_t{id[3], id[2]}));
  BOOST_TEST(page(id[2], {}, {}, id[3]).empty());
  BOOST_TEST(page(id[2], {}, {}, id[1]) == ids_t{id[1]});

  // Paging: each page starts before the last id of the previous one.
  std::vector<ids_t> pages;
  std::optional<std::string> before;
  for (;;) {
    auto p = page(before, 2);
    if (p.empty()) break;
    before = p.back();
    pages.push_back(std::move(p));
    BOOST_REQUIRE(pages.size() < 5u);
  }
  BOOST_TEST(pages.size() == 3u);
  BOOST_TEST(pages.at(0) == (ids_t{id[4], id[3]}));
  BOOST_TEST(pages.at(1) == (ids_t{id[2], id[1]}));
  BOOST_TEST(pages.at(2) == ids_t{id[0]});
}

inline void list_spans_threads_when_no_thread_is_given(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto a1 = b.make({{"x", 1}}, {{"x", 1}});
  auto a2 = b.make({{"x", 2}}, {{"x", 2}});
  auto b1 = b.make({{"x", 3}}, {{"x", 1}});
  auto sub = b.make({{"x", 4}}, {{"x", 1}});
  auto sa1 = put_all(saver, "a", "", "", a1, loop_metadata(0));
  put_all(saver, "a", "", sa1.checkpoint_id, a2, loop_metadata(1));
  put_all(saver, "b", "", "", b1, loop_metadata(0));
  put_all(saver, "a", "sub:1", "", sub, loop_metadata(0));

  auto all = saver.list({"", "", ""}, {});
  BOOST_REQUIRE_EQUAL(all.size(), 3u);  // the namespace still selects: not "sub:1"
  std::vector<std::string> of_a;
  std::set<std::string> seen;
  for (const auto& t : all) {
    seen.insert(t.config.thread_id + "/" + t.checkpoint.id);
    if (t.config.thread_id == "a") of_a.push_back(t.checkpoint.id);
    BOOST_TEST(t.config.checkpoint_id == t.checkpoint.id);
  }
  BOOST_TEST(seen == (std::set<std::string>{"a/" + a1.id, "a/" + a2.id, "b/" + b1.id}));
  BOOST_TEST(of_a == (std::vector<std::string>{a2.id, a1.id}));
  BOOST_TEST(saver.list({"", "", ""}, list_options{{}, {}, 2, false}).size() == 2u);
  BOOST_TEST(ids_of(saver.list({"", "", ""}, list_options{{{"step", 1}}, {}, {}, false})) ==
             std::vector{a2.id});
  BOOST_TEST(ids_of(saver.list({"", "sub:1", ""}, {})) == std::vector{sub.id});
}

// thread_ids (`superstep threads`): each thread with checkpoints once, in id order, a thread
// whose checkpoints are only in a subgraph namespace included; a deleted one gone.
inline void thread_ids_names_each_thread_once(checkpoint_saver& saver) {
  BOOST_TEST(saver.thread_ids().empty());
  checkpoint_builder b;
  auto c1 = b.make({{"x", 1}}, {{"x", 1}});
  auto c2 = b.make({{"x", 2}}, {{"x", 2}});
  auto c3 = b.make({{"x", 3}}, {{"x", 3}});
  auto first = put_all(saver, "b", "", "", c1, loop_metadata(0));
  put_all(saver, "b", "", first.checkpoint_id, c2, loop_metadata(1));
  put_all(saver, "a\x01z", "", "", c1, loop_metadata(0));
  put_all(saver, std::string("nul\0id", 6), "", "", c2, loop_metadata(0));
  put_all(saver, "only_sub", "sub:1", "", c3, loop_metadata(0));
  BOOST_TEST(saver.thread_ids() ==
             (std::vector<std::string>{"a\x01z", "b", std::string("nul\0id", 6), "only_sub"}));
  saver.delete_thread("b");
  BOOST_TEST(saver.thread_ids() ==
             (std::vector<std::string>{"a\x01z", std::string("nul\0id", 6), "only_sub"}));
}

inline void delete_thread_removes_every_namespace_only(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto t1 = b.make({{"a", "t1"}}, {{"a", 1}});
  auto t2 = b.make({{"a", "t2"}}, {{"a", 2}});
  auto tsub = b.make({{"a", "tsub"}}, {{"a", 1}});
  auto u1 = b.make({{"a", "u1"}}, {{"a", 1}});
  auto st1 = put_all(saver, "t", "", "", t1, loop_metadata(0));
  auto st2 = saver.put(st1, t2, loop_metadata(1), {{"a", 2}});
  auto stsub = put_all(saver, "t", "sub:1", "", tsub, loop_metadata(0));
  auto su1 = put_all(saver, "u", "", "", u1, loop_metadata(0));
  saver.put_writes(st1, {{"a", "w"}}, "task", "p");
  saver.put_writes(stsub, {{"a", "w"}}, "task", "p");
  saver.put_writes(su1, {{"a", "wu"}}, "task", "p");

  saver.delete_thread("t");
  BOOST_TEST(!saver.get_tuple({"t", "", ""}));
  BOOST_TEST(!saver.get_tuple(st2));
  BOOST_TEST(!saver.get_tuple({"t", "sub:1", ""}));
  BOOST_TEST(saver.list({"t", "", ""}, {}).empty());
  BOOST_TEST(saver.list({"t", "sub:1", ""}, {}).empty());
  BOOST_TEST(ids_of(saver.list({"", "", ""}, {})) == std::vector{u1.id});

  auto u = saver.get_tuple({"u", "", ""});
  BOOST_TEST(values_of(u) == value(object{{"a", "u1"}}));
  BOOST_TEST(writes_value(u->pending_writes) == value::array({value::array({"task", "a", "wu"})}));

  // Nothing of the old thread comes back: not its blobs, not its writes.
  auto again = b.make({}, {{"a", 1}});
  auto sa = saver.put({"t", "", ""}, again, loop_metadata(0), {});
  BOOST_TEST(values_of(saver.get_tuple(sa)) == value(object{}));
  auto reused = saver.put({"t", "", ""}, t1, loop_metadata(0), {});
  BOOST_TEST(saver.get_tuple(reused)->pending_writes.empty());

  saver.delete_thread("never-existed");
  BOOST_TEST(saver.list({"u", "", ""}, {}).size() == 1u);
}

inline void concurrent_put_writes_are_all_kept(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto cp = b.make({}, {});
  auto s = put_all(saver, "t", "", "", cp, loop_metadata(0));
  constexpr int workers = 8;
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&saver, s, w] {
      checkpoint_builder own;
      std::string parent;
      for (int i = 0; i < 20; ++i) {
        saver.put_writes(s, {{"ch", w}, {"i", i}}, "task-" + std::to_string(w), "p");
        auto c = own.make({{"i", i}}, {{"i", static_cast<channel_version>(i + 1)}});
        parent =
            put_all(saver, "w" + std::to_string(w), "", parent, c, loop_metadata(i)).checkpoint_id;
        (void)saver.get_tuple(s);
      }
    });
  for (auto& t : threads) t.join();
  BOOST_TEST(saver.get_tuple(s)->pending_writes.size() == 2u * workers);
  for (int w = 0; w < workers; ++w) {
    auto latest = saver.get_tuple({"w" + std::to_string(w), "", ""});
    BOOST_TEST(values_of(latest) == value(object{{"i", 19}}));
    BOOST_TEST(saver.list({"w" + std::to_string(w), "", ""}, {}).size() == 20u);
  }
}

inline void next_versions_increase(checkpoint_saver& saver) {
  const channel_version first = saver.get_next_version(0);
  BOOST_TEST(first > 0u);
  BOOST_TEST(saver.get_next_version(first) > first);
}

}  // namespace superstep::conformance
