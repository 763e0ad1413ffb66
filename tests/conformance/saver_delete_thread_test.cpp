// LangGraph's checkpoint-conformance spec test_delete_thread.py (the DELETE_THREAD
// capability), against the saver under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_thread.py::test_delete_thread_removes_checkpoints
BOOST_AUTO_TEST_CASE(test_delete_thread_removes_checkpoints) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  put_chain(*saver, tid, 3);
  BOOST_REQUIRE(saver->get_tuple(config_of(tid)));
  saver->delete_thread(tid);
  BOOST_TEST(!saver->get_tuple(config_of(tid)).has_value());
  BOOST_TEST(list_of(*saver, tid).empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_thread.py::test_delete_thread_removes_writes
// Beyond LangGraph's check (the checkpoint is gone): a checkpoint put again under the same
// id starts without the deleted writes.
BOOST_AUTO_TEST_CASE(test_delete_thread_removes_writes) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const checkpoint cp = generate_checkpoint();
  const auto stored = saver->put(config_of(tid), cp, generate_metadata(), {});
  saver->put_writes(stored, {{"ch", "val"}}, uuid4(), "");
  const auto pre = saver->get_tuple(config_of(tid));
  BOOST_REQUIRE(pre);
  BOOST_REQUIRE_EQUAL(pre->pending_writes.size(), 1u);
  saver->delete_thread(tid);
  BOOST_TEST(!saver->get_tuple(config_of(tid)).has_value());
  saver->put(config_of(tid), cp, generate_metadata(), {});
  const auto again = saver->get_tuple(stored);
  BOOST_REQUIRE(again);
  BOOST_TEST(again->pending_writes.empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_thread.py::test_delete_thread_removes_all_namespaces
BOOST_AUTO_TEST_CASE(test_delete_thread_removes_all_namespaces) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  for (const char* ns : {"", "child:1"})
    saver->put(config_of(tid, ns), generate_checkpoint(), generate_metadata(), {});
  for (const char* ns : {"", "child:1"}) BOOST_REQUIRE(saver->get_tuple(config_of(tid, ns)));
  saver->delete_thread(tid);
  for (const char* ns : {"", "child:1"})
    BOOST_TEST(!saver->get_tuple(config_of(tid, ns)).has_value(), "namespace '" << ns << "'");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_thread.py::test_delete_thread_preserves_other_threads
BOOST_AUTO_TEST_CASE(test_delete_thread_preserves_other_threads) {
  auto saver = conformance::saver();
  const std::string tid1 = uuid4(), tid2 = uuid4();
  for (const auto& tid : {tid1, tid2})
    saver->put(config_of(tid), generate_checkpoint(), generate_metadata(), {});
  saver->delete_thread(tid1);
  BOOST_TEST(!saver->get_tuple(config_of(tid1)).has_value());
  BOOST_TEST(saver->get_tuple(config_of(tid2)).has_value());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_thread.py::test_delete_thread_nonexistent_noop
BOOST_AUTO_TEST_CASE(test_delete_thread_nonexistent_noop) {
  auto saver = conformance::saver();
  BOOST_CHECK_NO_THROW(saver->delete_thread(uuid4()));
}
