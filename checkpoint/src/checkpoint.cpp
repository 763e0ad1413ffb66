// What the checkpoint types define out of line: metadata as data, and the reserved channels.

#include "superstep/checkpoint/checkpoint.hpp"

#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "superstep/checkpoint/constants.hpp"

namespace superstep {

bool is_reserved_channel(std::string_view name) noexcept {
  return name == ERROR || name == INTERRUPT || name == RESUME || name == NO_WRITES ||
         name == PUSH || name == INPUT || name == ERROR_SOURCE_NODE;
}

value metadata_to_value(const checkpoint_metadata& m) {
  object o{{"source", m.source}, {"step", m.step}};
  object parents;
  for (const auto& [ns, id] : m.parents) parents.set(ns, id);
  o.set("parents", value(std::move(parents)));
  for (const auto& [k, v] : m.extra) o.set(k, v);
  return value(std::move(o));
}

void merge_config_metadata(checkpoint_metadata& m, const value& config) {
  static constexpr std::string_view excluded[] = {
      "thread_id",          "checkpoint_id",  "checkpoint_ns",
      "checkpoint_map",     "langgraph_step", "langgraph_node",
      "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns"};
  if (!config.is_object()) return;
  for (const char* part : {"metadata", "configurable"}) {
    const value& from = config.get(part);
    if (!from.is_object()) continue;
    for (const auto& [key, v] : from.as_object()) {
      if (key == "source" || key == "step" || key == "parents" || key.starts_with("__") ||
          m.extra.contains(key) ||
          std::find(std::begin(excluded), std::end(excluded), key) != std::end(excluded))
        continue;
      if (v.is_string()) {
        std::string text = v.as_string();
        std::erase(text, '\0');
        m.extra.set(key, std::move(text));
      } else if (v.is_number() || v.is_bool()) {
        m.extra.set(key, v);
      }
    }
  }
}

}  // namespace superstep
