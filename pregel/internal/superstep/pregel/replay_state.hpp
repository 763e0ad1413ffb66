#pragma once

// Internal: which checkpoint the subgraphs of a replayed run load (LangGraph's ReplayState).
//
// A run replayed from a past checkpoint (or from a fork of one) re-runs its tasks there; the
// subgraphs those tasks run must see their state as it was at that point, not the latest one
// the thread's old branch left. The first time a subgraph's namespace (task ids taken out)
// runs in the replayed run, it loads its newest checkpoint older than the replay point; later
// runs of it in the same run (a subgraph called in a loop) load their latest as usual.

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace superstep::detail {

/// `checkpoint_ns` with the task id taken out of each part ("a:1|b:2" -> "a|b"), LangGraph's
/// recast_checkpoint_ns: the namespace a subgraph keeps across invocations.
inline std::string stable_ns(std::string_view checkpoint_ns) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    std::size_t bar = checkpoint_ns.find('|', start);
    std::string_view part = checkpoint_ns.substr(
        start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (!out.empty() || start > 0) out += '|';
    out += part.substr(0, part.find(':'));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

/// Shared by every subgraph of one replayed run (thread-safe).
class replay_state {
 public:
  /// `checkpoint_id`: subgraphs load their newest checkpoint before this one.
  explicit replay_state(std::string checkpoint_id, std::vector<std::string> visited = {})
      : checkpoint_id_(std::move(checkpoint_id)), visited_(visited.begin(), visited.end()) {}

  const std::string& checkpoint_id() const noexcept { return checkpoint_id_; }

  /// True the first time `checkpoint_ns` (task ids aside) is asked about.
  bool first_visit(std::string_view checkpoint_ns) {
    std::lock_guard lock(m_);
    return visited_.insert(stable_ns(checkpoint_ns)).second;
  }

  /// The stable namespaces visited so far (sent with a step's tasks to node actors).
  std::vector<std::string> visited() const {
    std::lock_guard lock(m_);
    return {visited_.begin(), visited_.end()};
  }

 private:
  std::string checkpoint_id_;
  mutable std::mutex m_;
  std::set<std::string> visited_;
};

}  // namespace superstep::detail
