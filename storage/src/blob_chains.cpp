#include "blob_chains.hpp"

namespace superstep::storage {

namespace {

// Bounds of what is remembered: the lists of the chains stay alive while they are, so a
// process that ran many threads does not keep all their lists (what a chain wrote stands for
// the size of its list).
constexpr std::size_t max_chains = 4096;
constexpr std::size_t max_bytes = std::size_t{256} << 20;
// Deltas after one whole blob: the base of the next one needs the version of each.
constexpr std::size_t max_deltas = std::size_t{1} << 16;

}  // namespace

std::optional<blob_chains::delta> blob_chains::plan(const std::string& key, const value& v,
                                                    channel_version version) const {
  if (!v.is_list()) return std::nullopt;
  const list& now = v.as_list();
  std::lock_guard lock(mutex_);
  auto it = chains_.find(key);
  if (it == chains_.end()) return std::nullopt;
  const chain& c = it->second;
  if (c.versions.size() > max_deltas) return std::nullopt;
  if (version <= c.versions.back().first) return std::nullopt;
  const list& last = c.last.as_list();
  if (now.size() < last.size()) return std::nullopt;
  // Pointer comparisons: an append reducer's new list shares the old list's elements.
  for (std::size_t i = 0; i < last.size(); ++i)
    if (!now[i].same_instance(last[i])) return std::nullopt;
  const std::size_t position = c.versions.size();
  const auto& [base, base_length] = c.versions[position & (position - 1)];
  // A delta holding most of the list saves little and lengthens reads: write it whole.
  if (2 * (now.size() - base_length) > now.size()) return std::nullopt;
  return delta{base, base_length, position, c.versions.back().first};
}

void blob_chains::written(const std::string& key, channel_version version, const value& v,
                          const std::optional<delta>& written, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  auto it = chains_.find(key);
  if (written) {
    // Another write of the channel came in between: its place is no longer known.
    if (it == chains_.end() || it->second.versions.size() != written->position ||
        it->second.versions.back().first != written->after) {
      if (it != chains_.end()) erase(it);
      return;
    }
    chain& c = it->second;
    c.versions.emplace_back(version, v.as_list().size());
    c.last = v;
    c.bytes += bytes;
    bytes_ += bytes;
  } else {
    if (it != chains_.end()) erase(it);
    if (!v.is_list()) return;
    chain c;
    c.versions.emplace_back(version, v.as_list().size());
    c.last = v;
    c.bytes = bytes;
    bytes_ += bytes;
    chains_.insert_or_assign(key, std::move(c));
  }
  while (!chains_.empty() && (chains_.size() > max_chains || bytes_ > max_bytes))
    erase(chains_.begin());
}

void blob_chains::forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (auto it = chains_.find(key); it != chains_.end()) erase(it);
}

void blob_chains::clear() {
  std::lock_guard lock(mutex_);
  chains_.clear();
  bytes_ = 0;
}

void blob_chains::erase(std::unordered_map<std::string, chain>::iterator it) {
  bytes_ -= it->second.bytes;
  chains_.erase(it);
}

}  // namespace superstep::storage
