#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Holds the value written in the step just before, and nothing after that (LangGraph
/// `EphemeralValue`). Used for node triggers (`branch:to:<node>`) and the START input.
///
/// A step without writes clears the value. With `guard` (the default) a step may write it at
/// most once, and more writes are an invalid_update error naming the key; without `guard` the
/// last write wins. The checkpoint is the value itself, so an interrupted step resumes with
/// the trigger still set.
///
/// Not thread-safe, like every channel.
class ephemeral_value final : public channel {
 public:
  explicit ephemeral_value(std::string key, bool guard = true);

  std::string_view type_name() const noexcept override { return "ephemeral_value"; }
  bool clears_when_idle() const noexcept override { return true; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  /// Whether more than one write per step is an error.
  bool guard() const noexcept { return guard_; }

  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Keeps the step's write; with no writes, clears and returns whether there was a value.
  /// Throws error(invalid_update) on more than one write when guarded.
  bool update(std::span<const value> writes) override;

  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_.has_value(); }

  /// The value, or nullopt when empty.
  [[nodiscard]] std::optional<value> checkpoint() const override { return value_; }

 private:
  bool guard_;
  std::optional<value> value_;
};

}  // namespace superstep::channels
