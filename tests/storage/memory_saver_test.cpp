// memory_saver: the saver conformance suite, then copy_thread and prune (memory_saver's own
// until they join the checkpoint_saver interface) and its input checks.
#include "superstep/storage/memory_saver.hpp"

#include <memory>

#include "saver_conformance.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::memory_saver;

namespace {

std::unique_ptr<memory_saver> make_memory_saver() { return std::make_unique<memory_saver>(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(saver_conformance)
SUPERSTEP_SAVER_CONFORMANCE(make_memory_saver)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(copy_thread_copies_every_namespace_with_values_and_writes) {
  memory_saver saver;
  checkpoint_builder b;
  auto stale = b.make({{"a", "stale"}}, {{"a", 1}});
  put_all(saver, "copy", "", "", stale, loop_metadata(0));
  put_all(saver, "copy", "stale-ns", "", stale, loop_metadata(0));

  auto c1 = b.make({{"a", 1}, {"b", "shared"}}, {{"a", 1}, {"b", 1}});
  auto c2 = b.make({{"a", 2}, {"b", "shared"}}, {{"a", 2}, {"b", 1}});
  auto sub = b.make({{"x", "sub"}}, {{"x", 1}});
  auto s1 = put_all(saver, "src", "", "", c1, loop_metadata(0));
  auto s2 = saver.put(s1, c2, loop_metadata(1, object{{"node", object{{"a", 2}}}}), {{"a", 2}});
  auto ssub = put_all(saver, "src", "sub:1", "", sub, loop_metadata(0));
  saver.put_writes(s1, {{"a", 2}}, "task-1", "p");
  saver.put_writes(s2, {{std::string(ERROR), "boom"}}, "task-2", "p");
  saver.put_writes(ssub, {{"x", "w"}}, "task-3", "p");
  const value root = history_without_thread(saver, "src", "");
  const value child = history_without_thread(saver, "src", "sub:1");

  saver.copy_thread("src", "copy");
  BOOST_TEST(history_without_thread(saver, "copy", "") == root);
  BOOST_TEST(history_without_thread(saver, "copy", "sub:1") == child);
  BOOST_TEST(root.as_list().size() == 2u);
  BOOST_TEST(values_of(saver.get_tuple({"copy", "", ""})) ==
             value(object{{"a", 2}, {"b", "shared"}}));
  // What the target held before is gone.
  BOOST_TEST(!saver.get_tuple({"copy", "", stale.id}));
  BOOST_TEST(!saver.get_tuple({"copy", "stale-ns", ""}));

  // The copy is independent of its source.
  saver.copy_thread("src", "src");
  BOOST_TEST(history_without_thread(saver, "src", "") == root);
  auto c3 = b.make({{"a", 3}, {"b", "shared"}}, {{"a", 3}, {"b", 1}});
  saver.put({"copy", "", c2.id}, c3, loop_metadata(2), {{"a", 3}});
  BOOST_TEST(saver.get_tuple({"src", "", ""})->checkpoint.id == c2.id);
  saver.delete_thread("src");
  BOOST_TEST(history_without_thread(saver, "copy", "sub:1") == child);
  BOOST_TEST(values_of(saver.get_tuple({"copy", "", c1.id})) ==
             value(object{{"a", 1}, {"b", "shared"}}));

  expect_error([&] { saver.copy_thread("src", "elsewhere"); }, error_code::not_found, "'src'");
  expect_error([&] { saver.copy_thread("", "x"); }, error_code::invalid_argument, "thread");
  expect_error([&] { saver.copy_thread("copy", ""); }, error_code::invalid_argument, "thread");
}

BOOST_AUTO_TEST_CASE(prune_keeps_the_latest_checkpoint_of_each_namespace) {
  memory_saver saver;
  checkpoint_builder b;
  // c3 still reads b at version 1, whose blob was stored with c1.
  auto c1 = b.make({{"a", 1}, {"b", "from c1"}}, {{"a", 1}, {"b", 1}});
  auto c2 = b.make({{"a", 2}}, {{"a", 2}, {"b", 1}});
  auto c3 = b.make({{"a", 3}}, {{"a", 3}, {"b", 1}});
  auto d1 = b.make({{"x", 1}}, {{"x", 1}});
  auto d2 = b.make({{"x", 2}}, {{"x", 2}});
  auto e1 = b.make({{"a", 1}}, {{"a", 1}});
  auto e2 = b.make({{"a", 2}}, {{"a", 2}});
  auto s1 = put_all(saver, "t", "", "", c1, loop_metadata(0));
  auto s2 = saver.put(s1, c2, loop_metadata(1), {{"a", 2}});
  auto s3 = saver.put(s2, c3, loop_metadata(2), {{"a", 3}});
  auto sd1 = put_all(saver, "t", "sub:1", "", d1, loop_metadata(0));
  auto sd2 = put_all(saver, "t", "sub:1", sd1.checkpoint_id, d2, loop_metadata(1));
  auto se1 = put_all(saver, "keep", "", "", e1, loop_metadata(0));
  put_all(saver, "keep", "", se1.checkpoint_id, e2, loop_metadata(1));
  for (const auto& s : {s1, s2, s3, sd1, sd2, se1}) saver.put_writes(s, {{"w", 1}}, "task", "p");

  saver.prune({"t", "never-existed"}, 1);
  auto root = saver.list({"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(root.size(), 1u);
  BOOST_TEST(root[0].checkpoint.id == c3.id);
  BOOST_TEST(values_of(root[0]) == value(object{{"a", 3}, {"b", "from c1"}}));
  BOOST_TEST(root[0].pending_writes.size() == 1u);
  BOOST_TEST(optional_config_value(root[0].parent_config) == config_value(s2));
  auto child = saver.list({"t", "sub:1", ""}, {});
  BOOST_REQUIRE_EQUAL(child.size(), 1u);
  BOOST_TEST(child[0].checkpoint.id == d2.id);
  BOOST_TEST(child[0].pending_writes.size() == 1u);
  BOOST_TEST(saver.list({"keep", "", ""}, {}).size() == 2u);
  BOOST_TEST(saver.get_tuple(se1)->pending_writes.size() == 1u);

  // The pruned checkpoints' writes and unused blobs are gone: putting c1 again without new
  // versions finds b (still used by c3) but not a at version 1.
  auto again = saver.put({"t", "", ""}, c1, loop_metadata(0), {});
  BOOST_TEST(values_of(saver.get_tuple(again)) == value(object{{"b", "from c1"}}));
  BOOST_TEST(saver.get_tuple(again)->pending_writes.empty());

  saver.prune({"keep"}, 2);
  BOOST_TEST(saver.list({"keep", "", ""}, {}).size() == 2u);
  saver.prune({"keep"}, 0);
  BOOST_TEST(!saver.get_tuple({"keep", "", ""}));
  BOOST_TEST(saver.list({"t", "", ""}, {}).size() == 2u);
}

BOOST_AUTO_TEST_CASE(rejects_an_empty_thread_or_checkpoint_id) {
  memory_saver saver;
  checkpoint_builder b;
  auto cp = b.make({}, {});
  expect_error(
      [&] {
        saver.put({"", "", ""}, cp, loop_metadata(0), {});
      },
      error_code::invalid_argument, "thread_id");
  checkpoint no_id = cp;
  no_id.id.clear();
  expect_error(
      [&] {
        saver.put({"t", "", ""}, no_id, loop_metadata(0), {});
      },
      error_code::invalid_argument, "checkpoint_id");
  expect_error(
      [&] {
        saver.put_writes({"t", "", ""}, {{"a", 1}}, "task", "p");
      },
      error_code::invalid_argument, "checkpoint_id");
  expect_error(
      [&] {
        saver.put_writes({"", "", cp.id}, {{"a", 1}}, "task", "p");
      },
      error_code::invalid_argument, "thread_id");
  expect_error(
      [&] {
        (void)saver.get_tuple({"", "", ""});
      },
      error_code::invalid_argument, "thread_id");
}
