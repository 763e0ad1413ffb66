#pragma once

// Which list values the RocksDB saver writes as deltas (storage/schema/checkpoint.capnp,
// ListDelta), and against which earlier version.
//
// A channel folded by an append reducer holds a list that grows by a few elements a step;
// writing it whole at every version makes a step cost the list's size, not what it added. The
// saver remembers, per (thread, namespace, channel), the versions it wrote since the last whole
// blob and the last list it wrote. A new list that starts with exactly the elements of the last
// one (the same shared instances: what `add` makes) is written as the elements it added since
// a base version, chosen as in skip-deltas: the n-th delta since the whole blob is based on
// the (n with its lowest set bit cleared)-th. A value is then read in at most log2(n) + 1
// lookups, and a step writes O(added · log n) bytes. A list is written whole when it is not an
// extension of the last one, when most of it would be in the delta, or after 65,536 deltas.
//
// This is memory of what was written by this process (one per database, shared by its savers): it
// starts empty (the first write of a channel after opening is whole) and may forget anything at any
// time, at the cost of a whole write. Bases are always versions whose blobs were written, so a
// delta never depends on what the cache holds.

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"

namespace superstep::storage {

class blob_chains {
 public:
  /// A delta to write: the value's elements from `base_length` on, against version `base`.
  struct delta {
    channel_version base = 0;
    std::size_t base_length = 0;
    std::size_t position = 0;   ///< the delta's place in its chain (1 = first after the whole)
    channel_version after = 0;  ///< the version written last before it
  };

  /// How to write `v` at `version` for the channel `key` (any string naming thread, namespace
  /// and channel): as a delta, or whole (nullopt). Whole when `version` is not above the last
  /// version written for the channel: a delta's base must be an earlier version, and a
  /// version written out of order means another writer (a second run on the thread) is
  /// interleaving with this one.
  std::optional<delta> plan(const std::string& key, const value& v, channel_version version) const;

  /// Notes that `v` was written at `version`, as `written` planned (nullopt: whole) and in
  /// about `bytes` bytes. Call after the write succeeded.
  void written(const std::string& key, channel_version version, const value& v,
               const std::optional<delta>& written, std::size_t bytes);

  /// Forgets the channel `key` (its value was cleared or written by another path).
  void forget(const std::string& key);

  /// Forgets everything (threads deleted, copied over or pruned).
  void clear();

 private:
  struct chain {
    // (version, list length) of the whole blob (first) and of each delta since.
    std::vector<std::pair<channel_version, std::size_t>> versions;
    value last;             // the list written at versions.back()
    std::size_t bytes = 0;  // what was written for the chain, about
  };

  void erase(std::unordered_map<std::string, chain>::iterator it);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, chain> chains_;
  std::size_t bytes_ = 0;  // the sum of chains_' bytes
};

}  // namespace superstep::storage
