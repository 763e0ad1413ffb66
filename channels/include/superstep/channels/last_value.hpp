#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Stores the last value written to it (LangGraph `LastValue`): the channel of a state key
/// without a reducer.
///
/// A step may write it at most once; two or more writes in one step are an invalid_update
/// error that names the key, because the result would depend on task order. A step without
/// writes leaves the value as it is. The checkpoint is the value itself.
///
/// Not thread-safe, like every channel.
class last_value final : public channel {
 public:
  explicit last_value(std::string key);

  std::string_view type_name() const noexcept override { return "last_value"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return true; }
  bool keeps_deltas() const noexcept override { return false; }

  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Takes the single write of the step; no writes: returns false and keeps the value.
  /// Throws error(invalid_update) on more than one write.
  bool update(std::span<const value> writes) override;

  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_.has_value(); }

  /// The value, or nullopt before the first write.
  [[nodiscard]] std::optional<value> checkpoint() const override { return value_; }

 private:
  std::optional<value> value_;
};

}  // namespace superstep::channels
