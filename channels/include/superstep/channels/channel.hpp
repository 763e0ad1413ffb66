#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/core/value.hpp"

namespace superstep::channels {

/// A channel: the unit of state and communication between nodes (LangGraph BaseChannel).
///
/// A channel holds a value, is updated once per superstep with all the writes made to it in
/// that step (in task-path order), and can be saved to and restored from a checkpoint value.
/// Channels are not thread-safe; one owner (the coordinator, or a node replica) mutates them.
class channel {
 public:
  explicit channel(std::string key) : key_(std::move(key)) {}
  virtual ~channel() = default;
  channel(const channel&) = default;
  channel& operator=(const channel&) = delete;

  /// The state key or channel name this channel is bound to; used in error messages.
  const std::string& key() const noexcept { return key_; }

  /// The channel type as written in graph specs ("last_value", "topic", ...).
  virtual std::string_view type_name() const noexcept = 0;

  // What the step algorithm must know of a kind, each kind saying it (no default: a new kind
  // decides rather than falls through).

  /// Whether a step that passed without writes to it can change it (ephemeral values clear,
  /// AnyValue empties): a step visits it then; any other kind keeps its value, so a step
  /// skips it and stays O(changed).
  [[nodiscard]] virtual bool clears_when_idle() const noexcept = 0;
  /// Whether it waits for the graph to finish before it shows its value (`finish()` matters).
  [[nodiscard]] virtual bool finishes_deferred() const noexcept = 0;
  /// Whether what it shows changes only when it is written (no consume, finish or clearing):
  /// an output of such channels can be read once when the run ends.
  [[nodiscard]] virtual bool stays_until_written() const noexcept = 0;
  /// Whether it keeps its value out of checkpoints, which hold its writes (delta_channel).
  [[nodiscard]] virtual bool keeps_deltas() const noexcept = 0;

  // What the runtime asks of a few kinds only; the default is the answer of every other kind.

  /// Whether its next value never starts with this one's elements, so that a saver that
  /// writes a list as what was added to the last one need not keep it
  /// (checkpoint_changes::not_extended): a topic without accumulate. False, the safe answer,
  /// unless a kind promises it.
  [[nodiscard]] virtual bool never_extends_last_value() const noexcept { return false; }
  /// Whether it holds the last value written and shows it only once the run is about to
  /// finish (LangGraph `LastValueAfterFinish`): the trigger a deferred node's edges and
  /// branches write. The graph drawing finds deferred nodes by it.
  [[nodiscard]] virtual bool holds_last_write_until_finish() const noexcept { return false; }

  /// A new channel of the same type and configuration, restored from `checkpoint` (the result
  /// of `checkpoint()`), or empty when `checkpoint` is nullopt.
  [[nodiscard]] virtual std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const = 0;

  /// An independent copy with the same current value (values themselves are shared).
  [[nodiscard]] virtual std::unique_ptr<channel> copy() const = 0;

  /// Applies all writes of one step, in order. Returns whether the channel changed.
  /// Called with an empty span for channels nobody wrote, so ephemeral channels can clear.
  /// Throws `superstep::error` with code invalid_update when the writes are not allowed.
  virtual bool update(std::span<const value> writes) = 0;

  /// The current value. Throws `superstep::error` with code empty_channel when empty.
  [[nodiscard]] virtual value get() const = 0;

  /// Whether `get()` would return a value.
  [[nodiscard]] virtual bool is_available() const = 0;

  /// The value to persist, or nullopt when there is nothing to save (empty or untracked).
  [[nodiscard]] virtual std::optional<value> checkpoint() const = 0;

  /// The value that gives an equal channel through `from_checkpoint` (a node actor's replica
  /// is restored from it). The checkpoint value, unless the channel keeps its value out of
  /// checkpoints (delta_channel).
  [[nodiscard]] virtual std::optional<value> transfer() const { return checkpoint(); }

  /// A new channel of the same type and configuration holding what `transfer()` gave: the
  /// same value, including what checkpoints leave out (an untracked value's). A replica of a
  /// channel owned elsewhere is rebuilt with it.
  [[nodiscard]] virtual std::unique_ptr<channel> from_transfer(
      const std::optional<value>& transferred) const {
    return from_checkpoint(transferred);
  }

  /// Called after a node that was triggered by this channel has run. Returns whether the
  /// channel changed (e.g. a named barrier resets).
  virtual bool consume() { return false; }

  /// Called when the graph is about to finish (no more tasks). Returns whether it changed.
  virtual bool finish() { return false; }

  /// Lets go of values that the caller holds elsewhere, keeping only that there are some,
  /// and returns them: the tasks topic's Sends (see topic::release). Null when it did
  /// nothing, as every kind but a topic does.
  virtual value release() { return value(); }

  /// Whether an update since the last `take_overwritten()` replaced the value instead of
  /// folding into it, so that a checkpoint must hold a snapshot of it (only delta_channel keeps
  /// its value out of checkpoints; every other kind returns false). Clears the note.
  virtual bool take_overwritten() noexcept { return false; }

  /// Notes what `take_overwritten` reports: a replica told that its owner's update replaced
  /// the value. Does nothing on a channel whose checkpoints hold its value.
  virtual void note_overwritten() noexcept {}

 private:
  std::string key_;
};

/// Marks a write to a reducer channel that replaces the value instead of folding into it
/// (LangGraph `Overwrite`). Represented as the object {"__overwrite__": v}.
value overwrite(value v);

/// If `write` is an overwrite marker, the value it carries. Like LangGraph, also recognises
/// {"type": "__overwrite__", "value": v}, the form an `Overwrite` takes once serialised to JSON.
const value* as_overwrite(const value& write) noexcept;

}  // namespace superstep::channels
