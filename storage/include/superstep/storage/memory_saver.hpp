#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"

namespace superstep::storage {

class version_chains;

/// A checkpoint saver that keeps everything in process memory (LangGraph `InMemorySaver`).
/// For tests, debugging and single-process runs; nothing survives the process.
///
/// Layout, as LangGraph's:
/// - checkpoints: thread_id -> checkpoint_ns -> checkpoint_id -> (checkpoint without its
///   values, metadata, parent id). Checkpoint ids sort by creation, so the latest is the last
///   entry and newest-first is a reverse walk.
/// - blobs: (thread_id, checkpoint_ns, channel, version) -> value. `put` stores only the
///   channels of `new_versions`, so a channel that did not change is shared with older
///   checkpoints; reading a checkpoint reassembles its values from the blobs of its
///   `channel_versions`.
/// - writes: (thread_id, checkpoint_ns, checkpoint_id) -> (task_id, index) -> write.
///
/// Values are immutable and shared, so nothing is copied deeply on put or get. Checkpoints put
/// with their changes (`put_changes`, as the run loop does) keep only the version entries that
/// differ from an earlier checkpoint (version_chains.hpp): a step costs what it changed.
/// Thread-safe: every method takes one mutex.
class memory_saver final : public checkpoint_saver {
 public:
  memory_saver();
  ~memory_saver() override;
  memory_saver(const memory_saver&) = delete;
  memory_saver& operator=(const memory_saver&) = delete;
  std::vector<std::string> thread_ids() override;

  /// Stores `cp` under (config.thread_id, config.checkpoint_ns) with parent
  /// `config.checkpoint_id`. Throws `superstep::error` (invalid_argument) when the thread id
  /// or the checkpoint id is empty.
  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override;

  /// `put` told what changed: stores the checkpoint's version maps as what differs from an
  /// earlier checkpoint of the same line of parents (at most log2(steps) + 1 of them are read
  /// to rebuild the maps), not whole.
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override;

  /// Stores the writes of task `task_id` against checkpoint `config`. A normal write whose
  /// (task, index) is already stored is skipped; special writes (__error__, __scheduled__,
  /// __interrupt__, __resume__) replace the stored one. Throws `superstep::error`
  /// (invalid_argument) when the thread id or the checkpoint id is empty.
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override;

  /// The checkpoint `config.checkpoint_id`, or the latest of the thread and namespace when it
  /// is empty; nullopt when there is none. Throws `superstep::error` (invalid_argument) when
  /// the thread id is empty.
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override;

  /// As `checkpoint_saver::latest_version`: one lookup per channel in the blobs.
  channel_version latest_version(const checkpoint_config& config) override;

  /// Checkpoints newest first. An empty `config.thread_id` lists every thread (in thread id
  /// order, each newest first); `config.checkpoint_ns` always selects the namespace; a
  /// `config.checkpoint_id` selects that checkpoint only. `options.before` keeps checkpoints
  /// whose id sorts before its id; `options.filter` keeps those whose metadata (as
  /// `metadata_to_value`) has every given key with an equal value (null matches an absent
  /// key); `options.limit` caps the count.
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override;

  /// Removes the checkpoints, blobs and writes of `thread_id` in every namespace.
  void delete_thread(const std::string& thread_id) override;

  /// Makes `target` a copy of `source`: every namespace, checkpoint (same ids), blob and
  /// write. Whatever `target` held before is replaced. Throws `superstep::error` (not_found)
  /// when `source` has no checkpoint, and (invalid_argument) when either id is empty.
  void copy_thread(const std::string& source, const std::string& target) override;

  /// Keeps only the `keep_last` latest checkpoints of each namespace of each thread in
  /// `thread_ids`, with their writes and the blobs they still use; the rest is removed. The
  /// oldest kept checkpoint keeps naming its parent, which may no longer exist.
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last = 1) override;

  /// As `checkpoint_saver::delete_checkpoints`: the kept checkpoints that stored their version
  /// maps against a removed one are stored whole first.
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override;

  /// As `checkpoint_saver::delete_writes`.
  void delete_writes(const checkpoint_config& config) override;

  /// As `checkpoint_saver::delete_for_runs`: one pass over the checkpoints held, under the
  /// lock, so no reader sees a run half removed.
  void delete_for_runs(const std::vector<std::string>& run_ids) override;

  /// As `checkpoint_saver::get_delta_channel_history`: walks the parents of the checkpoint and
  /// reads only the blobs and writes of the channels asked for. Throws `superstep::error`
  /// (invalid_argument) when the thread id is empty.
  std::map<std::string, delta_channel_history> get_delta_channel_history(
      const checkpoint_config& config, const std::vector<std::string>& channels) override;

 private:
  /// A checkpoint as stored: without channel_values, which live in the blobs.
  struct stored_checkpoint {
    checkpoint cp;  ///< with versions_base: only the version entries that differ from it
    checkpoint_metadata metadata;
    std::string parent_id;
    std::string versions_base;  ///< empty: the version maps are whole
    std::uint32_t versions_depth = 0;
  };
  /// A pending write as stored.
  struct stored_write {
    std::string channel;
    value v;
    std::string task_path;
  };

  using checkpoints_by_id = std::map<std::string, stored_checkpoint>;
  using namespaces = std::map<std::string, checkpoints_by_id>;
  /// (thread_id, checkpoint_ns, channel, version); nullopt marks a channel that was empty.
  using blob_key = std::tuple<std::string, std::string, std::string, channel_version>;
  using blob_map = std::map<blob_key, std::optional<value>>;
  /// (thread_id, checkpoint_ns, checkpoint_id)
  using writes_key = std::tuple<std::string, std::string, std::string>;
  using task_writes = std::map<std::pair<std::string, int>, stored_write>;
  using writes_map = std::map<writes_key, task_writes>;

  checkpoint_config store(const checkpoint_config& config, const checkpoint& cp,
                          const checkpoint_metadata& metadata,
                          const std::map<std::string, channel_version>& new_versions,
                          const checkpoint_changes* changes);
  checkpoint_tuple make_tuple(const std::string& thread_id, const std::string& ns,
                              const std::string& id, const checkpoints_by_id& checkpoints,
                              const stored_checkpoint& stored) const;
  /// The whole version maps of `stored` (one of `checkpoints`) into `out`.
  void resolve_versions(const checkpoints_by_id& checkpoints, const stored_checkpoint& stored,
                        checkpoint& out) const;
  void erase_thread(const std::string& thread_id);
  /// Removes the checkpoints of the thread for which `drop(ns, index, count, id)` holds (index
  /// of count in the namespace, oldest first), their writes and the blobs no kept checkpoint
  /// reads. Kept checkpoints are made whole first. Called with the mutex held.
  void drop_checkpoints(const std::string& thread_id,
                        const std::function<bool(const std::string& ns, std::size_t index,
                                                 std::size_t count, const std::string& id)>& drop);

  std::unique_ptr<version_chains> chains_;
  mutable std::mutex mutex_;
  std::map<std::string, namespaces> threads_;
  blob_map blobs_;
  writes_map writes_;
};

}  // namespace superstep::storage
