// The coordinator actor: drives one run's loop (plan, dispatch task batches to node actors,
// barrier, commit) by messages. The caller blocks on a scoped actor until the run ends.
#include "coordinator_actor.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "coordinator_state.hpp"
#include "superstep/actors/caf_runtime.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail::coord {

// Tells the caller how the run ended and stops, with the run's channel actor. A run that
// holds some channels as versions reads back those its output needs first.
void end_run(coordinator_actor* self, bool ok) {
  auto& st = self->state;
  if (ok && !st.reading_back && !st.groups.empty()) {
    auto names = st.loop->read_back();
    if (!names.empty()) {
      read_back_then_end(self, std::move(names));
      return;
    }
  }
  for (const auto& host : st.claimed) st.directory->release_host(host);
  st.claimed.clear();
  if (st.line) {
    std::lock_guard lock(st.line->m);  // a save in progress ends first
    st.line->loop = nullptr;
  }
  if (st.saver) self->send_exit(st.saver, caf::exit_reason::user_shutdown);
  for (const auto& g : st.groups) self->send_exit(g, caf::exit_reason::user_shutdown);
  st.groups.clear();
  st.done->set_value(ok);
  self->quit();
}

// Ends the run with `e`. Batches still at this process's node actors use the graph and the
// saver, which the caller may free once told: the end waits for them to come back.
void fail(coordinator_actor* self, std::exception_ptr e) {
  auto& st = self->state;
  if (st.failing) return;
  st.failing = true;
  st.loop->set_failure(e);
  if (st.local_out > 0) return;
  end_run(self, false);
}

// A local batch came back after the run failed: end it once none is left.
void drain_after_failure(coordinator_actor* self) {
  if (self->state.local_out == 0) end_run(self, false);
}

// The run as this step has it, for this process's node actors (batch_header::local_run):
// a copy, since the loop moves on to the next step while a task of this one may still run
// (after a failure), whose stream events go through the line the run cuts when it ends.
std::shared_ptr<const run_shared> local_run_of(coordinator_state& st) {
  struct holder {
    run_shared run;
    std::shared_ptr<const stream_sink> sink;
    std::mutex sink_mutex;
  };
  auto h = std::make_shared<holder>();
  h->run = st.loop->shared();
  h->sink = st.local_sink;
  h->run.sink = h->sink.get();
  h->run.sink_mutex = &h->sink_mutex;
  return std::shared_ptr<const run_shared>(h, &h->run);
}

// Plans the next step and dispatches it; finishes the run when there is nothing to do.
void next_step(coordinator_actor* self) {
  auto& st = self->state;
  if (!st.loop->plan()) {
    end_run(self, true);
    return;
  }
  st.header.step = st.loop->step();
  st.header.local_run = local_run_of(st);
  st.wire_step = -1;  // the run's description for other processes: when a batch goes to one

  std::map<std::uint32_t, std::vector<std::uint32_t>> by_node;
  auto runnable = st.loop->runnable();
  for (std::uint32_t i : runnable) by_node[st.loop->tasks()[i].node].push_back(i);
  st.step_tasks = runnable.size();
  st.step_finished = 0;
  if (st.progress && st.step_tasks > 1) (*st.progress)(st.header.step, 0, st.step_tasks);
  st.starved_since.reset();
  st.parts.clear();  // of the last step's batches that never closed
  st.dead.clear();   // a worker that went away may be back (same actor addresses)
  st.dead_nodes.clear();
  st.losses.clear();
  st.isolating = false;
  st.cap = st.loop->max_concurrency();
  const bool capped = st.cap && runnable.size() > st.cap;
  if (!capped) st.cap = 0;
  // Where each node's tasks go: node actors in other processes, or this process's.
  std::map<std::uint32_t, std::optional<std::vector<actors::node_actor>>> remote;
  for (const auto& [node, _] : by_node)
    remote[node] = st.directory ? st.directory->instances(node) : std::nullopt;
  // The step's batches, numbered in the step: one per task in task order under
  // max_concurrency; else, for a node here, several per instance (they balance uneven tasks;
  // one per task when there are few), and for a remote node batches of remote_batch_size.
  std::vector<chunk> batches;
  const auto add = [&](std::uint32_t node, auto first, auto last) {
    batches.push_back(chunk{node, std::vector<std::uint32_t>(first, last),
                            static_cast<std::uint32_t>(batches.size())});
  };
  if (capped) {
    for (std::uint32_t i : runnable) add(st.loop->tasks()[i].node, &i, &i + 1);
  } else {
    for (const auto& [node, slots] : by_node) {
      if (!remote[node]) {
        const std::size_t n = std::min(slots.size(), st.pool->instances(node).size() * 4);
        for (std::size_t c = 0; c < n; ++c)
          add(node, slots.begin() + slots.size() * c / n,
              slots.begin() + slots.size() * (c + 1) / n);
        continue;
      }
      const std::size_t size = remote_batch_size(st, slots.size(), remote[node]->size());
      for (std::size_t begin = 0; begin < slots.size(); begin += size)
        add(node, slots.begin() + begin, slots.begin() + std::min(slots.size(), begin + size));
    }
  }
  st.pending = static_cast<std::uint32_t>(batches.size());
  if (st.saver) st.stripped.assign(st.loop->tasks().size(), false);
  // Every batch's writes go to the channel groups without the coordinator: a batch here, and a
  // remote one to groups on the workers, sends them itself; a remote batch's writes for a
  // group in this process come with its result, which the writes saver (or, without one, the
  // coordinator) hands on. The groups' prepare goes out with the batches, waiting for each
  // and, when some tasks were restored rather than run, the coordinator's share.
  st.at_barrier = st.early_prepare = st.share_due = false;
  if (!st.groups.empty() && !batches.empty()) {
    st.share_due = runnable.size() < st.loop->tasks().size();
    st.early_prepare = true;
    st.sent_direct.assign(st.loop->tasks().size(), false);
    st.orders = algo::path_orders(st.loop->tasks());
    prepare_early(self, static_cast<std::uint32_t>(batches.size()) + (st.share_due ? 1 : 0));
  }
  if (capped) {
    // At most max_concurrency out at once.
    st.capped.assign(std::make_move_iterator(batches.begin()),
                     std::make_move_iterator(batches.end()));
    st.capped_out = 0;
    release_capped(self);
    return;
  }
  std::map<std::uint32_t, std::size_t> sent;  // round robin over a node's instances here
  for (auto& c : batches) {
    const std::uint32_t node = c.node;
    if (!remote[node]) {
      const auto& instances = st.pool->instances(node);
      send_local(self, instances[sent[node]++ % instances.size()], std::move(c));
      continue;
    }
    // Remote: queued and fed to the actors as their windows allow.
    st.waiting[node].push_back(std::move(c));
  }
  for (const auto& [node, where] : remote) {
    if (!where) continue;
    pump(self, node);
    if (self->state.failing || self->getf(caf::abstract_actor::is_terminated_flag)) return;
  }
  if (st.pending == 0) commit_and_continue(self);  // every task was restored from saved writes
}

// Whether every write of `t` is to a channel it may write: what staging the step checks.
bool writes_known(const run_loop& loop, const pregel_task& t) {
  return std::all_of(t.writes.begin(), t.writes.end(),
                     [&](const auto& w) { return algo::known_channel(loop.state(), w.first); });
}

// Files the results of a batch; returns the node whose waiting chunks may now be sent, when
// the batch came from a remote actor. Throws when a remote answer does not match its batch.
std::optional<std::uint32_t> take_results(coordinator_actor* self, actors::task_batch_done& done) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  std::optional<std::uint32_t> node;
  std::vector<std::uint32_t> slots;
  if (done.id != 0) {
    auto it = st.flight.find(done.id);
    if (it == st.flight.end()) return std::nullopt;  // answered after it was sent elsewhere
    // Only the coordinator's own record says which tasks a batch holds.
    slots = std::move(it->second.work.slots);
    node = it->second.work.node;
    auto l = st.load.find(it->second.to.address());
    if (l != st.load.end() && l->second > 0) --l->second;
    st.flight.erase(it);
    // Its outcomes come in the batch's order, without what each task is.
    if (done.tasks.size() != slots.size())
      throw error(error_code::internal, "a worker answered a batch of " +
                                            std::to_string(slots.size()) + " tasks with " +
                                            std::to_string(done.tasks.size()));
  } else {
    slots = std::move(done.slots);
    if (slots.size() != done.tasks.size())
      throw error(error_code::internal, "a node actor answered with mismatched slots");
    for (auto s : slots)
      if (s >= tasks.size()) throw error(error_code::internal, "a node actor answered a bad slot");
  }
  std::vector<const pregel_task*> finished;
  finished.reserve(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    pregel_task& t = tasks[slots[i]];
    pregel_task& r = done.tasks[i];
    if (node) {
      // From another process: only the outcome is taken; what the task is stays ours.
      t.writes = std::move(r.writes);
      if (!r.rare.empty()) {
        task_rare& outcome = r.rare.edit();
        t.set_interrupts(std::move(outcome.interrupts));
        t.set_error(std::move(outcome.error));
        t.set_handled_error(std::move(outcome.handled_error));
      } else if (!t.rare.empty()) {
        t.set_interrupts({});
        t.set_error(std::nullopt);
        t.set_handled_error(std::nullopt);
      }
      t.done = r.done;
      // A Send's argument is needed no more once its task ran elsewhere.
      if (t.push) t.input = value();
      if (st.saver && st.early_prepare && st.sent_direct[slots[i]] && writes_known(*st.loop, t))
        // Saved apart, and with their owners already: only their channels came, which the
        // step needs no more once known (a fan-out's 10^6 tasks would each hold a list of
        // names until it commits). An interrupted step, or a group placed again, gets the
        // values back from the saver (restore_write_values).
        std::vector<std::pair<std::string, value>>().swap(t.writes);
    } else {
      value input = std::move(t.input);  // the node actor sends no input back
      t = std::move(r);
      t.input = std::move(input);
    }
    finished.push_back(&t);
  }
  st.loop->tasks_finished(finished, node && st.saver);
  st.step_finished += slots.size();
  if (st.progress) (*st.progress)(st.header.step, st.step_finished, st.step_tasks);
  return node;
}

// One more batch of the step is answered (`returned` tasks, from remote `node`): the next ones
// go, or the step reaches its barrier.
void batch_answered(coordinator_actor* self, std::optional<std::uint32_t> node,
                    std::size_t returned) {
  auto& st = self->state;
  if (--st.pending > 0) {
    if (st.isolating)
      pump_all(self);  // a suspect of any node may wait for the process this batch held
    else if (node)
      pump(self, *node);
    if (st.cap) {
      st.capped_out -= std::min(st.capped_out, returned);
      release_capped(self);
    }
    return;
  }
  commit_and_continue(self);
}

// A batch's result, from the node actor that ran it (or, for a batch in another process, the
// run's writes saver in its stead), or from the run's group, with which it came
// (task_batch::result_with_writes).
void take_batch_result(coordinator_actor* self, actors::task_batch_done& done) {
  auto& st = self->state;
  if (done.id == 0) {
    // Unnumbered batches are this process's: refuse one from elsewhere.
    const auto& sender = self->current_sender();
    if (!sender || sender->node() != self->node()) return;
    if (st.local_out > 0) --st.local_out;
    // The answer to an empty batch, which stands for a result lost with the run's group
    // (the run failed then: a lone group beside the coordinator is not placed again). It
    // counts for local_out only: no batch here is empty otherwise.
    if (done.tasks.empty() && done.slots.empty()) {
      if (st.failing) drain_after_failure(self);
      return;
    }
  }
  if (st.failing) {
    drain_after_failure(self);
    return;
  }
  try {
    if (done.id != 0) {
      // Only the actor a batch went to may answer it (and only once); with a writes
      // saver, only the saver, in its stead, once it saved the writes.
      auto it = st.flight.find(done.id);
      const auto from = caf::actor_cast<caf::actor_addr>(self->current_sender());
      if (it == st.flight.end() ||
          from != (st.saver ? st.saver.address() : it->second.to.address()))
        return;
      st.parts.complete(done);  // when it came in parts
      release_isolated(st, it->second);
      hand_on_writes(self, it->second.hand_on, done.tasks);
    }
    const std::size_t returned = done.tasks.size();
    auto node = take_results(self, done);
    batch_answered(self, node, returned);
  } catch (...) {
    fail(self, std::current_exception());
  }
}

// Fails the run with the tasks of `c`, lost with their worker `losses` times, the last time
// alone on it (`why` it went): taken for tasks that crash their process, they are not sent to
// another one. The tasks fail as a node's would (their error saved as their pending write,
// the step's other tasks cancelled); the run ends at once, not when the step's other batches
// are back: those still waiting may have no worker left to go to (every one the task reached
// is gone), and the run would fail "no connected worker can run node ..." after
// policy.wait instead. What finished before is saved as pending writes already.
void quarantine(coordinator_actor* self, const chunk& c, const std::string& why) {
  auto& st = self->state;
  auto& tasks = st.loop->tasks();
  const std::string& node = st.loop->graph().nodes[c.node].name;
  std::string which;
  for (std::size_t i = 0; i < c.slots.size() && i < 5; ++i) {
    const pregel_task& t = tasks[c.slots[i]];
    which += (which.empty() ? "'" : ", '") + t.id + "'" +
             (t.push ? " (Send #" + std::to_string(t.push_index) + ")" : std::string());
  }
  if (c.slots.size() > 5) which += " and " + std::to_string(c.slots.size() - 5) + " more";
  const std::string message =
      "node '" + node + "': " + (c.slots.size() == 1 ? "task " : "one of the tasks ") + which +
      " was running on " + std::to_string(st.losses[c.slots.front()]) +
      " workers that went away, the last time alone on it (" + why +
      "): taken for a task that crashes its worker, it is not sent to another one";
  std::vector<const pregel_task*> finished;
  for (auto s : c.slots) {
    pregel_task& t = tasks[s];
    t.writes.clear();
    t.set_interrupts({});
    t.set_handled_error(std::nullopt);
    t.set_error(task_error{error_code::node_error, message});
    t.done = true;
    finished.push_back(&t);
  }
  st.loop->tasks_finished(finished, false);
  fail(self, std::make_exception_ptr(error(error_code::node_error, message)));
}

// The batches still in flight to `gone`, a lost node actor (`why`), go back to the front of
// their queues and on to other actors. With policy.task_loss_limit, each of their tasks counts
// the loss, and its batch becomes a suspect: it goes again whole (the groups take a batch's
// writes in one message), alone on its process (pump_isolating), so that the next loss is its
// own. A batch lost alone on its process whose tasks reached the limit fails the run instead
// (quarantine): one task that segfaults its worker no longer takes down every worker it is
// sent to, and the error names its node and task (the batch's first five tasks, when it holds
// more than one: Sends of one node go in batches).
void send_again(coordinator_actor* self, const caf::actor_addr& gone, const std::string& why) {
  auto& st = self->state;
  if (st.failing || self->getf(caf::abstract_actor::is_terminated_flag)) return;
  std::vector<std::uint64_t> ids;
  for (const auto& [id, f] : st.flight)
    if (f.to.address() == gone) ids.push_back(id);
  std::sort(ids.rbegin(), ids.rend());  // newest first, so the oldest ends up in front
  const std::uint32_t limit = st.policy.task_loss_limit;
  auto lost_with = st.dead_nodes.find(gone.node());
  const bool only_one = lost_with != st.dead_nodes.end() && lost_with->second == 1;
  std::vector<chunk> poisoned;
  for (auto id : ids) {
    auto it = st.flight.find(id);
    in_flight f = std::move(it->second);
    st.flight.erase(it);
    release_isolated(st, f);
    chunk c = std::move(f.work);
    if (limit == 0) {
      st.waiting[c.node].push_front(std::move(c));
      continue;
    }
    if (st.losses.empty()) st.losses.assign(st.loop->tasks().size(), 0);
    st.isolating = true;
    std::uint8_t most = 0;
    for (auto s : c.slots) {
      if (st.losses[s] < 255) ++st.losses[s];
      most = std::max(most, st.losses[s]);
    }
    // Alone on its process (sent so, or the only batch of the run there): the loss is its.
    // It goes again whole (its writes reach the groups as one message), alone on a process.
    const bool alone = f.isolated || only_one;
    if (alone && most >= limit) {
      poisoned.push_back(std::move(c));
      continue;
    }
    st.waiting[c.node].push_front(std::move(c));
  }
  if (!poisoned.empty()) {
    quarantine(self, poisoned.front(), why);  // one names the task; the run ends with it
    return;
  }
  if (!ids.empty()) pump_all(self);
}

// A remote node actor went down (its process died or disconnected): its unanswered batches
// go to other actors. With a writes saver, the results it sent before it went may be waiting
// there (the saver saves one batch's writes at a time): the saver is asked first, and answers
// once it has answered every result that reached it, so that only batches whose result never
// came go again and no task of theirs runs twice. (A result still on its way through this
// process's network layer when the saver answers is not waited for: its batch goes again,
// and the late result is ignored.)
void actor_lost(coordinator_actor* self, const caf::actor_addr& gone, const std::string& why) {
  auto& st = self->state;
  st.dead.insert(gone);
  // Its process's other actors go down with it (their downs may come later): nothing goes to
  // them meanwhile. Whether a batch was alone there is known from the first down.
  if (st.policy.task_loss_limit > 0 && !st.dead_nodes.count(gone.node())) {
    std::size_t out = 0;
    for (const auto& [id, f] : st.flight) out += f.to.node() == gone.node() ? 1 : 0;
    st.dead_nodes.emplace(gone.node(), out);
  }
  st.monitored.erase(gone);
  st.load.erase(gone);
  st.synced.erase(gone);
  const bool answers_due = std::any_of(st.flight.begin(), st.flight.end(), [&](const auto& f) {
    return f.second.to.address() == gone;
  });
  if (!answers_due) return;
  if (!st.saver) {
    send_again(self, gone, why);
    return;
  }
  self->request(st.saver, caf::infinite, flush_atom::value)
      .then(
          [self, gone, why](bool) {
            try {
              send_again(self, gone, why);
            } catch (...) {
              fail(self, std::current_exception());
            }
          },
          [self](caf::error& e) {
            fail(self, std::make_exception_ptr(error(
                           error_code::unavailable,
                           "the run's writes saver did not answer: " + self->system().render(e))));
          });
}

coordinator_protocol::behavior_type coordinator(
    coordinator_actor* self, run_loop* loop, actor_run run, std::promise<bool>* done,
    std::shared_ptr<const stream_sink> local_sink) {
  auto& st = self->state;
  st.loop = loop;
  st.local_sink = std::move(local_sink);
  st.pool = &run.pool;
  st.directory = run.directory;
  st.progress = run.progress;
  st.use_channel_actors = run.channel_actors;
  if (run.directory) st.policy = run.directory->policy();
  st.done = done;
  self->set_down_handler([self](caf::down_msg& msg) {
    // A result on its way with the writes to the run's group is lost with it (failing or
    // not): an empty batch to the node actor that ran it answers once that actor is done
    // with the batch, and stands for it (the run ends only when this process's node actors
    // are, local_out).
    const auto& groups = self->state.groups;
    if (self->state.routed_to && !groups.empty() && groups.front().address() == msg.source)
      self->send(*std::exchange(self->state.routed_to, std::nullopt), actors::task_batch{});
    if (self->state.failing) return;
    try {
      if (self->state.saver && msg.source == self->state.saver.address())
        throw error(error_code::internal,
                    "the run's writes saver stopped: " + self->system().render(msg.reason));
      // A channel host went down: what it was asked to own and did not answer goes elsewhere.
      if (auto host = self->state.placing.find(msg.source); host != self->state.placing.end()) {
        auto refusals = std::move(host->second);
        self->state.placing.erase(host);
        for (auto& asked : refusals) asked.refuse(caf::make_error(caf::sec::request_receiver_down));
        return;
      }
      // A group of the run's channels is gone with its process: placed again elsewhere.
      for (std::uint32_t g = 0; g < groups.size(); ++g)
        if (groups[g].address() == msg.source) {
          replace_group(self, g, msg.source.node(),
                        (self->state.spread ? "its worker went away: " : "it stopped: ") +
                            self->system().render(msg.reason));
          return;
        }
      actor_lost(self, msg.source, self->system().render(msg.reason));
    } catch (...) {
      fail(self, std::current_exception());
    }
  });
  return {
      [self](start_atom, value& input) {
        try {
          self->state.loop->begin(input);
          if (self->state.use_channel_actors)
            place_channels(self);
          else
            next_step(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::task_batch_done& done) {
        // (One that came with writes and that no vote took comes from the run's group.)
        if (!self->state.groups.empty() &&
            self->state.groups.front().address() == self->current_sender())
          self->state.routed_to.reset();
        take_batch_result(self, done);
      },
      [self](retry_atom) {
        self->state.retry_scheduled = false;
        if (self->state.failing) return;
        try {
          pump_all(self);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::result_part& p) {
        // A piece of a big result, from the actor its batch went to.
        auto& st = self->state;
        if (st.failing) return;
        auto it = st.flight.find(p.batch);
        const auto from = caf::actor_cast<caf::actor_addr>(self->current_sender());
        if (it == st.flight.end() || from != it->second.to.address()) return;
        try {
          st.parts.add(std::move(p));
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::step_vote& v) {
        // Results that came with the step's writes to the group come first.
        if (!v.results.empty()) self->state.routed_to.reset();
        for (auto& r : v.results) {
          take_batch_result(self, r);
          if (self->getf(caf::abstract_actor::is_terminated_flag)) return;
        }
        if (self->state.failing) return;
        try {
          take_vote(self, v);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
      [self](actors::stream_chunk& chunk) {
        if (self->state.failing) return;
        const run_shared& shared = self->state.loop->shared();
        if (!shared.sink) return;
        try {
          stream_event ev{std::move(chunk.ns), static_cast<stream_mode>(chunk.mode),
                          std::move(chunk.data)};
          std::lock_guard lock(*shared.sink_mutex);
          (*shared.sink)(ev);
        } catch (...) {
          fail(self, std::current_exception());
        }
      },
  };
}

}  // namespace superstep::detail::coord

namespace superstep::detail {

value run_on_actors(run_loop& loop, const actor_run& run, const value& input) {
  auto& sys = run.pool.runtime().internals().system;
  // The caller blocks on a future, not a scoped actor: it is not an actor, and creating one
  // per run costs more than the run of a short graph.
  std::promise<bool> done;
  auto finished = done.get_future();
  // Node actors of this process stream straight to the run's sink while their tasks run; the
  // line is cut when the run ends, so a task still running after a failure reaches nothing.
  struct direct_line {
    std::mutex m;
    const run_shared* shared = nullptr;
  };
  auto line = std::make_shared<direct_line>();
  line->shared = &loop.shared();
  auto local_sink = std::make_shared<const stream_sink>([line](const stream_event& e) {
    std::lock_guard lock(line->m);
    const run_shared* shared = line->shared;
    if (!shared || !shared->sink) return;
    std::lock_guard sink_lock(*shared->sink_mutex);
    (*shared->sink)(e);
  });
  struct cut_line {
    direct_line& l;
    ~cut_line() {
      std::lock_guard lock(l.m);
      l.shared = nullptr;
    }
  } cut{*line};
  auto coordinator = sys.spawn(coord::coordinator, &loop, run, &done, std::move(local_sink));
  caf::anon_send(coordinator, coord::start_atom::value, input);
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
