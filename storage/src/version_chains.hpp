#pragma once

// Which checkpoints a saver stores with their version maps as deltas, and against which
// earlier checkpoint (both savers).
//
// A checkpoint's `channel_versions` and `versions_seen` have an entry per channel and per node:
// stored whole, every step of a graph of 1,000 nodes costs 1,000s of entries although it
// changed a few. A saver told what changed (`checkpoint_saver::put_changes`) stores, for a
// checkpoint at depth d of a line of parents, only the entries that differ from its base: the
// checkpoint at depth (d with its lowest set bit cleared) of the same line, as the skip-deltas of
// blob_chains.hpp. The maps of a checkpoint are then read from at most log2(d) + 1 records, and a
// step stores O(changed · log d) entries amortized. Depth 0 is stored whole: the first checkpoint
// of a line, a checkpoint whose parent is not the last one this process stored in its thread and
// namespace (a fork, a new process), one whose delta would hold more than half of the whole, and
// one put without its changes.
//
// This is memory of what was stored by this process: it may forget anything at any time (at the
// cost of a whole record). A delta's base is always a checkpoint that was stored, so what is
// stored never depends on what this holds.

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/storage/version_delta_check.hpp"  // version_deltas_checked

namespace superstep::storage {

class version_chains {
 public:
  /// How to store a checkpoint's version maps.
  struct plan {
    std::uint32_t depth = 0;            ///< 0: whole
    std::string parent_id;              ///< what the line ended with when planned
    std::string base_id;                ///< the checkpoint the delta is against (depth > 0)
    std::vector<std::string> channels;  ///< channel_versions entries to store, sorted
    std::vector<std::string> nodes;     ///< versions_seen entries to store, sorted
    std::uint64_t generation = 0;       ///< of the chains when planned
  };

  /// How to store `cp`, put under `line` (any string naming thread and namespace) as the child
  /// of `parent_id` with `changes` (nullptr: not known, whole).
  plan plan_put(const std::string& line, const std::string& parent_id, const checkpoint& cp,
                const checkpoint_changes* changes);

  /// Notes that `id` was stored as `p` planned. Call after the write succeeded.
  void written(const std::string& line, const std::string& id, const plan& p,
               const checkpoint_changes* changes);

  /// Forgets everything (threads deleted, copied over or pruned).
  void clear();

  /// Whether `clear` was called since `p` was planned (its base may be gone).
  bool stale(const plan& p);

  /// The longest line kept before a whole record starts a new one.
  static constexpr std::uint32_t max_depth = 1u << 16;

 private:
  struct line_state {
    std::vector<std::string> ids;  ///< ids[k]: the checkpoint at depth k
    /// What changed at each depth (index 0 unused).
    std::vector<std::vector<std::string>> channels, nodes;
    std::size_t entries = 0;  ///< in channels and nodes
  };
  static constexpr std::size_t max_lines = 4096;

  std::mutex mutex_;
  std::unordered_map<std::string, line_state> lines_;
  std::uint64_t generation_ = 0;
};

/// Throws `superstep::error` (internal) naming the first entry where `stored` differs from
/// `cp`'s maps: a caller of put_changes that left a change out.
void compare_versions(const checkpoint& cp, const checkpoint& stored, const char* saver);

}  // namespace superstep::storage
