#include "superstep/pregel/algo.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <unordered_map>

#include "superstep/channels/step.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep {

bool task_path_less(const pregel_task& a, const pregel_task& b) noexcept {
  if (a.push != b.push) return !a.push;  // "__pregel_pull" sorts before "__pregel_push"
  if (a.push) return a.push_index < b.push_index;
  return a.name < b.name;
}

namespace algo {

channel_version version_of(const checkpoint& cp, const std::string& channel) {
  auto it = cp.channel_versions.find(channel);
  return it == cp.channel_versions.end() ? 0 : it->second;
}

namespace {

// Gives every channel a step changed the step's version, and collects what changed.
class version_bump final : public channels::step_observer {
 public:
  version_bump(run_state& state, applied& out)
      : state_(state), out_(out), next_(state.max_version + 1) {}
  void changed(const std::string& name, channels::channel&, bool available) override {
    state_.checkpoint.channel_versions[name] = next_;
    out_.new_versions[name] = next_;
    state_.max_version = next_;
    if (available) out_.updated_channels.insert(name);
  }

 private:
  run_state& state_;
  applied& out_;
  const channel_version next_;
};

}  // namespace

graph_index graph_index::build(const pregel_graph& g) {
  graph_index idx;
  idx.delta_max_steps_since_snapshot = g.delta_max_steps_since_snapshot;
  std::vector<std::uint32_t> order(g.nodes.size());
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](auto a, auto b) { return g.nodes[a].name < g.nodes[b].name; });
  idx.node_names.reserve(g.nodes.size());
  for (const auto& n : g.nodes) idx.node_names.emplace_back(n.name);
  for (std::uint32_t i : order) {
    idx.node_by_name.emplace(g.nodes[i].name, i);
    for (const auto& t : g.nodes[i].triggers) idx.trigger_to_nodes[t].push_back(i);
  }
  for (const auto& [name, proto] : g.channels) {
    if (proto->finishes_deferred()) idx.finishable.push_back(name);
    if (proto->keeps_deltas()) idx.delta_channels.push_back(name);
    if (proto->never_extends_last_value()) idx.not_extended.push_back(name);
  }
  return idx;
}

run_state restore(const pregel_graph& g, checkpoint cp) {
  run_state state;
  state.channels.reserve(g.channels.size());
  for (const auto& [name, proto] : g.channels) {
    // A channel the checkpoint does not name starts as its prototype: empty, or holding the
    // state key's default.
    auto it = cp.channel_values.find(name);
    auto ch = it == cp.channel_values.end() ? proto->copy() : proto->from_checkpoint(it->second);
    channels::note_availability(state.volatile_available, name, *ch);
    state.channels.emplace(name, std::move(ch));
  }
  for (const auto& [_, v] : cp.channel_versions) state.max_version = std::max(state.max_version, v);
  state.node_reads.reserve(g.nodes.size());
  for (const auto& n : g.nodes) {
    auto& reads = state.node_reads.emplace_back();
    reads.reserve(n.reads.size());
    for (const auto& r : n.reads) {
      auto it = state.channels.find(r);
      reads.emplace_back(&it->first, &it->second);
    }
  }
  state.checkpoint = std::move(cp);
  return state;
}

void hold_elsewhere(run_state& state, const pregel_graph& g,
                    std::unordered_set<std::string> names) {
  for (const auto& name : names) {
    auto slot = state.channels.find(name);
    if (slot == state.channels.end())
      throw error(error_code::internal,
                  "cannot hold channel '" + name + "' elsewhere: the run lacks it");
    if (slot->second->is_available()) state.available_elsewhere.insert(name);
    state.checkpoint.channel_values.erase(name);
    // Emptied in its slot (node_reads point at it): the prototype holds no run's value.
    slot->second = g.channels.at(name)->copy();
    state.volatile_available.erase(name);
  }
  state.input_elsewhere.assign(g.nodes.size(), false);
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    for (const auto& r : g.nodes[n].reads)
      if (names.count(r)) state.input_elsewhere[n] = true;
  state.held_elsewhere = std::move(names);
}

void drop_values_held_elsewhere(run_state& state,
                                const std::map<std::string, channel_version>& changed) {
  if (state.held_elsewhere.empty()) return;
  for (const auto& [name, _] : changed)
    if (state.held_elsewhere.count(name)) state.checkpoint.channel_values.erase(name);
}

std::optional<value> read_channels(const channel_map& channels,
                                   const std::vector<std::string>& names, bool single) {
  if (single) {
    auto it = channels.find(names.front());
    if (it == channels.end() || !it->second->is_available()) return std::nullopt;
    return it->second->get();
  }
  std::vector<object::entry> entries;  // channel names are distinct: no per-key search
  entries.reserve(names.size());
  for (const auto& n : names) {
    auto it = channels.find(n);
    if (it != channels.end() && it->second->is_available())
      entries.emplace_back(n, it->second->get());
  }
  return value(object(std::move(entries), object::unique_keys));
}

task_list prepare_next_tasks(const pregel_graph& g, const graph_index& index,
                             const run_state& state,
                             const std::unordered_set<std::string>* updated_channels,
                             std::int64_t step, std::string_view checkpoint_ns, value* released) {
  task_list tasks;
  prepare_next_tasks(tasks, g, index, state, updated_channels, step, checkpoint_ns, released);
  return tasks;
}

void prepare_next_tasks(task_list& tasks, const pregel_graph& g, const graph_index& index,
                        const run_state& state,
                        const std::unordered_set<std::string>* updated_channels, std::int64_t step,
                        std::string_view checkpoint_ns, value* released) {
  tasks.clear();
  const checkpoint& cp = state.checkpoint;

  // PULL tasks first, by node name, then PUSH tasks by index: task-path order, so applying
  // the writes needs no sort.
  // PULL tasks: nodes whose trigger channels advanced since they last ran.
  std::vector<std::uint32_t> candidates;
  if (updated_channels) {
    for (const auto& ch : *updated_channels) {
      auto it = index.trigger_to_nodes.find(ch);
      if (it != index.trigger_to_nodes.end())
        candidates.insert(candidates.end(), it->second.begin(), it->second.end());
    }
    std::sort(candidates.begin(), candidates.end(),
              [&](auto a, auto b) { return g.nodes[a].name < g.nodes[b].name; });
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  } else if (!cp.channel_versions.empty()) {
    for (const auto& [_, i] : index.node_by_name) candidates.push_back(i);
    std::sort(candidates.begin(), candidates.end(),
              [&](auto a, auto b) { return g.nodes[a].name < g.nodes[b].name; });
  }

  static const std::unordered_map<std::string, channel_version> no_versions;
  for (std::uint32_t n : candidates) {
    const pregel_node& node = g.nodes[n];
    auto seen_it = cp.versions_seen.find(node.name);
    const auto& seen = seen_it == cp.versions_seen.end() ? no_versions : seen_it->second;
    std::vector<std::string> triggered;
    for (const auto& t : node.triggers) {
      auto ch = state.channels.find(t);
      if (ch == state.channels.end() || !state.available(t, *ch->second)) continue;
      auto s = seen.find(t);
      channel_version seen_v = s == seen.end() ? 0 : s->second;
      if (version_of(cp, t) > seen_v) triggered.push_back(t);
    }
    if (triggered.empty()) continue;
    value input;
    const auto& reads = state.node_reads[n];
    if (n < state.input_elsewhere.size() && state.input_elsewhere[n]) {
      // Built where the task runs, from a replica of the channels it reads.
      if (node.single_read && !state.available(*reads.front().first, **reads.front().second))
        continue;
    } else if (node.single_read) {
      const channels::channel& ch = **reads.front().second;
      if (!ch.is_available()) continue;  // nothing to run on
      input = ch.get();
    } else {
      std::vector<object::entry> entries;  // channel names are distinct: no per-key search
      entries.reserve(reads.size());
      for (const auto& [name, slot] : reads)
        if ((*slot)->is_available()) entries.emplace_back(*name, (*slot)->get());
      input = value(object(std::move(entries), object::unique_keys));
    }
    // As LangGraph: a task's triggers are all of its node's triggers, not only those that
    // advanced; all are marked seen and consumed once it runs, and name it in its id.
    triggered = node.triggers;
    std::sort(triggered.begin(), triggered.end());
    pregel_task t;
    t.node = n;
    t.name = index.node_names[n];
    std::string joined;
    for (const auto& tr : triggered) joined.append(tr).append(1, ',');
    t.id = task_id(cp.id, checkpoint_ns, step, node.name, PULL, joined);
    t.triggers = std::move(triggered);
    t.input = std::move(input);
    tasks.push_back(std::move(t));
  }
  // PUSH tasks: one per Send waiting in the tasks topic, or released from it.
  value sends;
  if (released) {
    sends = std::move(*released);
  } else if (auto it = state.channels.find(std::string(TASKS));
             it != state.channels.end() && it->second->is_available()) {
    sends = it->second->get();
  }
  if (!sends.is_null()) {
    const list& items = sends.as_list();
    // Each Send's node and own timeout; the Send itself, when this holds the only copy of
    // the list, is replaced there by its argument before any task is made: a fan-out's 10^6
    // Sends (80 bytes each besides their arguments) are not held beside its 10^6 tasks, which
    // take the memory the Sends leave (a task_list is allocated a few tasks at a time).
    list* sole = sends.sole_list();
    std::vector<std::uint32_t> nodes(items.size());
    std::unordered_map<std::size_t, value> timeouts;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const value& item = items[i];
      // A Send in its own kind is read in place; one in the object form (saved before Sends
      // had a kind), or one with a timeout to check, is decoded.
      std::optional<send> decoded;
      if (!item.is_send() || !item.as_send().timeout().is_null()) {
        decoded = as_send(item);
        if (!decoded)
          throw error(error_code::invalid_update,
                      "the tasks channel holds a value that is not a Send: " + item.to_json());
      }
      const std::string& target = decoded ? decoded->node : item.as_send().node();
      auto node = index.node_by_name.find(target);
      if (node == index.node_by_name.end())
        throw error(error_code::invalid_update, "Send to unknown node '" + target + "'");
      nodes[i] = node->second;
      if (decoded && decoded->timeout) timeouts.emplace(i, timeout_to_value(*decoded->timeout));
      if (sole) {
        value arg = decoded ? std::move(decoded->arg) : item.as_send().arg();
        (*sole)[i] = std::move(arg);  // `item` is gone from here on
      }
    }
    std::optional<task_id_hasher> push_ids;  // Sends to one node share the id's prefix
    std::uint32_t push_ids_node = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      pregel_task t;
      t.node = nodes[i];
      t.push = true;
      t.push_index = i;
      // A PUSH task's trigger is implied: __pregel_push.
      if (sole)
        t.input = std::move((*sole)[i]);
      else
        t.input = items[i].is_send() ? items[i].as_send().arg() : as_send(items[i])->arg;
      if (auto timeout = timeouts.find(i); timeout != timeouts.end())
        t.set_timeout(std::move(timeout->second));
      t.name = index.node_names[t.node];
      if (!push_ids || push_ids_node != t.node) {
        push_ids.emplace(cp.id, checkpoint_ns, step, t.name, PUSH);
        push_ids_node = t.node;
      }
      t.id = push_ids->id(static_cast<std::uint64_t>(i));
      tasks.push_back(std::move(t));
    }
  }
}

namespace {

// Sorts a step's tasks by path and records what each saw (LangGraph's versions_seen): the
// part of applying a step that is the coordinator's wherever the channels live. Returns
// whether a step passed for the channels (some task ran triggered or as a Send).
bool record_seen(checkpoint& cp, std::vector<pregel_task*>& tasks, applied& out) {
  auto path_less = [](const pregel_task* a, const pregel_task* b) {
    return task_path_less(*a, *b);
  };
  if (!std::is_sorted(tasks.begin(), tasks.end(), path_less))
    std::stable_sort(tasks.begin(), tasks.end(), path_less);
  bool bump_step = false;
  std::size_t last_untriggered = SIZE_MAX;  // tasks come grouped by node: skip repeated lookups
  for (const pregel_task* t : tasks) {
    if (t->push || !t->triggers.empty()) bump_step = true;
    if (t->triggers.empty() && last_untriggered == t->node) continue;
    // As LangGraph: every task that ran has an entry, an empty one if it has no triggers (the
    // input's, PUSH tasks').
    auto [entry, added] = cp.versions_seen.try_emplace(t->name);
    if (t->triggers.empty()) last_untriggered = t->node;
    if (added) out.seen_changed.insert(t->name);
    if (t->triggers.empty()) continue;  // PUSH tasks see no channel versions
    auto& seen = entry->second;
    out.seen_changed.insert(t->name);
    for (const auto& ch : t->triggers) {
      auto v = cp.channel_versions.find(ch);
      if (v != cp.channel_versions.end()) seen[ch] = v->second;
    }
  }
  return bump_step;
}

// The channels that triggered tasks, consumed when the step applies (a named barrier resets).
const pregel_task& task_of(const pregel_task* t) { return *t; }
const pregel_task& task_of(const pregel_task& t) { return t; }

// The channels that triggered `tasks` (but reserved ones), sorted and distinct: what the step
// consumes. A step's tasks usually have one trigger each, often the same: no set is built.
template <class Tasks>
std::vector<std::string> consumed_by(const Tasks& tasks) {
  std::vector<std::string> consumed;
  for (const auto& t : tasks)
    for (const auto& ch : task_of(t).triggers)
      if (!is_reserved_channel(ch) && (consumed.empty() || consumed.back() != ch))
        consumed.push_back(ch);
  std::sort(consumed.begin(), consumed.end());
  consumed.erase(std::unique(consumed.begin(), consumed.end()), consumed.end());
  return consumed;
}

[[noreturn]] void unknown_channel(const pregel_task& t, const std::string& ch) {
  throw error(error_code::invalid_update,
              "task '" + t.name + "' wrote to unknown channel '" + ch + "'");
}

}  // namespace

bool tentatively_last(const graph_index& index, const applied& out, bool bump_step) {
  if (!bump_step) return false;
  for (const auto& ch : out.updated_channels)
    if (index.trigger_to_nodes.count(ch)) return false;
  return true;
}

bool known_channel(const run_state& state, const std::string& channel) {
  return is_reserved_channel(channel) || state.channels.count(channel) != 0;
}

step_writes stage_writes(run_state& state, std::vector<pregel_task*>& tasks, applied& out,
                         const std::vector<bool>& given_sent) {
  // The flags are by position in `tasks` as given; recording what the tasks saw sorts them by
  // path (planned in that order, they nearly always are in it already): the flags follow.
  const std::vector<bool>* sent_at = &given_sent;
  std::vector<bool> moved;
  const auto path_less = [](const pregel_task* a, const pregel_task* b) {
    return task_path_less(*a, *b);
  };
  if (!given_sent.empty() && !std::is_sorted(tasks.begin(), tasks.end(), path_less)) {
    std::vector<std::uint32_t> from(tasks.size());
    std::iota(from.begin(), from.end(), 0u);
    std::stable_sort(from.begin(), from.end(), [&](std::uint32_t a, std::uint32_t b) {
      return path_less(tasks[a], tasks[b]);
    });
    std::vector<pregel_task*> sorted(tasks.size());
    moved.assign(tasks.size(), false);
    for (std::size_t k = 0; k < from.size(); ++k) {
      sorted[k] = tasks[from[k]];
      moved[k] = from[k] < given_sent.size() && given_sent[from[k]];
    }
    tasks = std::move(sorted);
    sent_at = &moved;
  }
  const std::vector<bool>& sent = *sent_at;
  step_writes w;
  w.bump_step = record_seen(state.checkpoint, tasks, out);
  w.consumed = consumed_by(tasks);
  std::size_t count = 0;  // only those collected: a fan-out's Sends went to their owner
  const auto collected = [&](std::size_t at) { return at >= sent.size() || !sent[at]; };
  for (std::size_t at = 0; at < tasks.size(); ++at)
    if (collected(at)) count += tasks[at]->writes.size();
  w.writes.reserve(count);
  // Each channel written is checked once: a step's tasks write a few channels, many times over.
  struct checked {
    const std::string* name;
    bool reserved;
  };
  std::vector<checked> seen;
  const auto reserved = [&](const pregel_task& t, const std::string& ch) {
    for (const auto& c : seen)
      if (*c.name == ch) return c.reserved;
    if (!known_channel(state, ch)) unknown_channel(t, ch);
    const bool r = is_reserved_channel(ch);
    if (seen.size() < 16) seen.push_back(checked{&ch, r});
    return r;
  };
  for (std::uint32_t order = 0; order < tasks.size(); ++order) {
    const pregel_task& t = *tasks[order];
    const bool collect = collected(order);
    for (const auto& [ch, v] : t.writes)
      if (!reserved(t, ch) && collect) w.writes.emplace_back(order, ch, v);
  }
  return w;
}

step_writes step_effects(const task_list& tasks) {
  step_writes w;
  w.bump_step = std::any_of(tasks.begin(), tasks.end(),
                            [](const pregel_task& t) { return t.push || !t.triggers.empty(); });
  w.consumed = consumed_by(tasks);
  return w;
}

std::vector<std::uint32_t> path_orders(const task_list& tasks) {
  std::vector<std::uint32_t> order(tasks.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto path_less = [&](std::uint32_t a, std::uint32_t b) {
    return task_path_less(tasks[a], tasks[b]);
  };
  if (std::is_sorted(order.begin(), order.end(), path_less)) return order;
  std::vector<std::uint32_t> by_path = order;
  std::stable_sort(by_path.begin(), by_path.end(), path_less);
  for (std::uint32_t pos = 0; pos < by_path.size(); ++pos) order[by_path[pos]] = pos;
  return order;
}

step_writes all_step_writes(const task_list& tasks) {
  step_writes w = step_effects(tasks);
  const auto orders = path_orders(tasks);
  for (std::size_t i = 0; i < tasks.size(); ++i)
    for (const auto& [ch, v] : tasks[i].writes)
      if (!is_reserved_channel(ch)) w.writes.push_back(actors::ordered_write{orders[i], ch, v});
  return w;
}

void take_changes(run_state& state, const actors::group_changes& changes, channel_version version,
                  applied& out) {
  checkpoint& cp = state.checkpoint;
  for (std::size_t i = 0; i < changes.changed.size(); ++i) {
    const actors::channel_delta& saved = changes.changed[i];
    const actors::channel_delta& staged = changes.values[i];
    auto slot = state.channels.find(saved.channel);
    if (slot == state.channels.end())
      throw error(error_code::internal,
                  "a channel owner changed channel '" + saved.channel + "', which the run lacks");
    cp.channel_versions[saved.channel] = version;
    out.new_versions[saved.channel] = version;
    if (saved.present)
      cp.channel_values[saved.channel] = saved.v;
    else
      cp.channel_values.erase(saved.channel);
    if (state.held_elsewhere.count(saved.channel)) {
      // Its owner holds the value: only whether readers see one is kept.
      if (std::binary_search(changes.available.begin(), changes.available.end(), saved.channel))
        state.available_elsewhere.insert(saved.channel);
      else
        state.available_elsewhere.erase(saved.channel);
      continue;
    }
    // The replica's channel is its own prototype (same kind and settings): no graph lookup.
    slot->second =
        slot->second->from_transfer(staged.present ? std::optional<value>(staged.v) : std::nullopt);
    channels::note_availability(state.volatile_available, saved.channel, *slot->second);
  }
  for (const auto& ch : changes.overwritten)
    if (!state.held_elsewhere.count(ch)) state.channels.at(ch)->note_overwritten();
  if (!changes.changed.empty()) state.max_version = std::max(state.max_version, version);
  for (const auto& ch : changes.updated) out.updated_channels.insert(ch);
  cp.updated_channels.assign(out.updated_channels.begin(), out.updated_channels.end());
  std::sort(cp.updated_channels.begin(), cp.updated_channels.end());
}

applied apply_writes(run_state& state, const graph_index& index, std::vector<pregel_task*>& tasks) {
  checkpoint& cp = state.checkpoint;
  applied out;
  const bool bump_step = record_seen(cp, tasks, out);
  const std::vector<std::string> consumed = consumed_by(tasks);

  // Group writes by channel, in task-path order, and apply each group at once.
  // Names point into the channel map, which outlives this function.
  channels::write_groups groups;
  for (const pregel_task* t : tasks) {
    for (const auto& [ch, v] : t->writes) {
      auto* group = groups.find(ch);
      if (!group) {
        if (is_reserved_channel(ch)) continue;
        auto c = state.channels.find(ch);
        if (c == state.channels.end()) unknown_channel(*t, ch);
        group = &groups.add(c->first, *c->second);
      }
      group->values.push_back(v);
    }
  }
  version_bump bump(state, out);
  channels::apply_step(state.channels, state.volatile_available, consumed, groups.all, bump_step,
                       bump);

  // Tentatively the last step: let deferred channels finish.
  if (tentatively_last(index, out, bump_step))
    channels::finish_step(state.channels, state.volatile_available, index.finishable, bump);

  // Keep the checkpoint's values in step with the channels that changed: O(changed).
  for (const auto& [ch, _] : out.new_versions) {
    auto saved = state.channels.at(ch)->checkpoint();
    if (saved)
      cp.channel_values[ch] = std::move(*saved);
    else
      cp.channel_values.erase(ch);
  }
  cp.updated_channels.assign(out.updated_channels.begin(), out.updated_channels.end());
  std::sort(cp.updated_channels.begin(), cp.updated_channels.end());
  return out;
}

bool should_interrupt(const pregel_graph& g, const run_state& state,
                      const std::vector<std::string>& interrupt_nodes, const task_list& tasks) {
  if (interrupt_nodes.empty()) return false;
  // Only interrupt when some channel changed since the last interrupt.
  const checkpoint& cp = state.checkpoint;
  auto seen_it = cp.versions_seen.find(std::string(INTERRUPT));
  bool any_updates = false;
  for (const auto& [ch, v] : cp.channel_versions) {
    channel_version seen = 0;
    if (seen_it != cp.versions_seen.end()) {
      auto s = seen_it->second.find(ch);
      if (s != seen_it->second.end()) seen = s->second;
    }
    if (v > seen) {
      any_updates = true;
      break;
    }
  }
  if (!any_updates) return false;
  bool all = interrupt_nodes.size() == 1 && interrupt_nodes[0] == "*";
  for (const auto& t : tasks) {
    // "*" means every node of the graph, not the hidden ones it adds (`__start__`).
    if (all ? !g.nodes[t.node].hidden
            : std::find(interrupt_nodes.begin(), interrupt_nodes.end(), t.name) !=
                  interrupt_nodes.end())
      return true;
  }
  return false;
}

std::vector<std::pair<std::string, value>> map_input(const pregel_graph& g, const value& input) {
  std::vector<std::pair<std::string, value>> writes;
  if (g.input_single) {
    if (!input.is_null()) writes.emplace_back(g.input_channels.front(), input);
    return writes;
  }
  if (input.is_null()) return writes;
  if (!input.is_object())
    throw error(error_code::invalid_argument,
                "input must be an object keyed by input channel, got " +
                    std::string(kind_name(input.kind())));
  for (const auto& ch : g.input_channels)
    if (const value* v = input.find(ch)) writes.emplace_back(ch, *v);
  return writes;
}

}  // namespace algo
}  // namespace superstep
