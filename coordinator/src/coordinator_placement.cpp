// The coordinator actor's side of where a run's channels live: placing its channel groups
// (beside the coordinator, or on the workers' channel hosts with --spread-channels), placing a
// lost group again, what the coordinator keeps as versions only, and reading those values back
// when the run ends.
#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <utility>

#include "coordinator_state.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"

namespace superstep::detail::coord {

namespace {

// `host` answered one placement (or refused it): it is no longer watched for those it has
// answered, and not at all once none is left.
void done_asking(coordinator_actor* self, const actors::channel_host& host) {
  auto& placing = self->state.placing;
  auto it = placing.find(host.address());
  if (it == placing.end()) return;
  auto& asked = it->second;
  asked.erase(
      std::remove_if(asked.begin(), asked.end(),
                     [](const coordinator_state::placement_asked& a) { return *a.settled; }),
      asked.end());
  if (!asked.empty()) return;
  placing.erase(it);
  self->demonitor(host.address());
}

// Asks `host` to own group `g` of the run's channels (`p`). Once it answers, the group is the
// run's (monitored) and `then` goes on (its failure fails the run); a refusal goes to
// `refused`.
template <class Refused, class Then>
void place_group(coordinator_actor* self, const actors::channel_host& host, std::uint32_t g,
                 actors::channel_placement p, Refused refused, Then then) {
  // A host that dies before it answers refuses (a request to it would wait out its timeout):
  // the first of the answer, an error and the host's down settles the placement.
  auto settled = std::make_shared<bool>(false);
  std::function<void(caf::error)> refuse = [self, host, settled, refused](caf::error e) mutable {
    if (std::exchange(*settled, true)) return;
    done_asking(self, host);
    refused(e);
  };
  auto& asked = self->state.placing[host.address()];
  if (asked.empty()) self->monitor(host);
  asked.push_back({settled, refuse});
  self->request(host, std::chrono::seconds(30), actors::place_atom::value, std::move(p))
      .then(
          [self, g, then, settled, host](caf::actor& placed) {
            auto& st = self->state;
            if (!*settled) {
              *settled = true;
              done_asking(self, host);
            } else {
              self->send_exit(placed, caf::exit_reason::user_shutdown);  // refused already
              return;
            }
            if (st.failing) {
              self->send_exit(placed, caf::exit_reason::user_shutdown);
              return;
            }
            st.groups[g] = caf::actor_cast<actors::channel_actor>(placed);
            self->monitor(placed);
            try {
              then();
            } catch (...) {
              fail(self, std::current_exception());
            }
          },
          [refuse](caf::error& e) mutable { refuse(e); });
}

// The placements of the run's channels over `n` groups (or only group `only`'s), from the
// loop's channels: the committed values, whose versions the coordinator keeps. Without
// `only`, none for the last group: that one is made beside the coordinator (spawn_beside).
std::vector<actors::channel_placement> placements_of(const coordinator_state& st, std::size_t n,
                                                     std::optional<std::uint32_t> only = {},
                                                     bool from_checkpoint = false) {
  std::vector<actors::channel_placement> placements(n);
  for (auto& p : placements) p.graph = st.directory->graph_key();
  const checkpoint& committed = st.loop->state().checkpoint;
  std::vector<std::string> held;  // held as versions: their values come from the checkpoint
  for (const auto& [name, c] : st.loop->channels()) {
    const std::uint32_t g = actors::channel_owner(name, n);
    if (only ? g != *only : g + 1 == n) continue;
    const bool held_here = from_checkpoint || st.loop->holds_elsewhere(name);
    if (held_here) held.push_back(name);
    placements[g].values.push_back(
        actors::channel_delta::of(name, held_here ? std::nullopt : c->transfer()));
    placements[g].versions.push_back(algo::version_of(committed, name));
  }
  if (held.empty()) return placements;
  std::vector<channel_version> saved_versions;
  auto saved = st.loop->committed_values(held, from_checkpoint ? &saved_versions : nullptr);
  std::unordered_map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < held.size(); ++i) by_name.emplace(held[i], i);
  for (auto& p : placements)
    for (std::size_t k = 0; k < p.values.size(); ++k) {
      auto it = by_name.find(p.values[k].channel);
      if (it == by_name.end()) continue;
      if (from_checkpoint) p.versions[k] = saved_versions[it->second];
      p.values[k] = std::move(saved[it->second]);
    }
  return placements;
}

// With the groups placed on the workers, the coordinator keeps only the versions (and
// availability) of the channels they own, except those whose values it reads itself
// (run_loop::values_read_here): a step's vote brings each changed value for its checkpoint,
// dropped once the checkpoint is saved.
void hold_channels_elsewhere(coordinator_state& st) {
  auto here = st.loop->values_read_here();
  if (!here) return;
  const std::size_t n = st.groups.size();
  std::unordered_set<std::string> elsewhere;
  for (const auto& [name, _] : st.loop->channels())
    if (actors::channel_owner(name, n) + 1 != n && !here->count(name)) elsewhere.insert(name);
  st.loop->hold_elsewhere(std::move(elsewhere));
}

// When the run keeps pending writes as tasks finish, the results of batches run in other
// processes go to a writes saver, which saves their writes and hands those for the groups
// here on to them: no write value reaches the coordinator.
void start_writes_saver(coordinator_actor* self) {
  auto& st = self->state;
  if (!st.loop->writes_saved_apart()) return;
  st.line = std::make_shared<saver_line>();
  st.line->loop = st.loop;
  st.saver = spawn_writes_saver(self->system(), st.line);
  self->monitor(st.saver);
}

// The run's first step, once every group of its channels is placed on the workers (a group
// lost while others were still being placed the first time is placed again first).
void start_when_placed(coordinator_actor* self) {
  auto& st = self->state;
  if (st.spread || st.placements_due > 0 || any_lost(st)) return;
  st.spread = true;
  hold_channels_elsewhere(st);
  start_writes_saver(self);
  next_step(self);
}

// Places group `g` (`p`) on the first of `hosts` that takes it, then `placed`; when none
// does, the run fails with `none` and the last refusal.
template <class Placed>
void place_on_one_of(coordinator_actor* self, std::uint32_t g, actors::channel_placement p,
                     std::vector<actors::channel_host> hosts, std::string none, Placed placed) {
  const actors::channel_host host = hosts.front();
  hosts.erase(hosts.begin());
  place_group(
      self, host, g, p,
      [self, g, p, hosts, none, placed](caf::error& e) {
        if (!hosts.empty()) {
          place_on_one_of(self, g, p, hosts, none, placed);
          return;
        }
        fail(self, std::make_exception_ptr(
                       error(error_code::unavailable, none + ": " + self->system().render(e) +
                                                          "; the thread resumes from its last "
                                                          "checkpoint")));
      },
      placed);
}

// Places lost group `g` (`p`) on the first of `hosts` that takes it.
void place_again(coordinator_actor* self, std::uint32_t g, actors::channel_placement p,
                 std::vector<actors::channel_host> hosts, const std::string& why) {
  place_on_one_of(
      self, g, std::move(p), std::move(hosts),
      "lost a channel actor of the run (" + why + ") and no other worker took its channels",
      [self, g] {
        self->state.lost[g] = false;
        if (!self->state.spread) {
          start_when_placed(self);  // lost while the run's groups were first being placed
          return;
        }
        group_placed(self, g);
      });
}

}  // namespace

void replace_group(coordinator_actor* self, std::uint32_t g, const caf::node_id& node,
                   const std::string& why) {
  auto& st = self->state;
  const auto cannot = [&](const std::string& because) {
    return error(error_code::unavailable, "lost a channel actor of the run (" + why + ") at step " +
                                              std::to_string(st.loop->step()) + because +
                                              "; the thread resumes from its last checkpoint");
  };
  // While the run's groups are first being placed (not `spread` yet), it is placed again
  // before the first step starts. In a finish round the loop's channels hold the step's first
  // round, not committed values: those come from the last checkpoint, which holds every
  // channel's but a delta channel's.
  const bool first = !st.spread;
  const bool finishing = st.round_open && st.finish_round;
  if (st.groups.size() <= 1) throw cannot("");
  if (finishing) {
    if (!st.loop->steps_checkpointed())
      throw cannot(" in the finish round of its step, with no checkpoint of each step");
    for (const auto& [name, c] : st.loop->channels()) {
      if (actors::channel_owner(name, st.groups.size()) != g) continue;
      if (c->keeps_deltas())
        throw cannot(" in the finish round of its step, owning delta channel '" + name + "'");
      if (st.loop->changed_since_checkpoint(name))
        throw cannot(" in the finish round of its step, owning channel '" + name +
                     "', which changed since the last checkpoint");
    }
  }
  st.lost_nodes.push_back(node);
  std::vector<actors::channel_host> hosts;
  for (auto& h : st.directory->channel_hosts())
    if (std::find(st.lost_nodes.begin(), st.lost_nodes.end(), h.node()) == st.lost_nodes.end())
      hosts.push_back(std::move(h));
  if (hosts.empty()) throw cannot(": no other worker can own its channels");
  st.lost[g] = true;
  // The step's prepare went to the lost group: the one placed instead gets another, with every
  // write of the step, and its vote is due again.
  if (st.round_open) {
    st.redo[g] = true;
    if (st.voted[g]) {
      st.voted[g] = false;
      ++st.votes_due;
    }
  }
  st.refinish[g] = finishing;
  st.skip_votes[g] = 0;  // a vote skipped for the lost one is not coming
  actors::channel_placement p = std::move(placements_of(st, st.groups.size(), g, finishing)[g]);
  p.closed_through = first ? -1 : st.loop->step();
  std::rotate(hosts.begin(), hosts.begin() + g % hosts.size(), hosts.end());
  place_again(self, g, std::move(p), std::move(hosts), why);
}

namespace {

// One group's part of the read back came in (`got`); the last part ends the run.
void read_back_part(coordinator_actor* self,
                    const std::shared_ptr<std::vector<actors::channel_delta>>& values,
                    const std::shared_ptr<std::size_t>& due,
                    std::vector<actors::channel_delta> got) {
  for (auto& v : got) values->push_back(std::move(v));
  if (--*due > 0) return;
  try {
    self->state.loop->take_read_back(std::move(*values));
  } catch (...) {
    fail(self, std::current_exception());
    return;
  }
  end_run(self, true);
}

}  // namespace

void read_back_then_end(coordinator_actor* self, std::vector<std::string> names) {
  auto& st = self->state;
  st.reading_back = true;
  const std::size_t n = st.groups.size();
  std::vector<std::vector<std::string>> by_group(n);
  for (auto& name : names) by_group[actors::channel_owner(name, n)].push_back(std::move(name));
  auto values = std::make_shared<std::vector<actors::channel_delta>>();
  auto due = std::make_shared<std::size_t>(0);
  for (const auto& asked : by_group) *due += asked.empty() ? 0 : 1;
  const auto from_checkpoint = [self, values, due](const std::vector<std::string>& asked) {
    try {
      read_back_part(self, values, due, self->state.loop->committed_values(asked));
    } catch (...) {
      fail(self, std::current_exception());
    }
  };
  for (std::uint32_t g = 0; g < n; ++g) {
    if (by_group[g].empty()) continue;
    if (st.lost[g]) {
      from_checkpoint(by_group[g]);
      if (*due == 0 || st.failing) return;  // the run ended
      continue;
    }
    self->request(st.groups[g], std::chrono::seconds(30), actors::read_atom::value, by_group[g])
        .then(
            [self, values, due](actors::channel_push& p) {
              read_back_part(self, values, due, std::move(p.values));
            },
            // The owner went away after the last commit: the values are the last checkpoint's.
            [from_checkpoint, asked = by_group[g]](caf::error&) { from_checkpoint(asked); });
  }
}

namespace {

// A group beside the coordinator owning the loop's channels that fall to group `g` of `n`
// (every channel when `n` is 1), restored from their values now, at their versions.
actors::channel_actor spawn_beside(coordinator_actor* self, std::uint32_t g, std::size_t n) {
  auto& st = self->state;
  const auto& saved = st.loop->state().checkpoint.channel_versions;
  actors::channel_map owned;
  std::unordered_map<std::string, std::uint64_t> versions;
  for (const auto& [name, c] : st.loop->channels()) {
    if (actors::channel_owner(name, n) != g) continue;
    owned.emplace(name, c->copy());
    if (auto v = saved.find(name); v != saved.end()) versions.emplace(name, v->second);
  }
  auto group =
      actors::spawn_channel_actor_beside(self->system(), actors::channel_group(std::move(owned)),
                                         caf::actor_cast<caf::actor>(self), std::move(versions));
  self->monitor(group);
  return group;
}

}  // namespace

// Places the run's channels, as they are once the input is applied: one group beside the
// coordinator, or one per channel host of the directory (--spread-channels), each restored
// from the loop's values, and one more beside the coordinator for the tasks topic (it plans
// PUSH tasks from the Sends there, so they need not come back to it in a vote from a worker).
// The run's first step starts once every group is placed.
void place_channels(coordinator_actor* self) {
  static_assert(TASKS == actors::tasks_topic);
  auto& st = self->state;
  std::vector<actors::channel_host> hosts;
  if (st.directory) hosts = st.directory->channel_hosts();
  const std::size_t n = hosts.empty() ? 1 : hosts.size() + 1;
  st.groups.resize(n);
  st.lost.assign(n, false);
  st.redo.assign(n, false);
  st.refinish.assign(n, false);
  st.skip_votes.assign(n, 0);
  st.groups[n - 1] = spawn_beside(self, static_cast<std::uint32_t>(n - 1), n);
  if (hosts.empty()) {
    // Beside the coordinator: node actors in other processes (a cluster's workers) send their
    // results, with the writes for the group here, through the saver.
    if (st.directory) start_writes_saver(self);
    next_step(self);
    return;
  }
  auto placements = placements_of(st, n);
  st.placements_due = hosts.size();
  // Group g on host g; a host that refuses it or dies first passes it on to the next one.
  for (std::uint32_t g = 0; g < hosts.size(); ++g) {
    std::vector<actors::channel_host> order = hosts;
    std::rotate(order.begin(), order.begin() + g, order.end());
    place_on_one_of(self, g, std::move(placements[g]), std::move(order),
                    "cannot place the run's channels on a worker", [self] {
                      --self->state.placements_due;
                      start_when_placed(self);
                    });
  }
}

}  // namespace superstep::detail::coord
