#pragma once

// The channel side of a superstep (LangGraph's apply_writes without versions): what happens
// to a set of channels when a step's writes are applied. The coordinator's run state and a
// channel actor's group both use it, so the two follow one rule.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Channels by name.
using channel_map = std::unordered_map<std::string, std::unique_ptr<channel>>;

/// A step's writes to one channel, in task-path order.
struct write_group {
  const std::string* name;
  channel* target;
  std::vector<value> values;
};

/// A step's writes grouped by channel as they are collected. Finding a channel's group costs
/// O(1): the last one found or the one after it, a look through a few, or a hash lookup once
/// there are more. Once every write is in, `all` goes to `apply_step`, which sorts it: `find`
/// and `add` are not called after that.
class write_groups {
 public:
  std::vector<write_group> all;

  /// The group of `channel`, or null. Valid until the next `add`.
  write_group* find(std::string_view channel);
  /// A new group for `name` (which outlives this) writing to `target`.
  write_group& add(const std::string& name, channel& target);

 private:
  static constexpr std::size_t few = 8;
  std::unordered_map<std::string_view, std::size_t> index_;  // built past `few` groups
  std::size_t last_ = 0;
};

/// Told about each channel a step may change (before the call that may change it) and each
/// one it changed (`available`: whether it holds a value afterwards). Called O(channels
/// changed) times, never per write.
class step_observer {
 public:
  virtual ~step_observer() = default;
  /// `name` is the channel's key in the step's channel map (it outlives the step).
  virtual void before_change(const std::string& /*name*/, channel& /*c*/) {}
  virtual void changed(const std::string& name, channel& c, bool available) = 0;
};

/// Keeps `volatile_available` (the available channels that can change without writes) true
/// for `c` after it changed.
void note_availability(std::unordered_set<std::string>& volatile_available, const std::string& name,
                       const channel& c);

/// Applies a step: consumes `consumed` (channels that triggered its tasks; a consume is reported
/// with available false: it never triggers a node), updates each channel of `groups` with its
/// writes (in channel name order, so results do not depend on hashing; `groups` is sorted in
/// place), and when `bump_step` lets the unwritten channels of `volatile_available` learn that a
/// step passed (ephemeral values clear).
void apply_step(channel_map& channels, std::unordered_set<std::string>& volatile_available,
                const std::vector<std::string>& consumed, std::vector<write_group>& groups,
                bool bump_step, step_observer& observer);

/// The step is tentatively the last one: the `finishable` channels (deferred ones) finish.
void finish_step(channel_map& channels, std::unordered_set<std::string>& volatile_available,
                 const std::vector<std::string>& finishable, step_observer& observer);

}  // namespace superstep::channels
