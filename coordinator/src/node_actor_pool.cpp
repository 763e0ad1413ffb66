// The node actors of a graph in one runtime (node_actor_pool), what each runs (a batch of
// tasks through the node's function and writers), and those a worker hosts for other
// processes' coordinators (spawn_node_actors).
#include "node_actor_pool.hpp"

#include <algorithm>

#include "superstep/actors/caf_runtime.hpp"
#include "superstep/coordinator/node_actors.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/algo.hpp"

namespace superstep::detail {

void node_actor_pool_deleter::operator()(node_actor_pool* p) const noexcept { delete p; }

namespace {

// Builds PULL task `t`'s input from the replica as the coordinator would from its channels
// (algo::prepare_next_tasks). False, with the task failed, when the replica lacks what the
// coordinator planned the task on (a protocol fault: deltas keep it current).
bool input_from_replica(const pregel_graph& g, pregel_task& t, const actors::channel_map& replica) {
  const pregel_node& node = g.nodes[t.node];
  if (auto input = algo::read_channels(replica, node.reads, node.single_read)) {
    t.input = std::move(*input);
    return true;
  }
  t.set_error(task_error{error_code::internal, "task '" + t.name + "': the node actor's replica " +
                                                   "has no value in '" + node.reads.front() + "'"});
  t.done = true;
  return false;
}

// The body a node actor runs: each task of the batch through the node's function and
// writers. In the coordinator's process with the run itself (batch_header::local_run);
// from another process's coordinator with the run the batch describes, stream events
// forwarded to it.
actors::task_body make_body(const pregel_graph* g, checkpoint_saver* saver, storage::store* store,
                            node_cache* cache) {
  return [g, saver, store, cache](std::vector<pregel_task>& tasks, const actors::batch_header& h,
                                  const actors::channel_map& replica,
                                  const actors::stream_forward& forward) {
    const auto run_all = [&](const run_shared& run) {
      for (auto& t : tasks) {
        if (h.inputs_from_replica && !t.push && !input_from_replica(*g, t, replica)) continue;
        task_context ctx(run, t, h.step, replica);
        run_task(*g, t, ctx);
      }
    };
    if (h.local_run) {
      run_all(*h.local_run);
      return;
    }
    std::mutex m;
    stream_sink sink = [&](const stream_event& e) {
      forward(e.ns, static_cast<std::uint8_t>(e.mode), e.data);
    };
    run_shared shared;
    shared.config = h.config;
    shared.ns = h.ns;
    shared.checkpoint_ns = join_ns(h.ns);
    shared.stop = h.stop;
    shared.checkpoint_id = h.checkpoint_id;
    shared.resuming = h.resuming;
    shared.saver = saver;
    shared.store = store;
    shared.cache = cache;  // where the functional API's task calls cache their results
    shared.modes = h.modes;
    shared.subgraphs = h.subgraphs;
    shared.message_events = h.message_events;
    if (!h.replay_checkpoint_id.empty())
      shared.replay = std::make_shared<replay_state>(h.replay_checkpoint_id, h.replay_visited);
    shared.sink = &sink;
    shared.sink_mutex = &m;
    run_all(shared);
  };
}

}  // namespace

std::shared_ptr<const actors::node_host> make_host(const pregel_graph& g, const pregel_node& n,
                                                   checkpoint_saver* saver, storage::store* store,
                                                   node_cache* cache) {
  actors::node_host host;
  host.name = n.name;
  host.body = make_body(&g, saver, store, cache);
  for (const auto& ch : n.fresh_reads) host.replica_channels.emplace_back(ch, g.channels.at(ch));
  for (const auto& ch : n.reads) host.input_channels.emplace_back(ch, g.channels.at(ch));
  return std::make_shared<const actors::node_host>(std::move(host));
}

node_actor_pool::node_actor_pool(actors::runtime& rt, const pregel_graph& g,
                                 checkpoint_saver* saver, storage::store* store, node_cache* cache)
    : rt_(rt), instances_(g.nodes.size()) {
  for (const auto& n : g.nodes) {
    hosts_.push_back(make_host(g, n, saver, store, cache));
    fresh_reads_.push_back(n.fresh_reads);
    auto& all = replica_reads_.emplace_back(n.fresh_reads);
    for (const auto& ch : n.reads)
      if (std::find(all.begin(), all.end(), ch) == all.end()) all.push_back(ch);
  }
}

node_actor_pool_ptr make_node_actor_pool(actors::runtime& rt, const pregel_graph& graph,
                                         checkpoint_saver* saver, storage::store* store,
                                         node_cache* cache) {
  return node_actor_pool_ptr(new node_actor_pool(rt, graph, saver, store, cache));
}

node_actor_pool::~node_actor_pool() {
  for (auto& per_node : instances_)
    for (auto& a : per_node) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

const std::vector<actors::node_actor>& node_actor_pool::instances(std::uint32_t node) {
  std::lock_guard lock(m_);
  auto& v = instances_[node];
  if (v.empty()) {
    for (unsigned i = 0; i < rt_.threads(); ++i)
      v.push_back(actors::spawn_node_actor(rt_.internals().system, hosts_[node]));
  }
  return v;
}

}  // namespace superstep::detail

namespace superstep {

std::vector<actors::node_actor> spawn_node_actors(const pregel& graph, actors::runtime& rt,
                                                  std::uint32_t node, unsigned count) {
  const pregel_graph& g = graph.graph();
  if (node >= g.nodes.size())
    throw error(error_code::invalid_argument, "no node #" + std::to_string(node) + " in the graph");
  auto host = detail::make_host(g, g.nodes[node], nullptr, graph.store());
  std::vector<actors::node_actor> out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back(actors::spawn_node_actor(rt.internals().system, host));
  return out;
}

}  // namespace superstep
