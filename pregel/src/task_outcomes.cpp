// A checkpoint's pending writes read as the outcomes of its tasks (task_outcomes.hpp).
#include "task_outcomes.hpp"

#include <algorithm>

#include "superstep/checkpoint/constants.hpp"

namespace superstep::detail {

std::unordered_map<std::string_view, task_outcome> task_outcomes(
    const std::vector<pending_write>& writes) {
  std::unordered_map<std::string_view, task_outcome> outcomes;
  for (const auto& w : writes) {
    if (w.channel == ERROR) {
      outcomes[w.task_id].error = w.v.is_string() ? w.v.as_string() : w.v.to_json();
    } else if (w.channel != INTERRUPT) {
      task_outcome& o = outcomes[w.task_id];
      o.has_writes = true;
      if (w.channel == functional::RETURN)
        o.returned = &w.v;
      else
        o.writes.push_back(&w);
    } else {
      list& interrupts = outcomes[w.task_id].interrupts;
      if (w.v.is_list()) {
        for (const auto& i : w.v.as_list())
          if (!i.is_null()) interrupts.push_back(i);  // null: a subgraph's breakpoint
      } else {
        interrupts.push_back(w.v);
      }
    }
  }
  return outcomes;
}

value task_result(const pregel_graph& g, const task_outcome& o) {
  if (!o.has_writes) return value();
  if (o.returned) return *o.returned;
  std::vector<std::pair<std::string_view, list>> by_channel;  // in the order first written
  for (const pending_write* w : o.writes) {
    if (std::find(g.output_channels.begin(), g.output_channels.end(), w->channel) ==
        g.output_channels.end())
      continue;
    auto it = std::find_if(by_channel.begin(), by_channel.end(),
                           [&](const auto& e) { return e.first == w->channel; });
    if (it == by_channel.end()) it = by_channel.insert(by_channel.end(), {w->channel, list{}});
    it->second.push_back(w->v);
  }
  auto mapped = [](list& vs) {
    return vs.size() == 1 ? vs.front() : value(object{{"$writes", value(std::move(vs))}});
  };
  if (g.output_single) return by_channel.empty() ? value() : mapped(by_channel.front().second);
  object result;
  for (auto& [ch, vs] : by_channel) result.set(std::string(ch), mapped(vs));
  return value(std::move(result));
}

}  // namespace superstep::detail
