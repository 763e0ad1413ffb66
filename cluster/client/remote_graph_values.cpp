// The values remote_graph exchanges with a head (remote_graph_values.hpp).
#include "client/remote_graph_values.hpp"

#include <algorithm>
#include <charconv>
#include <random>
#include <set>

#include "superstep/cluster/remote_graph.hpp"
#include "superstep/core/error.hpp"

namespace superstep::remote_detail {

namespace {

// The configurable keys LangGraph's RemoteGraph never sends (_CONF_DROPLIST).
constexpr std::string_view dropped_configurable[] = {"checkpoint_map", "checkpoint_id",
                                                     "checkpoint_ns", "task_id"};

}  // namespace

// LangGraph's _sanitize_config_value: primitives kept, objects and lists sanitised
// recursively, anything else (null, bytes) dropped (nullopt).
std::optional<value> sanitize_value(const value& v) {
  switch (v.kind()) {
    case value_kind::boolean:
    case value_kind::integer:
    case value_kind::real:
    case value_kind::string: return v;
    case value_kind::object: {
      object out;
      for (const auto& [k, item] : v.as_object())
        if (auto s = sanitize_value(item)) out.set(k, std::move(*s));
      return value(std::move(out));
    }
    case value_kind::list: {
      list out;
      for (const auto& item : v.as_list())
        if (auto s = sanitize_value(item)) out.push_back(std::move(*s));
      return value(std::move(out));
    }
    default: return std::nullopt;
  }
}

// LangGraph's merge_configs for two configs: metadata and configurable merged key by key,
// tags joined, anything else replaced.
value merge_configs(const value& base, const value& over) {
  if (!over.is_object()) return base.is_object() ? base : value(object{});
  object out = base.is_object() ? base.as_object() : object{};
  for (const auto& [k, v] : over.as_object()) {
    const value* mine = out.find(k);
    if ((k == "metadata" || k == "configurable") && mine && mine->is_object() && v.is_object()) {
      object merged = mine->as_object();
      for (const auto& [mk, mv] : v.as_object()) merged.set(mk, mv);
      out.set(k, value(std::move(merged)));
    } else if (k == "tags" && mine && mine->is_list() && v.is_list()) {
      std::set<std::string> seen;
      list tags;
      for (const value* l : {mine, &v})
        for (const auto& t : l->as_list())
          if (!t.is_string() || seen.insert(t.as_string()).second) tags.push_back(t);
      out.set(k, value(std::move(tags)));
    } else {
      out.set(k, v);
    }
  }
  return value(std::move(out));
}

// "HOST:PORT" into its parts; throws error(invalid_argument) naming it.
void parse_head_address(const std::string& text, std::string& host, std::uint16_t& port) {
  auto colon = text.rfind(':');
  unsigned n = 0;
  const char* end = text.data() + text.size();
  auto parsed = colon == std::string::npos
                    ? std::from_chars_result{end, std::errc::invalid_argument}
                    : std::from_chars(text.data() + colon + 1, end, n);
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() ||
      parsed.ec != std::errc() || parsed.ptr != end || n == 0 || n > 65535)
    throw error(error_code::invalid_argument,
                "remote_graph: the head is HOST:PORT (port 1 to 65535), not '" + text + "'");
  host = text.substr(0, colon);
  port = static_cast<std::uint16_t>(n);
}

std::string fresh_thread_id() {
  std::random_device rd;
  static const char hex[] = "0123456789abcdef";
  std::string h;
  for (int i = 0; i < 32; ++i) h += hex[rd() & 15];
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

std::vector<std::string> split_ns(const std::string& ns) {
  std::vector<std::string> parts;
  if (ns.empty()) return parts;
  for (std::size_t start = 0;;) {
    std::size_t bar = ns.find('|', start);
    parts.push_back(ns.substr(start, bar == std::string::npos ? bar : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return parts;
}

std::string string_at(const value& v, std::string_view key) {
  const value& s = v.get(key);
  return s.is_string() ? s.as_string() : std::string();
}

checkpoint_config config_of(const value& v) {
  const value& c = v.get("configurable");
  return checkpoint_config{string_at(c, "thread_id"), string_at(c, "checkpoint_ns"),
                           string_at(c, "checkpoint_id")};
}

// A snapshot as the head prints it (state_snapshot::to_value with tasks' results).
state_snapshot snapshot_of(const value& v) {
  if (!v.is_object())
    throw error(error_code::protocol_error, "the head sent a state that is not an object");
  state_snapshot s;
  s.values = v.get("values");
  if (v.get("next").is_list())
    for (const auto& n : v.get("next").as_list())
      if (n.is_string()) s.next.push_back(n.as_string());
  s.config = config_of(v.get("config"));
  s.metadata = v.get("metadata");
  s.created_at = string_at(v, "created_at");
  if (v.get("parent_config").is_object()) s.parent_config = config_of(v.get("parent_config"));
  if (v.get("tasks").is_list())
    for (const auto& t : v.get("tasks").as_list()) {
      snapshot_task task;
      task.id = string_at(t, "id");
      task.name = string_at(t, "name");
      if (t.get("error").is_string()) task.error = t.get("error").as_string();
      if (t.get("interrupts").is_list()) task.interrupts = t.get("interrupts").as_list();
      task.result = t.get("result");
      const value& state = t.get("state");
      if (state.is_object() && state.find("values"))
        task.state = std::make_shared<const state_snapshot>(snapshot_of(state));
      else if (state.is_object())
        task.state_config = config_of(state);
      s.tasks.push_back(std::move(task));
    }
  return s;
}

// LangGraph's RemoteGraph._get_drawable_nodes and edges, into a graph_description.
graph_description description_of(const value& v) {
  if (!v.get("nodes").is_list() || !v.get("edges").is_list())
    throw error(error_code::protocol_error, "the head sent a graph without nodes and edges");
  graph_description g;
  for (const auto& n : v.get("nodes").as_list()) {
    graph_node node;
    const value& id = n.get("id");
    node.id = id.is_string() ? id.as_string() : id.to_json();
    const value& data = n.get("data");
    if (n.get("name").is_string())
      node.name = n.get("name").as_string();
    else if (data.get("name").is_string())
      node.name = data.get("name").as_string();
    else
      node.name = node.id;
    if (data.get("id").is_list())
      for (const auto& part : data.get("id").as_list())
        if (part.is_string()) node.runnable.push_back(part.as_string());
    if (n.get("metadata").is_object())
      for (const auto& [k, m] : n.get("metadata").as_object())
        node.metadata.emplace_back(k, m.is_string() ? m.as_string() : m.to_json());
    g.nodes.push_back(std::move(node));
  }
  for (const auto& e : v.get("edges").as_list()) {
    graph_edge edge{string_at(e, "source"), string_at(e, "target"), std::nullopt,
                    e.get("conditional").is_bool() && e.get("conditional").as_bool()};
    if (e.get("data").is_string()) edge.data = e.get("data").as_string();
    g.edges.push_back(std::move(edge));
  }
  return g;
}

}  // namespace superstep::remote_detail

namespace superstep {

value remote_graph::sanitize_config(const value& config) {
  object out;
  if (!config.is_object()) return value(std::move(out));
  if (const value* r = config.find("recursion_limit")) out.set("recursion_limit", *r);
  if (const value* tags = config.find("tags")) {
    list kept;
    if (tags->is_list())
      for (const auto& t : tags->as_list())
        if (t.is_string()) kept.push_back(t);
    out.set("tags", value(std::move(kept)));
  }
  for (const char* part : {"metadata", "configurable"}) {
    const value* in = config.find(part);
    if (!in) continue;
    object kept;
    if (in->is_object())
      for (const auto& [k, v] : in->as_object()) {
        if (std::string_view(part) == "configurable" &&
            std::find(std::begin(remote_detail::dropped_configurable),
                      std::end(remote_detail::dropped_configurable),
                      k) != std::end(remote_detail::dropped_configurable))
          continue;
        if (auto s = remote_detail::sanitize_value(v)) kept.set(k, std::move(*s));
      }
    out.set(part, value(std::move(kept)));
  }
  return value(std::move(out));
}

}  // namespace superstep
