#include "superstep/graph/state_graph.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "invalid_graph.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/last_value_after_finish.hpp"
#include "superstep/channels/named_barrier_value.hpp"
#include "superstep/channels/named_barrier_value_after_finish.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/channels/untracked_value.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/send.hpp"

namespace superstep {

namespace {

using graph_detail::invalid;

std::string branch_channel(const std::string& node) { return "branch:to:" + node; }

std::string join_channel(const std::vector<std::string>& from, const std::string& to) {
  std::string s = "join:";
  for (std::size_t i = 0; i < from.size(); ++i) s += (i ? "+" : "") + from[i];
  return s + ":" + to;
}

// Everything a writer needs to know about the compiled graph, shared by all writers.
struct compiled_topology {
  std::unordered_set<std::string> state_keys;
  std::unordered_set<std::string> nodes;
  /// The state is the one channel ROOT, not an object of keys.
  bool root = false;
};

// Routes to `target` (a node name, END, or a Send) on behalf of `who`.
void write_goto(const compiled_topology& topo, const std::string& who, const value& target,
                write_scope& scope) {
  // A Send in its own kind is read in place (a fan-out's router makes 10^6); one in the
  // object form is decoded.
  std::optional<send> decoded;
  const std::string* sent_to = nullptr;
  if (target.is_send())
    sent_to = &target.as_send().node();
  else if ((decoded = as_send(target)))
    sent_to = &decoded->node;
  if (sent_to) {
    if (!topo.nodes.count(*sent_to))
      throw error(error_code::invalid_update, who + " sent to unknown node '" + *sent_to + "'");
    scope.write(std::string(TASKS), target);
    return;
  }
  if (!target.is_string())
    throw error(error_code::invalid_update, who + " returned " + target.to_json() +
                                                ", which is neither a node name nor a Send");
  const std::string& name = target.as_string();
  if (name == END) return;
  if (!topo.nodes.count(name))
    throw error(error_code::invalid_update, who + " returned unknown node '" + name + "'");
  scope.write(branch_channel(name), value());
}

// Applies a node's output (update object, Command, or a list of them) as state writes.
void write_update(const compiled_topology& topo, const std::string& node, const value& out,
                  write_scope& scope) {
  if (out.is_null()) return;
  if (auto cmd = as_command(out)) {
    if (cmd->graph == command::parent) {
      // Ends the subgraph's run; the parent's subgraph node (or the node function that
      // invoked this graph) applies it as its own Command. At the top level the run fails
      // with this error (LangGraph's ParentCommand), which carries the Command.
      command up = *cmd;
      up.graph.clear();
      throw error::parent_command(make_command(up));
    }
    write_update(topo, node, cmd->update, scope);
    scope.expect_writes(cmd->go_to.size());
    for (const auto& g : cmd->go_to) write_goto(topo, "Command from node '" + node + "'", g, scope);
    return;
  }
  if (topo.root) {
    // As LangGraph's _get_root: a list is several updates only when it holds a Command.
    bool mixed = out.is_list() && std::any_of(out.as_list().begin(), out.as_list().end(),
                                              [](const value& i) { return as_command(i); });
    if (!mixed) {
      scope.write(std::string(ROOT), out);
      return;
    }
  }
  if (out.is_list()) {
    for (const auto& item : out.as_list()) write_update(topo, node, item, scope);
    return;
  }
  if (!out.is_object())
    throw error(error_code::invalid_update,
                "Expected node '" + node +
                    "' to return an object (a state update) or a Command, got " +
                    std::string(kind_name(out.kind())) + " " + out.to_json());
  // As LangGraph's _get_updates: keys that are not state keys are not written (a router
  // after the node still sees them).
  for (const auto& [k, v] : out.as_object())
    if (topo.state_keys.count(k)) scope.write(k, v);
}

using managed_keys = std::vector<std::pair<std::string, managed_value>>;

// The state as a node or router sees it: the channels' values plus the managed values.
value with_managed(const value& state, const managed_keys& managed, const node_context& ctx) {
  if (managed.empty() || !state.is_object()) return state;
  object o = state.as_object();
  for (const auto& [name, kind] : managed) {
    std::int64_t left = ctx.remaining_steps();
    o.set(name, kind == managed_value::remaining_steps ? value(left) : value(left == 1));
  }
  return value(std::move(o));
}

// What a router reads: its keys' values with this task's writes applied, as an object, or the
// value itself when the state is one value.
value router_input(const compiled_topology& topo, const std::vector<std::string>& keys,
                   const managed_keys& managed, const value& out, write_scope& s) {
  if (topo.root) return s.fresh_read(std::string(ROOT)).value_or(value());
  // As LangGraph's branch: the node's output with the state read fresh over it, so the router
  // also sees keys the node returned that are not state keys (`out` is null when the router
  // has an input schema of its own: it reads only those keys).
  object state;
  if (out.is_object() && !as_command(out) && !as_send(out)) state = out.as_object();
  state.reserve(state.size() + keys.size());
  for (const auto& k : keys)
    if (auto v = s.fresh_read(k)) state.set(k, std::move(*v));
  return with_managed(value(std::move(state)), managed, s.context());
}

}  // namespace

namespace {

// As LangGraph's drawing: a node edges lead to but that leads nowhere ends the graph, drawn
// as an edge to END.
void add_terminal_edges(pregel_graph& g) {
  std::set<std::string> sources, termini;
  for (const auto& [from, to] : g.draw_edges) sources.insert(from);
  for (const auto& [from, to, label] : g.draw_conditional_edges) sources.insert(from);
  for (const auto& [from, to] : g.draw_edges)
    if (to != END && !sources.count(to)) termini.insert(to);
  for (const auto& [from, to, label] : g.draw_conditional_edges)
    if (to != END && !sources.count(to)) termini.insert(to);
  for (const auto& t : termini) g.draw_edges.emplace_back(t, std::string(END));
}

}  // namespace

std::shared_ptr<pregel> state_graph::compile(compile_options options) const {
  auto topo = std::make_shared<compiled_topology>();
  for (const auto& k : keys_) topo->state_keys.insert(k.name);
  for (const auto& n : nodes_) topo->nodes.insert(n.name);
  if (keys_.empty()) invalid("the state has no keys");
  // As LangGraph: the state is one value when ROOT is its only key; beside others, ROOT is
  // a key like any other.
  topo->root = keys_.size() == 1 && topo->state_keys.count(std::string(ROOT)) > 0;
  if (topo->root && (input_keys_ || output_keys_ || !managed_.empty()))
    invalid("a state of one value ('" + std::string(ROOT) + "') has no input or output schema");
  // Keys named by node or router input schemas only: private channels (LangGraph adds every
  // schema's keys as channels).
  auto is_managed = [&](const std::string& k) {
    return std::any_of(managed_.begin(), managed_.end(), [&](auto& m) { return m.first == k; });
  };
  std::vector<std::string> private_keys;
  auto add_private = [&](const std::optional<std::vector<std::string>>& keys,
                         const std::string& who) {
    if (!keys) return;
    if (topo->root) invalid(who + " has an input schema, but the state is one value");
    for (const auto& k : *keys) {
      if (k.empty() || (k.rfind("__", 0) == 0) || k.find(':') != std::string::npos)
        invalid(who + " names reserved state key '" + k + "' in its input schema");
      if (!topo->state_keys.count(k) && !is_managed(k)) {
        topo->state_keys.insert(k);
        private_keys.push_back(k);
      }
    }
  };
  for (const auto& n : nodes_) add_private(n.options.input_keys, "node '" + n.name + "'");
  for (const auto& b : branches_) add_private(b.input_keys, "the router after '" + b.from + "'");

  auto known_source = [&](const std::string& n) { return n == START || topo->nodes.count(n); };
  auto known_target = [&](const std::string& n) { return n == END || topo->nodes.count(n); };
  // As LangGraph's validate: every edge's ends are known; a node nothing leads to is
  // accepted (a Command's goto may reach it).
  for (const auto& [from, to] : edges_) {
    if (!known_source(from)) invalid("Found edge starting at unknown node '" + from + "'");
    if (!known_target(to)) invalid("Found edge ending at unknown node '" + to + "'");
  }
  for (const auto& [from, to] : joins_) {
    for (const auto& f : from)
      if (!topo->nodes.count(f)) invalid("Found edge starting at unknown node '" + f + "'");
    if (!known_target(to)) invalid("Found edge ending at unknown node '" + to + "'");
  }
  for (const auto& b : branches_) {
    if (!known_source(b.from))
      invalid("Found conditional edge starting at unknown node '" + b.from + "'");
    for (const auto& [label, target] : b.path_map)
      if (!known_target(target))
        invalid("path map of the router after '" + b.from + "' names unknown node '" + target +
                "'");
  }
  for (const auto& n : nodes_)
    for (const auto& d : n.options.destinations)
      if (!known_target(d.node))
        invalid("node '" + n.name + "' declares unknown destination '" + d.node + "'");
  bool has_entry =
      std::any_of(edges_.begin(), edges_.end(), [](auto& e) { return e.first == START; }) ||
      std::any_of(branches_.begin(), branches_.end(), [](auto& b) { return b.from == START; });
  if (!has_entry)
    invalid("Graph must have an entrypoint: add at least one edge from START to another node");
  auto check_keys = [&](const std::vector<std::string>& keys, const char* what) {
    for (const auto& k : keys)
      if (!topo->state_keys.count(k))
        invalid(std::string(what) + " schema names unknown state key '" + k + "'");
  };
  std::vector<std::string> all_keys;  // the graph's state schema: private keys left out
  for (const auto& k : keys_) all_keys.push_back(k.name);
  // What a node (or, by default, the routers after it) reads: its input schema's channels.
  auto reads_of = [&](const std::optional<std::vector<std::string>>& keys) {
    if (!keys) return all_keys;
    std::vector<std::string> r;
    for (const auto& k : *keys)
      if (!is_managed(k)) r.push_back(k);
    return r;
  };
  auto managed_of = [&](const std::optional<std::vector<std::string>>& keys) {
    if (!keys) return managed_;
    managed_keys m;
    for (const auto& entry : managed_)
      if (std::find(keys->begin(), keys->end(), entry.first) != keys->end()) m.push_back(entry);
    return m;
  };
  std::unordered_map<std::string, std::optional<std::vector<std::string>>> node_input;
  for (const auto& n : nodes_) node_input[n.name] = n.options.input_keys;
  std::vector<std::string> input_keys = input_keys_.value_or(all_keys);
  std::vector<std::string> output_keys = output_keys_.value_or(all_keys);
  check_keys(input_keys, "input");
  check_keys(output_keys, "output");

  pregel_graph g;
  g.name = options.name.empty() ? "LangGraph" : options.name;
  for (const auto& k : keys_) {
    std::shared_ptr<channels::channel> ch;
    if (k.untracked) {
      ch = std::make_shared<channels::untracked_value>(k.name);
    } else if (k.delta) {
      ch = std::make_shared<channels::delta_channel>(k.name, *k.reducer, *k.delta->empty,
                                                     k.delta->snapshot_frequency);
    } else if (k.reducer) {
      ch = std::make_shared<channels::binary_operator_aggregate>(k.name, *k.reducer, k.initial);
    } else {
      ch = std::make_shared<channels::last_value>(k.name);
      if (k.initial) ch = std::shared_ptr<channels::channel>(ch->from_checkpoint(*k.initial));
    }
    g.channels.emplace(k.name, std::move(ch));
  }
  for (const auto& k : private_keys)
    g.channels.emplace(k, std::make_shared<channels::last_value>(k));
  g.channels.emplace(std::string(START),
                     std::make_shared<channels::ephemeral_value>(std::string(START)));
  g.channels.emplace(std::string(TASKS),
                     std::make_shared<channels::topic>(std::string(TASKS), false));
  for (const auto& n : nodes_) {
    std::string ch = branch_channel(n.name);
    if (n.options.defer)
      g.channels.emplace(ch, std::make_shared<channels::last_value_after_finish>(ch));
    else
      g.channels.emplace(ch, std::make_shared<channels::ephemeral_value>(ch, false));
  }
  for (const auto& [from, to] : joins_) {
    if (to == END) continue;  // a join into END waits for nothing: the run ends by itself
    std::string ch = join_channel(from, to);
    bool defer = std::any_of(nodes_.begin(), nodes_.end(),
                             [&](auto& n) { return n.name == to && n.options.defer; });
    if (defer)
      g.channels.emplace(ch,
                         std::make_shared<channels::named_barrier_value_after_finish>(ch, from));
    else
      g.channels.emplace(ch, std::make_shared<channels::named_barrier_value>(ch, from));
  }

  // Edges, joins and branches by the node they start from: compiling stays O(graph).
  std::unordered_map<std::string, std::vector<std::size_t>> edges_from, joins_from, joins_to,
      branches_from;
  for (std::size_t i = 0; i < edges_.size(); ++i) edges_from[edges_[i].first].push_back(i);
  for (std::size_t i = 0; i < joins_.size(); ++i) {
    for (const auto& f : joins_[i].first) joins_from[f].push_back(i);
    joins_to[joins_[i].second].push_back(i);
  }
  for (std::size_t i = 0; i < branches_.size(); ++i) branches_from[branches_[i].from].push_back(i);
  auto indices = [](const auto& map, const std::string& key) -> const std::vector<std::size_t>& {
    static const std::vector<std::size_t> none;
    auto it = map.find(key);
    return it == map.end() ? none : it->second;
  };

  // Writers shared by START and the nodes: static edges, joins, routers.
  auto add_routing = [&](pregel_node& pn) {
    const std::string& name = pn.name;
    for (std::size_t i : indices(edges_from, name)) {
      const auto& [from, to] = edges_[i];
      g.draw_edges.emplace_back(from, to);
      if (to == END) continue;
      std::string ch = branch_channel(to);
      pn.writers.push_back([ch](const value&, write_scope& s) { s.write(ch, value()); });
    }
    for (std::size_t i : indices(joins_from, name)) {
      const auto& [from, to] = joins_[i];
      g.draw_edges.emplace_back(name, to);
      if (to == END) continue;
      std::string ch = join_channel(from, to);
      pn.writers.push_back([ch, name](const value&, write_scope& s) { s.write(ch, value(name)); });
    }
    for (std::size_t i : indices(branches_from, name)) {
      const auto& b = branches_[i];
      std::vector<std::string> keys =
          topo->root ? std::vector<std::string>{std::string(ROOT)}
                     : reads_of(b.input_keys ? b.input_keys : node_input[name]);
      managed_keys r_managed = managed_of(b.input_keys ? b.input_keys : node_input[name]);
      for (const auto& k : keys)
        if (std::find(pn.fresh_reads.begin(), pn.fresh_reads.end(), k) == pn.fresh_reads.end())
          pn.fresh_reads.push_back(k);
      for (const auto& [label, target] : b.path_map)
        g.draw_conditional_edges.emplace_back(name, target, label == target ? "" : label);
      if (b.path_map.empty()) {  // a router without a path map may go anywhere
        for (const auto& n : nodes_) g.draw_conditional_edges.emplace_back(name, n.name, "");
        g.draw_conditional_edges.emplace_back(name, std::string(END), "");
      }
      auto router = b.router;
      auto path_map = b.path_map;
      pn.writers.push_back([topo, router, path_map, keys, name, managed = r_managed,
                            passthrough = !b.input_keys](const value& out, write_scope& s) {
        value result =
            router(router_input(*topo, keys, managed, passthrough ? out : value(), s), s.context());
        std::string who = "router after '" + name + "'";
        auto route_one = [&](const value& r) {
          if (!path_map.empty() && !r.is_send() && !as_send(r)) {
            std::string label = r.is_string() ? r.as_string() : r.to_json();
            auto it = path_map.find(label);
            if (it == path_map.end())
              throw error(error_code::invalid_update,
                          who + " returned '" + label + "', which is not in its path map");
            write_goto(*topo, who, value(it->second), s);
          } else {
            write_goto(*topo, who, r, s);
          }
        };
        if (result.is_list()) {
          s.expect_writes(result.as_list().size());
          for (const auto& r : result.as_list()) route_one(r);
        } else if (!result.is_null())
          route_one(result);
      });
    }
  };

  pregel_node start;
  start.name = std::string(START);
  start.triggers = {std::string(START)};
  start.reads = {std::string(START)};
  start.single_read = true;
  start.hidden = true;
  start.writers.push_back([topo, input_keys](const value& in, write_scope& s) {
    if (topo->root) {
      if (!in.is_null()) s.write(std::string(ROOT), in);
      return;
    }
    // update_state(values=None) as __start__ writes no key, only the edges (LangGraph's
    // _get_updates of None); a run's null input resumes and never reaches this writer.
    if (in.is_null()) return;
    if (!in.is_object())
      throw error(
          error_code::invalid_argument,
          "graph input must be an object of state keys, got " + std::string(kind_name(in.kind())));
    for (const auto& k : input_keys)
      if (const value* v = in.find(k)) s.write(k, *v);
  });
  add_routing(start);
  g.nodes.push_back(std::move(start));

  // Error handlers: a node of their own each, run in the failed task (never triggered).
  const std::string default_handler = defaults_.error_handler ? "__default_error_handler__" : "";
  if (!default_handler.empty() && topo->nodes.count(default_handler))
    invalid("Auto-generated default error handler node `" + default_handler + "` already exists.");
  auto handler_of = [&](const node_spec& n) {
    return n.options.error_handler ? "__error_handler__" + n.name : default_handler;
  };
  auto add_handler = [&](const std::string& name, const node_function& fn) {
    pregel_node pn;
    pn.name = name;
    pn.reads = all_keys;
    pn.retry = defaults_.retry;
    pn.timeout = defaults_.timeout;
    if (!managed_.empty())
      pn.fn = [fn, managed = managed_](const value& in, node_context& ctx) {
        return fn(with_managed(in, managed, ctx), ctx);
      };
    else
      pn.fn = fn;
    pn.writers.push_back(
        [topo, name](const value& out, write_scope& s) { write_update(*topo, name, out, s); });
    g.nodes.push_back(std::move(pn));
  };

  for (const auto& n : nodes_) {
    pregel_node pn;
    pn.name = n.name;
    pn.error_handler = handler_of(n);
    pn.cache = n.options.cache ? n.options.cache : defaults_.cache;
    pn.timeout = n.options.timeout ? n.options.timeout : defaults_.timeout;
    pn.triggers = {branch_channel(n.name)};
    for (std::size_t i : indices(joins_to, n.name))
      pn.triggers.push_back(join_channel(joins_[i].first, joins_[i].second));
    pn.reads =
        topo->root ? std::vector<std::string>{std::string(ROOT)} : reads_of(n.options.input_keys);
    pn.single_read = topo->root;
    pn.retry = n.options.retry.empty() ? defaults_.retry : n.options.retry;
    managed_keys managed = managed_of(n.options.input_keys);
    if (n.subgraph) {
      auto sub = n.subgraph;
      pn.subgraph = sub;
      pn.fn = [sub](const value& in, node_context& ctx) { return sub->run_nested(in, ctx); };
    } else if (!managed.empty()) {
      pn.fn = [fn = n.fn, managed](const value& in, node_context& ctx) {
        return fn(with_managed(in, managed, ctx), ctx);
      };
    } else {
      pn.fn = n.fn;
    }
    if (!n.subgraph && n.options.subgraph) pn.subgraph = n.options.subgraph;
    std::string name = n.name;
    pn.writers.push_back(
        [topo, name](const value& out, write_scope& s) { write_update(*topo, name, out, s); });
    for (const auto& d : n.options.destinations)
      g.draw_conditional_edges.emplace_back(n.name, d.node, d.label);
    add_routing(pn);
    g.nodes.push_back(std::move(pn));
  }
  add_terminal_edges(g);
  for (const auto& n : nodes_)
    if (n.options.error_handler) {
      std::string name = "__error_handler__" + n.name;
      if (topo->nodes.count(name))
        invalid("Auto-generated error handler node `" + name + "` already exists.");
      add_handler(name, n.options.error_handler);
    }
  // The default handler is a node only when some node falls back on it.
  if (std::any_of(nodes_.begin(), nodes_.end(), [](auto& n) { return !n.options.error_handler; }) &&
      !default_handler.empty())
    add_handler(default_handler, defaults_.error_handler);

  g.input_channels = {std::string(START)};
  g.input_single = true;
  g.output_channels = output_keys;
  // As LangGraph's stream_channels: every channel of the state, private ones too.
  g.state_channels = all_keys;
  g.state_channels.insert(g.state_channels.end(), private_keys.begin(), private_keys.end());
  g.output_single = topo->root;
  g.state_single = topo->root;
  g.interrupt_before = options.interrupt_before;
  g.interrupt_after = options.interrupt_after;
  attach_json_schemas(g, topo->state_keys, input_keys, output_keys);
  runtime_options ro;
  ro.checkpointer = options.checkpointer;
  ro.as_subgraph = options.as_subgraph;
  ro.mode = options.mode;
  ro.driver = options.driver;
  ro.executor = options.executor;
  ro.store = options.store;
  ro.cache = options.cache;
  ro.context_schema = std::move(options.context_schema);
  g.retry_sleep = options.retry_sleep;
  g.step_timeout_ms = options.step_timeout_ms;
  if (options.delta_max_steps_since_snapshot <= 0)
    invalid("delta_max_steps_since_snapshot must be a positive integer, got " +
            std::to_string(options.delta_max_steps_since_snapshot));
  g.delta_max_steps_since_snapshot = options.delta_max_steps_since_snapshot;
  g.builder = std::make_shared<const state_graph>(*this);
  return std::make_shared<pregel>(std::move(g), std::move(ro));
}

}  // namespace superstep
