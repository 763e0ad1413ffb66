#pragma once

// Conformance checks of what a rollback (multitask strategy rollback) asks of a saver:
// removing single checkpoints and the pending writes of one checkpoint.

#include "saver_conformance_checks.hpp"

namespace superstep::conformance {

inline void delete_checkpoints_removes_only_those_named(checkpoint_saver& saver) {
  checkpoint_builder b;
  // A line of three, the later ones stored with what changed (their version maps may rest on
  // the earlier ones), a subgraph checkpoint, and another thread.
  auto c1 = b.make({{"a", "1"}, {"keep", "k"}}, {{"a", 1}, {"keep", 1}});
  auto s1 = put_all(saver, "t", "", "", c1, loop_metadata(0));
  auto c2 = b.make({{"a", "2"}, {"keep", "k"}}, {{"a", 2}, {"keep", 1}});
  checkpoint_changes ch2;
  ch2.versions = {{"a", 2}};
  auto s2 = saver.put_changes(s1, c2, loop_metadata(1), ch2);
  auto c3 = b.make({{"a", "3"}, {"keep", "k"}}, {{"a", 3}, {"keep", 1}});
  checkpoint_changes ch3;
  ch3.versions = {{"a", 3}};
  auto s3 = saver.put_changes(s2, c3, loop_metadata(2), ch3);
  auto sub = put_all(saver, "t", "n:1", "", b.make({{"x", "s"}}, {{"x", 1}}), loop_metadata(0));
  auto other = put_all(saver, "u", "", "", b.make({{"a", "u"}}, {{"a", 1}}), loop_metadata(0));
  saver.put_writes(s2, {{"a", "w2"}}, "task2", "p");
  saver.put_writes(s3, {{"a", "w3"}}, "task3", "p");

  saver.delete_checkpoints("t", {s3, sub, {"t", "", "never-stored"}, other});
  BOOST_TEST(!saver.get_tuple(s3));
  BOOST_TEST(!saver.get_tuple(sub));
  BOOST_TEST(ids_of(saver.list({"t", "", ""}, {})) == (std::vector{c2.id, c1.id}));
  // What stays reads back whole, with its writes; the other thread is untouched.
  BOOST_TEST(values_of(saver.get_tuple(s2)) == value(object{{"a", "2"}, {"keep", "k"}}));
  BOOST_TEST(values_of(saver.get_tuple(s1)) == value(object{{"a", "1"}, {"keep", "k"}}));
  BOOST_TEST(saver.get_tuple(s2)->checkpoint.channel_versions.at("a") == 2u);
  BOOST_TEST(writes_value(saver.get_tuple(s2)->pending_writes) ==
             value::array({value::array({"task2", "a", "w2"})}));
  BOOST_TEST(values_of(saver.get_tuple(other)) == value(object{{"a", "u"}}));
  // Removing the middle one leaves the line's ends readable.
  saver.delete_checkpoints("t", {s2});
  BOOST_TEST(ids_of(saver.list({"t", "", ""}, {})) == (std::vector{c1.id}));
  BOOST_TEST(values_of(saver.get_tuple(s1)) == value(object{{"a", "1"}, {"keep", "k"}}));
}

inline void delete_writes_removes_the_writes_of_one_checkpoint(checkpoint_saver& saver) {
  checkpoint_builder b;
  auto s1 = put_all(saver, "t", "", "", b.make({{"a", "1"}}, {{"a", 1}}), loop_metadata(0));
  auto s2 = saver.put(s1, b.make({{"a", "2"}}, {{"a", 2}}), loop_metadata(1), {{"a", 2}});
  saver.put_writes(s1, {{"a", "w1"}}, "task1", "p");
  saver.put_writes(s2, {{"a", "w2"}, {"a", "w2b"}}, "task2", "p");
  saver.delete_writes(s2);
  BOOST_TEST(saver.get_tuple(s2)->pending_writes.empty());
  BOOST_TEST(values_of(saver.get_tuple(s2)) == value(object{{"a", "2"}}));
  BOOST_TEST(writes_value(saver.get_tuple(s1)->pending_writes) ==
             value::array({value::array({"task1", "a", "w1"})}));
  // Writes saved again are kept (nothing remembers the removed ones).
  saver.put_writes(s2, {{"a", "again"}}, "task2", "p");
  BOOST_TEST(writes_value(saver.get_tuple(s2)->pending_writes) ==
             value::array({value::array({"task2", "a", "again"})}));
}

}  // namespace superstep::conformance
