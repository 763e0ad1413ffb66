#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// Stores the last value written, but makes it readable only once the run is about to finish
/// (LangGraph `LastValueAfterFinish`). The trigger of a deferred node (`defer=True`), which
/// runs only when nothing else is left to run.
///
/// Any number of writes per step is allowed and the last one wins (several nodes may route to
/// the same deferred node); a write also withdraws an earlier `finish()`. `finish()` makes a
/// held value available; `consume()` then clears it. The checkpoint is the list
/// [value, finished], or nullopt when empty.
///
/// Not thread-safe, like every channel.
class last_value_after_finish final : public channel {
 public:
  explicit last_value_after_finish(std::string key);

  std::string_view type_name() const noexcept override { return "last_value_after_finish"; }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return true; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }
  bool holds_last_write_until_finish() const noexcept override { return true; }

  /// Restores from [value, finished]. Like LangGraph, any other checkpoint is taken as a bare
  /// value that is already finished (written by a channel that was not yet deferred).
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Keeps the last write and marks it unfinished; no writes: returns false.
  bool update(std::span<const value> writes) override;

  /// The value once finished; else throws error(empty_channel).
  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return value_ && finished_; }

  /// [value, finished], or nullopt when empty.
  [[nodiscard]] std::optional<value> checkpoint() const override;

  /// When finished, clears the value and returns true.
  bool consume() override;

  /// Marks a held value finished; returns whether that changed anything.
  bool finish() override;

 private:
  std::optional<value> value_;
  bool finished_ = false;
};

}  // namespace superstep::channels
