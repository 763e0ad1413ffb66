// LangGraph's checkpoint-conformance spec test_get_tuple.py (the GET_TUPLE capability), against
// the saver under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_nonexistent_returns_none
BOOST_AUTO_TEST_CASE(test_get_tuple_nonexistent_returns_none) {
  auto saver = conformance::saver();
  BOOST_TEST(!saver->get_tuple(config_of(uuid4())).has_value());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_latest_when_no_checkpoint_id
BOOST_AUTO_TEST_CASE(test_get_tuple_latest_when_no_checkpoint_id) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto configs = put_chain(*saver, tid, 3);
  const auto tup = saver->get_tuple(config_of(tid));
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->checkpoint.id == configs.back().checkpoint_id);
  BOOST_TEST(tup->metadata.step == 2);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_specific_checkpoint_id
BOOST_AUTO_TEST_CASE(test_get_tuple_specific_checkpoint_id) {
  auto saver = conformance::saver();
  const auto configs = put_chain(*saver, uuid4(), 2);
  const auto tup = saver->get_tuple(configs[0]);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->checkpoint.id == configs[0].checkpoint_id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_config_structure
BOOST_AUTO_TEST_CASE(test_get_tuple_config_structure) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const checkpoint cp = generate_checkpoint();
  const auto stored = saver->put(config_of(tid), cp, generate_metadata(), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->config.thread_id == tid);
  BOOST_TEST(tup->config.checkpoint_ns == "");
  BOOST_TEST(tup->config.checkpoint_id == cp.id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_checkpoint_fields
BOOST_AUTO_TEST_CASE(test_get_tuple_checkpoint_fields) {
  auto saver = conformance::saver();
  const checkpoint cp = generate_checkpoint({{"k", "v"}}, {{"k", 1}});
  const auto stored = saver->put(config_of(uuid4()), cp, generate_metadata(), {{"k", 1}});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  const checkpoint& c = tup->checkpoint;
  BOOST_TEST(c.id == cp.id);
  BOOST_TEST(c.v == 1);
  BOOST_TEST(!c.ts.empty());
  BOOST_TEST(values_of(c) == value(object{{"k", "v"}}));
  BOOST_TEST(versions_value(c.channel_versions) == value(object{{"k", 1}}));
  BOOST_TEST(c.versions_seen.empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_metadata
BOOST_AUTO_TEST_CASE(test_get_tuple_metadata) {
  auto saver = conformance::saver();
  const auto stored =
      saver->put(config_of(uuid4()), generate_checkpoint(), generate_metadata("input", -1), {});
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->metadata.source == "input");
  BOOST_TEST(tup->metadata.step == -1);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_parent_config
BOOST_AUTO_TEST_CASE(test_get_tuple_parent_config) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 = put_child(*saver, tid, "", std::nullopt, generate_checkpoint(),
                                 generate_metadata("loop", 0), {});
  const auto tup1 = saver->get_tuple(stored1);
  BOOST_REQUIRE(tup1);
  BOOST_TEST(!tup1->parent_config.has_value());
  const auto stored2 =
      put_child(*saver, tid, "", stored1, generate_checkpoint(), generate_metadata("loop", 1), {});
  const auto tup2 = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup2);
  BOOST_REQUIRE(tup2->parent_config);
  BOOST_TEST(tup2->parent_config->checkpoint_id == stored1.checkpoint_id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_pending_writes
BOOST_AUTO_TEST_CASE(test_get_tuple_pending_writes) {
  auto saver = conformance::saver();
  const auto stored =
      saver->put(config_of(uuid4()), generate_checkpoint(), generate_metadata(), {});
  const std::string task_id = uuid4();
  saver->put_writes(stored, {{"ch", "val"}}, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE_EQUAL(tup->pending_writes.size(), 1u);
  BOOST_TEST(tup->pending_writes[0].task_id == task_id);
  BOOST_TEST(tup->pending_writes[0].channel == "ch");
  BOOST_TEST(tup->pending_writes[0].v == value("val"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_respects_namespace
BOOST_AUTO_TEST_CASE(test_get_tuple_respects_namespace) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const checkpoint cp_root = generate_checkpoint();
  const auto stored_root = saver->put(config_of(tid, ""), cp_root, generate_metadata(), {});
  const checkpoint cp_child = generate_checkpoint();
  const auto stored_child =
      saver->put(config_of(tid, "child:1"), cp_child, generate_metadata(), {});
  const auto tup_root = saver->get_tuple(stored_root);
  BOOST_REQUIRE(tup_root);
  BOOST_TEST(tup_root->checkpoint.id == cp_root.id);
  const auto tup_child = saver->get_tuple(stored_child);
  BOOST_REQUIRE(tup_child);
  BOOST_TEST(tup_child->checkpoint.id == cp_child.id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_get_tuple.py::test_get_tuple_nonexistent_checkpoint_id
BOOST_AUTO_TEST_CASE(test_get_tuple_nonexistent_checkpoint_id) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  saver->put(config_of(tid), generate_checkpoint(), generate_metadata(), {});
  BOOST_TEST(!saver->get_tuple(checkpoint_config{tid, "", uuid4()}).has_value());
}
