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

/// A named barrier that, once every name has been written, still waits for the run to be
/// about to finish (LangGraph `NamedBarrierValueAfterFinish`): the join into a deferred node.
///
/// Writes are names, checked as in `named_barrier_value`. `finish()` marks a complete barrier
/// finished, which makes it available (`get()` returns a null value); `consume()` then starts
/// over. The checkpoint is the list [seen names (sorted), finished], or nullopt when nothing
/// has been seen and it is not finished.
///
/// Not thread-safe, like every channel.
class named_barrier_value_after_finish final : public channel {
 public:
  named_barrier_value_after_finish(std::string key, std::vector<std::string> names);

  std::string_view type_name() const noexcept override {
    return "named_barrier_value_after_finish";
  }
  bool clears_when_idle() const noexcept override { return false; }
  bool finishes_deferred() const noexcept override { return true; }
  bool stays_until_written() const noexcept override { return false; }
  bool keeps_deltas() const noexcept override { return false; }

  /// The names the barrier waits for, sorted and without duplicates.
  const std::set<std::string>& names() const noexcept { return names_; }

  /// Restores from [seen names, finished]; throws error(invalid_argument) for anything else.
  [[nodiscard]] std::unique_ptr<channel> from_checkpoint(
      const std::optional<value>& checkpoint) const override;
  [[nodiscard]] std::unique_ptr<channel> copy() const override;

  /// Records the names written; returns whether a name was seen for the first time.
  /// Throws error(invalid_update) for a write that is not one of `names`.
  bool update(std::span<const value> writes) override;

  /// A null value once complete and finished; else throws error(empty_channel).
  [[nodiscard]] value get() const override;
  [[nodiscard]] bool is_available() const override { return finished_ && complete(); }

  /// [seen names, finished], or nullopt when nothing was seen and it is not finished.
  [[nodiscard]] std::optional<value> checkpoint() const override;

  /// When complete and finished, forgets the names seen and the finish; returns true.
  bool consume() override;

  /// Marks a complete barrier finished; returns whether that changed anything.
  bool finish() override;

 private:
  bool complete() const noexcept { return seen_.size() == names_.size(); }

  std::set<std::string> names_;
  std::set<std::string> seen_;  // a subset of names_
  bool finished_ = false;
};

}  // namespace superstep::channels
