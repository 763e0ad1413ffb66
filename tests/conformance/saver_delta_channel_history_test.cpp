// LangGraph's checkpoint-conformance spec test_delta_channel_history.py (the
// DELTA_CHANNEL_HISTORY capability: checkpoint_saver::get_delta_channel_history), against the
// saver under test. LangGraph stores a `_DeltaSnapshot(v)` as the snapshot value; ours is the
// value itself, which the seed then is.

#include "saver_spec.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// _delta_fixtures.build_delta_chain: `total_steps` checkpoints, each the child of the one
// before; a step of `snapshots` stores `step` as the channel's value (at version step + 1), any
// other saves a write of `step` to the channel against its checkpoint. Oldest first.
std::vector<checkpoint_config> build_delta_chain(checkpoint_saver& saver, const std::string& tid,
                                                 const std::string& channel,
                                                 const std::set<int>& snapshots, int total_steps) {
  std::vector<checkpoint_config> stored;
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < total_steps; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions;
    if (snapshots.count(step)) {
      values[channel] = step;
      versions[channel] = static_cast<channel_version>(step + 1);
    }
    parent = put_child(saver, tid, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), versions);
    stored.push_back(*parent);
    if (!snapshots.count(step)) saver.put_writes(*parent, {{channel, step}}, uuid4(), "");
  }
  return stored;
}

// The values of a history's writes, oldest first.
std::vector<value> values_of(const delta_channel_history& h) {
  std::vector<value> out;
  for (const auto& w : h.writes) out.push_back(w.v);
  return out;
}

}  // namespace

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_returns_writes_oldest_first
BOOST_AUTO_TEST_CASE(test_history_returns_writes_oldest_first) {
  auto saver = conformance::saver();
  const auto configs = build_delta_chain(*saver, uuid4(), "ch", {0}, 5);
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  BOOST_TEST(values_of(result.at("ch")) == (std::vector<value>{1, 2, 3}),
             boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_seed_is_nearest_snapshot
BOOST_AUTO_TEST_CASE(test_history_seed_is_nearest_snapshot) {
  auto saver = conformance::saver();
  const auto configs = build_delta_chain(*saver, uuid4(), "ch", {0, 3}, 6);
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  BOOST_REQUIRE(result.at("ch").seed);
  BOOST_TEST(*result.at("ch").seed == value(3));
  BOOST_TEST(values_of(result.at("ch")) == (std::vector<value>{4}),
             boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_excludes_target_pending_writes
BOOST_AUTO_TEST_CASE(test_history_excludes_target_pending_writes) {
  auto saver = conformance::saver();
  const auto configs = build_delta_chain(*saver, uuid4(), "ch", {0}, 3);
  saver->put_writes(configs.back(), {{"ch", "extra"}}, uuid4(), "");
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  const auto values = values_of(result.at("ch"));
  BOOST_TEST(std::count(values.begin(), values.end(), value("extra")) == 0);
  BOOST_TEST(values == (std::vector<value>{1}), boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_multi_channel
BOOST_AUTO_TEST_CASE(test_history_multi_channel) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  std::vector<checkpoint_config> configs;
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < 5; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions;
    if (step == 1) values["a"] = "snap_a", versions["a"] = 2;
    if (step == 3) values["b"] = "snap_b", versions["b"] = 4;
    parent = put_child(*saver, tid, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), versions);
    configs.push_back(*parent);
    saver->put_writes(*parent, {{"a", step}, {"b", step}}, uuid4(), "");
  }
  const auto result = saver->get_delta_channel_history(configs.back(), {"a", "b"});
  BOOST_TEST(values_of(result.at("a")) == (std::vector<value>{1, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values_of(result.at("b")) == (std::vector<value>{3}),
             boost::test_tools::per_element());
  BOOST_TEST(*result.at("a").seed == value("snap_a"));
  BOOST_TEST(*result.at("b").seed == value("snap_b"));
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_empty_channels_returns_empty
BOOST_AUTO_TEST_CASE(test_history_empty_channels_returns_empty) {
  auto saver = conformance::saver();
  const auto configs = build_delta_chain(*saver, uuid4(), "ch", {0}, 3);
  BOOST_TEST(saver->get_delta_channel_history(configs.back(), {}).empty());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_walk_to_root_no_seed
BOOST_AUTO_TEST_CASE(test_history_walk_to_root_no_seed) {
  auto saver = conformance::saver();
  const auto configs = build_delta_chain(*saver, uuid4(), "ch", {}, 4);
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  BOOST_TEST(!result.at("ch").seed.has_value());
  BOOST_TEST(values_of(result.at("ch")) == (std::vector<value>{0, 1, 2}),
             boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_migration_plain_value_as_seed
BOOST_AUTO_TEST_CASE(test_history_migration_plain_value_as_seed) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  std::vector<checkpoint_config> configs;
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < 4; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions;
    if (step == 1) values["ch"] = value::array({10, 20, 30}), versions["ch"] = 2;
    parent = put_child(*saver, tid, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), versions);
    configs.push_back(*parent);
    if (step != 1) saver->put_writes(*parent, {{"ch", step}}, uuid4(), "");
  }
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  BOOST_REQUIRE(result.at("ch").seed);
  BOOST_TEST(*result.at("ch").seed == value::array({10, 20, 30}));
  BOOST_TEST(values_of(result.at("ch")) == (std::vector<value>{2}),
             boost::test_tools::per_element());
}

// libs/checkpoint-conformance/langgraph/checkpoint/conformance/spec/test_delta_channel_history.py::test_history_seed_ancestor_own_writes_are_replayed
BOOST_AUTO_TEST_CASE(test_history_seed_ancestor_own_writes_are_replayed) {
  auto saver = conformance::saver();
  const std::string tid = uuid4();
  const std::vector<std::string> writes_by_step{"older-than-seed", "at-seed", "after-seed",
                                                "pending-at-head"};
  const std::map<int, value> values_by_step{{0, value::array({10})}, {1, value::array({10, 20})}};
  std::vector<checkpoint_config> configs;
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < 4; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions;
    if (values_by_step.count(step)) {
      values["ch"] = values_by_step.at(step);
      versions["ch"] = static_cast<channel_version>(step + 1);
    }
    parent = put_child(*saver, tid, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), versions);
    configs.push_back(*parent);
    saver->put_writes(*parent, {{"ch", writes_by_step[static_cast<std::size_t>(step)]}}, uuid4(),
                      "");
  }
  const auto result = saver->get_delta_channel_history(configs.back(), {"ch"});
  BOOST_REQUIRE(result.at("ch").seed);
  BOOST_TEST(*result.at("ch").seed == value::array({10, 20}));
  BOOST_TEST(values_of(result.at("ch")) == (std::vector<value>{"at-seed", "after-seed"}),
             boost::test_tools::per_element());
}
