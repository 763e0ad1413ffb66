// LangGraph's libs/checkpoint/tests/test_memory.py (InMemorySaver's own tests), against the
// saver of the backend under test. LangGraph's checkpoint ids there ("1", "cp1") are ours
// from the id generator; its blobs stored as "empty" are ours put with a new version and no
// value (a cleared channel).

#include <thread>

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// TestMemorySaver's metadata_1 and metadata_2 (metadata_3 is empty).
checkpoint_metadata metadata_1() {
  return generate_metadata("input", 2, object{{"writes", object{}}, {"score", 1}});
}
checkpoint_metadata metadata_2() {
  return generate_metadata("loop", 1,
                           object{{"writes", object{{"foo", "bar"}}}, {"score", value()}});
}

// TestMemorySaver.setup's three checkpoints: thread-1, thread-2 and thread-2's namespace
// "inner".
void put_search_data(checkpoint_saver& saver) {
  saver.put(config_of("thread-1"), generate_checkpoint(), metadata_1(), {});
  saver.put(config_of("thread-2"), generate_checkpoint(), metadata_2(), {});
  saver.put(config_of("thread-2", "inner"), generate_checkpoint(), checkpoint_metadata{}, {});
}

// `list(None, filter=...)`: every thread and namespace.
std::vector<checkpoint_tuple> search(checkpoint_saver& saver, object filter) {
  list_options o;
  o.filter = std::move(filter);
  o.every_namespace = true;
  return saver.list(checkpoint_config{}, o);
}

// A saver that answers get_delta_channel_history with checkpoint_saver's default (walking
// get_tuple), as LangGraph's _ThirdPartyStyleSaver does with BaseCheckpointSaver's.
class base_history_saver final : public checkpoint_saver {
 public:
  explicit base_history_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}
  checkpoint_config put(const checkpoint_config& c, const checkpoint& cp,
                        const checkpoint_metadata& m,
                        const std::map<std::string, channel_version>& v) override {
    return inner_->put(c, cp, m, v);
  }
  void put_writes(const checkpoint_config& c, const std::vector<std::pair<std::string, value>>& w,
                  const std::string& task_id, const std::string& task_path) override {
    inner_->put_writes(c, w, task_id, task_path);
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& c) override {
    get_tuple_calls_.fetch_add(1);
    return inner_->get_tuple(c);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& c, const list_options& o) override {
    return inner_->list(c, o);
  }
  void delete_thread(const std::string& t) override { inner_->delete_thread(t); }
  void copy_thread(const std::string& s, const std::string& t) override {
    inner_->copy_thread(s, t);
  }
  void prune(const std::vector<std::string>& t, std::size_t keep_last) override {
    inner_->prune(t, keep_last);
  }
  int get_tuple_calls() const { return get_tuple_calls_.load(); }

 private:
  std::shared_ptr<checkpoint_saver> inner_;
  std::atomic<int> get_tuple_calls_{0};
};

// TestBaseFallbackGetChannelWrites._build_saver_with_chain: cp0 -> cp1 -> cp2, a write to
// "messages" saved against cp0 ("first") and cp1 ("second"). Returns cp2's config.
checkpoint_config build_chain_with_writes(checkpoint_saver& saver, const std::string& tid) {
  const auto chain = put_chain(saver, tid, 3);
  saver.put_writes(chain[0], {{"messages", object{{"content", "first"}}}}, "task1", "");
  saver.put_writes(chain[1], {{"messages", object{{"content", "second"}}}}, "task2", "");
  return chain[2];
}

std::vector<value> values_of(const delta_channel_history& h) {
  std::vector<value> out;
  for (const auto& w : h.writes) out.push_back(w.v);
  return out;
}

// TestPreDeltaBlobTerminator._build_mixed_thread: cp0 and cp1 store values ([] and ["A"]),
// cp2 and cp3 new versions without one; each has one write ("OLDER-WRITE", "PRE-DELTA-WRITE",
// "B", "PENDING-AT-TARGET"). Returns cp3's config.
checkpoint_config build_mixed_thread(checkpoint_saver& saver, const std::string& tid) {
  const std::vector<std::optional<value>> stored{value(list{}), value::array({"A"}), std::nullopt,
                                                 std::nullopt};
  const std::vector<std::string> writes{"OLDER-WRITE", "PRE-DELTA-WRITE", "B", "PENDING-AT-TARGET"};
  std::optional<checkpoint_config> parent;
  for (std::size_t i = 0; i < 4; ++i) {
    std::map<std::string, value> values;
    if (stored[i]) values["messages"] = *stored[i];
    const std::map<std::string, channel_version> versions{{"messages", i + 1}};
    parent = put_child(saver, tid, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", static_cast<std::int64_t>(i)), versions);
    saver.put_writes(*parent, {{"messages", writes[i]}}, "task" + std::to_string(i), "");
  }
  return *parent;
}

}  // namespace

// libs/checkpoint/tests/test_memory.py::TestMemorySaver::test_combined_metadata
// LangGraph's put merges the config's metadata and configurable keys into the checkpoint's
// (get_checkpoint_metadata); ours takes the merged metadata (merge_config_metadata, as the run
// loop calls it). Our metadata always has `parents`.
BOOST_AUTO_TEST_CASE(test_combined_metadata) {
  auto saver = conformance::saver();
  const value config =
      object{{"configurable", object{{"thread_id", "thread-2"},
                                     {"checkpoint_ns", ""},
                                     {"__super_private_key", "super_private_value"}}},
             {"metadata", object{{"run_id", "my_run_id"}}}};
  checkpoint_metadata md = metadata_2();
  merge_config_metadata(md, config);
  const checkpoint cp = generate_checkpoint();
  saver->put(config_of("thread-2"), cp, md, {});
  const auto tuple = saver->get_tuple(config_of("thread-2"));
  BOOST_REQUIRE(tuple);
  BOOST_TEST(metadata_to_value(tuple->metadata) == value(object{{"source", "loop"},
                                                                {"step", 1},
                                                                {"parents", object{}},
                                                                {"writes", object{{"foo", "bar"}}},
                                                                {"score", value()},
                                                                {"run_id", "my_run_id"}}));
}

// libs/checkpoint/tests/test_memory.py::TestMemorySaver::test_search
// LangGraph's `list(None)` is our config without thread id with `every_namespace`; its config
// without checkpoint_ns is `every_namespace` too.
BOOST_AUTO_TEST_CASE(test_search) {
  auto saver = conformance::saver();
  put_search_data(*saver);
  const auto results_1 = search(*saver, {{"source", "input"}});  // by one key
  BOOST_REQUIRE_EQUAL(results_1.size(), 1u);
  BOOST_TEST(metadata_to_value(results_1[0].metadata) == metadata_to_value(metadata_1()));
  const auto results_2 = search(*saver, {{"step", 1}, {"writes", object{{"foo", "bar"}}}});
  BOOST_REQUIRE_EQUAL(results_2.size(), 1u);
  BOOST_TEST(metadata_to_value(results_2[0].metadata) == metadata_to_value(metadata_2()));
  BOOST_TEST(search(*saver, {}).size() == 3u);  // no keys: every checkpoint
  BOOST_TEST(search(*saver, {{"source", "update"}, {"step", 1}}).empty());

  // By config: every namespace of the thread.
  list_options every;
  every.every_namespace = true;
  const auto results_5 = saver->list(config_of("thread-2"), every);
  BOOST_REQUIRE_EQUAL(results_5.size(), 2u);
  BOOST_TEST((
      std::set<std::string>{results_5[0].config.checkpoint_ns, results_5[1].config.checkpoint_ns} ==
      std::set<std::string>{"", "inner"}));
}

// libs/checkpoint/tests/test_memory.py::TestInMemorySaverDeltaChannel::test_load_blobs_omits_delta_channel
// A channel whose version has no value stored (LangGraph's "empty" blob) is left out of the
// checkpoint's values, and stops no history walk.
BOOST_AUTO_TEST_CASE(test_load_blobs_omits_delta_channel) {
  auto saver = conformance::saver();
  const std::map<std::string, channel_version> versions{{"messages", 1}};
  const auto stored =
      saver->put(config_of("t1"), generate_checkpoint({}, versions), generate_metadata(), versions);
  const auto tuple = saver->get_tuple(stored);
  BOOST_REQUIRE(tuple);
  BOOST_TEST(tuple->checkpoint.channel_values.count("messages") == 0u);
  BOOST_TEST(tuple->checkpoint.channel_versions.at("messages") == 1u);
}

// libs/checkpoint/tests/test_memory.py::TestInMemorySaverDeltaChannel::test_get_channel_writes_collects_ancestor_writes_only
BOOST_AUTO_TEST_CASE(test_get_channel_writes_collects_ancestor_writes_only) {
  auto saver = conformance::saver();
  const auto chain = put_chain(*saver, "t1", 2);
  saver->put_writes(chain[0], {{"messages", object{{"content", "hi"}}}}, "task1", "");
  saver->put_writes(chain[1], {{"messages", object{{"content", "pending"}}}}, "task2", "");
  const auto result = saver->get_delta_channel_history(chain[1], {"messages"}).at("messages");
  BOOST_TEST(!result.seed.has_value());
  BOOST_TEST(values_of(result) == (std::vector<value>{object{{"content", "hi"}}}),
             boost::test_tools::per_element());
}

// libs/checkpoint/tests/test_memory.py::TestInMemorySaverDeltaChannel::test_get_channel_writes_at_root_returns_empty
BOOST_AUTO_TEST_CASE(test_get_channel_writes_at_root_returns_empty) {
  auto saver = conformance::saver();
  const auto chain = put_chain(*saver, "t1", 1);
  saver->put_writes(chain[0], {{"messages", object{{"content", "pending"}}}}, "task1", "");
  const auto result = saver->get_delta_channel_history(chain[0], {"messages"}).at("messages");
  BOOST_TEST(!result.seed.has_value());
  BOOST_TEST(result.writes.empty());
}

// libs/checkpoint/tests/test_memory.py::TestBaseFallbackGetChannelWrites::test_fallback_returns_ancestor_writes_oldest_first
BOOST_AUTO_TEST_CASE(test_fallback_returns_ancestor_writes_oldest_first) {
  base_history_saver saver(conformance::saver());
  const auto target = build_chain_with_writes(saver, "t1");
  const auto result = saver.get_delta_channel_history(target, {"messages"}).at("messages");
  BOOST_TEST(!result.seed.has_value());
  BOOST_TEST(values_of(result) ==
                 (std::vector<value>{object{{"content", "first"}}, object{{"content", "second"}}}),
             boost::test_tools::per_element());
  BOOST_TEST(saver.get_tuple_calls() == 3);  // the default walked with get_tuple
}

// libs/checkpoint/tests/test_memory.py::TestBaseFallbackGetChannelWrites::test_async_fallback_returns_ancestor_writes_oldest_first
// Ours has no async twin: the same default, called from another thread.
BOOST_AUTO_TEST_CASE(test_async_fallback_returns_ancestor_writes_oldest_first) {
  base_history_saver saver(conformance::saver());
  const auto target = build_chain_with_writes(saver, "t1");
  delta_channel_history result;
  std::thread([&] {
    result = saver.get_delta_channel_history(target, {"messages"}).at("messages");
  }).join();
  BOOST_TEST(!result.seed.has_value());
  BOOST_TEST(values_of(result) ==
                 (std::vector<value>{object{{"content", "first"}}, object{{"content", "second"}}}),
             boost::test_tools::per_element());
}

// libs/checkpoint/tests/test_memory.py::TestBaseFallbackGetChannelWrites::test_async_fallback_concurrent_tasks_do_not_interfere
// Two walks of the default at once, on two threads, each see every write.
BOOST_AUTO_TEST_CASE(test_async_fallback_concurrent_tasks_do_not_interfere) {
  base_history_saver saver(conformance::saver());
  const auto target = build_chain_with_writes(saver, "t1");
  std::vector<delta_channel_history> results(2);
  std::vector<std::thread> threads;
  for (auto& r : results)
    threads.emplace_back(
        [&] { r = saver.get_delta_channel_history(target, {"messages"}).at("messages"); });
  for (auto& t : threads) t.join();
  for (const auto& r : results) {
    BOOST_TEST(!r.seed.has_value());
    BOOST_TEST(values_of(r) == (std::vector<value>{object{{"content", "first"}},
                                                   object{{"content", "second"}}}),
               boost::test_tools::per_element());
  }
}

// libs/checkpoint/tests/test_memory.py::TestPreDeltaBlobTerminator::test_seed_from_pre_delta_ancestor_blob
BOOST_AUTO_TEST_CASE(test_seed_from_pre_delta_ancestor_blob) {
  auto saver = conformance::saver();
  const auto target = build_mixed_thread(*saver, "t1");
  const auto result = saver->get_delta_channel_history(target, {"messages"}).at("messages");
  BOOST_REQUIRE(result.seed);
  BOOST_TEST(*result.seed == value::array({"A"}));
  BOOST_TEST(values_of(result) == (std::vector<value>{"PRE-DELTA-WRITE", "B"}),
             boost::test_tools::per_element());
}

// libs/checkpoint/tests/test_memory.py::TestPreDeltaBlobTerminator::test_seed_bounds_walk_without_dropping_its_own_writes
BOOST_AUTO_TEST_CASE(test_seed_bounds_walk_without_dropping_its_own_writes) {
  auto saver = conformance::saver();
  const auto target = build_mixed_thread(*saver, "t1");
  const auto values =
      values_of(saver->get_delta_channel_history(target, {"messages"}).at("messages"));
  const auto has = [&](const char* v) {
    return std::find(values.begin(), values.end(), value(v)) != values.end();
  };
  BOOST_TEST(!has("OLDER-WRITE"));
  BOOST_TEST(has("PRE-DELTA-WRITE"));
  BOOST_TEST(!has("PENDING-AT-TARGET"));
}
