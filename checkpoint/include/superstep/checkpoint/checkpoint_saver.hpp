#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/checkpoint/thread_runs.hpp"

namespace superstep {

/// Filter and paging for `checkpoint_saver::list`.
struct list_options {
  object filter;                            ///< metadata keys that must all match
  std::optional<checkpoint_config> before;  ///< exclusive
  std::optional<std::size_t> limit;
  /// Lists every namespace of the thread (of every thread, without a thread id), not only
  /// `config.checkpoint_ns`: LangGraph's `list` given a config without checkpoint_ns. Within a
  /// thread, namespaces come in order ("" first), each newest first.
  bool every_namespace = false;
};

/// The writes of one task, for `checkpoint_saver::put_writes_many`.
struct task_writes {
  std::string task_id;
  std::string task_path;
  std::vector<std::pair<std::string, value>> writes;
};

/// What changed in a checkpoint since its parent, as the run loop that made it knows it.
struct checkpoint_changes {
  /// Every channel whose version differs from the parent's, with its new version (the
  /// `new_versions` of `checkpoint_saver::put`).
  std::map<std::string, channel_version> versions;
  /// Every node whose `versions_seen` entry differs from the parent's.
  std::set<std::string> seen;
  /// Channels among `versions` whose next value will not start with this one's elements: a
  /// topic without `accumulate` (the tasks topic among them) starts afresh at every step. A
  /// saver that writes a list as the elements added to the last one it wrote need not keep
  /// these (a fan-out's Sends would stay in memory through the step that runs them).
  std::set<std::string> not_extended;
};

/// The history of one channel up to a checkpoint, for rebuilding its value from the writes
/// that made it (LangGraph's `DeltaChannelHistory`; `checkpoint_saver::get_delta_channel_history`).
struct delta_channel_history {
  /// The value the channel holds at the nearest ancestor of the checkpoint that has one
  /// stored; none when the walk reached the root without one (the channel starts empty).
  std::optional<value> seed;
  /// The writes to the channel saved against that ancestor and every later ancestor (the
  /// checkpoint's parent last), oldest first; each checkpoint's in its pending-writes order.
  /// The checkpoint's own pending writes are not among them: they make its child.
  std::vector<pending_write> writes;
};

/// Where checkpoints and pending writes are kept (LangGraph `BaseCheckpointSaver`).
///
/// Implementations must be safe to call from several threads at once.
class checkpoint_saver {
 public:
  virtual ~checkpoint_saver() = default;

  /// Stores a checkpoint whose parent is `config.checkpoint_id` (empty: none). Only channels
  /// named in `new_versions` changed since the parent; others may be shared with it.
  /// Returns the config of the stored checkpoint.
  virtual checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const std::map<std::string, channel_version>& new_versions) = 0;

  /// `put` by a caller that knows everything that changed since the parent (`changes`
  /// is complete: no other version or seen entry differs). A saver may then store the
  /// checkpoint's version maps as what changed, so a step of a graph of many channels costs
  /// what it changed, not the size of the maps. The default stores as `put` does.
  virtual checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                        const checkpoint_metadata& metadata,
                                        const checkpoint_changes& changes) {
    return put(config, cp, metadata, changes.versions);
  }

  /// Stores the writes of one task against checkpoint `config`. Idempotent per (task, index).
  virtual void put_writes(const checkpoint_config& config,
                          const std::vector<std::pair<std::string, value>>& writes,
                          const std::string& task_id, const std::string& task_path) = 0;

  /// The same as `put_writes` for each task, in one atomic write where the saver can (a wide
  /// step's tasks finish in batches: one write per batch, not per task).
  virtual void put_writes_many(const checkpoint_config& config,
                               const std::vector<task_writes>& tasks) {
    for (const auto& t : tasks) put_writes(config, t.writes, t.task_id, t.task_path);
  }

  /// The checkpoint named by `config`, or the latest of its thread and namespace.
  virtual std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) = 0;

  /// Checkpoints of a thread and namespace, newest first; of every thread (in thread id order)
  /// when `config.thread_id` is empty, of every namespace with `options.every_namespace`.
  virtual std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                             const list_options& options) = 0;

  /// Removes every checkpoint and write of a thread, in all namespaces.
  virtual void delete_thread(const std::string& thread_id) = 0;

  /// The ids of the threads that have checkpoints, in id order (`superstep threads`). The
  /// default reads them from `list` of every thread; the savers here walk their thread index.
  virtual std::vector<std::string> thread_ids();

  /// Makes `target` a copy of thread `source` (all namespaces, values and pending writes),
  /// replacing what `target` held. Throws `superstep::error` (not_found) for an unknown source.
  virtual void copy_thread(const std::string& source, const std::string& target) = 0;

  /// Keeps only the latest `keep_last` checkpoints of each namespace of each thread, with the
  /// writes and values they still use.
  virtual void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last = 1) = 0;

  /// Removes checkpoints `which` of thread `thread_id` (any namespaces), with their pending
  /// writes and the values no other checkpoint uses; every other checkpoint stays readable.
  /// Ids not stored are skipped. For rolling a run back (multitask strategy rollback). The
  /// default throws `superstep::error` (invalid_argument): the saver cannot.
  virtual void delete_checkpoints(const std::string& thread_id,
                                  const std::vector<checkpoint_config>& which);

  /// Removes every checkpoint whose metadata has a `run_id` in `run_ids` (LangGraph's
  /// `delete_for_runs`), in every thread and namespace, with its pending writes and the values
  /// no other checkpoint uses; every other checkpoint stays readable (a parent may be gone).
  /// Unknown run ids are skipped; an empty list does nothing. The default lists each run's
  /// checkpoints (`list` over every thread, filtered by run_id) and removes them with
  /// `delete_checkpoints`, so it costs a scan of every checkpoint and throws as that does for
  /// a saver that cannot remove single checkpoints; savers index runs instead.
  virtual void delete_for_runs(const std::vector<std::string>& run_ids);

  /// For each of `channels`, its history up to checkpoint `config` (the latest of the thread
  /// and namespace when its id is empty): walking the parents of the checkpoint, newest first,
  /// the writes to the channel saved against each, until an ancestor with a value of the
  /// channel stored (its `channel_values` has it), whose value is the seed and whose writes
  /// are the oldest taken. Each channel stops at its own such ancestor. An empty `channels`
  /// gives an empty map; an unknown checkpoint, an entry without seed or writes per channel.
  /// LangGraph's `get_delta_channel_history`. The default walks with `get_tuple` (each
  /// ancestor read whole once); savers read only the channels asked for.
  virtual std::map<std::string, delta_channel_history> get_delta_channel_history(
      const checkpoint_config& config, const std::vector<std::string>& channels);

  /// Removes the pending writes saved against checkpoint `config` (the checkpoint stays).
  /// The default throws `superstep::error` (invalid_argument): the saver cannot.
  virtual void delete_writes(const checkpoint_config& config);

  /// The runs in progress on this saver's threads: one run per thread at a time in this
  /// process (thread_runs.hpp). Savers on one database return the same registry; the default
  /// is this saver's own.
  virtual thread_runs& runs() noexcept { return runs_; }

  /// The version that follows `current` (0: none yet).
  virtual channel_version get_next_version(channel_version current) { return current + 1; }

  /// The highest channel version stored in `config`'s thread and namespace, on any branch
  /// (its checkpoint id is ignored; 0 when there is none). Values are stored once per
  /// (channel, version): every run and update issues versions above this one, so a branch
  /// that forked from an earlier checkpoint never writes over a value of a branch it left,
  /// even when its head has lower versions than the branch it left. The default reads every
  /// checkpoint of the namespace; savers answer it from what they index.
  virtual channel_version latest_version(const checkpoint_config& config) {
    channel_version out = 0;
    for (const auto& tuple :
         list(checkpoint_config{config.thread_id, config.checkpoint_ns, ""}, {}))
      for (const auto& [_, v] : tuple.checkpoint.channel_versions) out = std::max(out, v);
    return out;
  }

 private:
  thread_runs runs_;
};

}  // namespace superstep
