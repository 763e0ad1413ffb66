// A group of channels with staged and committed values: the channel side of a superstep.
#include "superstep/actors/channel_group.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <string_view>
#include <unordered_map>

#include "superstep/channels/step.hpp"
#include "superstep/core/error.hpp"

namespace superstep::actors {

channel_group::channel_group(channels::channel_map channels) : live_(std::move(channels)) {
  for (const auto& [name, c] : live_) {
    channels::note_availability(volatile_available_, name, *c);
    if (c->finishes_deferred()) finishable_.push_back(name);
  }
  std::sort(finishable_.begin(), finishable_.end());
}

// Keeps each channel as it was before the step first touches it (restored on abort) and
// notes what the step changed.
class channel_group::stager final : public channels::step_observer {
 public:
  stager(channel_group& g, std::set<std::string>& changed, std::set<std::string>& updated)
      : g_(g), changed_(changed), updated_(updated) {}
  void before_change(const std::string& name, channels::channel& c) override {
    if (!g_.before_.count(name)) g_.before_.emplace(name, c.copy());
  }
  void changed(const std::string& name, const channels::channel&, bool available) override {
    changed_.insert(name);
    if (available)
      updated_.insert(name);
    else
      updated_.erase(name);
  }

 private:
  channel_group& g_;
  std::set<std::string>& changed_;
  std::set<std::string>& updated_;
};

group_changes channel_group::collect(const std::set<std::string>& changed,
                                     const std::set<std::string>& updated) {
  group_changes out;
  out.changed.reserve(changed.size());
  out.values.reserve(changed.size());
  for (const auto& name : changed) {
    channels::channel& c = *live_.at(name);
    out.changed.push_back(channel_delta::of(name, c.checkpoint()));
    out.values.push_back(channel_delta::of(name, c.transfer()));
    if (c.is_available()) out.available.push_back(name);
    if (c.take_overwritten()) out.overwritten.push_back(name);
  }
  out.updated.assign(updated.begin(), updated.end());
  return out;
}

group_changes channel_group::prepare(std::vector<ordered_write> writes,
                                     const std::vector<std::string>& consumed, bool bump_step) {
  if (staging_) abort();  // a step prepared again (its coordinator retried): start over
  staging_ = true;
  std::set<std::string> changed, updated;
  try {
    // Each channel's writes in task-path order (stable: a task's own writes keep theirs).
    // They usually arrive in that order already: then grouping is one pass, O(writes).
    const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
    if (!std::is_sorted(writes.begin(), writes.end(), by_order))
      std::stable_sort(writes.begin(), writes.end(), by_order);
    std::vector<channels::write_group> groups;
    std::unordered_map<std::string_view, std::size_t> by_channel;  // index into groups
    std::size_t last = SIZE_MAX;  // consecutive writes usually go to the same channel
    for (auto& w : writes) {
      if (last == SIZE_MAX || *groups[last].name != w.channel) {
        auto known = by_channel.find(w.channel);
        if (known == by_channel.end()) {
          auto it = live_.find(w.channel);
          if (it == live_.end())
            throw error(error_code::invalid_update,
                        "channel '" + w.channel + "' is not owned by this channel group");
          groups.push_back(channels::write_group{&it->first, it->second.get(), {}});
          known = by_channel.emplace(it->first, groups.size() - 1).first;
        }
        last = known->second;
      }
      groups[last].values.push_back(std::move(w.v));
    }
    stager observer(*this, changed, updated);
    channels::apply_step(live_, volatile_available_,
                         std::set<std::string>(consumed.begin(), consumed.end()), groups, bump_step,
                         observer);
  } catch (...) {
    abort();
    throw;
  }
  return collect(changed, updated);
}

group_changes channel_group::finish() {
  std::set<std::string> changed, updated;
  stager observer(*this, changed, updated);
  channels::finish_step(live_, volatile_available_, finishable_, observer);
  return collect(changed, updated);
}

void channel_group::commit() {
  before_.clear();
  staging_ = false;
}

void channel_group::abort() {
  for (auto& [name, c] : before_) {
    channels::note_availability(volatile_available_, name, *c);
    live_[name] = std::move(c);
  }
  before_.clear();
  staging_ = false;
}

std::optional<value> channel_group::read(const std::string& channel) const {
  if (auto b = before_.find(channel); b != before_.end()) return b->second->transfer();
  auto it = live_.find(channel);
  if (it == live_.end()) return std::nullopt;
  return it->second->transfer();
}

}  // namespace superstep::actors
