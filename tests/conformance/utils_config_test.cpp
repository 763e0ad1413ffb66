// LangGraph's libs/langgraph/tests/test_utils.py, its config merging (merge_configs and the
// merge of explicit configs in ensure_config): superstep's merge_configs
// (superstep/pregel/config.hpp), which `pregel::with_config` uses; see conformance.hpp.
// LangGraph merges any number of configs at once; ours merges two, chained for more. What
// ensure_config adds, the ambient config of a context variable and the defaults, is Python's.
#include "conformance.hpp"
#include "superstep/pregel/config.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

value with_metadata(object metadata) { return object{{"metadata", std::move(metadata)}}; }

value lc_versions_of(const value& merged) { return merged.get("metadata").get("lc_versions"); }

}  // namespace

// libs/langgraph/tests/test_utils.py::test_ensure_config_merges_configurable_across_configs
BOOST_AUTO_TEST_CASE(test_ensure_config_merges_configurable_across_configs) {
  const value merged = merge_configs(object{{"configurable", object{{"ls_agent_type", "root"}}}},
                                     object{{"configurable", object{{"thread_id", "T1"}}}});
  BOOST_TEST(merged.get("configurable").get("ls_agent_type") == value("root"));
  BOOST_TEST(merged.get("configurable").get("thread_id") == value("T1"));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_configurable_later_wins_per_key
BOOST_AUTO_TEST_CASE(test_ensure_config_configurable_later_wins_per_key) {
  const value merged =
      merge_configs(object{{"configurable", object{{"shared", "from_a"}, {"only_a", "A"}}}},
                    object{{"configurable", object{{"shared", "from_b"}, {"only_b", "B"}}}});
  BOOST_TEST(merged.get("configurable").get("shared") == value("from_b"));
  BOOST_TEST(merged.get("configurable").get("only_a") == value("A"));
  BOOST_TEST(merged.get("configurable").get("only_b") == value("B"));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_merges_metadata_across_configs
BOOST_AUTO_TEST_CASE(test_ensure_config_merges_metadata_across_configs) {
  const value merged = merge_configs(with_metadata(object{{"user_id", "U1"}}),
                                     with_metadata(object{{"correlation_id", "C1"}}));
  BOOST_TEST(merged.get("metadata").get("user_id") == value("U1"));
  BOOST_TEST(merged.get("metadata").get("correlation_id") == value("C1"));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_metadata_later_wins_per_key
BOOST_AUTO_TEST_CASE(test_ensure_config_metadata_later_wins_per_key) {
  const value merged = merge_configs(with_metadata(object{{"shared", "from_a"}}),
                                     with_metadata(object{{"shared", "from_b"}}));
  BOOST_TEST(merged.get("metadata").get("shared") == value("from_b"));
}

// libs/langgraph/tests/test_utils.py::test_merge_configs_merges_metadata_lc_versions
BOOST_AUTO_TEST_CASE(test_merge_configs_merges_metadata_lc_versions) {
  const value merged =
      merge_configs(with_metadata(object{{"lc_versions", object{{"langgraph", "1.2.4"}}},
                                         {"lc_agent_name", "agent"}}),
                    with_metadata(object{{"lc_versions", object{{"langchain-core", "1.2.0"}}}}));
  BOOST_TEST(lc_versions_of(merged) ==
             value(object{{"langgraph", "1.2.4"}, {"langchain-core", "1.2.0"}}));
  BOOST_TEST(merged.get("metadata").get("lc_agent_name") == value("agent"));
}

// libs/langgraph/tests/test_utils.py::test_metadata_lc_versions_later_values_win_without_recursive_merge
// (its merge_configs case)
BOOST_AUTO_TEST_CASE(test_metadata_lc_versions_later_values_win_without_recursive_merge) {
  const value merged = merge_configs(
      with_metadata(object{
          {"lc_versions", object{{"langgraph", "1.2.4"},
                                 {"nested", object{{"only_a", "A"}, {"shared", "from_a"}}}}}}),
      with_metadata(object{
          {"lc_versions", object{{"langchain-core", "1.2.0"},
                                 {"nested", object{{"only_b", "B"}, {"shared", "from_b"}}}}}}));
  BOOST_TEST(lc_versions_of(merged) ==
             value(object{{"langgraph", "1.2.4"},
                          {"langchain-core", "1.2.0"},
                          {"nested", object{{"only_b", "B"}, {"shared", "from_b"}}}}));
}

// libs/langgraph/tests/test_utils.py::test_metadata_nested_mappings_other_than_lc_versions_are_replaced
// (its merge_configs case)
BOOST_AUTO_TEST_CASE(test_metadata_nested_mappings_other_than_lc_versions_are_replaced) {
  const value merged = merge_configs(
      with_metadata(object{{"versions", object{{"langgraph", "1.2.4"}}}, {"mode", "bound"}}),
      with_metadata(object{{"versions", object{{"langchain-core", "1.2.0"}}},
                           {"mode", object{{"source", "runtime"}}}}));
  BOOST_TEST(merged.get("metadata").get("versions") == value(object{{"langchain-core", "1.2.0"}}));
  BOOST_TEST(merged.get("metadata").get("mode") == value(object{{"source", "runtime"}}));
}

// libs/langgraph/tests/test_utils.py::test_metadata_non_mapping_values_later_wins
// (its merge_configs case)
BOOST_AUTO_TEST_CASE(test_metadata_non_mapping_values_later_wins) {
  const value merged = merge_configs(
      with_metadata(object{{"lc_versions", object{{"langgraph", "1.2.4"}}}, {"mode", "bound"}}),
      with_metadata(object{{"lc_versions", "runtime"}, {"mode", object{{"source", "runtime"}}}}));
  BOOST_TEST(lc_versions_of(merged) == value("runtime"));
  BOOST_TEST(merged.get("metadata").get("mode") == value(object{{"source", "runtime"}}));
}

// libs/langgraph/tests/test_utils.py::test_metadata_empty_incoming_preserves_base_lc_versions
// (its merge_configs case)
BOOST_AUTO_TEST_CASE(test_metadata_empty_incoming_preserves_base_lc_versions) {
  const value merged =
      merge_configs(with_metadata(object{{"lc_versions", object{{"langgraph", "1.2.4"}}}}),
                    with_metadata(object{{"lc_versions", object{}}}));
  BOOST_TEST(lc_versions_of(merged) == value(object{{"langgraph", "1.2.4"}}));
}

// libs/langgraph/tests/test_utils.py::test_metadata_lc_versions_accumulate_across_more_than_two_configs
// (its merge_configs case, two merges chained)
BOOST_AUTO_TEST_CASE(test_metadata_lc_versions_accumulate_across_more_than_two_configs) {
  const value merged = merge_configs(
      merge_configs(with_metadata(object{{"lc_versions", object{{"langgraph", "1.2.4"}}}}),
                    with_metadata(object{{"lc_versions", object{{"langchain-core", "1.2.0"}}}})),
      with_metadata(object{{"lc_versions", object{{"langchain", "1.1.0"}}}}));
  BOOST_TEST(
      lc_versions_of(merged) ==
      value(object{{"langgraph", "1.2.4"}, {"langchain-core", "1.2.0"}, {"langchain", "1.1.0"}}));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_merges_tags_across_configs
BOOST_AUTO_TEST_CASE(test_ensure_config_merges_tags_across_configs) {
  const value merged = merge_configs(object{{"tags", value::array({"alpha"})}},
                                     object{{"tags", value::array({"beta"})}});
  BOOST_TEST(merged.get("tags") == value::array({"alpha", "beta"}));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_tags_concat_preserves_order_and_duplicates
BOOST_AUTO_TEST_CASE(test_ensure_config_tags_concat_preserves_order_and_duplicates) {
  const value merged = merge_configs(object{{"tags", value::array({"shared", "alpha"})}},
                                     object{{"tags", value::array({"shared", "beta"})}});
  BOOST_TEST(merged.get("tags") == value::array({"shared", "alpha", "shared", "beta"}));
}

// libs/langgraph/tests/test_utils.py::test_ensure_config_none_inputs_ignored
BOOST_AUTO_TEST_CASE(test_ensure_config_none_inputs_ignored) {
  const value merged =
      merge_configs(merge_configs(value(), object{{"tags", value::array({"t"})}}), value());
  BOOST_TEST(merged.get("tags") == value::array({"t"}));
}
