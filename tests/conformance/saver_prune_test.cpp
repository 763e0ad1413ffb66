// LangGraph's checkpoint-conformance spec test_prune.py (the PRUNE capability:
// checkpoint_saver::prune), against the saver under test. LangGraph's strategy "keep_latest"
// is our keep_last = 1, its "delete" keep_last = 0.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_keep_latest_single_thread
BOOST_AUTO_TEST_CASE(test_prune_keep_latest_single_thread) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto configs = put_chain(*saver, tid, 4);
  saver->prune({tid}, 1);
  const auto results = list_of(*saver, tid);
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(results[0].config.checkpoint_id == configs.back().checkpoint_id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_keep_latest_multiple_threads
BOOST_AUTO_TEST_CASE(test_prune_keep_latest_multiple_threads) {
  auto saver = conformance::saver();
  const std::string tid1 = uuid4(), tid2 = uuid4();
  const auto c1 = put_chain(*saver, tid1, 3);
  const auto c2 = put_chain(*saver, tid2, 2);
  saver->prune({tid1, tid2}, 1);
  for (const auto& [tid, last] : {std::pair{tid1, c1.back()}, std::pair{tid2, c2.back()}}) {
    const auto results = list_of(*saver, tid);
    BOOST_REQUIRE_EQUAL(results.size(), 1u);
    BOOST_TEST(results[0].config.checkpoint_id == last.checkpoint_id);
  }
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_keep_latest_across_namespaces
BOOST_AUTO_TEST_CASE(test_prune_keep_latest_across_namespaces) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto root = put_chain(*saver, tid, 3, "");
  const auto child = put_chain(*saver, tid, 2, "child:1");
  saver->prune({tid}, 1);
  for (const auto& [ns, last] :
       {std::pair{std::string(), root.back()}, std::pair{std::string("child:1"), child.back()}}) {
    const auto results = list_of(*saver, tid, ns);
    BOOST_REQUIRE_EQUAL(results.size(), 1u);
    BOOST_TEST(results[0].config.checkpoint_id == last.checkpoint_id);
  }
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_keep_latest_preserves_writes
BOOST_AUTO_TEST_CASE(test_prune_keep_latest_preserves_writes) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto configs = put_chain(*saver, tid, 3);
  saver->put_writes(configs.back(), {{"ch", "val"}}, uuid4(), "");
  saver->prune({tid}, 1);
  const auto tup = saver->get_tuple(config_of(tid));
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE_EQUAL(tup->pending_writes.size(), 1u);
  BOOST_TEST(tup->pending_writes[0].channel == "ch");
  BOOST_TEST(tup->pending_writes[0].v == value("val"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_delete_all
BOOST_AUTO_TEST_CASE(test_prune_delete_all) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  put_chain(*saver, tid, 3);
  saver->prune({tid}, 0);
  BOOST_TEST(list_of(*saver, tid).empty());
  BOOST_TEST(!saver->get_tuple(config_of(tid)).has_value());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_preserves_other_threads
BOOST_AUTO_TEST_CASE(test_prune_preserves_other_threads) {
  auto saver = conformance::saver();
  const std::string tid1 = uuid4(), tid2 = uuid4();
  put_chain(*saver, tid1, 3);
  put_chain(*saver, tid2, 2);
  const auto before = ids_of(list_of(*saver, tid2));
  saver->prune({tid1}, 1);
  BOOST_TEST(ids_of(list_of(*saver, tid2)) == before, boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_empty_list_noop
BOOST_AUTO_TEST_CASE(test_prune_empty_list_noop) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  put_chain(*saver, tid, 2);
  BOOST_CHECK_NO_THROW(saver->prune({}, 1));
  BOOST_TEST(list_of(*saver, tid).size() == 2u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_prune.py::test_prune_nonexistent_noop
BOOST_AUTO_TEST_CASE(test_prune_nonexistent_noop) {
  auto saver = conformance::saver();
  BOOST_CHECK_NO_THROW(saver->prune({uuid4()}, 1));
}
