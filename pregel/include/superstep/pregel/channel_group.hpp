#pragma once

// The channel side of a superstep for channels owned apart from the coordinator: what a
// channel actor does with the writes it receives. Plain data, no actor headers.

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "superstep/channels/channel.hpp"
#include "superstep/core/value.hpp"
#include "superstep/pregel/channel_name.hpp"

namespace superstep::actors {

/// Channels by name: a run's live channels, or a node actor's replica of those its node reads.
using channel_map = std::unordered_map<std::string, std::unique_ptr<channels::channel>>;

/// The tasks topic: LangGraph's TASKS channel, the Sends that the next step runs as PUSH tasks.
inline constexpr std::string_view tasks_topic = "__pregel_tasks";

/// One write of a step: `order` is the writing task's position in the step's task-path order
/// (LangGraph applies a step's writes in that order, whatever order they arrive in).
struct ordered_write {
  std::uint32_t order = 0;
  channel_name channel;
  value v;
};

/// A channel's checkpoint value, for a replica or a checkpoint (`present` false: the channel
/// is empty).
struct channel_delta {
  std::string channel;
  bool present = false;
  value v;

  /// The delta of `channel` holding `v` (none: the channel is empty).
  static channel_delta of(std::string channel, std::optional<value> v) {
    channel_delta d;
    d.channel = std::move(channel);
    if (v) {
      d.present = true;
      d.v = std::move(*v);
    }
    return d;
  }
};

/// What preparing a step changed in a group: the channels whose version the step bumps, with
/// their staged checkpoint values, those of them available afterwards (which may trigger
/// nodes next step), and their staged values for replicas.
struct group_changes {
  std::vector<channel_delta> changed;  ///< sorted by channel name
  std::vector<std::string> updated;    ///< sorted by channel name
  /// The staged values of the `changed` channels as a replica rebuilds them
  /// (`channel::transfer`, `channel::from_transfer`), in the same order: what a run reads
  /// includes what checkpoints leave out (an untracked value's, a delta channel's value).
  std::vector<channel_delta> values;
  /// The `changed` channels that hold a value readers see afterwards (is_available), sorted
  /// by name: what a coordinator that keeps versions and not values plans from.
  std::vector<std::string> available;
  /// The changed delta channels whose writes replaced their value (a snapshot is due: the
  /// writes before no longer rebuild it), sorted by name.
  std::vector<std::string> overwritten;
};

/// A group of a run's channels with a staged and a committed value for each: `prepare`
/// applies a step's writes to staged values, `commit` makes them the values readers see,
/// `abort` drops them. Between `prepare` and `commit`, readers see the values before the
/// step. Costs are O(channels changed), never O(channels owned). Not thread-safe: one owner.
class channel_group {
 public:
  /// Owns `channels` (by name), restored to their last committed values.
  explicit channel_group(
      std::unordered_map<std::string, std::unique_ptr<channels::channel>> channels);

  bool owns(const std::string& channel) const { return live_.count(channel) != 0; }
  /// Whether a step is prepared and neither committed nor aborted.
  bool staging() const noexcept { return staging_; }

  /// Stages a step, as LangGraph's apply_writes does to channels: consumes the channels in
  /// `consumed` that triggered the step's tasks, applies `writes` grouped by channel in
  /// `order`, and when `bump_step` lets unwritten channels that can clear learn that a step
  /// passed. Throws error(invalid_update) naming the channel when a channel refuses its
  /// writes or a write names a channel the group does not own; the step is then aborted.
  group_changes prepare(std::vector<ordered_write> writes, const std::vector<std::string>& consumed,
                        bool bump_step);
  /// The same, with the writes in parts (a step's chunks, as they came): read one after the
  /// other in the order of their first writes when each part is in `order` and none overlaps
  /// the next (a batch's tasks are consecutive in it), else merged and sorted first.
  group_changes prepare(std::vector<std::vector<ordered_write>> parts,
                        const std::vector<std::string>& consumed, bool bump_step);

  /// The step is tentatively the last (no updated channel triggers a node): deferred
  /// channels finish. Adds to the staged step what changed; returns only that.
  group_changes finish();

  /// The staged values become the committed ones.
  void commit();
  /// The staged values are dropped: the group is as before `prepare`.
  void abort();

  /// The committed value of `channel` as a replica takes it (`channel::transfer`: what a run
  /// reads, an untracked value's and a delta channel's too); nullopt when empty or not owned.
  std::optional<value> read(const std::string& channel) const;

 private:
  class stager;

  std::unordered_map<std::string, std::unique_ptr<channels::channel>> live_;
  // The channels of the staged step as they were before it, restored on abort.
  std::unordered_map<std::string, std::unique_ptr<channels::channel>> before_;
  std::unordered_set<std::string> volatile_available_;  // available channels that can clear
  std::vector<std::string> finishable_;
  bool staging_ = false;
};

}  // namespace superstep::actors
