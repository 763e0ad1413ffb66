// LangGraph's checkpoint-conformance spec test_put.py (the PUT capability: put, then
// get_tuple reads it back), run against the saver of the backend under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_returns_config
BOOST_AUTO_TEST_CASE(test_put_returns_config) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const checkpoint cp = generate_checkpoint({{"k", "v"}}, {{"k", 1}});
  const checkpoint_config result = saver->put(config_of(tid), cp, generate_metadata(), {{"k", 1}});
  BOOST_TEST(result.thread_id == tid);
  BOOST_TEST(result.checkpoint_ns == "");
  BOOST_TEST(result.checkpoint_id == cp.id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_roundtrip
BOOST_AUTO_TEST_CASE(test_put_roundtrip) {
  auto saver = conformance::saver();
  const checkpoint cp = generate_checkpoint({{"msg", "hello"}}, {{"msg", 1}});
  const auto stored =
      saver->put(config_of(uuid4()), cp, generate_metadata("input", -1), {{"msg", 1}});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->checkpoint.id == cp.id);
  BOOST_TEST(values_of(tup->checkpoint) == value(object{{"msg", "hello"}}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_channel_values
BOOST_AUTO_TEST_CASE(test_put_preserves_channel_values) {
  auto saver = conformance::saver();
  const std::map<std::string, value> values{{"str_val", "hello"},
                                            {"int_val", 42},
                                            {"list_val", value::array({1, 2, 3})},
                                            {"dict_val", object{{"nested", true}}}};
  std::map<std::string, channel_version> versions;
  for (const auto& [k, _] : values) versions[k] = 1;
  const checkpoint cp = generate_checkpoint(values, versions);
  const auto stored = saver->put(config_of(uuid4()), cp, generate_metadata(), versions);
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  for (const auto& [k, v] : values) {
    auto it = tup->checkpoint.channel_values.find(k);
    BOOST_REQUIRE_MESSAGE(it != tup->checkpoint.channel_values.end(),
                          "channel_values[" << k << "]");
    BOOST_TEST(it->second == v, "channel_values[" << k << "]");
  }
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_channel_versions
BOOST_AUTO_TEST_CASE(test_put_preserves_channel_versions) {
  auto saver = conformance::saver();
  const std::map<std::string, channel_version> versions{{"a", 1}, {"b", 2}};
  const checkpoint cp = generate_checkpoint({{"a", "x"}, {"b", "y"}}, versions);
  const auto stored = saver->put(config_of(uuid4()), cp, generate_metadata(), versions);
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(versions_value(tup->checkpoint.channel_versions) == versions_value(versions));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_versions_seen
BOOST_AUTO_TEST_CASE(test_put_preserves_versions_seen) {
  auto saver = conformance::saver();
  const checkpoint cp =
      generate_checkpoint({}, {}, {{"node1", {{"ch", 1}}}, {"node2", {{"ch", 2}}}});
  const auto stored = saver->put(config_of(uuid4()), cp, generate_metadata(), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->checkpoint.versions_seen.count("node1") == 1u);
  BOOST_TEST(tup->checkpoint.versions_seen.count("node2") == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_metadata
BOOST_AUTO_TEST_CASE(test_put_preserves_metadata) {
  auto saver = conformance::saver();
  const auto stored =
      saver->put(config_of(uuid4()), generate_checkpoint(),
                 generate_metadata("loop", 3, object{{"custom_key", "custom_value"}}), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->metadata.source == "loop");
  BOOST_TEST(tup->metadata.step == 3);
  BOOST_TEST(metadata_get(*tup, "custom_key") == value("custom_value"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_root_namespace
BOOST_AUTO_TEST_CASE(test_put_root_namespace) {
  auto saver = conformance::saver();
  const auto stored =
      saver->put(config_of(uuid4(), ""), generate_checkpoint(), generate_metadata(), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->config.checkpoint_ns == "");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_child_namespace
BOOST_AUTO_TEST_CASE(test_put_child_namespace) {
  auto saver = conformance::saver();
  const auto stored =
      saver->put(config_of(uuid4(), "child:abc"), generate_checkpoint(), generate_metadata(), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->config.checkpoint_ns == "child:abc");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_default_namespace
// A config without checkpoint_ns is our checkpoint_config with its default, empty namespace.
BOOST_AUTO_TEST_CASE(test_put_default_namespace) {
  auto saver = conformance::saver();
  checkpoint_config config;
  config.thread_id = uuid4();
  const auto stored = saver->put(config, generate_checkpoint(), generate_metadata(), {});
  BOOST_TEST(saver->get_tuple(stored).has_value());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_multiple_checkpoints_same_thread
BOOST_AUTO_TEST_CASE(test_put_multiple_checkpoints_same_thread) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto configs = put_chain(*saver, tid, 3);
  for (const auto& c : configs) {
    const auto tup = saver->get_tuple(checkpoint_config{tid, "", c.checkpoint_id});
    BOOST_REQUIRE_MESSAGE(tup, "checkpoint " << c.checkpoint_id << " not found");
    BOOST_TEST(tup->checkpoint.id == c.checkpoint_id);
  }
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_multiple_threads_isolated
BOOST_AUTO_TEST_CASE(test_put_multiple_threads_isolated) {
  auto saver = conformance::saver();
  const std::string tid1 = uuid4(), tid2 = uuid4();
  saver->put(config_of(tid1), generate_checkpoint({{"x", "thread1"}}, {{"x", 1}}),
             generate_metadata(), {{"x", 1}});
  saver->put(config_of(tid2), generate_checkpoint({{"x", "thread2"}}, {{"x", 1}}),
             generate_metadata(), {{"x", 1}});
  const auto tup1 = saver->get_tuple(config_of(tid1));
  const auto tup2 = saver->get_tuple(config_of(tid2));
  BOOST_REQUIRE(tup1);
  BOOST_REQUIRE(tup2);
  BOOST_TEST(tup1->checkpoint.channel_values.at("x") == value("thread1"));
  BOOST_TEST(tup2->checkpoint.channel_values.at("x") == value("thread2"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_parent_config
BOOST_AUTO_TEST_CASE(test_put_parent_config) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 = put_child(*saver, tid, "", std::nullopt, generate_checkpoint(),
                                 generate_metadata("loop", 0), {});
  const auto stored2 =
      put_child(*saver, tid, "", stored1, generate_checkpoint(), generate_metadata("loop", 1), {});
  const auto tup = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE(tup->parent_config);
  BOOST_TEST(tup->parent_config->checkpoint_id == stored1.checkpoint_id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_incremental_channel_update
BOOST_AUTO_TEST_CASE(test_put_incremental_channel_update) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 =
      put_child(*saver, tid, "", std::nullopt,
                generate_checkpoint({{"a", "v1"}, {"b", "v2"}}, {{"a", 1}, {"b", 1}}),
                generate_metadata("loop", 0), {{"a", 1}, {"b", 1}});
  // Only 'a' changed: 'b' comes from the blob the first checkpoint stored.
  const auto stored2 =
      put_child(*saver, tid, "", stored1,
                generate_checkpoint({{"a", "v1_updated"}, {"b", "v2"}}, {{"a", 2}, {"b", 1}}),
                generate_metadata("loop", 1), {{"a", 2}});
  const auto tup2 = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup2);
  BOOST_TEST(tup2->checkpoint.channel_values.at("a") == value("v1_updated"));
  BOOST_TEST(tup2->checkpoint.channel_values.at("b") == value("v2"));
  const auto tup1 = saver->get_tuple(stored1);
  BOOST_REQUIRE(tup1);
  BOOST_TEST(tup1->checkpoint.channel_values.at("a") == value("v1"));
  BOOST_TEST(tup1->checkpoint.channel_values.at("b") == value("v2"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_new_channel_added
BOOST_AUTO_TEST_CASE(test_put_new_channel_added) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 =
      put_child(*saver, tid, "", std::nullopt, generate_checkpoint({{"a", "v1"}}, {{"a", 1}}),
                generate_metadata("loop", 0), {{"a", 1}});
  const auto stored2 =
      put_child(*saver, tid, "", stored1,
                generate_checkpoint({{"a", "v1"}, {"b", "new_channel"}}, {{"a", 1}, {"b", 1}}),
                generate_metadata("loop", 1), {{"b", 1}});
  const auto tup2 = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup2);
  BOOST_TEST(tup2->checkpoint.channel_values.at("a") == value("v1"));
  BOOST_TEST(tup2->checkpoint.channel_values.at("b") == value("new_channel"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_channel_removed
BOOST_AUTO_TEST_CASE(test_put_channel_removed) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 =
      put_child(*saver, tid, "", std::nullopt,
                generate_checkpoint({{"a", "v1"}, {"b", "v2"}}, {{"a", 1}, {"b", 1}}),
                generate_metadata("loop", 0), {{"a", 1}, {"b", 1}});
  const auto stored2 =
      put_child(*saver, tid, "", stored1, generate_checkpoint({{"a", "v1_updated"}}, {{"a", 2}}),
                generate_metadata("loop", 1), {{"a", 2}});
  const auto tup2 = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup2);
  BOOST_TEST(tup2->checkpoint.channel_values.at("a") == value("v1_updated"));
  BOOST_TEST(tup2->checkpoint.channel_values.count("b") == 0u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_run_id
BOOST_AUTO_TEST_CASE(test_put_preserves_run_id) {
  auto saver = conformance::saver();
  const std::string run_id = uuid4();
  const auto stored = saver->put(config_of(uuid4()), generate_checkpoint(),
                                 generate_metadata("loop", 0, object{{"run_id", run_id}}), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(metadata_get(*tup, "run_id") == value(run_id));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put.py::test_put_preserves_versions_seen_values
BOOST_AUTO_TEST_CASE(test_put_preserves_versions_seen_values) {
  auto saver = conformance::saver();
  const std::map<std::string, std::map<std::string, channel_version>> seen{
      {"node1", {{"ch_a", 1}, {"ch_b", 2}}}, {"node2", {{"ch_a", 3}}}};
  const auto stored =
      saver->put(config_of(uuid4()), generate_checkpoint({}, {}, seen), generate_metadata(), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  for (const auto& [node, versions] : seen) {
    auto it = tup->checkpoint.versions_seen.find(node);
    BOOST_REQUIRE_MESSAGE(it != tup->checkpoint.versions_seen.end(),
                          "versions_seen[" << node << "]");
    BOOST_TEST(versions_value(it->second) == versions_value(versions));
  }
}
