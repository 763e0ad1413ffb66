// LangGraph's checkpoint-conformance spec test_copy_thread.py (the COPY_THREAD capability:
// checkpoint_saver::copy_thread), against the saver under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// test_copy_thread.py's _setup_source_thread: `n` checkpoints in each namespace, each with
// channel "step" at version 1 (so every put of the chain names version 1 as new again).
std::vector<checkpoint_config> setup_source_thread(checkpoint_saver& saver, const std::string& tid,
                                                   int n = 3,
                                                   std::vector<std::string> namespaces = {""}) {
  std::vector<checkpoint_config> stored;
  for (const auto& ns : namespaces) {
    std::optional<checkpoint_config> parent;
    for (int i = 0; i < n; ++i) {
      parent = put_child(saver, tid, ns, parent, generate_checkpoint({{"step", i}}, {{"step", 1}}),
                         generate_metadata("loop", i), {{"step", 1}});
      stored.push_back(*parent);
    }
  }
  return stored;
}

std::vector<checkpoint_tuple> by_id(std::vector<checkpoint_tuple> tuples) {
  std::sort(tuples.begin(), tuples.end(),
            [](const auto& a, const auto& b) { return a.checkpoint.id < b.checkpoint.id; });
  return tuples;
}

}  // namespace

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_basic
BOOST_AUTO_TEST_CASE(test_copy_thread_basic) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src);
  saver->copy_thread(src, dst);
  BOOST_TEST(list_of(*saver, dst).size() == 3u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_all_checkpoints
BOOST_AUTO_TEST_CASE(test_copy_thread_all_checkpoints) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src, 3);
  saver->copy_thread(src, dst);
  const auto s = by_id(list_of(*saver, src));
  const auto d = by_id(list_of(*saver, dst));
  BOOST_REQUIRE_EQUAL(d.size(), s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    BOOST_TEST(values_of(s[i].checkpoint) == values_of(d[i].checkpoint),
               "channel_values of checkpoint " << s[i].checkpoint.id);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_preserves_metadata
BOOST_AUTO_TEST_CASE(test_copy_thread_preserves_metadata) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src, 2);
  saver->copy_thread(src, dst);
  const auto by_step = [](std::vector<checkpoint_tuple> t) {
    std::sort(t.begin(), t.end(),
              [](const auto& a, const auto& b) { return a.metadata.step < b.metadata.step; });
    return t;
  };
  const auto s = by_step(list_of(*saver, src));
  const auto d = by_step(list_of(*saver, dst));
  BOOST_REQUIRE_EQUAL(d.size(), s.size());
  for (std::size_t i = 0; i < s.size(); ++i)
    BOOST_TEST(metadata_to_value(s[i].metadata) == metadata_to_value(d[i].metadata));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_preserves_namespaces
BOOST_AUTO_TEST_CASE(test_copy_thread_preserves_namespaces) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src, 1, {"", "child:1"});
  saver->copy_thread(src, dst);
  for (const char* ns : {"", "child:1"})
    BOOST_TEST(list_of(*saver, dst, ns).size() == 1u, "namespace '" << ns << "'");
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_preserves_writes
BOOST_AUTO_TEST_CASE(test_copy_thread_preserves_writes) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  const auto configs = setup_source_thread(*saver, src, 1);
  saver->put_writes(configs.back(), {{"ch", "write_val"}}, uuid4(), "");
  saver->copy_thread(src, dst);
  const auto tup = saver->get_tuple(config_of(dst));
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE_EQUAL(tup->pending_writes.size(), 1u);
  BOOST_TEST(tup->pending_writes[0].channel == "ch");
  BOOST_TEST(tup->pending_writes[0].v == value("write_val"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_preserves_ordering
BOOST_AUTO_TEST_CASE(test_copy_thread_preserves_ordering) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src, 4);
  saver->copy_thread(src, dst);
  BOOST_TEST(ids_of(list_of(*saver, src)) == ids_of(list_of(*saver, dst)),
             boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_source_unchanged
BOOST_AUTO_TEST_CASE(test_copy_thread_source_unchanged) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  setup_source_thread(*saver, src, 2);
  const auto before = ids_of(list_of(*saver, src));
  saver->copy_thread(src, dst);
  BOOST_TEST(ids_of(list_of(*saver, src)) == before, boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_copy_thread.py::test_copy_thread_nonexistent_source
// LangGraph accepts raising; ours names the missing thread (not_found).
BOOST_AUTO_TEST_CASE(test_copy_thread_nonexistent_source) {
  auto saver = conformance::saver();
  const std::string src = uuid4(), dst = uuid4();
  expect_error([&] { saver->copy_thread(src, dst); }, error_code::not_found, src);
  BOOST_TEST(list_of(*saver, dst).empty());
}
