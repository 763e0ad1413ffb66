#pragma once

// Conformance checks of `checkpoint_saver::delete_for_runs` beyond LangGraph's spec
// (tests/conformance/saver_delete_for_runs_test.cpp): a run's checkpoints are found in copies
// of a thread, and no longer once deleted, pruned or put again for another run.

#include "saver_conformance_checks.hpp"

namespace superstep::conformance {

inline void delete_for_runs_follows_copies_deletes_prunes_and_puts(checkpoint_saver& saver) {
  checkpoint_builder b;
  const auto of_run = [](const char* run_id) { return loop_metadata(0, {{"run_id", run_id}}); };
  auto c1 = b.make({{"a", "1"}}, {{"a", 1}});
  auto s1 = put_all(saver, "t", "", "", c1, of_run("r1"));
  auto c2 = b.make({{"a", "1"}, {"b", "2"}}, {{"a", 1}, {"b", 2}});
  saver.put(s1, c2, of_run("r2"), {{"b", 2}});
  saver.put_writes(s1, {{"a", "w"}}, "task", "");

  // The copy's checkpoint of r1 goes too; what stays reads whole (its "a" was r1's blob).
  saver.copy_thread("t", "u");
  saver.delete_for_runs({"r1"});
  BOOST_TEST(ids_of(saver.list({"t", "", ""}, {})) == (std::vector{c2.id}));
  BOOST_TEST(ids_of(saver.list({"u", "", ""}, {})) == (std::vector{c2.id}));
  BOOST_TEST(values_of(saver.get_tuple({"u", "", c2.id})) == value(object{{"a", "1"}, {"b", "2"}}));

  // A deleted thread put again for another run: r2 is in "t" only.
  saver.delete_thread("u");
  put_all(saver, "u", "", "", c2, of_run("r3"));
  saver.delete_for_runs({"r2"});
  BOOST_TEST(saver.list({"t", "", ""}, {}).empty());
  BOOST_TEST(ids_of(saver.list({"u", "", ""}, {})) == (std::vector{c2.id}));

  // A pruned thread put again for another run: r3 is gone.
  saver.prune({"u"}, 0);
  put_all(saver, "u", "", "", c2, of_run("r4"));
  saver.delete_for_runs({"r3"});
  BOOST_TEST(ids_of(saver.list({"u", "", ""}, {})) == (std::vector{c2.id}));

  // A checkpoint put again under its id for another run belongs to that run only.
  put_all(saver, "v", "", "", c1, of_run("r5"));
  put_all(saver, "v", "", "", c1, of_run("r6"));
  saver.delete_for_runs({"r5"});
  BOOST_TEST(saver.get_tuple({"v", "", c1.id}).has_value());
  saver.delete_for_runs({"r6", "r4"});
  BOOST_TEST(!saver.get_tuple({"v", "", c1.id}).has_value());
  BOOST_TEST(saver.list({}, {}).empty());
}

}  // namespace superstep::conformance
