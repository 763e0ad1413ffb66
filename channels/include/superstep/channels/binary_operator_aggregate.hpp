#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"
#include "superstep/channels/reducer.hpp"

namespace superstep::channels {

/// Folds every write into the current value with a reducer (LangGraph
/// `BinaryOperatorAggregate`): the channel of a state key declared with a reducer.
///
/// The channel starts at `initial` (LangGraph starts at the empty value of the key's type),
/// or empty when there is none; then the first write becomes the value as is. All the writes
/// of a step are folded in order with one `reducer::apply`, so built-in reducers cost
/// O(current + writes) per step.
///
/// A write that is an overwrite marker (see `overwrite()`) replaces the value instead of being
/// folded in, and as in LangGraph the step's other writes are then dropped: writes after it
/// are ignored, and writes before it are discarded with the value they were folded into (we
/// skip folding them). Two overwrites in one step are an invalid_update error. Reducer errors
/// are rethrown with their code and "At key '<key>': " before the message.
///
/// Not thread-safe, like every channel.
class binary_operator_aggregate final : public channel {
 public:
  /// Throws error(invalid_argument) when `op` has neither `binary` nor `fold`.
  binary_operator_aggregate(std::string key, reducer op,
                            std::optional<value> initial = std::nullopt);

  std::string_view type_name() const noexcept override { return "binary_operator_aggregate"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return true; }
  bool keeps_deltas() const noexcept override { return false; }

  /// The reducer (LangGraph's `operator`); the channel holds its own copy.
  const reducer& op() const noexcept { return reducer_; }

  /// The value an empty channel starts from, if any.
  const std::optional<value>& initial() const noexcept { return initial_; }

  /// A channel holding `checkpoint`, or starting from `initial` when it is nullopt.
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Folds the step's writes into the value; returns true when there was any write. On an
  /// error the value is left unchanged.
  bool update(std::span<const value> writes) override;

  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_.has_value(); }

  /// The value, or nullopt when empty.
  [[nodiscard]] std::optional<value> checkpoint() const override { return value_; }

 private:
  reducer reducer_;
  std::optional<value> initial_;
  std::optional<value> value_;
};

}  // namespace superstep::channels
