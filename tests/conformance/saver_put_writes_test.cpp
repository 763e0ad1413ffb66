// LangGraph's checkpoint-conformance spec test_put_writes.py (the PUT_WRITES capability:
// pending writes saved against a checkpoint come back with it), against the saver under test.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// A thread with one empty checkpoint: its config.
checkpoint_config one_checkpoint(checkpoint_saver& saver, const std::string& ns = "") {
  return saver.put(config_of(uuid4(), ns), generate_checkpoint(), generate_metadata(), {});
}

}  // namespace

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_basic
BOOST_AUTO_TEST_CASE(test_put_writes_basic) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  saver->put_writes(stored, {{"channel1", "value1"}}, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  const auto matching = writes_to(*tup, "channel1", task_id);
  BOOST_REQUIRE_EQUAL(matching.size(), 1u);
  BOOST_TEST(matching[0].v == value("value1"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_multiple_writes_same_task
BOOST_AUTO_TEST_CASE(test_put_writes_multiple_writes_same_task) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  const std::vector<std::pair<std::string, value>> writes{
      {"ch1", "v1"}, {"ch2", "v2"}, {"ch3", "v3"}};
  saver->put_writes(stored, writes, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE_EQUAL(tup->pending_writes.size(), 3u);
  std::set<std::string> channels;
  for (const auto& w : tup->pending_writes) channels.insert(w.channel);
  BOOST_TEST((channels == std::set<std::string>{"ch1", "ch2", "ch3"}));
  for (const auto& [channel, v] : writes) {
    const auto match = writes_to(*tup, channel, task_id);
    BOOST_REQUIRE_EQUAL(match.size(), 1u);
    BOOST_TEST(match[0].v == v);
  }
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_multiple_tasks
BOOST_AUTO_TEST_CASE(test_put_writes_multiple_tasks) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string t1 = uuid4(), t2 = uuid4();
  saver->put_writes(stored, {{"ch", "from_t1"}}, t1, "");
  saver->put_writes(stored, {{"ch", "from_t2"}}, t2, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_REQUIRE_EQUAL(tup->pending_writes.size(), 2u);
  const auto w1 = writes_to(*tup, "ch", t1);
  const auto w2 = writes_to(*tup, "ch", t2);
  BOOST_REQUIRE_EQUAL(w1.size(), 1u);
  BOOST_REQUIRE_EQUAL(w2.size(), 1u);
  BOOST_TEST(w1[0].v == value("from_t1"));
  BOOST_TEST(w2[0].v == value("from_t2"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_preserves_task_id
BOOST_AUTO_TEST_CASE(test_put_writes_preserves_task_id) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  saver->put_writes(stored, {{"ch", "val"}}, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(!writes_to(*tup, "ch", task_id).empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_preserves_channel_and_value
BOOST_AUTO_TEST_CASE(test_put_writes_preserves_channel_and_value) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  saver->put_writes(stored, {{"my_channel", object{{"data", 123}}}}, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  const auto match = writes_to(*tup, "my_channel", task_id);
  BOOST_REQUIRE_EQUAL(match.size(), 1u);
  BOOST_TEST(match[0].v == value(object{{"data", 123}}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_task_path
BOOST_AUTO_TEST_CASE(test_put_writes_task_path) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  saver->put_writes(stored, {{"ch", "v"}}, uuid4(), "a:b:c");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->pending_writes.size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_idempotent
BOOST_AUTO_TEST_CASE(test_put_writes_idempotent) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  saver->put_writes(stored, {{"ch", "val"}}, task_id, "");
  saver->put_writes(stored, {{"ch", "val"}}, task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->pending_writes.size() == 1u);
  BOOST_TEST(writes_to(*tup, "ch", task_id).size() == 1u);
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_special_channels
BOOST_AUTO_TEST_CASE(test_put_writes_special_channels) {
  auto saver = conformance::saver();
  const auto stored = one_checkpoint(*saver);
  const std::string task_id = uuid4();
  const std::string error_ch(ERROR), interrupt_ch(INTERRUPT);
  saver->put_writes(
      stored,
      {{error_ch, "something went wrong"}, {interrupt_ch, object{{"reason", "human_input"}}}},
      task_id, "");
  const auto tup = saver->get_tuple(stored);
  BOOST_REQUIRE(tup);
  const auto errors = writes_to(*tup, error_ch, task_id);
  BOOST_REQUIRE_EQUAL(errors.size(), 1u);
  BOOST_TEST(errors[0].v == value("something went wrong"));
  const auto interrupts = writes_to(*tup, interrupt_ch, task_id);
  BOOST_REQUIRE_EQUAL(interrupts.size(), 1u);
  BOOST_TEST(interrupts[0].v == value(object{{"reason", "human_input"}}));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_across_namespaces
BOOST_AUTO_TEST_CASE(test_put_writes_across_namespaces) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored_root =
      saver->put(config_of(tid, ""), generate_checkpoint(), generate_metadata(), {});
  saver->put_writes(stored_root, {{"ch", "root_val"}}, uuid4(), "");
  const auto stored_child =
      saver->put(config_of(tid, "child:1"), generate_checkpoint(), generate_metadata(), {});
  saver->put_writes(stored_child, {{"ch", "child_val"}}, uuid4(), "");

  const auto tup_root = saver->get_tuple(stored_root);
  BOOST_REQUIRE(tup_root);
  const auto root_ch = writes_to(*tup_root, "ch");
  BOOST_REQUIRE_EQUAL(root_ch.size(), 1u);
  BOOST_TEST(root_ch[0].v == value("root_val"));
  const auto tup_child = saver->get_tuple(stored_child);
  BOOST_REQUIRE(tup_child);
  const auto child_ch = writes_to(*tup_child, "ch");
  BOOST_REQUIRE_EQUAL(child_ch.size(), 1u);
  BOOST_TEST(child_ch[0].v == value("child_val"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_put_writes.py::test_put_writes_cleared_on_next_checkpoint
BOOST_AUTO_TEST_CASE(test_put_writes_cleared_on_next_checkpoint) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const auto stored1 = put_child(*saver, tid, "", std::nullopt, generate_checkpoint(),
                                 generate_metadata("loop", 0), {});
  saver->put_writes(stored1, {{"ch", "old_write"}}, uuid4(), "");
  const auto stored2 =
      put_child(*saver, tid, "", stored1, generate_checkpoint(), generate_metadata("loop", 1), {});
  const auto tup = saver->get_tuple(stored2);
  BOOST_REQUIRE(tup);
  BOOST_TEST(tup->pending_writes.empty());
}
