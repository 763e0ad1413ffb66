#pragma once

// Helpers of the functional API suites (functional_*_test.cpp): entrypoints built for the run
// under test, and streams collected as values.

#include <atomic>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "superstep/core/error.hpp"
#include "superstep/func/functional.hpp"

namespace superstep::conformance {

namespace fn = superstep::functional;

/// Entrypoint options named `name`, for the execution mode under test, with `checkpointer`
/// (null: none) and `store`.
inline fn::entrypoint_options ep(std::string name, std::shared_ptr<checkpoint_saver> checkpointer,
                                 std::shared_ptr<storage::store> store = nullptr) {
  fn::entrypoint_options o;
  o.name = std::move(name);
  o.runtime.checkpointer = std::move(checkpointer);
  o.runtime.mode = mode();
  o.runtime.store = std::move(store);
  return o;
}

/// The events of one run streaming `modes`: with one mode, the payloads; with several,
/// [mode, payload] pairs; with `subgraphs`, [namespace, payload] pairs.
inline std::vector<value> collect(const pregel& g, const value& input, const value& config,
                                  std::vector<stream_mode> modes = {stream_mode::updates},
                                  bool subgraphs = false) {
  std::vector<value> out;
  stream_options o;
  o.modes = modes;
  o.subgraphs = subgraphs;
  const bool several = modes.size() > 1;
  g.stream(input, config, o, [&](const stream_event& e) {
    if (subgraphs) {
      list ns(e.ns.begin(), e.ns.end());
      out.push_back(value::array({value(std::move(ns)), e.data}));
    } else if (several) {
      out.push_back(value::array({std::string(stream_mode_name(e.mode)), e.data}));
    } else {
      out.push_back(e.data);
    }
  });
  return out;
}

/// `config` with "durability" set.
inline value with_durability(value config, const std::string& durability) {
  object o = config.as_object();
  o.set("durability", durability);
  return value(std::move(o));
}

/// The durability modes LangGraph's `durability` fixture runs.
inline const std::vector<std::string>& durabilities() {
  static const std::vector<std::string> all{"sync", "async", "exit"};
  return all;
}

/// The values of the `__interrupt__` list of an output, in order.
inline std::vector<value> interrupt_values(const value& output) {
  std::vector<value> out;
  for (const auto& i : output.get(INTERRUPT).as_list()) out.push_back(i.get("value"));
  return out;
}

}  // namespace superstep::conformance
