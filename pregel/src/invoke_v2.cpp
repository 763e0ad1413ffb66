// LangGraph's invoke(version="v2") (langgraph/pregel/main.py `invoke`, types.py `GraphOutput`):
// the output and the interrupts apart, or the run's stream parts as a list.
#include <string>
#include <utility>

#include "superstep/checkpoint/constants.hpp"
#include "superstep/core/error.hpp"
#include "superstep/pregel/pregel.hpp"

namespace superstep {

superstep::value graph_output::at(std::string_view key) const {
  if (key == INTERRUPT) return superstep::value(interrupts);
  if (value.is_object())
    if (const superstep::value* v = value.find(key)) return *v;
  throw error(error_code::not_found,
              "graph output has no key '" + std::string(key) + "'" +
                  (value.is_object() ? "" : " (its value is not an object)"));
}

bool graph_output::contains(std::string_view key) const noexcept {
  if (key == INTERRUPT) return !interrupts.empty();
  return value.is_object() && value.find(key) != nullptr;
}

graph_output pregel::invoke_v2(const value& input, const value& config,
                               const stream_options& options) const {
  for (stream_mode m : options.modes)
    if (m != stream_mode::values)
      throw error(error_code::invalid_argument,
                  "invoke_v2 returns the output of the values stream; stream mode '" +
                      std::string(stream_mode_name(m)) +
                      "' was asked for (invoke_parts returns the parts of other modes)");
  stream_options o = options;
  o.modes = {stream_mode::values};
  graph_output out;
  // As LangGraph: the latest values part is the value, whatever its namespace, and the
  // interrupts of every values part are collected.
  stream(input, config, o, [&out](const stream_event& e) {
    if (e.mode != stream_mode::values) return;
    stream_part p = to_stream_part(e);
    out.value = std::move(p.data);
    if (p.interrupts)
      for (auto& i : *p.interrupts) out.interrupts.push_back(std::move(i));
  });
  return out;
}

std::vector<stream_part> pregel::invoke_parts(const value& input, const value& config,
                                              const stream_options& options) const {
  if (options.modes.empty())
    throw error(error_code::invalid_argument,
                "invoke_parts needs stream modes (options.modes is empty); invoke_v2 returns the "
                "output of the values stream");
  std::vector<stream_part> parts;
  stream(input, config, options,
         [&parts](const stream_event& e) { parts.push_back(to_stream_part(e)); });
  return parts;
}

}  // namespace superstep
