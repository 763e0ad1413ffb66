// checkpoint_saver's defaults for what any saver can answer through get_tuple, list and
// delete_checkpoints: removing runs and the history of delta channels.
#include "superstep/checkpoint/checkpoint_saver.hpp"

#include <algorithm>
#include <set>

#include "superstep/core/error.hpp"

namespace superstep {

std::vector<std::string> checkpoint_saver::thread_ids() {
  list_options options;
  options.every_namespace = true;
  std::vector<std::string> out;
  for (const auto& t : list(checkpoint_config{}, options))
    if (out.empty() || out.back() != t.config.thread_id) out.push_back(t.config.thread_id);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void checkpoint_saver::delete_for_runs(const std::vector<std::string>& run_ids) {
  std::map<std::string, std::vector<checkpoint_config>> by_thread;
  for (const std::string& run_id : std::set<std::string>(run_ids.begin(), run_ids.end())) {
    list_options o;
    o.every_namespace = true;
    o.filter = object{{"run_id", run_id}};
    for (auto& tuple : list(checkpoint_config{}, o))
      by_thread[tuple.config.thread_id].push_back(std::move(tuple.config));
  }
  for (const auto& [thread_id, which] : by_thread) delete_checkpoints(thread_id, which);
}

std::map<std::string, delta_channel_history> checkpoint_saver::get_delta_channel_history(
    const checkpoint_config& config, const std::vector<std::string>& channels) {
  std::map<std::string, delta_channel_history> out;
  if (channels.empty()) return out;
  std::set<std::string> remaining;
  for (const auto& channel : channels) {
    out[channel];
    remaining.insert(channel);
  }
  auto target = get_tuple(config);
  std::optional<checkpoint_config> cursor = target ? target->parent_config : std::nullopt;
  // Collected newest first (each checkpoint's writes backwards), reversed at the end.
  while (cursor && !remaining.empty()) {
    auto tuple = get_tuple(*cursor);
    if (!tuple) break;
    for (auto it = tuple->pending_writes.rbegin(); it != tuple->pending_writes.rend(); ++it)
      if (remaining.count(it->channel)) out[it->channel].writes.push_back(std::move(*it));
    for (auto it = remaining.begin(); it != remaining.end();) {
      auto value_it = tuple->checkpoint.channel_values.find(*it);
      if (value_it == tuple->checkpoint.channel_values.end()) {
        ++it;
        continue;
      }
      out[*it].seed = std::move(value_it->second);
      it = remaining.erase(it);
    }
    cursor = tuple->parent_config;
  }
  for (auto& [_, history] : out) std::reverse(history.writes.begin(), history.writes.end());
  return out;
}

void checkpoint_saver::delete_checkpoints(const std::string& thread_id,
                                          const std::vector<checkpoint_config>&) {
  throw error(error_code::invalid_argument,
              "this checkpointer cannot remove single checkpoints (thread '" + thread_id +
                  "'): it cannot roll a run back");
}

void checkpoint_saver::delete_writes(const checkpoint_config& config) {
  throw error(error_code::invalid_argument,
              "this checkpointer cannot remove the pending writes of checkpoint " +
                  config.checkpoint_id + " (thread '" + config.thread_id +
                  "'): it cannot roll a run back");
}

}  // namespace superstep
