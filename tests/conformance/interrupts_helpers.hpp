#pragma once

// Helpers of the interrupt, command and large-case suites (pregel_interrupts_test.cpp,
// pregel_commands_test.cpp, large_cases_*_test.cpp): runs collected as JSON lines, and
// interrupt ids (LangGraph's AnyStr()) masked so outputs compare as LangGraph's tests do.

#include <string>
#include <vector>

#include "conformance.hpp"

namespace superstep::conformance {

/// `v` with the id of every interrupt under an "__interrupt__" key replaced by "*" (LangGraph
/// compares them to AnyStr()).
inline value mask_interrupt_ids(const value& v) {
  if (v.is_list()) {
    list out;
    for (const auto& item : v.as_list()) out.push_back(mask_interrupt_ids(item));
    return out;
  }
  if (!v.is_object()) return v;
  object out;
  for (const auto& [key, item] : v.as_object()) {
    if (key == "__interrupt__" && item.is_list()) {
      list masked;
      for (const auto& i : item.as_list()) {
        if (!i.is_object() || !i.as_object().contains("id")) {
          masked.push_back(i);
          continue;
        }
        object entry = i.as_object();
        entry.set("id", "*");
        masked.push_back(value(std::move(entry)));
      }
      out.set(key, value(std::move(masked)));
    } else {
      out.set(key, mask_interrupt_ids(item));
    }
  }
  return out;
}

/// The JSON of `v` with interrupt ids masked.
inline std::string json(const value& v) { return mask_interrupt_ids(v).to_json(); }

/// The events of one run as LangGraph's `graph.stream(...)` yields them, one JSON text each:
/// the payload alone for one mode, [mode, payload] for several, with the namespace first
/// ([ns, ...]) when `subgraphs`. Interrupt ids masked.
inline std::vector<std::string> stream_all(const pregel& graph, const value& input,
                                           const value& config,
                                           std::vector<stream_mode> modes = {stream_mode::updates},
                                           bool subgraphs = false) {
  std::vector<std::string> out;
  const bool several = modes.size() > 1;
  stream_options options{modes, subgraphs};
  graph.stream(input, config, options, [&](const stream_event& e) {
    list item;
    if (subgraphs) {
      list ns;
      for (const auto& n : e.ns) ns.emplace_back(n);
      item.emplace_back(std::move(ns));
    }
    if (several) item.emplace_back(std::string(stream_mode_name(e.mode)));
    item.push_back(e.data);
    out.push_back(json(item.size() == 1 ? item.front() : value(std::move(item))));
  });
  return out;
}

/// A Command with an update and/or gotos (and a resume when given).
inline value make_cmd(value update, std::vector<value> go_to = {},
                      std::optional<value> resume_with = std::nullopt, std::string graph = {}) {
  command c;
  c.update = std::move(update);
  c.go_to = std::move(go_to);
  c.resume = std::move(resume_with);
  c.graph = std::move(graph);
  return make_command(c);
}

/// The interrupt ids of an output or update holding "__interrupt__", in order.
inline std::vector<std::string> interrupt_ids(const value& v) {
  std::vector<std::string> ids;
  const value& pending = v.get("__interrupt__");
  if (!pending.is_list()) return ids;
  for (const auto& i : pending.as_list()) ids.push_back(i.get("id").as_string());
  return ids;
}

}  // namespace superstep::conformance
