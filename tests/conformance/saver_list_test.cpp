// LangGraph's checkpoint-conformance spec test_list.py (the LIST capability: a thread's
// checkpoints newest first, filtered by metadata, paged with before and limit), against the
// saver under test. LangGraph's configs there name checkpoint_ns "", so `list` covers that
// namespace only (our list_options::every_namespace false).

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// test_list.py's _setup_list_data: four checkpoints of one thread, sources input, loop,
// input, loop at steps 0..3.
struct list_data {
  std::string thread_id;
  std::vector<std::string> checkpoint_ids;
};

list_data setup_list_data(checkpoint_saver& saver) {
  list_data out{uuid4(), {}};
  std::optional<checkpoint_config> parent;
  for (int i = 0; i < 4; ++i) {
    const checkpoint cp = generate_checkpoint();
    parent = put_child(saver, out.thread_id, "", parent, cp,
                       generate_metadata(i % 2 == 0 ? "input" : "loop", i), {});
    out.checkpoint_ids.push_back(cp.id);
  }
  return out;
}

list_options with_filter(object filter) {
  list_options o;
  o.filter = std::move(filter);
  return o;
}

}  // namespace

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_all
BOOST_AUTO_TEST_CASE(test_list_all) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  BOOST_TEST(list_of(*saver, data.thread_id).size() == 4u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_by_thread
BOOST_AUTO_TEST_CASE(test_list_by_thread) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  BOOST_TEST(list_of(*saver, uuid4()).empty());
  BOOST_TEST(list_of(*saver, data.thread_id).size() == 4u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_by_namespace
BOOST_AUTO_TEST_CASE(test_list_by_namespace) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  saver->put(config_of(tid, ""), generate_checkpoint(), generate_metadata(), {});
  saver->put(config_of(tid, "child:1"), generate_checkpoint(), generate_metadata(), {});
  BOOST_TEST(list_of(*saver, tid, "").size() == 1u);
  BOOST_TEST(list_of(*saver, tid, "child:1").size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_ordering
BOOST_AUTO_TEST_CASE(test_list_ordering) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  const std::vector<std::string> expected(data.checkpoint_ids.rbegin(), data.checkpoint_ids.rend());
  BOOST_TEST(ids_of(list_of(*saver, data.thread_id)) == expected, boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_metadata_filter_single_key
BOOST_AUTO_TEST_CASE(test_list_metadata_filter_single_key) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  const auto results = list_of(*saver, data.thread_id, "", with_filter({{"source", "input"}}));
  BOOST_TEST(results.size() == 2u);
  for (const auto& t : results) BOOST_TEST(t.metadata.source == "input");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_metadata_filter_step
BOOST_AUTO_TEST_CASE(test_list_metadata_filter_step) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  const auto results = list_of(*saver, data.thread_id, "", with_filter({{"step", 1}}));
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(results[0].metadata.step == 1);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_before
BOOST_AUTO_TEST_CASE(test_list_before) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  const auto& ids = data.checkpoint_ids;
  list_options o;
  o.before = checkpoint_config{data.thread_id, "", ids[2]};
  const auto result_ids = ids_of(list_of(*saver, data.thread_id, "", o));
  const std::set<std::string> got(result_ids.begin(), result_ids.end());
  BOOST_TEST((got == std::set<std::string>{ids[0], ids[1]}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_limit
BOOST_AUTO_TEST_CASE(test_list_limit) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  list_options o;
  o.limit = 1;
  BOOST_TEST(list_of(*saver, data.thread_id, "", o).size() == 1u);
  o.limit = 2;
  BOOST_TEST(list_of(*saver, data.thread_id, "", o).size() == 2u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_limit_plus_before
BOOST_AUTO_TEST_CASE(test_list_limit_plus_before) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  list_options o;
  o.before = checkpoint_config{data.thread_id, "", data.checkpoint_ids[3]};
  o.limit = 1;
  const auto results = list_of(*saver, data.thread_id, "", o);
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(results[0].checkpoint.id == data.checkpoint_ids[2]);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_combined_thread_and_filter
BOOST_AUTO_TEST_CASE(test_list_combined_thread_and_filter) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  const auto results = list_of(*saver, data.thread_id, "", with_filter({{"source", "loop"}}));
  BOOST_TEST(results.size() == 2u);
  for (const auto& t : results) BOOST_TEST(t.metadata.source == "loop");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_empty_result
BOOST_AUTO_TEST_CASE(test_list_empty_result) {
  auto saver = conformance::saver();
  BOOST_TEST(list_of(*saver, uuid4(), "", with_filter({{"source", "nonexistent"}})).empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_includes_pending_writes
BOOST_AUTO_TEST_CASE(test_list_includes_pending_writes) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored = saver->put(config_of(tid), generate_checkpoint(), generate_metadata(), {});
  saver->put_writes(stored, {{"ch", "val"}}, uuid4(), "");
  const auto results = list_of(*saver, tid);
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_REQUIRE_EQUAL(results[0].pending_writes.size(), 1u);
  BOOST_TEST(results[0].pending_writes[0].channel == "ch");
  BOOST_TEST(results[0].pending_writes[0].v == value("val"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_multiple_namespaces
BOOST_AUTO_TEST_CASE(test_list_multiple_namespaces) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  for (const char* ns : {"", "child:1", "child:2"})
    saver->put(config_of(tid, ns), generate_checkpoint(), generate_metadata(), {});
  BOOST_TEST(list_of(*saver, tid, "").size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_metadata_filter_multiple_keys
// The three checkpoints are each a root of the thread (no parent), as in LangGraph.
BOOST_AUTO_TEST_CASE(test_list_metadata_filter_multiple_keys) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  for (const auto& [source, step] :
       std::vector<std::pair<std::string, int>>{{"input", 1}, {"loop", 1}, {"input", 2}})
    saver->put(config_of(tid), generate_checkpoint(), generate_metadata(source, step), {});
  const auto results = list_of(*saver, tid, "", with_filter({{"source", "input"}, {"step", 2}}));
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(results[0].metadata.source == "input");
  BOOST_TEST(results[0].metadata.step == 2);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_metadata_filter_no_match
BOOST_AUTO_TEST_CASE(test_list_metadata_filter_no_match) {
  auto saver = conformance::saver();
  const auto data = setup_list_data(*saver);
  BOOST_TEST(list_of(*saver, data.thread_id, "", with_filter({{"source", "update"}, {"step", 99}}))
                 .empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_list.py::test_list_metadata_custom_keys
BOOST_AUTO_TEST_CASE(test_list_metadata_custom_keys) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  saver->put(config_of(tid), generate_checkpoint(),
             generate_metadata("loop", 0, object{{"score", 42}, {"run_id", "run-abc"}}), {});
  saver->put(config_of(tid), generate_checkpoint(),
             generate_metadata("loop", 0, object{{"score", 99}, {"run_id", "run-xyz"}}), {});
  const auto results = list_of(*saver, tid, "", with_filter({{"score", 42}}));
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(metadata_get(results[0], "score") == value(42));
  BOOST_TEST(metadata_get(results[0], "run_id") == value("run-abc"));
}
