#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Stores the last value written but is never checkpointed (LangGraph `UntrackedValue`): for
/// state that must not be persisted, such as handles or secrets.
///
/// With `guard` (the default) a step may write it at most once, and more writes are an
/// invalid_update error naming the key; without `guard` the last write wins. A step without
/// writes keeps the value. An overwrite marker (see `overwrite()`) stores the value it
/// carries. `checkpoint()` is always nullopt and `from_checkpoint` always gives an empty
/// channel, so after a resume the value is gone until written again (`transfer()` keeps it for
/// the run's replicas). The runtime also strips
/// writes to it from persisted pending writes.
///
/// Not thread-safe, like every channel.
class untracked_value final : public channel {
 public:
  explicit untracked_value(std::string key, bool guard = true);

  std::string_view type_name() const noexcept override { return "untracked_value"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  /// Whether more than one write per step is an error.
  bool guard() const noexcept { return guard_; }

  /// An empty channel with the same key and guard; the checkpoint is ignored.
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  /// A copy that keeps the current value (copies are in-memory, not persisted).
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Keeps the step's write; no writes: returns false and keeps the value.
  /// Throws error(invalid_update) on more than one write when guarded.
  bool update(std::span<const value> writes) override;

  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_.has_value(); }

  /// Always nullopt: this channel is never persisted.
  [[nodiscard]] std::optional<value> checkpoint() const override { return std::nullopt; }
  /// The value, for a replica in this run (never persisted).
  [[nodiscard]] std::optional<value> transfer() const override { return value_; }
  /// A channel holding `transferred` (a replica of one owned elsewhere in the same run).
  [[nodiscard]] std::unique_ptr<channel> from_transfer(
      const std::optional<value>& transferred) const override;

 private:
  bool guard_;
  std::optional<value> value_;
};

}  // namespace superstep::channels
