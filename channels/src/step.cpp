// The channel side of a superstep, shared by the coordinator and channel actors.
#include "superstep/channels/step.hpp"

#include <algorithm>

namespace superstep::channels {

void note_availability(std::unordered_set<std::string>& volatile_available, const std::string& name,
                       const channel& c) {
  if (!c.clears_when_idle()) return;
  if (c.is_available())
    volatile_available.insert(name);
  else
    volatile_available.erase(name);
}

void apply_step(channel_map& channels, std::unordered_set<std::string>& volatile_available,
                const std::set<std::string>& consumed, std::vector<write_group>& groups,
                bool bump_step, step_observer& observer) {
  for (const auto& name : consumed) {
    auto it = channels.find(name);
    if (it == channels.end()) continue;
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

  if (!bump_step) return;
  std::vector<std::string> vol(volatile_available.begin(), volatile_available.end());
  std::sort(vol.begin(), vol.end());
  for (const auto& name : vol) {
    auto w =
        std::lower_bound(groups.begin(), groups.end(), name,
                         [](const write_group& g, const std::string& n) { return *g.name < n; });
    if (w != groups.end() && *w->name == name) continue;  // written: its update decided
    channel& c = *channels.at(name);
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
  for (const auto& name : finishable) {
    channel& c = *channels.at(name);
    observer.before_change(name, c);
    if (c.finish()) {
      note_availability(volatile_available, name, c);
      observer.changed(name, c, c.is_available());
    }
  }
}

}  // namespace superstep::channels
