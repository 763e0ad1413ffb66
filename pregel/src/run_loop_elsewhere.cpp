// The run's side of channels whose values only their owners hold (channel actors in other
// processes, --spread-channels): which values the coordinator still reads, holding the others
// as versions, and reading values back from the last checkpoint or from the owners.
#include <algorithm>
#include <atomic>
#include <set>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/run_counters.hpp"
#include "superstep/pregel/run_loop.hpp"

namespace superstep {
namespace {
std::atomic<std::uint64_t> held_as_versions{0};
}  // namespace

std::uint64_t channels_held_as_versions() noexcept { return held_as_versions.load(); }

namespace detail {

std::optional<std::unordered_set<std::string>> run_loop::values_read_here() const {
  // A lost owner is placed again from the last checkpoint: there must be one per step.
  if (!saver_ || durability_ == durability::exit || !shared_.ns.empty()) return std::nullopt;
  // These streams show every channel's value, or the tasks' inputs, each step.
  if (shared_.wants(stream_mode::debug) || shared_.wants(stream_mode::tasks) ||
      shared_.wants(stream_mode::checkpoints))
    return std::nullopt;
  std::unordered_set<std::string> here{std::string(TASKS)};
  if (shared_.wants(stream_mode::values))
    here.insert(stream_channels_->begin(), stream_channels_->end());
  // Read each step that changes them (emit_values_if); others are read back at the end.
  if (outputs_volatile_) here.insert(g_.output_channels.begin(), g_.output_channels.end());
  // Snapshotted into checkpoints from their values (delta_channels.hpp).
  here.insert(index_.delta_channels.begin(), index_.delta_channels.end());
  // A cached node's tasks are looked up by their input before they run.
  for (const auto& n : g_.nodes)
    if (n.cache) here.insert(n.reads.begin(), n.reads.end());
  // Changed since the last checkpoint (a resumed run's Command or saved null writes): only the
  // next checkpoint saves their values, and none is there to place a lost owner again from.
  for (const auto& [name, _] : unsaved_changes_.versions) here.insert(name);
  return here;
}

void run_loop::hold_elsewhere(std::unordered_set<std::string> names) {
  held_as_versions += names.size();
  // The background writer's copy of the checkpoint lets go of them too.
  forget_in_background(names);
  algo::hold_elsewhere(state_, g_, std::move(names));
}

std::vector<std::string> run_loop::read_back() const {
  if (state_.held_elsewhere.empty()) return {};
  std::set<std::string> names;
  const auto add = [&](const std::vector<std::string>& channels) {
    for (const auto& c : channels)
      if (holds_elsewhere(c)) names.insert(c);
  };
  if (values_pending_ || pause_shown_later_) add(g_.output_channels);
  if (pause_shown_later_) add(*stream_channels_);
  return {names.begin(), names.end()};
}

void run_loop::take_read_back(std::vector<actors::channel_delta> values) {
  for (auto& d : values) {
    auto slot = state_.channels.find(d.channel);
    if (slot == state_.channels.end() || !holds_elsewhere(d.channel))
      throw error(error_code::internal,
                  "a channel actor answered with channel '" + d.channel + "', not one asked for");
    // In its slot: the node reads point at it.
    slot->second = slot->second->from_transfer(d.present ? std::optional<value>(std::move(d.v))
                                                         : std::nullopt);
  }
  if (pause_shown_later_) show_pause();
}

}  // namespace detail
}  // namespace superstep
