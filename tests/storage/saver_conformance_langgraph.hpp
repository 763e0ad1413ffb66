#pragma once

// LangGraph's saver tests, ported: one check per LangGraph test, named after it, with the
// LangGraph file and test in a comment. Each takes a fresh, empty `checkpoint_saver&`;
// SUPERSTEP_SAVER_LANGGRAPH_CONFORMANCE(make) defines one Boost test case each.

#include <set>

#include "saver_conformance.hpp"

namespace superstep::conformance {

// libs/checkpoint/tests/test_memory.py::TestMemorySaver::test_search: `list` with no config
// spans every thread and namespace, with a thread only every namespace of that thread.
// LangGraph's `list(None)` is a config without thread id and `every_namespace`; its config
// without checkpoint_ns is `every_namespace` too.
inline void test_search(checkpoint_saver& saver) {
  checkpoint_builder b;
  checkpoint_metadata metadata_1;
  metadata_1.source = "input";
  metadata_1.step = 2;
  metadata_1.extra = object{{"writes", object{}}, {"score", 1}};
  checkpoint_metadata metadata_2;
  metadata_2.source = "loop";
  metadata_2.step = 1;
  metadata_2.extra = object{{"writes", object{{"foo", "bar"}}}, {"score", value()}};
  const checkpoint_metadata metadata_3;
  put_all(saver, "thread-1", "", "", b.make({}, {}), metadata_1);
  put_all(saver, "thread-2", "", "", b.make({}, {}), metadata_2);
  put_all(saver, "thread-2", "inner", "", b.make({}, {}), metadata_3);

  const auto search = [&](object filter) {
    list_options o;
    o.filter = std::move(filter);
    o.every_namespace = true;
    return saver.list(checkpoint_config{}, o);
  };
  const auto results_1 = search({{"source", "input"}});  // by one key
  BOOST_REQUIRE_EQUAL(results_1.size(), 1u);
  BOOST_TEST(metadata_to_value(results_1[0].metadata) == metadata_to_value(metadata_1));
  const auto results_2 = search({{"step", 1}, {"writes", object{{"foo", "bar"}}}});  // by two
  BOOST_REQUIRE_EQUAL(results_2.size(), 1u);
  BOOST_TEST(metadata_to_value(results_2[0].metadata) == metadata_to_value(metadata_2));
  BOOST_TEST(search({}).size() == 3u);  // no keys: every checkpoint
  BOOST_TEST(search({{"source", "update"}, {"step", 1}}).empty());

  // By config: every namespace of the thread.
  list_options every;
  every.every_namespace = true;
  const auto results_5 = saver.list(checkpoint_config{"thread-2", "", ""}, every);
  BOOST_REQUIRE_EQUAL(results_5.size(), 2u);
  BOOST_TEST((
      std::set<std::string>{results_5[0].config.checkpoint_ns, results_5[1].config.checkpoint_ns} ==
      std::set<std::string>{"", "inner"}));
  // A namespace given: that one only.
  BOOST_TEST(saver.list(checkpoint_config{"thread-2", "inner", ""}, {}).size() == 1u);
  // A limit stops across namespaces too.
  every.limit = 1;
  BOOST_TEST(saver.list(checkpoint_config{}, every).size() == 1u);
}

}  // namespace superstep::conformance

#define SUPERSTEP_SAVER_LANGGRAPH_CONFORMANCE(make) \
  SUPERSTEP_SAVER_CONFORMANCE_CASE(test_search, make)
