#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Stores the last value written, assuming that when several tasks write it in one step they
/// all write the same value (LangGraph `AnyValue`).
///
/// Unlike `last_value`, any number of writes per step is allowed and the last one wins. A step
/// that passes without a write clears the value. The checkpoint is the value itself.
///
/// Not thread-safe, like every channel.
class any_value final : public channel {
 public:
  explicit any_value(std::string key);

  std::string_view type_name() const noexcept override { return "any_value"; }
  bool clears_when_idle() const noexcept override { return true; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Keeps the last write; with no writes, clears the value and returns whether it had one.
  bool update(std::span<const value> writes) override;

  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_.has_value(); }

  /// The value, or nullopt when empty.
  [[nodiscard]] std::optional<value> checkpoint() const override { return value_; }

 private:
  std::optional<value> value_;
};

}  // namespace superstep::channels
