// Delta channels in checkpoints: rebuilt on load from the saver's history, snapshotted on
// save at LangGraph's cadence (pregel/_checkpoint.py, _loop.py's _put_checkpoint).
#include "superstep/pregel/delta_channels.hpp"

#include <algorithm>

#include "superstep/channels/delta_channel.hpp"

namespace superstep::detail {

delta_counters delta_counters_of(const checkpoint_metadata& meta) {
  delta_counters out;
  const value* stored = meta.extra.find(delta_counters_key);
  if (!stored || !stored->is_object()) return out;
  for (const auto& [channel, pair] : stored->as_object()) {
    if (!pair.is_list() || pair.as_list().size() != 2 || !pair.as_list()[0].is_int() ||
        !pair.as_list()[1].is_int())
      continue;
    out[channel] = {pair.as_list()[0].as_int(), pair.as_list()[1].as_int()};
  }
  return out;
}

void rebuild_delta_channels(algo::run_state& state, const algo::graph_index& index,
                            checkpoint_saver* saver, const checkpoint_config& at) {
  if (index.delta_channels.empty() || !saver || at.checkpoint_id.empty()) return;
  std::vector<std::string> missing;
  for (const auto& name : index.delta_channels)
    if (!state.checkpoint.channel_values.count(name)) missing.push_back(name);
  if (missing.empty()) return;
  auto histories = saver->get_delta_channel_history(at, missing);
  for (auto& [name, history] : histories) {
    auto it = state.channels.find(name);
    if (it == state.channels.end()) continue;
    // In place: the run state's node reads point at the channel objects.
    auto& channel = static_cast<channels::delta_channel&>(*it->second);
    channel.reseed(history.seed);
    std::vector<value> writes;
    writes.reserve(history.writes.size());
    for (auto& w : history.writes) writes.push_back(std::move(w.v));
    channel.replay(writes);
  }
}

bool is_delta_channel(const algo::graph_index& index, std::string_view channel) {
  return std::binary_search(index.delta_channels.begin(), index.delta_channels.end(), channel);
}

std::set<std::string> prepare_delta_checkpoint(algo::run_state& state,
                                               const algo::graph_index& index,
                                               delta_counters& counters,
                                               std::map<std::string, channel_version>& written,
                                               bool advance, delta_snapshots which,
                                               checkpoint_metadata& meta) {
  std::set<std::string> snapshotted;
  if (index.delta_channels.empty()) return snapshotted;
  checkpoint& cp = state.checkpoint;
  for (const auto& name : index.delta_channels) {
    auto& channel = static_cast<channels::delta_channel&>(*state.channels.at(name));
    const bool was_written = written.count(name) > 0;
    auto& [updates, steps] = counters[name];
    if (advance) {
      ++steps;
      if (was_written) ++updates;
    }
    auto due = [&] {
      return channel.take_overwritten() || updates >= channel.snapshot_frequency() ||
             steps >= index.delta_max_steps_since_snapshot;
    };
    bool snapshot = false;
    switch (which) {
      case delta_snapshots::none: break;
      case delta_snapshots::due: snapshot = due(); break;
      case delta_snapshots::all: snapshot = true; break;
      case delta_snapshots::all_written: snapshot = was_written || due(); break;
    }
    if (!snapshot) continue;
    snapshotted.insert(name);
    channel.take_overwritten();
    cp.channel_values[name] = channels::delta_snapshot(channel.get());
    if (!was_written) {
      // The snapshot is a new value of the channel: a new version, so the saver stores it.
      const channel_version next = ++state.max_version;
      cp.channel_versions[name] = next;
      written[name] = next;
    }
    updates = steps = 0;
  }
  object stored;
  for (const auto& [name, c] : counters)
    if (c.first != 0 || c.second != 0) stored.set(name, list{value(c.first), value(c.second)});
  if (stored.empty())
    meta.extra.erase(delta_counters_key);
  else
    meta.extra.set(std::string(delta_counters_key), value(std::move(stored)));
  return snapshotted;
}

}  // namespace superstep::detail
