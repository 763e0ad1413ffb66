#pragma once

// Internal: the node actors of one compiled graph in one runtime, and what a node actor of
// a graph runs. Include only from actor translation units: it pulls in CAF.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator_actor.hpp"
#include "superstep/actors/protocol.hpp"

namespace superstep::detail {

class node_actor_pool {
 public:
  node_actor_pool(actors::runtime& rt, const pregel_graph& g, checkpoint_saver* saver,
                  storage::store* store, node_cache* cache);
  ~node_actor_pool();
  actors::runtime& runtime() noexcept { return rt_; }
  const std::vector<actors::node_actor>& instances(std::uint32_t node);
  /// The channels node `node` reads fresh while its tasks run: what a replica of this
  /// process's node actors holds.
  const std::vector<std::string>& fresh_reads(std::uint32_t node) const {
    return fresh_reads_[node];
  }
  /// Those and the channels its tasks' inputs are built from: what a replica of a node actor
  /// in another process holds, which builds PULL inputs itself (inputs_from_replica).
  const std::vector<std::string>& replica_reads(std::uint32_t node) const {
    return replica_reads_[node];
  }

 private:
  actors::runtime& rt_;
  std::vector<std::shared_ptr<const actors::node_host>> hosts_;
  std::vector<std::vector<std::string>> fresh_reads_;
  std::vector<std::vector<std::string>> replica_reads_;
  std::vector<std::vector<actors::node_actor>> instances_;
  std::mutex m_;
};

/// What a node actor of `g`'s node `n` needs: its name, the body running its task batches
/// (subgraphs save into `saver`, nodes reach `store`, task calls cache into `cache`; each may
/// be null) and the prototypes of the channels it reads fresh.
std::shared_ptr<const actors::node_host> make_host(const pregel_graph& g, const pregel_node& n,
                                                   checkpoint_saver* saver, storage::store* store,
                                                   node_cache* cache = nullptr);

}  // namespace superstep::detail
