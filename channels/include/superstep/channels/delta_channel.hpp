#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "superstep/channels/channel.hpp"
#include "superstep/channels/reducer.hpp"

namespace superstep::channels {

/// A reducer channel whose checkpoints hold no value (LangGraph `DeltaChannel`): its value is
/// rebuilt from the writes that made it, saved as every task's pending writes are, folded
/// onto the nearest earlier snapshot. A checkpoint then costs what its step wrote, not the
/// size of the value (a long message list is not saved again at every step).
///
/// The reducer folds a batch of writes at once: `fold(state, writes)`, or `binary` one write
/// at a time. It must be deterministic and batching-invariant: folding `xs` then `ys` gives
/// what folding `xs + ys` gives, because a value is rebuilt from many steps' writes in one
/// batch. Every built-in reducer is (`builtin_reducer`).
///
/// The channel starts holding `empty` (LangGraph's `typ()`, an empty list unless given), so it
/// is always available. `checkpoint()` is always nullopt: the run loop stores a snapshot
/// (`delta_snapshot(value)`) in a checkpoint instead, every `snapshot_frequency` steps that
/// wrote the channel, at a step with an Overwrite, and where nothing else could rebuild it
/// (a thread's first update_state, a run saved only at exit).
///
/// A write that is an overwrite marker (`overwrite()`) replaces the value; the step's other
/// writes are dropped, and two overwrites in one step are an invalid_update error, as
/// binary_operator_aggregate. Reducer errors are rethrown with "At key '<key>': " before the
/// message. Not thread-safe, like every channel.
class delta_channel final : public channel {
 public:
  /// The number of updates between two snapshots unless a key says otherwise (LangGraph's).
  static constexpr std::int64_t default_snapshot_frequency = 1000;

  /// Throws error(invalid_argument) naming the key when `op` has no function or
  /// `snapshot_frequency` is not positive.
  delta_channel(std::string key, reducer op, value empty = value(list{}),
                std::int64_t snapshot_frequency = default_snapshot_frequency);

  std::string_view type_name() const noexcept override { return "delta"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return true; }
  bool keeps_deltas() const noexcept override { return true; }

  const reducer& op() const noexcept { return reducer_; }
  /// The value of a channel with no writes and no snapshot.
  const value& empty() const noexcept { return empty_; }
  /// A snapshot is due once this many steps wrote the channel since the last one.
  std::int64_t snapshot_frequency() const noexcept { return snapshot_frequency_; }

  /// A channel seeded with `checkpoint`: `empty` for nullopt, a snapshot's value, or any
  /// other value as is (a checkpoint saved while the key had another channel kind).
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Sets the value as `from_checkpoint(checkpoint)` would, in place.
  void reseed(const std::optional<value>& checkpoint);

  /// Folds one step's writes into the value; returns true when there was any write. On an
  /// error the value is left unchanged.
  bool update(std::span<const value> writes) override;

  /// Applies saved writes of many steps, oldest first, in one reducer call (LangGraph's
  /// `replay_writes`): the value after the last overwrite among them (or the current value)
  /// folded with the writes that follow it.
  void replay(std::span<const value> writes);

  [[nodiscard]] value get() const override { return value_; }
  [[nodiscard]] bool is_available() const override { return true; }

  /// Always nullopt: a checkpoint holds a snapshot only where the run loop puts one.
  [[nodiscard]] std::optional<value> checkpoint() const override { return std::nullopt; }
  [[nodiscard]] std::optional<value> transfer() const override { return value_; }

  /// Whether an update since the last `take_overwritten()` was an overwrite (a snapshot is
  /// then due: the writes before it no longer rebuild the value). Clears the flag.
  bool take_overwritten() noexcept override { return std::exchange(overwritten_, false); }
  /// Sets the flag `take_overwritten` reads: a replica told that its owner's update was one.
  void note_overwritten() noexcept override { overwritten_ = true; }

 private:
  value fold(const value& base, std::span<const value> writes) const;

  reducer reducer_;
  value empty_;
  std::int64_t snapshot_frequency_;
  value value_;
  bool overwritten_ = false;
};

/// A delta channel's value as a checkpoint stores it at a snapshot (LangGraph
/// `_DeltaSnapshot`): the object {"__delta_snapshot__": v}.
value delta_snapshot(value v);

/// If `stored` is a snapshot made by `delta_snapshot`, the value it carries.
const value* as_delta_snapshot(const value& stored) noexcept;

}  // namespace superstep::channels
