#include "run_rollback.hpp"

#include "superstep/core/error.hpp"

namespace superstep {

namespace detail {

void roll_back_run(checkpoint_saver& saver, const std::string& thread_id,
                   const run_footprint& footprint) {
  if (!footprint.start.thread_id.empty()) {
    // The writes the run added to its starting checkpoint go; those it found there stay, in
    // their order, grouped by task as they were saved.
    saver.delete_writes(footprint.start);
    std::vector<task_writes> tasks;
    for (const pending_write& w : footprint.start_writes) {
      if (tasks.empty() || tasks.back().task_id != w.task_id)
        tasks.push_back(task_writes{w.task_id, "", {}});
      tasks.back().writes.emplace_back(w.channel, w.v);
    }
    if (!tasks.empty()) saver.put_writes_many(footprint.start, tasks);
  }
  std::vector<checkpoint_config> mine;
  for (const checkpoint_config& c : footprint.checkpoints)
    if (c.thread_id == thread_id) mine.push_back(c);
  if (!mine.empty()) saver.delete_checkpoints(thread_id, mine);
}

}  // namespace detail

}  // namespace superstep
