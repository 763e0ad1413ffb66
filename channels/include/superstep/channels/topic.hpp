#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "superstep/channels/channel.hpp"

namespace superstep::channels {

/// A pub-sub topic: its value is the list of values written to it (LangGraph `Topic`). The
/// runtime sends `Send` packets through one (`__pregel_tasks`).
///
/// Writes are flattened: a write that is a list contributes its elements, any other write
/// contributes itself. Without `accumulate` (the default) each step starts from an empty list,
/// so the value is what the previous step wrote and a step without writes clears it; with
/// `accumulate` the writes of every step are appended. An empty topic is not available and
/// `get()` throws empty_channel. The checkpoint is the list (nullopt when empty).
///
/// The list is held as one immutable shared value, so `get()` is O(1) and a step costs
/// O(values kept + values written).
///
/// Not thread-safe, like every channel.
class topic final : public channel {
 public:
  explicit topic(std::string key, bool accumulate = false);

  std::string_view type_name() const noexcept override { return "topic"; }
  bool clears_when_idle() const noexcept override { return true; }
  bool finishes_deferred() const noexcept override { return false; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  /// Whether values are kept across steps.
  bool accumulate() const noexcept { return accumulate_; }
  /// Without accumulate, each step's list starts afresh.
  bool never_extends_last_value() const noexcept override { return !accumulate_; }

  /// Restores from a list checkpoint; throws error(invalid_argument) for anything else.
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Appends the flattened writes, after clearing unless accumulating. Returns whether the
  /// list changed: true when anything was written, or when a non-empty list was cleared.
  bool update(std::span<const value> writes) override;

  /// The list of values; throws error(empty_channel) when it is empty.
  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override;

  /// The list, or nullopt when empty.
  [[nodiscard]] std::optional<value> checkpoint() const override;

  /// Lets go of the values, keeping only that there are some, and returns them (null when it
  /// did nothing: an empty or accumulating topic): the tasks topic, once what else needs the
  /// Sends has them (the coordinator, from a channel actor's vote; the checkpoint that holds
  /// them, saved), its PUSH tasks planned from what it returns. The next update clears it as
  /// it would the values, and reports the change; until then `get` and `checkpoint` are an
  /// internal error.
  value release() override;

 private:
  bool accumulate_;
  bool released_ = false;
  value values_;  // always a list
};

}  // namespace superstep::channels
