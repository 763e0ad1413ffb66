// Encodings of Send and Command as values, stream mode names, metadata as a value.
#include <algorithm>
#include <string_view>

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/pregel/stream.hpp"

namespace superstep {

namespace {

// A fan-out makes its Sends to one node one after another: the name of the last node a Send
// went to on this thread is shared, not allocated again for each of 10^6 Sends (values are
// immutable: sharing one is as good as an equal copy).
value node_name(std::string node) {
  thread_local value last;
  if (!last.is_string() || last.as_string() != node) last = value(std::move(node));
  return last;
}

}  // namespace

value make_send(std::string node, value arg) {
  return value::send(node_name(std::move(node)), std::move(arg));
}

value make_send(std::string node, value arg, const timeout_policy& timeout) {
  if (std::string problem = timeout.problem(); !problem.empty())
    throw error(error_code::invalid_argument,
                "the timeout of a Send to '" + node + "': " + problem);
  return value::send(node_name(std::move(node)), std::move(arg), timeout_to_value(timeout));
}

namespace {

// A Send's own timeout, as timeout_to_value wrote it; error(invalid_update) naming the node.
timeout_policy send_timeout(const std::string& node, const value& timeout) {
  try {
    return timeout_from_value(timeout);
  } catch (const error& e) {
    throw error(error_code::invalid_update, "the timeout of a Send to '" + node + "': " + e.what());
  }
}

}  // namespace

std::optional<send> as_send(const value& v) {
  if (v.is_send()) {
    const send_packet& p = v.as_send();
    send out{p.node(), p.arg()};
    if (!p.timeout().is_null()) out.timeout = send_timeout(p.node(), p.timeout());
    return out;
  }
  // The object form: a Send saved before Sends had a kind of their own, or written as JSON.
  if (!v.is_object()) return std::nullopt;
  const object& o = v.as_object();
  if (o.size() != 2 && o.size() != 3) return std::nullopt;
  auto first = o.begin();
  if (first->first != "__send__" || !first->second.is_string()) return std::nullopt;
  auto second = std::next(first);
  if (second->first != "arg") return std::nullopt;
  send out{first->second.as_string(), second->second};
  if (o.size() == 3) {
    auto third = std::next(second);
    if (third->first != "timeout") return std::nullopt;
    out.timeout = send_timeout(out.node, third->second);
  }
  return out;
}

value timeout_to_value(const timeout_policy& timeout) {
  object o;
  if (timeout.run_timeout_ms) o.set("run_timeout_ms", *timeout.run_timeout_ms);
  if (timeout.idle_timeout_ms) o.set("idle_timeout_ms", *timeout.idle_timeout_ms);
  if (timeout.refresh_on_heartbeat_only) o.set("refresh_on_heartbeat_only", true);
  return value(std::move(o));
}

timeout_policy timeout_from_value(const value& v) {
  if (!v.is_object())
    throw error(error_code::invalid_argument, "a timeout is an object, not " + v.to_json());
  timeout_policy out;
  for (const auto& [key, field] : v.as_object()) {
    if (key == "run_timeout_ms" || key == "idle_timeout_ms") {
      if (!field.is_number())
        throw error(error_code::invalid_argument,
                    "timeout field '" + key + "' is not a number: " + field.to_json());
      (key == "run_timeout_ms" ? out.run_timeout_ms : out.idle_timeout_ms) = field.as_double();
    } else if (key == "refresh_on_heartbeat_only") {
      if (!field.is_bool())
        throw error(error_code::invalid_argument,
                    "timeout field '" + key + "' is not a boolean: " + field.to_json());
      out.refresh_on_heartbeat_only = field.as_bool();
    } else {
      throw error(error_code::invalid_argument, "unknown timeout field '" + key + "'");
    }
  }
  if (std::string problem = out.problem(); !problem.empty())
    throw error(error_code::invalid_argument, problem);
  return out;
}

value make_command(const command& c) {
  object o;
  if (!c.update.is_null()) o.set("update", c.update);
  if (!c.go_to.empty()) o.set("goto", value(list(c.go_to.begin(), c.go_to.end())));
  if (c.resume) o.set("resume", *c.resume);
  if (!c.graph.empty()) o.set("graph", c.graph);
  return object{{"__command__", value(std::move(o))}};
}

std::optional<command> as_command(const value& v) {
  if (!v.is_object() || v.as_object().size() != 1) return std::nullopt;
  const value* c = v.find("__command__");
  if (!c || !c->is_object()) return std::nullopt;
  command out;
  out.update = c->get("update");
  const value& go = c->get("goto");
  if (go.is_list())
    out.go_to = go.as_list();
  else if (!go.is_null())
    out.go_to.push_back(go);
  if (const value* r = c->find("resume")) out.resume = *r;
  const value& g = c->get("graph");
  if (g.is_string()) out.graph = g.as_string();
  return out;
}

stream_mode parse_stream_mode(std::string_view name) {
  if (name == "values") return stream_mode::values;
  if (name == "updates") return stream_mode::updates;
  if (name == "custom") return stream_mode::custom;
  if (name == "messages") return stream_mode::messages;
  if (name == "debug") return stream_mode::debug;
  if (name == "tasks") return stream_mode::tasks;
  if (name == "checkpoints") return stream_mode::checkpoints;
  if (name == "tools") return stream_mode::tools;
  throw error(error_code::invalid_argument,
              "unknown stream mode '" + std::string(name) +
                  "' (expected values, updates, custom, messages, debug, tasks, checkpoints or "
                  "tools)");
}

std::string_view stream_mode_name(stream_mode m) noexcept {
  switch (m) {
    case stream_mode::values: return "values";
    case stream_mode::updates: return "updates";
    case stream_mode::custom: return "custom";
    case stream_mode::messages: return "messages";
    case stream_mode::debug: return "debug";
    case stream_mode::tasks: return "tasks";
    case stream_mode::checkpoints: return "checkpoints";
    case stream_mode::tools: return "tools";
  }
  return "?";
}

value stream_part::to_value() const {
  object o{{"type", std::string(stream_mode_name(type))}};
  o.set("ns", value(list(ns.begin(), ns.end())));
  o.set("data", data);
  if (interrupts) o.set("interrupts", value(*interrupts));
  return value(std::move(o));
}

stream_part to_stream_part(stream_event e) {
  stream_part p{e.mode, std::move(e.ns), std::move(e.data), std::nullopt};
  if (p.type != stream_mode::values) return p;
  p.interrupts.emplace();
  // As LangGraph's _output: a values payload that is an object gives up its "__interrupt__".
  if (p.data.is_object())
    if (const value* ints = p.data.find(INTERRUPT)) {
      *p.interrupts = ints->is_list() ? ints->as_list() : list{*ints};
      object rest = p.data.as_object();
      rest.erase(INTERRUPT);
      p.data = value(std::move(rest));
    }
  return p;
}

}  // namespace superstep

namespace superstep {

pregel_node subscribe_node(std::string name, std::vector<std::string> subscribe, node_function fn,
                           std::vector<std::string> write_to, bool skip_none) {
  pregel_node n;
  n.name = std::move(name);
  n.triggers = subscribe;
  n.single_read = subscribe.size() == 1;
  n.reads = std::move(subscribe);
  n.fn = std::move(fn);
  for (auto& ch : write_to) {
    n.writers.push_back([ch = std::move(ch), skip_none](const value& out, write_scope& s) {
      if (skip_none && out.is_null()) return;
      s.write(ch, out);
    });
  }
  return n;
}

}  // namespace superstep
