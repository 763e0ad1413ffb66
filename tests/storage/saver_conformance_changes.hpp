#pragma once

// Conformance checks of `checkpoint_saver::put_changes`: a saver told what changed may store a
// checkpoint's version maps as what changed (version_chains.hpp); every checkpoint must still
// read back whole, through forks, siblings, pruning and copies.

#include <map>
#include <string>
#include <vector>

#include "saver_test_support.hpp"

namespace superstep::conformance {

/// Builds a line of checkpoints of a graph of many channels and nodes, a few changing a step,
/// and remembers each whole, as the run loop would have it.
class changing_graph {
 public:
  static constexpr int channels = 60, nodes = 40;

  explicit changing_graph(checkpoint_saver& saver, std::string thread = "t")
      : saver_(saver), thread_(std::move(thread)) {
    for (int c = 0; c < channels; ++c) {
      cp_.channel_versions["c" + std::to_string(c)] = ++version_;
      cp_.channel_values["c" + std::to_string(c)] = c;
    }
    for (int n = 0; n < nodes; ++n)
      cp_.versions_seen["n" + std::to_string(n)] = {{"c" + std::to_string(n), 1}};
  }

  /// Puts the first checkpoint (no parent), all of it new.
  checkpoint_config start() {
    checkpoint_changes all;
    for (const auto& [channel, version] : cp_.channel_versions) all.versions[channel] = version;
    for (const auto& [node, _] : cp_.versions_seen) all.seen.insert(node);
    return put("", all, -1);
  }

  /// Step `i` from `parent`: two channels get new versions and values, one node new seen
  /// versions (every 7th step a node seen for the first time).
  checkpoint_config step(const checkpoint_config& parent, int i) {
    checkpoint_changes changes;
    ++version_;
    for (int c : {i % channels, (i * 7 + 3) % channels}) {
      const std::string name = "c" + std::to_string(c);
      cp_.channel_versions[name] = version_;
      cp_.channel_values[name] = i * 1000 + c;
      changes.versions[name] = version_;
    }
    const std::string node =
        i % 7 == 0 ? "late" + std::to_string(i) : "n" + std::to_string(i % nodes);
    cp_.versions_seen[node]["c" + std::to_string(i % channels)] = version_;
    changes.seen.insert(node);
    return put(parent.checkpoint_id, changes, i);
  }

  /// Makes the checkpoint `id` the current one (to fork from it).
  void rewind(const std::string& id) { cp_ = expected_.at(id); }

  /// Every checkpoint put, by id, as it was put.
  const std::map<std::string, checkpoint>& expected() const { return expected_; }
  const std::string& thread() const { return thread_; }

 private:
  checkpoint_config put(const std::string& parent, const checkpoint_changes& changes, int step) {
    cp_.id = ids_.next();
    cp_.ts = now_iso8601();
    auto stored = saver_.put_changes({thread_, "", parent}, cp_, loop_metadata(step), changes);
    expected_[cp_.id] = cp_;
    return stored;
  }

  checkpoint_saver& saver_;
  std::string thread_;
  checkpoint cp_;
  channel_version version_ = 0;
  checkpoint_id_generator ids_;
  std::map<std::string, checkpoint> expected_;
};

/// Every checkpoint of `g` (those of `ids`, or all) reads back as it was put, alone and in
/// the thread's history.
inline void expect_all_read_back(checkpoint_saver& saver, const changing_graph& g,
                                 const std::string& thread) {
  std::size_t checked = 0;
  for (const auto& t : saver.list({thread, "", ""}, {})) {
    auto it = g.expected().find(t.checkpoint.id);
    BOOST_REQUIRE(it != g.expected().end());
    BOOST_TEST(checkpoint_value(t.checkpoint) == checkpoint_value(it->second));
    auto alone = saver.get_tuple({thread, "", t.checkpoint.id});
    BOOST_REQUIRE(alone);
    BOOST_TEST(checkpoint_value(alone->checkpoint) == checkpoint_value(it->second));
    ++checked;
  }
  BOOST_TEST(checked > 0u);
}

inline void put_changes_reads_back_every_checkpoint_of_a_long_line(checkpoint_saver& saver) {
  changing_graph g(saver);
  auto at = g.start();
  std::vector<checkpoint_config> line{at};
  for (int i = 1; i <= 150; ++i) line.push_back(at = g.step(at, i));
  BOOST_TEST(saver.list({"t", "", ""}, {}).size() == 151u);
  expect_all_read_back(saver, g, "t");
  channel_version max = 0;
  for (const auto& [_, v] : g.expected().at(at.checkpoint_id).channel_versions)
    max = std::max(max, v);
  BOOST_TEST(saver.latest_version({"t", "", ""}) == max);
}

inline void put_changes_forks_and_siblings_read_back(checkpoint_saver& saver) {
  changing_graph g(saver);
  auto at = g.start();
  std::vector<checkpoint_config> line{at};
  for (int i = 1; i <= 40; ++i) line.push_back(at = g.step(at, i));
  // A fork from step 20, going on for a while.
  g.rewind(line[20].checkpoint_id);
  auto fork = line[20];
  for (int i = 100; i < 130; ++i) fork = g.step(fork, i);
  // Back to the first line's end: a sibling of its last checkpoint, then a child of that.
  g.rewind(line[39].checkpoint_id);
  auto sibling = g.step(line[39], 200);
  g.step(sibling, 201);
  // The first line goes on from its last checkpoint.
  g.rewind(line[40].checkpoint_id);
  g.step(line[40], 300);
  expect_all_read_back(saver, g, "t");
}

inline void put_changes_prune_and_copy_keep_checkpoints_whole(checkpoint_saver& saver) {
  changing_graph g(saver);
  auto at = g.start();
  for (int i = 1; i <= 45; ++i) at = g.step(at, i);
  saver.copy_thread("t", "copy");
  saver.prune({"t"}, 3);
  BOOST_TEST(saver.list({"t", "", ""}, {}).size() == 3u);
  expect_all_read_back(saver, g, "t");
  expect_all_read_back(saver, g, "copy");
  BOOST_TEST(saver.list({"copy", "", ""}, {}).size() == 46u);
  // The line goes on after pruning.
  for (int i = 46; i <= 60; ++i) at = g.step(at, i);
  expect_all_read_back(saver, g, "t");
  saver.delete_thread("copy");
  BOOST_TEST(saver.list({"copy", "", ""}, {}).empty());
}

// get_delta_channel_history through checkpoints put with what changed: the parent of the head
// stored its version maps without the channel that did not change, yet holds its value (stored
// at the first checkpoint), so the walk stops there, with that checkpoint's writes only.
inline void delta_channel_history_reads_checkpoints_put_with_changes(checkpoint_saver& saver) {
  changing_graph g(saver);
  std::vector<checkpoint_config> line{g.start()};
  for (int i = 1; i <= 20; ++i) {
    saver.put_writes(line.back(), {{"c58", "w" + std::to_string(i)}}, "task", "");
    line.push_back(g.step(line.back(), i));  // steps 1..20 leave c58 alone
  }
  const auto history = saver.get_delta_channel_history(line.back(), {"c58", "missing"});
  BOOST_REQUIRE(history.at("c58").seed);
  BOOST_TEST(*history.at("c58").seed == value(58));
  BOOST_TEST(writes_value(history.at("c58").writes) ==
             value::array({value::array({"task", "c58", "w20"})}));
  BOOST_TEST(!history.at("missing").seed.has_value());
  BOOST_TEST(history.at("missing").writes.empty());
}

}  // namespace superstep::conformance
