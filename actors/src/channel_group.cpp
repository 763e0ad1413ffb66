// A group of channels with staged and committed values: the channel side of a superstep.
#include "superstep/actors/channel_group.hpp"

#include <algorithm>
#include <set>

#include "superstep/channels/step.hpp"
#include "superstep/core/error.hpp"

namespace superstep::actors {

channel_group::channel_group(channels::channel_map channels) : live_(std::move(channels)) {
  for (const auto& [name, c] : live_) {
    channels::note_availability(volatile_available_, name, *c);
    if (channels::finishes_deferred(*c)) finishable_.push_back(name);
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
                                     const std::set<std::string>& updated) const {
  group_changes out;
  out.changed.reserve(changed.size());
  for (const auto& name : changed) {
    channel_delta cv;
    cv.channel = name;
    if (auto saved = live_.at(name)->checkpoint()) {
      cv.present = true;
      cv.v = std::move(*saved);
    }
    out.changed.push_back(std::move(cv));
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
    std::stable_sort(writes.begin(), writes.end(), [](const auto& a, const auto& b) {
      return a.channel != b.channel ? a.channel < b.channel : a.order < b.order;
    });
    std::vector<channels::write_group> groups;
    for (auto& w : writes) {
      if (groups.empty() || *groups.back().name != w.channel) {
        auto it = live_.find(w.channel);
        if (it == live_.end())
          throw error(error_code::invalid_update,
                      "channel '" + w.channel + "' is not owned by this channel group");
        groups.push_back(channels::write_group{&it->first, it->second.get(), {}});
      }
      groups.back().values.push_back(std::move(w.v));
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
  if (auto b = before_.find(channel); b != before_.end()) return b->second->checkpoint();
  auto it = live_.find(channel);
  if (it == live_.end()) return std::nullopt;
  return it->second->checkpoint();
}

}  // namespace superstep::actors
