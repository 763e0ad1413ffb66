// The coordinator actor: drives one run's loop (plan, dispatch task batches to node actors,
// barrier, commit) by messages. The caller blocks on a scoped actor until the run ends.
#include "coordinator_actor.hpp"

#include <chrono>
#include <exception>
#include <future>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail {

class node_actor_pool {
 public:
  node_actor_pool(actors::runtime& rt, const pregel_graph& g, checkpoint_saver* saver);
  ~node_actor_pool();
  actors::runtime& runtime() noexcept { return rt_; }
  const std::vector<caf::actor>& instances(std::uint32_t node);
  const std::vector<std::string>& fresh_reads(std::uint32_t node) const {
    return fresh_reads_[node];
  }

 private:
  actors::runtime& rt_;
  std::vector<std::shared_ptr<const actors::node_host>> hosts_;
  std::vector<std::vector<std::string>> fresh_reads_;
  std::vector<std::vector<caf::actor>> instances_;
  std::mutex m_;
};

void node_actor_pool_deleter::operator()(node_actor_pool* p) const noexcept { delete p; }

namespace {

using start_atom = caf::atom_constant<caf::atom("start")>;

struct coordinator_state {
  run_loop* loop = nullptr;
  node_actor_pool* pool = nullptr;
  value input;
  std::promise<bool>* done = nullptr;  // the caller waits on its future
  std::uint32_t pending = 0;
  // Per node and instance: the channel versions its replica holds, in this run.
  std::unordered_map<std::uint32_t, std::vector<std::unordered_map<std::string, channel_version>>>
      synced;
};

// Channels of `node`'s replica that changed since `inst` last saw them.
std::vector<actors::channel_delta> deltas_for(coordinator_state& st, std::uint32_t node,
                                              std::size_t inst) {
  std::vector<actors::channel_delta> out;
  const auto& reads = st.pool->fresh_reads(node);
  if (reads.empty()) return out;
  auto& per_node = st.synced[node];
  if (per_node.size() <= inst) per_node.resize(inst + 1);
  auto& seen = per_node[inst];
  const auto& versions = st.loop->state().checkpoint.channel_versions;
  for (const auto& ch : reads) {
    auto v = versions.find(ch);
    channel_version now = v == versions.end() ? 0 : v->second;
    auto s = seen.find(ch);
    if (s != seen.end() && s->second == now) continue;
    seen[ch] = now;
    actors::channel_delta d;
    d.channel = ch;
    auto saved = st.loop->channels().at(ch)->checkpoint();
    d.present = saved.has_value();
    if (saved) d.v = std::move(*saved);
    out.push_back(std::move(d));
  }
  return out;
}

void next_step(caf::stateful_actor<coordinator_state>* self);

// Ends the step at the barrier and starts the next one, or finishes the run.
void commit_and_continue(caf::stateful_actor<coordinator_state>* self) {
  auto& st = self->state;
  if (!st.loop->commit_step()) {
    st.done->set_value(true);
    self->quit();
    return;
  }
  next_step(self);
}

// Plans the next step and dispatches it; finishes the run when there is nothing to do.
void next_step(caf::stateful_actor<coordinator_state>* self) {
  auto& st = self->state;
  if (!st.loop->plan()) {
    st.done->set_value(true);
    self->quit();
    return;
  }
  auto& tasks = st.loop->tasks();
  const run_shared& shared = st.loop->shared();
  actors::batch_header header;
  header.step = st.loop->step();
  header.stop = shared.stop;
  header.checkpoint_id = shared.checkpoint_id;
  header.resuming = shared.resuming;
  header.config = shared.config;
  header.ns = shared.ns;
  header.modes = shared.modes;
  header.subgraphs = shared.subgraphs;

  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> by_node;
  for (std::uint32_t i : st.loop->runnable()) by_node[tasks[i].node].push_back(i);
  st.pending = 0;
  for (auto& [node, slots] : by_node) {
    const auto& instances = st.pool->instances(node);
    const std::size_t k = instances.size();
    // Several chunks per instance balance uneven tasks; one per task when there are few.
    const std::size_t chunks = std::min(slots.size(), k * 4);
    std::vector<bool> synced_now(k, false);
    for (std::size_t c = 0; c < chunks; ++c) {
      std::size_t begin = slots.size() * c / chunks, end = slots.size() * (c + 1) / chunks;
      std::size_t inst = c % k;
      actors::task_batch b;
      b.header = header;
      if (!synced_now[inst]) {
        b.deltas = deltas_for(st, node, inst);
        synced_now[inst] = true;
      }
      b.slots.assign(slots.begin() + begin, slots.begin() + end);
      b.tasks.reserve(end - begin);
      for (std::size_t i = begin; i < end; ++i) b.tasks.push_back(std::move(tasks[slots[i]]));
      self->send(instances[inst], std::move(b));
      ++st.pending;
    }
  }
  if (st.pending == 0) commit_and_continue(self);  // every task was restored from saved writes
}

void fail(caf::stateful_actor<coordinator_state>* self, std::exception_ptr e) {
  self->state.loop->set_failure(e);
  self->state.done->set_value(false);
  self->quit();
}

caf::behavior coordinator(caf::stateful_actor<coordinator_state>* self, run_loop* loop,
                          node_actor_pool* pool, std::promise<bool>* done) {
  self->state.loop = loop;
  self->state.pool = pool;
  self->state.done = done;
  return {
      [self](start_atom, value& input) {
        try {
          self->state.loop->begin(input);
          next_step(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::task_batch_done& done) {
        auto& st = self->state;
        try {
          auto& tasks = st.loop->tasks();
          std::vector<const pregel_task*> finished;
          finished.reserve(done.slots.size());
          for (std::size_t i = 0; i < done.slots.size(); ++i) {
            pregel_task& t = tasks[done.slots[i]];
            value input = std::move(t.input);  // moved-from slot; keep nothing else
            t = std::move(done.tasks[i]);
            t.input = std::move(input);
            finished.push_back(&t);
          }
          st.loop->tasks_finished(finished);
          if (--st.pending > 0) return;
          commit_and_continue(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::stream_chunk& chunk) {
        const run_shared& shared = self->state.loop->shared();
        if (!shared.sink) return;
        stream_event ev{std::move(chunk.ns), static_cast<stream_mode>(chunk.mode),
                        std::move(chunk.data)};
        std::lock_guard lock(*shared.sink_mutex);
        (*shared.sink)(ev);
      },
  };
}

}  // namespace

// The body a node actor runs: each task of the batch through the node's function and
// writers, with stream events forwarded to the coordinator.
actors::task_body make_body(const pregel_graph* g, checkpoint_saver* saver) {
  return [g, saver](std::vector<pregel_task>& tasks, const actors::batch_header& h,
                    const actors::channel_map& replica, const actors::stream_forward& forward) {
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
    shared.modes = h.modes;
    shared.subgraphs = h.subgraphs;
    shared.sink = &sink;
    shared.sink_mutex = &m;
    for (auto& t : tasks) {
      task_context ctx(shared, t, h.step, replica);
      run_task(*g, t, ctx);
    }
  };
}

node_actor_pool::node_actor_pool(actors::runtime& rt, const pregel_graph& g,
                                 checkpoint_saver* saver)
    : rt_(rt), instances_(g.nodes.size()) {
  for (const auto& n : g.nodes) {
    actors::node_host host;
    host.name = n.name;
    host.body = make_body(&g, saver);
    for (const auto& ch : n.fresh_reads) host.replica_channels.emplace_back(ch, g.channels.at(ch));
    hosts_.push_back(std::make_shared<const actors::node_host>(std::move(host)));
    fresh_reads_.push_back(n.fresh_reads);
  }
}

node_actor_pool_ptr make_node_actor_pool(actors::runtime& rt, const pregel_graph& graph,
                                         checkpoint_saver* saver) {
  return node_actor_pool_ptr(new node_actor_pool(rt, graph, saver));
}

node_actor_pool::~node_actor_pool() {
  for (auto& per_node : instances_)
    for (auto& a : per_node) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

const std::vector<caf::actor>& node_actor_pool::instances(std::uint32_t node) {
  std::lock_guard lock(m_);
  auto& v = instances_[node];
  if (v.empty()) {
    for (unsigned i = 0; i < rt_.threads(); ++i)
      v.push_back(actors::spawn_node_actor(rt_.internals().system, hosts_[node]));
  }
  return v;
}

value run_on_actors(run_loop& loop, node_actor_pool& pool, const value& input) {
  auto& sys = pool.runtime().internals().system;
  // The caller blocks on a future, not a scoped actor: it is not an actor, and creating one
  // per run costs more than the run of a short graph.
  std::promise<bool> done;
  auto finished = done.get_future();
  auto coord = sys.spawn(coordinator, &loop, &pool, &done);
  caf::anon_send(coord, start_atom::value, input);
  // Short runs end within microseconds: spin a little before sleeping, since waking a
  // sleeping thread costs tens of microseconds on a VM.
  for (int i = 0; i < 2000; ++i) {
    if (finished.wait_for(std::chrono::seconds(0)) == std::future_status::ready) break;
    std::this_thread::yield();
  }
  if (!finished.get()) {
    auto failure = loop.take_failure();
    loop.finish(true);
    std::rethrow_exception(failure);
  }
  loop.finish(false);
  return loop.output();
}

}  // namespace superstep::detail
