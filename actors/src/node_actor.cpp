// The PregelNode actor: hosts one node of a graph, keeps a replica of the channels its node
// reads fresh, and runs task batches sent by coordinator actors.
#include <atomic>
#include <optional>

#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/process_replica.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/actors/result_parts.hpp"

namespace superstep::actors {

namespace {

std::atomic<std::uint64_t> task_count{0}, batch_count{0};

struct node_state {
  std::shared_ptr<const node_host> node;
  // Of every channel a replica may hold: those read fresh and those inputs are built from.
  std::unordered_map<std::string, std::shared_ptr<const channels::channel>> prototypes;
  // One replica per coordinator (run): runs of the same graph proceed concurrently, each
  // refreshing its replica with only what changed in its own thread. Dropped when the
  // coordinator ends (monitored).
  std::unordered_map<caf::actor_addr, channel_map> replicas;
  // With the run's channels on channel actors elsewhere: the version of each channel each
  // replica holds (taken from the process's replica of the run).
  std::unordered_map<caf::actor_addr, std::unordered_map<std::string, std::uint64_t>> held;
  channel_map empty;  // nodes that read nothing fresh
};

channel_map fresh_replica(const node_state& st) {
  channel_map m;
  // The channels read fresh exist from the start; input channels come with their first delta.
  for (const auto& [name, proto] : st.node->replica_channels) m.emplace(name, proto->copy());
  return m;
}

void apply_deltas(node_state& st, channel_map& replica, std::vector<channel_delta>& deltas) {
  for (auto& d : deltas) {
    auto proto = st.prototypes.find(d.channel);
    if (proto == st.prototypes.end()) continue;
    std::optional<value> saved;
    if (d.present) saved = std::move(d.v);
    replica[d.channel] = proto->second->from_transfer(saved);
  }
}

// The replica of the run coordinated by `coordinator`.
channel_map& replica_of(node_actor::stateful_pointer<node_state> self,
                        const caf::strong_actor_ptr& coordinator) {
  auto& st = self->state;
  if (st.prototypes.empty()) return st.empty;
  auto addr = caf::actor_cast<caf::actor_addr>(coordinator);
  auto it = st.replicas.find(addr);
  if (it == st.replicas.end()) {
    it = st.replicas.emplace(addr, fresh_replica(st)).first;
    if (auto handle = caf::actor_cast<caf::actor>(coordinator)) self->monitor(handle);
  }
  return it->second;
}

// Results bound for another process are encoded here: what cannot be encoded (a value nested
// deeper than a reader allows) fails its batch's tasks with the reason, instead of being
// dropped by the network layer while the coordinator waits for it.
void encode_for_remote(task_batch_done& done) {
  // Only the bytes travel: the decoded results are dropped at once (a task sending 10^6 Sends
  // would otherwise be held twice until the message leaves).
  const auto keep_only_bytes = [&done] { std::vector<pregel_task>().swap(done.tasks); };
  try {
    done.encoded = wire_codec::encode(done);
    keep_only_bytes();
    return;
  } catch (const std::exception& e) {
    for (auto& t : done.tasks) {
      t.writes.clear();
      t.output = value();
      t.set_interrupts({});
      t.set_error(
          task_error{error_code::protocol_error,
                     std::string("results cannot be sent to the coordinator: ") + e.what()});
    }
  }
  done.encoded = wire_codec::encode(done);
  keep_only_bytes();
}

using node_self = node_actor::stateful_pointer<node_state>;

// A result too big for one message goes ahead in parts (result_parts.hpp) to whoever takes
// it: the batch's writes saver, or else the coordinator that sent it (`sender`). `done` is
// left as the message that closes them. (Results for this process are not encoded.)
void send_parts(node_self self, const pending_writes_receiver& saver,
                const caf::strong_actor_ptr& sender, task_batch_done& done) {
  if (done.encoded.size() <= result_part_bytes) return;
  const auto to =
      saver ? caf::actor_cast<result_taker>(saver) : caf::actor_cast<result_taker>(sender);
  if (!to) return;
  for (auto& p : split_result(done)) self->send(to, std::move(p));
}

// The writes of a batch's tasks for the channel actors owning their channels: a message to
// each (an empty one too: the owners count the step's batches), none for those that get them
// from the result in the process of `coordinator` (result_takes_writes).
std::vector<std::optional<channel_writes>> writes_for_groups(
    node_self self, task_batch& b, const caf::strong_actor_ptr& coordinator) {
  const std::size_t n = b.groups.size();
  const caf::node_id there = coordinator ? coordinator->node() : self->node();
  std::vector<bool> direct(n);
  for (std::size_t g = 0; g < n; ++g)
    direct[g] = !result_takes_writes(there, b.groups[g], self->node());
  auto writes = writes_by_owner(b.tasks, b.orders, direct);
  std::vector<std::optional<channel_writes>> out(n);
  for (std::size_t g = 0; g < n; ++g) {
    if (!direct[g]) continue;
    channel_writes& m = out[g].emplace();
    m.step = b.header.step;
    m.chunk = b.chunk;
    m.writes = std::move(writes[g]);
    if (g < b.prepares.size()) m.prepare = std::move(b.prepares[g]);
  }
  return out;
}

void send_writes(node_self self, const task_batch& b,
                 std::vector<std::optional<channel_writes>> messages) {
  for (std::size_t g = 0; g < messages.size(); ++g)
    if (messages[g])
      self->send(caf::actor_cast<channel_actor>(b.groups[g]), std::move(*messages[g]));
}

// A batch's result bound for a writes saver (task_batch::saver), which saves its writes and
// answers the coordinator in the node actor's stead.
pending_writes for_saver(task_batch_done done) {
  pending_writes w;
  static_cast<task_batch_done&>(w) = std::move(done);
  return w;
}

// What the channels a batch's tasks need lack in the replica of `coordinator`'s run: those
// below the version the step saw.
replica_wait missing(node_self self, const task_batch& b,
                     const caf::strong_actor_ptr& coordinator) {
  replica_wait w;
  auto& held = self->state.held[caf::actor_cast<caf::actor_addr>(coordinator)];
  for (std::size_t i = 0; i < b.need_channels.size(); ++i) {
    auto it = held.find(b.need_channels[i]);
    if (it != held.end() && it->second >= b.need_versions[i]) continue;
    w.channels.push_back(b.need_channels[i]);
    w.versions.push_back(b.need_versions[i]);
  }
  return w;
}

void take_from_replica(node_self self, const caf::strong_actor_ptr& coordinator, channel_push& p) {
  auto& held = self->state.held[caf::actor_cast<caf::actor_addr>(coordinator)];
  for (std::size_t i = 0; i < p.values.size() && i < p.versions.size(); ++i)
    held[p.values[i].channel] = p.versions[i];
  apply_deltas(self->state, replica_of(self, coordinator), p.values);
}

// The result of a run batch, to send back to `coordinator` (encoded when it is elsewhere).
task_batch_done finished(node_self self, task_batch& b, const caf::strong_actor_ptr& coordinator) {
  // The coordinator has the input already, and needs only the writes of what the node
  // returned (its writers ran here): neither goes back.
  for (auto& t : b.tasks) {
    t.input = value();
    t.output = value();
  }
  task_count.fetch_add(b.tasks.size(), std::memory_order_relaxed);
  batch_count.fetch_add(1, std::memory_order_relaxed);
  task_batch_done done{b.id, std::move(b.slots), std::move(b.tasks), {}};
  if (coordinator && coordinator->node() != self->node()) encode_for_remote(done);
  return done;
}

// Whether a batch's tasks read the replica of their run here: the node reads channels fresh,
// its PULL tasks' inputs are built here, or the batch brings changes to keep. Otherwise no
// replica is made for the run (nor its coordinator monitored, nor a message taken when it
// ends): a local PULL task comes with its input.
bool reads_replica(const node_state& st, const task_batch& b) {
  return !st.node->replica_channels.empty() || b.header.inputs_from_replica || !b.deltas.empty();
}

// Runs a batch of the run coordinated by `sender` against its replica. Its result, or nothing
// when the result went with the writes to the run's group (task_batch::result_with_writes).
std::optional<task_batch_done> run_batch(node_self self, task_batch& b,
                                         const caf::strong_actor_ptr& sender) {
  auto& st = self->state;
  channel_map& replica = reads_replica(st, b) ? replica_of(self, sender) : st.empty;
  // The sender's handle is made only for the rare stream event (the cast is not free);
  // anon_send is thread-safe: nested subgraph runs may emit from pool threads.
  caf::actor coordinator;
  stream_forward forward = [&sender, &coordinator](const std::vector<std::string>& ns,
                                                   std::uint8_t mode, value data) {
    if (!coordinator) coordinator = caf::actor_cast<caf::actor>(sender);
    caf::anon_send(coordinator, stream_chunk{ns, mode, std::move(data)});
  };
  try {
    st.node->body(b.tasks, b.header, replica, forward);
  } catch (const std::exception& e) {
    for (auto& t : b.tasks)
      if (!t.done) t.set_error(task_error{error_code::internal, e.what()});
  } catch (...) {
    for (auto& t : b.tasks)
      if (!t.done)
        t.set_error(task_error{error_code::internal,
                               "the node threw an exception that is not a std::exception"});
  }
  // The writes go straight to their owners (those in the coordinator's process get them
  // from there, from the result), which stage the step as soon as every batch's writes are
  // in; the coordinator learns of them from the result.
  if (b.groups.empty()) return finished(self, b, sender);
  auto messages = writes_for_groups(self, b, sender);
  if (b.result_with_writes && messages.size() == 1 && messages.front()) {
    messages.front()->result = finished(self, b, sender);
    send_writes(self, b, std::move(messages));
    return std::nullopt;
  }
  send_writes(self, b, std::move(messages));
  return finished(self, b, sender);
}

node_actor::behavior_type node_actor_behavior(node_self self,
                                              std::shared_ptr<const node_host> node) {
  auto& st = self->state;
  st.node = std::move(node);
  for (const auto& [name, proto] : st.node->replica_channels) st.prototypes.emplace(name, proto);
  for (const auto& [name, proto] : st.node->input_channels) st.prototypes.emplace(name, proto);
  self->set_down_handler([self](caf::down_msg& msg) {
    self->state.replicas.erase(msg.source);
    self->state.held.erase(msg.source);
  });
  return {
      [self](task_batch& b) -> caf::result<task_batch_done> {
        caf::strong_actor_ptr sender = self->current_sender();
        // With a writes saver, the result goes to it, and it answers the coordinator.
        const auto saver = caf::actor_cast<pending_writes_receiver>(b.saver);
        const auto answer = [self, saver](auto& promise, task_batch_done done,
                                          const caf::strong_actor_ptr& sender) {
          send_parts(self, saver, sender, done);
          if (saver)
            promise.delegate(saver, for_saver(std::move(done)));
          else
            promise.deliver(std::move(done));
        };
        const auto settle =
            [&](std::optional<task_batch_done> done) -> caf::result<task_batch_done> {
          if (!done) return caf::delegated<task_batch_done>();  // it went with the writes
          if (!saver) {
            send_parts(self, saver, sender, *done);
            return std::move(*done);
          }
          auto promise = self->make_response_promise<task_batch_done>();
          answer(promise, std::move(*done), sender);
          return promise;
        };
        if (b.need_channels.empty()) {
          if (!b.deltas.empty()) apply_deltas(self->state, replica_of(self, sender), b.deltas);
          return settle(run_batch(self, b, sender));
        }
        // The run's channels live on channel actors elsewhere: the replica takes what the
        // step's tasks need from the process's replica of the run, once it holds it.
        replica_wait wait = missing(self, b, sender);
        if (wait.channels.empty()) return settle(run_batch(self, b, sender));
        auto promise = self->make_response_promise<task_batch_done>();
        auto batch = std::make_shared<task_batch>(std::move(b));
        auto replica =
            replica_of_run(self->system(), caf::actor_cast<caf::actor>(sender), batch->groups);
        self->request(replica, caf::infinite, await_atom::value, std::move(wait))
            .then(
                [self, batch, sender, promise, answer](channel_push& p) mutable {
                  take_from_replica(self, sender, p);
                  // (A batch whose result goes with its writes does not wait here.)
                  if (auto done = run_batch(self, *batch, sender))
                    answer(promise, std::move(*done), sender);
                },
                [self, batch, sender, promise, answer](caf::error& e) mutable {
                  for (auto& t : batch->tasks)
                    t.set_error(task_error{error_code::unavailable,
                                           "the process's replica of the run's channels failed: " +
                                               self->system().render(e)});
                  answer(promise, finished(self, *batch, sender), sender);
                });
        return promise;
      },
      [self](regroup_atom, std::vector<caf::actor>& groups) {
        // A channel actor of the run was placed again: the process's replica of the run
        // subscribes to the new one.
        auto coordinator = caf::actor_cast<caf::actor>(self->current_sender());
        if (!coordinator) return;
        self->send(replica_of_run(self->system(), coordinator, groups), regroup_atom::value,
                   std::move(groups));
      },
  };
}

}  // namespace

std::uint64_t tasks_run() noexcept { return task_count.load(std::memory_order_relaxed); }
std::uint64_t batches_run() noexcept { return batch_count.load(std::memory_order_relaxed); }

node_actor spawn_node_actor(caf::actor_system& sys, std::shared_ptr<const node_host> node) {
  return sys.spawn(node_actor_behavior, std::move(node));
}

}  // namespace superstep::actors
