// LangGraph's libs/checkpoint-sqlite/tests/test_sqlite.py: the tests of SqliteSaver's
// behaviour as a saver (not of its SQL), against the saver of the backend under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

checkpoint_metadata metadata_1() {
  return generate_metadata("input", 2, object{{"writes", object{}}, {"score", 1}});
}
checkpoint_metadata metadata_2() {
  return generate_metadata("loop", 1,
                           object{{"writes", object{{"foo", "bar"}}}, {"score", value()}});
}

// `list(None, ...)`: every thread and namespace.
std::vector<checkpoint_tuple> list_all(checkpoint_saver& saver, list_options o = {}) {
  o.every_namespace = true;
  return saver.list(checkpoint_config{}, o);
}

std::vector<checkpoint_tuple> search(checkpoint_saver& saver, object filter) {
  list_options o;
  o.filter = std::move(filter);
  return list_all(saver, o);
}

}  // namespace

// libs/checkpoint-sqlite/tests/test_sqlite.py::TestSqliteSaver::test_combined_metadata
// As test_memory.py's: ours takes the metadata merged from the config (merge_config_metadata)
// and always has `parents`.
BOOST_AUTO_TEST_CASE(test_combined_metadata) {
  auto saver = conformance::saver();
  const value config =
      object{{"configurable", object{{"thread_id", "thread-2"},
                                     {"checkpoint_ns", ""},
                                     {"__super_private_key", "super_private_value"}}},
             {"metadata", object{{"run_id", "my_run_id"}}}};
  checkpoint_metadata md = metadata_2();
  merge_config_metadata(md, config);
  saver->put(config_of("thread-2"), generate_checkpoint(), md, {});
  const auto tuple = saver->get_tuple(config_of("thread-2"));
  BOOST_REQUIRE(tuple);
  BOOST_TEST(metadata_to_value(tuple->metadata) == value(object{{"source", "loop"},
                                                                {"step", 1},
                                                                {"parents", object{}},
                                                                {"writes", object{{"foo", "bar"}}},
                                                                {"score", value()},
                                                                {"run_id", "my_run_id"}}));
}

// libs/checkpoint-sqlite/tests/test_sqlite.py::TestSqliteSaver::test_search
// The configs name parents "1", "2" and "2-inner" that were never stored, as LangGraph's do.
// SQLite lists a thread's namespaces together by checkpoint id; ours, as InMemorySaver, one
// namespace after the other: the `before` cursor is the root namespace's checkpoint, the one
// SQLite's order puts second.
BOOST_AUTO_TEST_CASE(test_search) {
  auto saver = conformance::saver();
  saver->put(checkpoint_config{"thread-1", "", "1"}, generate_checkpoint(), metadata_1(), {});
  saver->put(checkpoint_config{"thread-2", "", "2"}, generate_checkpoint(), metadata_2(), {});
  saver->put(checkpoint_config{"thread-2", "inner", "2-inner"}, generate_checkpoint(),
             checkpoint_metadata{}, {});

  const auto results_1 = search(*saver, {{"source", "input"}});
  BOOST_REQUIRE_EQUAL(results_1.size(), 1u);
  BOOST_TEST(metadata_to_value(results_1[0].metadata) == metadata_to_value(metadata_1()));
  const auto results_2 = search(*saver, {{"step", 1}, {"writes", object{{"foo", "bar"}}}});
  BOOST_REQUIRE_EQUAL(results_2.size(), 1u);
  BOOST_TEST(metadata_to_value(results_2[0].metadata) == metadata_to_value(metadata_2()));
  BOOST_TEST(search(*saver, {}).size() == 3u);
  BOOST_TEST(search(*saver, {{"source", "update"}, {"step", 1}}).empty());

  list_options every;
  every.every_namespace = true;
  const auto results_5 = saver->list(config_of("thread-2"), every);
  BOOST_REQUIRE_EQUAL(results_5.size(), 2u);
  BOOST_TEST((
      std::set<std::string>{results_5[0].config.checkpoint_ns, results_5[1].config.checkpoint_ns} ==
      std::set<std::string>{"", "inner"}));

  // With before: only what was stored before thread-2's root checkpoint.
  const auto& root = results_5[0].config.checkpoint_ns.empty() ? results_5[0] : results_5[1];
  list_options before;
  before.before = root.config;
  const auto results_6 = list_all(*saver, before);
  BOOST_REQUIRE_EQUAL(results_6.size(), 1u);
  BOOST_TEST(results_6[0].config.thread_id == "thread-1");

  // With limit.
  every.limit = 1;
  const auto results_7 = saver->list(config_of("thread-2"), every);
  BOOST_REQUIRE_EQUAL(results_7.size(), 1u);
  BOOST_TEST(results_7[0].config.thread_id == "thread-2");
}

// libs/checkpoint-sqlite/tests/test_sqlite.py::TestSqliteSaver::test_limit_parameter_sql_injection_prevention
// Ours builds no SQL: what is left is the limit's meaning (2, 0 and none).
BOOST_AUTO_TEST_CASE(test_limit_parameter_sql_injection_prevention) {
  auto saver = conformance::saver();
  for (int i = 0; i < 5; ++i)
    saver->put(config_of("thread-" + std::to_string(i)), generate_checkpoint(),
               generate_metadata("loop", 0, object{{"index", i}}), {});
  list_options o;
  o.limit = 2;
  BOOST_TEST(list_all(*saver, o).size() == 2u);
  o.limit = 0;
  BOOST_TEST(list_all(*saver, o).empty());
  o.limit.reset();
  BOOST_TEST(list_all(*saver, o).size() == 5u);
}
