// A group of channels with staged and committed values: the channel side of a superstep.
#include "superstep/pregel/channel_group.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <unordered_set>

#include "superstep/channels/step.hpp"
#include "superstep/core/error.hpp"

namespace superstep::actors {

namespace {

// The group that owns the tasks topic lets go of its Sends once the coordinator has them (from
// the group's placement or its vote): the coordinator plans PUSH tasks from its own copy, and
// nothing reads the group's. Only that the topic is not empty is kept, so that the next step
// clears it and reports the change (a fan-out's 10^6 Sends, decoded, are about 250 MB).
void release_sends(channels::channel_map& live) {
  auto it = live.find(std::string(tasks_topic));
  if (it == live.end()) return;
  it->second->release();  // the Sends: the coordinator plans from its own copy
}

}  // namespace

channel_group::channel_group(channels::channel_map channels) : live_(std::move(channels)) {
  for (const auto& [name, c] : live_) {
    channels::note_availability(volatile_available_, name, *c);
    if (c->finishes_deferred()) finishable_.push_back(name);
  }
  std::sort(finishable_.begin(), finishable_.end());
  release_sends(live_);
}

// Keeps each channel as it was before the step first touches it (restored on abort) and
// notes, in order, each change the step made and whether the channel was available after it.
class channel_group::stager final : public channels::step_observer {
 public:
  explicit stager(channel_group& g) : g_(g) {}
  void before_change(const std::string& name, channels::channel& c) override {
    auto [it, first] = g_.before_.try_emplace(name);
    if (first) it->second = c.copy();
  }
  void changed(const std::string& name, channels::channel& c, bool available) override {
    changes_.push_back(change{&name, &c, static_cast<std::uint32_t>(changes_.size()), available});
  }

  // What the step changed, each channel once, by name; whether it is updated as after its
  // last change.
  group_changes collect() {
    std::sort(changes_.begin(), changes_.end(), [](const change& a, const change& b) {
      return *a.name != *b.name ? *a.name < *b.name : a.seq < b.seq;
    });
    group_changes out;
    out.changed.reserve(changes_.size());
    out.values.reserve(changes_.size());
    for (std::size_t i = 0; i < changes_.size(); ++i) {
      const change& c = changes_[i];
      if (i + 1 < changes_.size() && *changes_[i + 1].name == *c.name) continue;  // not its last
      if (c.available) out.updated.push_back(*c.name);
      if (c.channel->is_available()) out.available.push_back(*c.name);
      if (c.channel->take_overwritten()) out.overwritten.push_back(*c.name);
      out.values.push_back(channel_delta::of(*c.name, c.channel->transfer()));
      out.changed.push_back(channel_delta::of(*c.name, c.channel->checkpoint()));
    }
    return out;
  }

 private:
  struct change {
    const std::string* name;     // the channel's key in the group (it outlives the step)
    channels::channel* channel;  // the channel as staged
    std::uint32_t seq;           // the order changes came in: a channel's last one counts
    bool available;
  };
  channel_group& g_;
  std::vector<change> changes_;
};

namespace {

constexpr std::size_t most_channel_names = 65536;

struct name_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

// The process's channel names, never freed: a staged write points at its channel's.
struct name_table {
  std::mutex m;
  std::unordered_set<std::string, name_hash, std::equal_to<>> names;
};

name_table& names() {
  static name_table* table = new name_table;  // outlives every write, even at exit
  return *table;
}

// The name's copy in the table, or null when the table is full and does not hold it.
const std::string* intern(std::string_view name) {
  // A step's writes name a few channels, over and over: each thread keeps the names it found
  // in a small table of its own, looked up without the lock by a hash of a few characters
  // (a chain's "branch:to:n1", "branch:to:n2"... differ in their last).
  constexpr std::size_t slots = 64;
  thread_local const std::string* found[slots] = {};
  std::size_t h = name.size() * 31u;
  if (!name.empty())
    h += static_cast<unsigned char>(name.back()) * 7u +
         static_cast<unsigned char>(name[name.size() / 2]) * 131u +
         static_cast<unsigned char>(name.front());
  const std::string*& slot = found[h & (slots - 1)];
  if (slot && *slot == name) return slot;
  name_table& t = names();
  std::lock_guard lock(t.m);
  auto it = t.names.find(name);
  if (it == t.names.end()) {
    if (t.names.size() >= most_channel_names) return nullptr;
    it = t.names.emplace(name).first;
  }
  return slot = &*it;
}

}  // namespace

channel_name::channel_name(std::string_view name) {
  if (name.empty()) {
    p_ = reinterpret_cast<std::uintptr_t>(&none_);
    return;
  }
  const std::string* shared = intern(name);
  p_ = shared ? reinterpret_cast<std::uintptr_t>(shared) : own(std::string(name));
}

std::uintptr_t channel_name::own(const std::string& name) {
  return reinterpret_cast<std::uintptr_t>(new std::string(name)) | 1u;
}

std::ostream& operator<<(std::ostream& os, const channel_name& n) { return os << n.str(); }

group_changes channel_group::prepare(std::vector<ordered_write> writes,
                                     const std::vector<std::string>& consumed, bool bump_step) {
  std::vector<std::vector<ordered_write>> parts;
  parts.push_back(std::move(writes));
  return prepare(std::move(parts), consumed, bump_step);
}

namespace {

// The parts of a step's writes in task-path order, part after part: each part's writes by
// `order`, stable (a task's own writes keep theirs). They usually come in that order, each
// part a batch's: then nothing moves but the parts themselves.
void order_parts(std::vector<std::vector<ordered_write>>& parts) {
  std::erase_if(parts, [](const auto& p) { return p.empty(); });
  const auto by_order = [](const auto& a, const auto& b) { return a.order < b.order; };
  std::sort(parts.begin(), parts.end(),
            [](const auto& a, const auto& b) { return a.front().order < b.front().order; });
  bool in_order = true;
  for (std::size_t i = 0; i < parts.size() && in_order; ++i)
    in_order = std::is_sorted(parts[i].begin(), parts[i].end(), by_order) &&
               (i == 0 || parts[i - 1].back().order <= parts[i].front().order);
  if (in_order) return;
  std::vector<ordered_write> all = std::move(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i)
    all.insert(all.end(), std::make_move_iterator(parts[i].begin()),
               std::make_move_iterator(parts[i].end()));
  std::stable_sort(all.begin(), all.end(), by_order);
  parts.assign(1, std::move(all));
}

}  // namespace

group_changes channel_group::prepare(std::vector<std::vector<ordered_write>> parts,
                                     const std::vector<std::string>& consumed, bool bump_step) {
  if (staging_) abort();  // a step prepared again (its coordinator retried): start over
  staging_ = true;
  stager observer(*this);
  try {
    // Each channel's writes in task-path order: then grouping is one pass, O(writes).
    order_parts(parts);
    channels::write_groups groups;
    for (auto& part : parts)
      for (auto& w : part) {
        auto* group = groups.find(w.channel);
        if (!group) {
          auto it = live_.find(w.channel);
          if (it == live_.end())
            throw error(error_code::invalid_update,
                        "channel '" + w.channel.str() + "' is not owned by this channel group");
          group = &groups.add(it->first, *it->second);
        }
        group->values.push_back(std::move(w.v));
      }
    // Their values moved to the groups: the writes go before the channels make their new
    // values (a fan-out's 10^6 Sends: 64 MB of writes beside the tasks topic's new list).
    std::vector<std::vector<ordered_write>>().swap(parts);
    channels::apply_step(live_, volatile_available_, consumed, groups.all, bump_step, observer);
  } catch (...) {
    abort();
    throw;
  }
  group_changes out = observer.collect();
  release_sends(live_);
  return out;
}

group_changes channel_group::finish() {
  stager observer(*this);
  channels::finish_step(live_, volatile_available_, finishable_, observer);
  group_changes out = observer.collect();
  release_sends(live_);
  return out;
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
