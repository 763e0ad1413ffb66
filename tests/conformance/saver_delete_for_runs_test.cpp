// LangGraph's checkpoint-conformance spec test_delete_for_runs.py (the DELETE_FOR_RUNS
// capability: checkpoint_saver::delete_for_runs removes the checkpoints whose metadata names
// one of the runs), against the saver under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// test_delete_for_runs.py's _put_with_run_id.
checkpoint_config put_with_run_id(checkpoint_saver& saver, const std::string& tid,
                                  const std::string& run_id, const std::string& ns = "",
                                  const std::optional<checkpoint_config>& parent = std::nullopt) {
  return put_child(saver, tid, ns, parent, generate_checkpoint(),
                   generate_metadata("loop", 0, object{{"run_id", run_id}}), {});
}

// The run ids of the checkpoints list() finds in (tid, ns).
std::set<std::string> run_ids_of(checkpoint_saver& saver, const std::string& tid,
                                 const std::string& ns = "") {
  std::set<std::string> out;
  for (const auto& t : list_of(saver, tid, ns)) {
    const value run_id = metadata_get(t, "run_id");
    out.insert(run_id.is_string() ? run_id.as_string() : "");
  }
  return out;
}

}  // namespace

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_single
BOOST_AUTO_TEST_CASE(test_delete_for_runs_single) {
  auto saver = conformance::saver();
  const std::string tid = uuid4(), run1 = uuid4(), run2 = uuid4();
  const auto stored1 = put_with_run_id(*saver, tid, run1);
  put_with_run_id(*saver, tid, run2, "", stored1);
  BOOST_TEST(run_ids_of(*saver, tid) == (std::set<std::string>{run1, run2}));
  saver->delete_for_runs({run1});
  BOOST_TEST(run_ids_of(*saver, tid) == (std::set<std::string>{run2}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_multiple
BOOST_AUTO_TEST_CASE(test_delete_for_runs_multiple) {
  auto saver = conformance::saver();
  const std::string tid = uuid4(), run1 = uuid4(), run2 = uuid4(), run3 = uuid4();
  const auto s1 = put_with_run_id(*saver, tid, run1);
  const auto s2 = put_with_run_id(*saver, tid, run2, "", s1);
  put_with_run_id(*saver, tid, run3, "", s2);
  BOOST_TEST(run_ids_of(*saver, tid) == (std::set<std::string>{run1, run2, run3}));
  saver->delete_for_runs({run1, run2});
  BOOST_TEST(run_ids_of(*saver, tid) == (std::set<std::string>{run3}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_preserves_other_runs
BOOST_AUTO_TEST_CASE(test_delete_for_runs_preserves_other_runs) {
  auto saver = conformance::saver();
  const std::string tid = uuid4(), run_keep = uuid4(), run_delete = uuid4();
  put_with_run_id(*saver, tid, run_keep);
  put_with_run_id(*saver, tid, run_delete);
  BOOST_TEST(run_ids_of(*saver, tid) == (std::set<std::string>{run_keep, run_delete}));
  saver->delete_for_runs({run_delete});
  BOOST_TEST(run_ids_of(*saver, tid).count(run_keep) == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_removes_writes
// Beyond LangGraph's check (the checkpoint is gone): put again under the same id, it starts
// without the removed writes.
BOOST_AUTO_TEST_CASE(test_delete_for_runs_removes_writes) {
  auto saver = conformance::saver();
  const std::string tid = uuid4(), run1 = uuid4();
  const checkpoint cp = generate_checkpoint();
  const auto stored =
      saver->put(config_of(tid), cp, generate_metadata("loop", 0, object{{"run_id", run1}}), {});
  saver->put_writes(stored, {{"ch", "val"}}, uuid4(), "");
  const auto pre = saver->get_tuple(stored);
  BOOST_REQUIRE(pre);
  BOOST_REQUIRE_EQUAL(pre->pending_writes.size(), 1u);
  saver->delete_for_runs({run1});
  BOOST_TEST(!saver->get_tuple(stored).has_value());
  saver->put(config_of(tid), cp, generate_metadata(), {});
  const auto again = saver->get_tuple(stored);
  BOOST_REQUIRE(again);
  BOOST_TEST(again->pending_writes.empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_empty_list_noop
BOOST_AUTO_TEST_CASE(test_delete_for_runs_empty_list_noop) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  put_with_run_id(*saver, tid, uuid4());
  BOOST_CHECK_NO_THROW(saver->delete_for_runs({}));
  BOOST_TEST(list_of(*saver, tid).size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_nonexistent_noop
BOOST_AUTO_TEST_CASE(test_delete_for_runs_nonexistent_noop) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  put_with_run_id(*saver, tid, uuid4());
  BOOST_CHECK_NO_THROW(saver->delete_for_runs({uuid4()}));
  BOOST_TEST(list_of(*saver, tid).size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delete_for_runs.py::test_delete_for_runs_across_namespaces
BOOST_AUTO_TEST_CASE(test_delete_for_runs_across_namespaces) {
  auto saver = conformance::saver();
  const std::string tid = uuid4(), run1 = uuid4();
  put_with_run_id(*saver, tid, run1, "");
  put_with_run_id(*saver, tid, run1, "child:1");
  for (const char* ns : {"", "child:1"})
    BOOST_TEST(run_ids_of(*saver, tid, ns).count(run1) == 1u, "namespace '" << ns << "'");
  saver->delete_for_runs({run1});
  for (const char* ns : {"", "child:1"})
    BOOST_TEST(run_ids_of(*saver, tid, ns).count(run1) == 0u, "namespace '" << ns << "'");
}
