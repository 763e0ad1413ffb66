#include "version_chains.hpp"

#include <algorithm>
#include <atomic>
#include <string_view>

#include "superstep/core/error.hpp"

namespace superstep::storage {

namespace {

// Maps smaller than this are stored whole: a delta would save little and cost reads.
constexpr std::size_t min_whole_entries = 32;

void sort_unique(std::vector<std::string_view>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

version_chains::plan version_chains::plan_put(const std::string& line, const std::string& parent_id,
                                              const checkpoint& cp,
                                              const checkpoint_changes* changes) {
  plan p;
  p.parent_id = parent_id;
  std::lock_guard lock(mutex_);
  p.generation = generation_;
  const std::size_t whole = cp.channel_versions.size() + cp.versions_seen.size();
  // Checking (the test suite) stores small maps as deltas too, so every graph's are checked.
  const std::size_t min_whole = version_deltas_checked() ? 1 : min_whole_entries;
  if (!changes || parent_id.empty() || whole < min_whole) return p;
  // A delta can only add or replace entries: a change naming an entry the checkpoint does not
  // have (a removal) is stored whole.
  for (const auto& [channel, _] : changes->versions)
    if (!cp.channel_versions.count(channel)) return p;
  for (const auto& node : changes->seen)
    if (!cp.versions_seen.count(node)) return p;

  auto it = lines_.find(line);
  if (it == lines_.end() || it->second.ids.back() != parent_id) return p;
  const line_state& l = it->second;
  const auto depth = static_cast<std::uint32_t>(l.ids.size());
  if (depth >= max_depth || l.entries > 4 * whole) return p;
  const std::uint32_t base = depth & (depth - 1);
  // Views into the line and the changes (both outlive this): only what stays is copied.
  std::vector<std::string_view> channels, nodes;
  for (std::uint32_t k = base + 1; k < depth; ++k) {
    channels.insert(channels.end(), l.channels[k].begin(), l.channels[k].end());
    nodes.insert(nodes.end(), l.nodes[k].begin(), l.nodes[k].end());
  }
  for (const auto& [channel, _] : changes->versions) channels.push_back(channel);
  nodes.insert(nodes.end(), changes->seen.begin(), changes->seen.end());
  sort_unique(channels);
  sort_unique(nodes);
  if (2 * (channels.size() + nodes.size()) > whole) return p;
  p.depth = depth;
  p.base_id = l.ids[base];
  p.channels.assign(channels.begin(), channels.end());
  p.nodes.assign(nodes.begin(), nodes.end());
  return p;
}

void version_chains::written(const std::string& line, const std::string& id, const plan& p,
                             const checkpoint_changes* changes) {
  std::lock_guard lock(mutex_);
  if (p.generation != generation_) return;  // cleared since: what it planned may be gone
  if (p.depth == 0) {                       // a whole record starts a line
    if (lines_.size() >= max_lines && !lines_.count(line)) lines_.clear();
    line_state& l = lines_[line];
    l = line_state{};
    l.ids.push_back(id);
    l.channels.emplace_back();
    l.nodes.emplace_back();
    return;
  }
  auto it = lines_.find(line);
  if (it == lines_.end()) return;
  line_state& l = it->second;
  // Another put of the line came between the plan and this write: start over.
  if (!changes || l.ids.size() != p.depth || l.ids.back() != p.parent_id) {
    lines_.erase(it);
    return;
  }
  l.ids.push_back(id);
  auto& channels = l.channels.emplace_back();
  channels.reserve(changes->versions.size());
  for (const auto& [channel, _] : changes->versions) channels.push_back(channel);
  l.nodes.emplace_back(changes->seen.begin(), changes->seen.end());
  l.entries += changes->versions.size() + changes->seen.size();
}

void version_chains::clear() {
  std::lock_guard lock(mutex_);
  lines_.clear();
  ++generation_;
}

bool version_chains::stale(const plan& p) {
  std::lock_guard lock(mutex_);
  return p.generation != generation_;
}

namespace {
std::atomic<bool> checking_version_deltas{false};
}  // namespace

void check_version_deltas(bool on) noexcept {
  checking_version_deltas.store(on, std::memory_order_relaxed);
}

void check_version_deltas_if(std::string_view setting) noexcept {
  if (!setting.empty() && setting != "0") check_version_deltas(true);
}

bool version_deltas_checked() noexcept {
  return checking_version_deltas.load(std::memory_order_relaxed);
}

void compare_versions(const checkpoint& cp, const checkpoint& stored, const char* saver) {
  const auto fail = [&](const std::string& what) {
    throw error(error_code::internal, std::string(saver) + ": checkpoint " + cp.id +
                                          " stored as a delta reads back with " + what +
                                          " (put_changes was not told every change)");
  };
  for (const auto& [channel, version] : cp.channel_versions) {
    auto it = stored.channel_versions.find(channel);
    if (it == stored.channel_versions.end() || it->second != version)
      fail("another version of channel '" + channel + "'");
  }
  if (stored.channel_versions.size() != cp.channel_versions.size())
    fail("channel versions the checkpoint does not have");
  for (const auto& [node, seen] : cp.versions_seen) {
    auto it = stored.versions_seen.find(node);
    if (it == stored.versions_seen.end() || it->second != seen)
      fail("other versions seen by node '" + node + "'");
  }
  if (stored.versions_seen.size() != cp.versions_seen.size())
    fail("versions seen by nodes the checkpoint does not have");
}

}  // namespace superstep::storage
