#pragma once

#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Waits until every one of a set of names has been written (LangGraph `NamedBarrierValue`).
/// `add_edge([a, b], c)` joins through one, `join:a+b:c`, that nodes a and b write their
/// names to.
///
/// Writes are names; a write that is not one of `names` is an invalid_update error naming the
/// key and the write. Names accumulate across steps until all have been seen; then the
/// channel is available and `get()` returns a null value. `consume()` (after the triggered
/// node ran) starts over. The checkpoint is the sorted list of names seen so far (nullopt when
/// none), so a barrier half passed before an interruption stays half passed.
///
/// Not thread-safe, like every channel.
class named_barrier_value final : public channel {
 public:
  named_barrier_value(std::string key, std::vector<std::string> names);

  std::string_view type_name() const noexcept override { return "named_barrier_value"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  /// The names the barrier waits for, sorted and without duplicates.
  const std::set<std::string>& names() const noexcept { return names_; }

  /// Restores the seen names; throws error(invalid_argument) for a checkpoint that is not a
  /// list of strings among `names`.
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Records the names written; returns whether a name was seen for the first time.
  /// Throws error(invalid_update) for a write that is not one of `names`.
  bool update(std::span<const value> writes) override;

  /// A null value once every name has been seen; else throws error(empty_channel).
  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return seen_.size() == names_.size(); }

  /// The sorted list of seen names, or nullopt when none.
  [[nodiscard]] std::optional<value> checkpoint() const override;

  /// When every name has been seen, forgets them all and returns true.
  bool consume() override;

 private:
  std::set<std::string> names_;
  std::set<std::string> seen_;  // a subset of names_
};

}  // namespace superstep::channels
