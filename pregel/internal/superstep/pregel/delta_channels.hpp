#pragma once

// Internal: what the run loop and the state API do for delta channels (LangGraph's
// pregel/_checkpoint.py): rebuild them from a saver's history when a checkpoint is loaded, and
// decide which get a snapshot in a new checkpoint, with the counters its metadata carries.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/pregel/algo.hpp"

namespace superstep::detail {

/// The metadata key of the counters (LangGraph's `counters_since_delta_snapshot`).
inline constexpr std::string_view delta_counters_key = "counters_since_delta_snapshot";

/// Per delta channel, since its last snapshot: (steps that wrote it, steps). Channels at
/// (0, 0) are left out, as the metadata leaves them out.
using delta_counters = std::map<std::string, std::pair<std::int64_t, std::int64_t>>;

/// The counters of a checkpoint's metadata (none when it has none or they are malformed).
delta_counters delta_counters_of(const checkpoint_metadata& meta);

/// Rebuilds each delta channel of `state` that its checkpoint holds no value for: seeded with
/// the value stored at the nearest ancestor of checkpoint `at` that has one, and the writes
/// saved since folded in (one saver call for all of them). Without a saver, or a checkpoint
/// id, the channels stay as restored (empty).
void rebuild_delta_channels(algo::run_state& state, const algo::graph_index& index,
                            checkpoint_saver* saver, const checkpoint_config& at);

/// Which delta channels a new checkpoint snapshots.
enum class delta_snapshots : std::uint8_t {
  none,         ///< none (a checkpoint saved later, under exit durability)
  due,          ///< a step: those whose counters reached the cadence, or that were overwritten
  all,          ///< every delta channel (nothing before the checkpoint can rebuild them)
  all_written,  ///< those due, and every one in `written` (a checkpoint whose steps' writes
                ///< are saved nowhere)
};

/// Prepares the delta channels of the checkpoint `state` holds, about to be saved with
/// `meta`, `written` being the channels written since the last saved checkpoint. With
/// `advance`, the counters count one more step (and a write for each channel in `written`).
/// Each channel snapshotted gets its value stored as `channels::delta_snapshot` in the
/// checkpoint (with a new version when it was not written, added to `written`) and its
/// counters reset; the counters left are put in `meta`. Costs nothing for a graph without
/// delta channels, and no value is copied unless a snapshot is due.
/// Returns the channels snapshotted.
std::set<std::string> prepare_delta_checkpoint(algo::run_state& state,
                                               const algo::graph_index& index,
                                               delta_counters& counters,
                                               std::map<std::string, channel_version>& written,
                                               bool advance, delta_snapshots which,
                                               checkpoint_metadata& meta);

/// Whether `channel` is a delta channel of the graph.
bool is_delta_channel(const algo::graph_index& index, std::string_view channel);

}  // namespace superstep::detail
