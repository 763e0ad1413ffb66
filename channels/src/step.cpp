// The channel side of a superstep, shared by the coordinator and channel actors.
#include "superstep/channels/step.hpp"

#include <algorithm>
#include <stdexcept>

namespace superstep::channels {

void note_availability(std::unordered_set<std::string>& volatile_available, const std::string& name,
                       const channel& c) {
  if (!c.clears_when_idle()) return;
  if (c.is_available())
    volatile_available.insert(name);
  else
    volatile_available.erase(name);
}

write_group* write_groups::find(std::string_view channel) {
  if (last_ < all.size() && *all[last_].name == channel) return &all[last_];
  // Tasks that each write the same few channels, in the same order, write them in turn.
  if (const std::size_t next = last_ + 1 < all.size() ? last_ + 1 : 0;
      next < all.size() && *all[next].name == channel)
    return &all[last_ = next];
  if (all.size() <= few) {
    for (std::size_t i = 0; i < all.size(); ++i)
      if (*all[i].name == channel) return &all[last_ = i];
    return nullptr;
  }
  if (index_.empty())
    for (std::size_t i = 0; i < all.size(); ++i) index_.emplace(*all[i].name, i);
  auto it = index_.find(channel);
  if (it == index_.end()) return nullptr;
  return &all[last_ = it->second];
}

write_group& write_groups::add(const std::string& name, channel& target) {
  all.push_back(write_group{&name, &target, {}});
  last_ = all.size() - 1;
  if (!index_.empty()) index_.emplace(name, last_);
  return all.back();
}

namespace {

// The entry of channel `name` in `channels`: its key (which outlives the step, unlike the
// name it was asked for) and the channel. Throws std::out_of_range, as `at`, when it lacks it.
channel_map::value_type& entry(channel_map& channels, const std::string& name) {
  auto it = channels.find(name);
  if (it == channels.end()) throw std::out_of_range("no channel '" + name + "' in the step");
  return *it;
}

}  // namespace

void apply_step(channel_map& channels, std::unordered_set<std::string>& volatile_available,
                const std::vector<std::string>& consumed, std::vector<write_group>& groups,
                bool bump_step, step_observer& observer) {
  for (const auto& consumed_name : consumed) {
    auto it = channels.find(consumed_name);
    if (it == channels.end()) continue;
    const std::string& name = it->first;
    channel& c = *it->second;
    observer.before_change(name, c);
    if (c.consume()) {
      note_availability(volatile_available, name, c);
      observer.changed(name, c, false);
    }
  }

  std::sort(groups.begin(), groups.end(),
            [](const write_group& a, const write_group& b) { return *a.name < *b.name; });
  for (auto& g : groups) {
    observer.before_change(*g.name, *g.target);
    if (g.target->update(g.values)) {
      note_availability(volatile_available, *g.name, *g.target);
      observer.changed(*g.name, *g.target, g.target->is_available());
    }
  }

  if (!bump_step || volatile_available.empty()) return;
  // By name. The observer is told the channel's key in `channels`: a change may drop the
  // name from the set, and with it the string pointed to here.
  std::vector<const std::string*> vol;
  vol.reserve(volatile_available.size());
  for (const auto& name : volatile_available) vol.push_back(&name);
  std::sort(vol.begin(), vol.end(), [](const auto* a, const auto* b) { return *a < *b; });
  for (const std::string* held : vol) {
    auto w =
        std::lower_bound(groups.begin(), groups.end(), *held,
                         [](const write_group& g, const std::string& n) { return *g.name < n; });
    if (w != groups.end() && *w->name == *held) continue;  // written: its update decided
    auto& [name, held_channel] = entry(channels, *held);
    channel& c = *held_channel;
    if (!c.is_available()) continue;
    observer.before_change(name, c);
    if (c.update({})) {
      note_availability(volatile_available, name, c);
      observer.changed(name, c, c.is_available());
    }
  }
}

void finish_step(channel_map& channels, std::unordered_set<std::string>& volatile_available,
                 const std::vector<std::string>& finishable, step_observer& observer) {
  for (const auto& finishable_name : finishable) {
    auto& [name, finishable_channel] = entry(channels, finishable_name);
    channel& c = *finishable_channel;
    observer.before_change(name, c);
    if (c.finish()) {
      note_availability(volatile_available, name, c);
      observer.changed(name, c, c.is_available());
    }
  }
}

}  // namespace superstep::channels
