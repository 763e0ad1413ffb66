// A group of channels with staged and committed values: the channel side of a superstep.
#include "superstep/actors/channel_group.hpp"

#include <algorithm>
#include <set>

#include "superstep/core/error.hpp"

namespace superstep::actors {

channel_group::channel_group(
    std::unordered_map<std::string, std::unique_ptr<channels::channel>> channels)
    : live_(std::move(channels)) {
  for (const auto& [name, c] : live_) {
    note(name, *c);
    if (channels::finishes_deferred(*c)) finishable_.push_back(name);
  }
  std::sort(finishable_.begin(), finishable_.end());
}

void channel_group::note(const std::string& name, const channels::channel& c) {
  if (!channels::may_change_without_writes(c)) return;
  if (c.is_available())
    volatile_available_.insert(name);
  else
    volatile_available_.erase(name);
}

// The channel about to be given a call that may change it: kept as it was for an abort.
channels::channel& channel_group::touch(const std::string& name, channels::channel& c) {
  if (!before_.count(name)) before_.emplace(name, c.copy());
  return c;
}

group_changes channel_group::collect(const std::vector<std::string>& changed) const {
  group_changes out;
  out.changed.reserve(changed.size());
  for (const auto& name : changed) {
    const auto& c = *live_.at(name);
    channel_delta cv;
    cv.channel = name;
    if (auto saved = c.checkpoint()) {
      cv.present = true;
      cv.v = std::move(*saved);
    }
    out.changed.push_back(std::move(cv));
    if (c.is_available()) out.updated.push_back(name);
  }
  return out;
}

group_changes channel_group::prepare(std::vector<ordered_write> writes,
                                     const std::vector<std::string>& consumed, bool bump_step) {
  if (staging_) abort();  // a step prepared again (its coordinator retried): start over
  staging_ = true;
  std::set<std::string> changed;
  try {
    for (const auto& name : consumed) {
      auto it = live_.find(name);
      if (it != live_.end() && touch(name, *it->second).consume()) {
        changed.insert(name);
        note(name, *it->second);
      }
    }
    // Grouped by channel, each group in task-path order (stable: a task's own writes keep
    // their order), channels in name order so results do not depend on arrival.
    std::stable_sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) {
      return a.channel != b.channel ? a.channel < b.channel : a.order < b.order;
    });
    std::set<std::string> written;
    std::vector<value> values;
    for (std::size_t i = 0; i < writes.size();) {
      const std::string& name = writes[i].channel;
      values.clear();
      std::size_t j = i;
      for (; j < writes.size() && writes[j].channel == name; ++j)
        values.push_back(std::move(writes[j].v));
      auto it = live_.find(name);
      if (it == live_.end())
        throw error(error_code::invalid_update,
                    "channel '" + name + "' is not owned by this channel group");
      written.insert(name);
      if (touch(name, *it->second).update(values)) {
        changed.insert(name);
        note(name, *it->second);
      }
      i = j;
    }
    if (bump_step) {
      std::vector<std::string> vol(volatile_available_.begin(), volatile_available_.end());
      std::sort(vol.begin(), vol.end());
      for (const auto& name : vol) {
        if (written.count(name)) continue;
        auto& c = *live_.at(name);
        if (c.is_available() && touch(name, c).update({})) {
          changed.insert(name);
          note(name, c);
        }
      }
    }
  } catch (...) {
    abort();
    throw;
  }
  return collect(std::vector<std::string>(changed.begin(), changed.end()));
}

group_changes channel_group::finish() {
  std::vector<std::string> changed;
  for (const auto& name : finishable_) {
    auto& c = *live_.at(name);
    if (touch(name, c).finish()) {
      changed.push_back(name);
      note(name, c);
    }
  }
  return collect(changed);
}

void channel_group::commit() {
  before_.clear();
  staging_ = false;
}

void channel_group::abort() {
  for (auto& [name, c] : before_) {
    note(name, *c);
    live_[name] = std::move(c);
  }
  before_.clear();
  staging_ = false;
}

std::optional<value> channel_group::read(const std::string& channel) const {
  if (auto b = before_.find(channel); b != before_.end()) return b->second->checkpoint();
  auto it = live_.find(channel);
  if (it == live_.end()) return std::nullopt;
  return it->second->checkpoint();
}

}  // namespace superstep::actors
