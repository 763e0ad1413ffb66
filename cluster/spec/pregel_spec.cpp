// Loading "superstep.pregel/1" specs into a pregel_graph (the low-level Pregel API).
#include <algorithm>
#include <set>

#include "spec/graph_spec_support.hpp"
#include "superstep/channels/any_value.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/delta_channel.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/named_barrier_value.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/channels/untracked_value.hpp"
#include "superstep/checkpoint/constants.hpp"

namespace superstep::cluster::detail {

namespace {

namespace ch = superstep::channels;

bool flag(const spec_node& n, const char* key, bool fallback) {
  return n.has(key) ? n.field(key).expect_bool() : fallback;
}

std::shared_ptr<const ch::channel> make_channel(const spec_node& n, const std::string& name,
                                                const function_registry& registry) {
  n.expect_object();
  spec_node type_node = n.field("type");
  const std::string& type = type_node.expect_string();
  if (type == "last_value") {
    n.expect_object({"type"});
    return std::make_shared<ch::last_value>(name);
  }
  if (type == "any_value") {
    n.expect_object({"type"});
    return std::make_shared<ch::any_value>(name);
  }
  if (type == "ephemeral") {
    n.expect_object({"type", "guard"});
    return std::make_shared<ch::ephemeral_value>(name, flag(n, "guard", true));
  }
  if (type == "untracked") {
    n.expect_object({"type", "guard"});
    return std::make_shared<ch::untracked_value>(name, flag(n, "guard", true));
  }
  if (type == "topic") {
    n.expect_object({"type", "accumulate"});
    return std::make_shared<ch::topic>(name, flag(n, "accumulate", false));
  }
  if (type == "binop") {
    n.expect_object({"type", "reducer", "default"});
    spec_node r = n.field("reducer");
    const std::string& reducer = r.expect_string();
    if (!registry.has_reducer(reducer))
      r.fail("unknown reducer '" + reducer +
                 "' (built-in: append, add, max, min, merge, add_messages, messages_delta)",
             error_code::unknown_function);
    auto channel = std::make_shared<ch::binary_operator_aggregate>(name, registry.reducer(reducer));
    if (!n.has("default")) return channel;
    return std::shared_ptr<const ch::channel>(channel->from_checkpoint(n.field("default").get()));
  }
  if (type == "delta") {
    n.expect_object({"type", "reducer", "default", "snapshot_frequency"});
    spec_node r = n.field("reducer");
    const std::string& reducer = r.expect_string();
    if (!registry.has_reducer(reducer))
      r.fail("unknown reducer '" + reducer +
                 "' (built-in: append, add, max, min, merge, add_messages, messages_delta)",
             error_code::unknown_function);
    std::int64_t frequency = ch::delta_channel::default_snapshot_frequency;
    if (n.has("snapshot_frequency")) {
      spec_node f = n.field("snapshot_frequency");
      frequency = f.expect_int();
      if (frequency <= 0)
        f.fail("snapshot_frequency of channel '" + name + "' must be a positive integer, got " +
               std::to_string(frequency));
    }
    return std::make_shared<ch::delta_channel>(
        name, registry.reducer(reducer),
        n.has("default") ? n.field("default").get() : value(list{}), frequency);
  }
  if (type == "named_barrier") {
    n.expect_object({"type", "names"});
    spec_node names = n.field("names");
    std::vector<std::string> list = names.expect_strings();
    if (list.empty()) names.fail("a named barrier needs at least one name");
    return std::make_shared<ch::named_barrier_value>(name, std::move(list));
  }
  type_node.fail("unknown channel type '" + type +
                 "' (expected last_value, any_value, ephemeral, untracked, topic, binop, "
                 "delta or named_barrier)");
}

class pregel_loader {
 public:
  pregel_loader(const spec_node& root, const function_registry& registry)
      : root_(root), registry_(registry) {}

  loaded_graph load(const runtime_options& runtime) {
    runtime_ = &runtime;
    root_.expect_object({"spec", "name", "channels", "nodes", "input", "output", "interrupt_before",
                         "interrupt_after", "recursion_limit", "step_timeout_ms"});
    if (root_.has("name")) graph_.name = root_.field("name").expect_string();
    load_channels();
    load_nodes();
    graph_.input_single = root_.field("input").get().is_string();
    graph_.input_channels = channels_at(root_.field("input"), true);
    if (graph_.input_channels.empty()) root_.field("input").fail("expected at least one channel");
    if (root_.has("output")) {
      graph_.output_single = root_.field("output").get().is_string();
      graph_.output_channels = channels_at(root_.field("output"), true);
    }
    if (root_.has("interrupt_before"))
      graph_.interrupt_before = nodes_at(root_.field("interrupt_before"));
    if (root_.has("interrupt_after"))
      graph_.interrupt_after = nodes_at(root_.field("interrupt_after"));
    draw_edges();
    loaded_.recursion_limit = parse_recursion_limit(root_);
    graph_.step_timeout_ms = parse_step_timeout(root_);
    loaded_.graph = std::make_shared<pregel>(std::move(graph_), runtime);
    return std::move(loaded_);
  }

 private:
  void load_channels() {
    spec_node channels = root_.field("channels");
    for (const auto& [name, v] : channels.expect_object()) {
      spec_node c(v, channels.path_of(name));
      if (name.empty() || name.rfind("__", 0) == 0) c.fail("reserved channel name");
      if (!v.find("schema")) {
        graph_.channels.emplace(name, make_channel(c, name, registry_));
        continue;
      }
      // "schema": the JSON schema of the channel's value, for the graph's input and output
      // JSON schemas (LangGraph: the channel's type); the channel is made from the rest.
      spec_node s = c.field("schema");
      s.expect_object();
      if (std::string problem = key_schema{s.get()}.problem(); !problem.empty()) s.fail(problem);
      graph_.channel_schemas.emplace(name, s.get());
      object rest = v.as_object();
      rest.erase("schema");
      const value channel = value(std::move(rest));
      graph_.channels.emplace(name, make_channel(spec_node(channel, c.path()), name, registry_));
    }
  }

  std::vector<std::string> channels_at(const spec_node& n, bool allow_single) const {
    std::vector<std::string> names = n.expect_strings(allow_single);
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (graph_.channels.count(names[i])) continue;
      (n.get().is_string() ? n : n.item(i)).fail("unknown channel '" + names[i] + "'");
    }
    return names;
  }

  std::vector<std::string> nodes_at(const spec_node& n) const {
    std::vector<std::string> names = n.expect_strings();
    for (std::size_t i = 0; i < names.size(); ++i) {
      bool known = std::any_of(graph_.nodes.begin(), graph_.nodes.end(),
                               [&](const pregel_node& p) { return p.name == names[i]; });
      if (names[i] != "*" && !known) n.item(i).fail("unknown node '" + names[i] + "'");
    }
    return names;
  }

  void load_nodes() {
    spec_node nodes = root_.field("nodes");
    if (nodes.expect_object().empty()) nodes.fail("expected at least one node");
    for (const auto& [name, v] : nodes.get().as_object()) {
      spec_node n(v, nodes.path_of(name));
      if (name.empty() || name.rfind("__", 0) == 0) n.fail("reserved node name");
      n.expect_object(
          {"subscribe", "fn", "params", "graph", "writes", "skip_none", "read", "retry"});
      std::vector<std::string> subscribe = channels_at(n.field("subscribe"), true);
      if (subscribe.empty()) n.field("subscribe").fail("expected at least one channel");
      std::vector<std::string> reads =
          n.has("read") ? channels_at(n.field("read"), true) : std::vector<std::string>{};
      std::vector<std::string> writes =
          n.has("writes") ? channels_at(n.field("writes"), true) : std::vector<std::string>{};
      bool skip_none = flag(n, "skip_none", false);
      if (n.has("retry")) loaded_.retry[name] = parse_retry(n.field("retry"));

      std::shared_ptr<const pregel> sub;
      node_function fn;
      if (n.field("fn").expect_string() == "graph") {
        sub = load_subgraph_at(n, registry_, *runtime_);
        fn = [sub](const value& in, node_context& ctx) { return sub->run_nested(in, ctx); };
      } else {
        if (n.has("graph")) n.field("graph").fail("only a node whose fn is \"graph\" has a graph");
        fn = make_node_at(n, registry_);
      }
      pregel_node node = subscribe_node(name, subscribe, std::move(fn), writes, skip_none);
      node.subgraph = std::move(sub);
      if (n.has("retry")) node.retry = {loaded_.retry[name]};
      for (const auto& r : reads) {
        if (std::find(node.reads.begin(), node.reads.end(), r) == node.reads.end())
          node.reads.push_back(r);
        node.single_read = false;
      }
      writes_.emplace_back(name, std::move(writes));
      graph_.nodes.push_back(std::move(node));
    }
  }

  // For drawing: START to the nodes an input channel triggers, A to B when A writes a channel
  // B subscribes to, and A to END when A writes an output channel.
  void draw_edges() {
    auto& edges = graph_.draw_edges;
    auto contains = [](const std::vector<std::string>& v, const std::string& s) {
      return std::find(v.begin(), v.end(), s) != v.end();
    };
    for (const auto& node : graph_.nodes)
      for (const auto& t : node.triggers)
        if (contains(graph_.input_channels, t)) {
          edges.emplace_back(std::string(START), node.name);
          break;
        }
    for (const auto& [from, writes] : writes_) {
      for (const auto& to : graph_.nodes)
        if (std::any_of(to.triggers.begin(), to.triggers.end(),
                        [&](const std::string& t) { return contains(writes, t); }))
          edges.emplace_back(from, to.name);
      if (std::any_of(writes.begin(), writes.end(),
                      [&](const std::string& w) { return contains(graph_.output_channels, w); }))
        edges.emplace_back(from, std::string(END));
    }
  }

  const spec_node& root_;
  const function_registry& registry_;
  const runtime_options* runtime_ = nullptr;
  pregel_graph graph_;
  loaded_graph loaded_;
  std::vector<std::pair<std::string, std::vector<std::string>>> writes_;  // node -> channels
};

}  // namespace

loaded_graph load_pregel_spec(const spec_node& root, const function_registry& registry,
                              const runtime_options& options) {
  return pregel_loader(root, registry).load(options);
}

}  // namespace superstep::cluster::detail
