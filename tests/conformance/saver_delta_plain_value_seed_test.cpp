// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py: get_delta_channel_history
// finds a delta channel's seed whatever kind of value the ancestor stores (a plain value left
// by a reducer key, a snapshot, a primitive, a bool), and walks past a version stored without
// a value; against the saver under test instead of PostgresSaver (its async API is the
// sync one here).
#include "saver_spec.hpp"
#include "superstep/channels/delta_channel.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const std::string channel = "items";

// _build_chain: four checkpoints, each the child of the one before; step 1 stores `seed` as
// the channel's value, the others a version without one; each step saves a write "w<step>".
// The head's config.
checkpoint_config build_chain(checkpoint_saver& saver, const value& seed) {
  const std::string thread_id = uuid4();
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < 4; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions{
        {channel, static_cast<channel_version>(step + 1)}};
    std::map<std::string, channel_version> new_versions;
    if (step == 1) {
      values[channel] = seed;
      new_versions = versions;
    }
    parent = put_child(saver, thread_id, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), new_versions);
    saver.put_writes(*parent, {{channel, "w" + std::to_string(step)}}, uuid4(), "");
  }
  return *parent;
}

std::string write_values(const delta_channel_history& h) {
  std::string out;
  for (const auto& w : h.writes) out += w.v.as_string() + ",";
  return out;
}

}  // namespace

// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py::test_plain_value_seed_is_found
BOOST_AUTO_TEST_CASE(test_plain_value_seed_is_found) {
  auto s = saver();
  const checkpoint_config head = build_chain(*s, list{10, 20});
  auto entry = s->get_delta_channel_history(head, {channel})[channel];
  BOOST_TEST_REQUIRE(entry.seed.has_value(), "expected the plain value as seed");
  BOOST_TEST(entry.seed->to_json() == "[10,20]");
  BOOST_TEST(write_values(entry) == "w1,w2,");
}

// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py::test_delta_snapshot_seed_is_found
BOOST_AUTO_TEST_CASE(test_delta_snapshot_seed_is_found) {
  auto s = saver();
  const checkpoint_config head = build_chain(*s, channels::delta_snapshot(list{10, 20}));
  auto entry = s->get_delta_channel_history(head, {channel})[channel];
  BOOST_TEST_REQUIRE(entry.seed.has_value());
  const value* snapshot = channels::as_delta_snapshot(*entry.seed);
  BOOST_TEST_REQUIRE(snapshot, "expected a snapshot, got " << entry.seed->to_json());
  BOOST_TEST(snapshot->to_json() == "[10,20]");
  BOOST_TEST(write_values(entry) == "w1,w2,");
}

// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py::test_version_bump_without_a_value_does_not_hide_an_older_seed
BOOST_AUTO_TEST_CASE(test_version_bump_without_a_value_does_not_hide_an_older_seed) {
  auto s = saver();
  const std::string thread_id = uuid4();
  std::optional<checkpoint_config> parent;
  for (int step = 0; step < 4; ++step) {
    std::map<std::string, value> values;
    std::map<std::string, channel_version> versions, new_versions;
    if (step == 0) {
      values[channel] = list{10, 20};
      versions[channel] = new_versions[channel] = 1;
    } else if (step == 1) {
      versions[channel] = new_versions[channel] = 2;  // a new version, no value stored
    } else {
      versions[channel] = 2;
    }
    parent = put_child(*s, thread_id, "", parent, generate_checkpoint(values, versions),
                       generate_metadata("loop", step), new_versions);
    s->put_writes(*parent, {{channel, "w" + std::to_string(step)}}, uuid4(), "");
  }
  auto entry = s->get_delta_channel_history(*parent, {channel})[channel];
  BOOST_TEST_REQUIRE(entry.seed.has_value(), "the walk stopped at the version without a value");
  BOOST_TEST(entry.seed->to_json() == "[10,20]");
  BOOST_TEST(write_values(entry) == "w0,w1,w2,");
}

// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py::test_inline_primitive_seed_is_found
// (PostgresSaver cannot tell a stored null from no value and walks on; our savers store null
// as a value, so it is the seed like any other)
BOOST_AUTO_TEST_CASE(test_inline_primitive_seed_is_found) {
  auto s = saver();
  for (const value& seed : {value(42), value("x"), value(3.5), value()}) {
    const checkpoint_config head = build_chain(*s, seed);
    auto entry = s->get_delta_channel_history(head, {channel})[channel];
    BOOST_TEST_REQUIRE(entry.seed.has_value(), seed.to_json());
    BOOST_TEST(*entry.seed == seed);
    BOOST_TEST(write_values(entry) == "w1,w2,");
  }
}

// libs/checkpoint-postgres/tests/test_delta_plain_value_seed.py::test_inline_true_is_not_read_as_a_snapshot_marker
BOOST_AUTO_TEST_CASE(test_inline_true_is_not_read_as_a_snapshot_marker) {
  auto s = saver();
  auto entry = s->get_delta_channel_history(build_chain(*s, true), {channel})[channel];
  BOOST_TEST_REQUIRE(entry.seed.has_value());
  BOOST_TEST(*entry.seed == value(true));
  BOOST_TEST(!channels::as_delta_snapshot(*entry.seed));

  auto snap = s->get_delta_channel_history(build_chain(*s, channels::delta_snapshot(true)),
                                           {channel})[channel];
  BOOST_TEST_REQUIRE(snap.seed.has_value());
  const value* carried = channels::as_delta_snapshot(*snap.seed);
  BOOST_TEST_REQUIRE(carried);
  BOOST_TEST(*carried == value(true));
}
