#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/storage/serializer.hpp"

namespace rocksdb {
class Env;
}

namespace superstep::storage {

/// How `rocksdb_saver::open` sets up a saver.
struct rocksdb_saver_options {
  /// Turns channel values, pending writes and metadata values into bytes; null: the default,
  /// `make_capnp_serializer()`. A database must be reopened with a serializer that reads what
  /// it was written with (the same key, for an encrypting one).
  std::shared_ptr<const serializer> serde;
  /// True: every write is flushed to disk (fsync) before it returns, so it survives a power
  /// loss. False: it is in RocksDB's write-ahead log, which survives a crash of the process
  /// but not of the machine.
  bool sync = true;
  /// Open the database read-only: nothing is written and the folder's lock is not taken, so
  /// it reads beside a process that writes to it (as of opening). It must exist; writes
  /// throw storage_error.
  bool read_only = false;
  /// The RocksDB environment to run on (tests inject one whose writes fail); nullptr: the
  /// default. It must outlive the database.
  rocksdb::Env* env = nullptr;
};

/// The id of another process that has the database in `dir` open for writing (holds its
/// lock), or 0 when none has.
int rocksdb_lock_holder(const std::string& dir);

/// A checkpoint saver in an embedded RocksDB database (a directory), with the semantics of
/// `memory_saver`, so one conformance suite holds for both.
///
/// Column families: `checkpoints` (one Cap'n Proto record per checkpoint: the checkpoint
/// without its values, its metadata and its parent's id), `writes` (pending writes),
/// `blobs` (channel values by thread, namespace, channel and version: `put` writes only the
/// channels of `new_versions`, so a channel that did not change is never written again),
/// `runs` (which checkpoints each run made, for `delete_for_runs`) and `store` (the
/// long-term store). Keys are laid out so a
/// thread, and a thread's namespace, is one key range (storage/src/rocksdb_keys.hpp).
///
/// `put` stores a checkpoint and its blobs in one atomic batch, `put_writes` all of a task's
/// writes in one. A record that cannot be read (damaged bytes, another serializer) throws
/// `superstep::error` (storage_error) naming the thread and checkpoint; so does a failure of
/// RocksDB. Thread-safe: every method may be called from several threads at once.
class rocksdb_saver final : public checkpoint_saver {
 public:
  /// Opens the database in `dir`, creating the directory, the database and missing column
  /// families as needed. Throws `superstep::error` (storage_error) naming `dir` when RocksDB
  /// cannot open it (e.g. another process has it open), (invalid_argument) for an empty dir.
  static std::unique_ptr<rocksdb_saver> open(const std::string& dir,
                                             rocksdb_saver_options options = {});

  /// Closes the database; every write that returned is in it.
  ~rocksdb_saver() override;
  rocksdb_saver(const rocksdb_saver&) = delete;
  rocksdb_saver& operator=(const rocksdb_saver&) = delete;

  /// As `memory_saver::put`; the checkpoint and its new blobs are written atomically. A
  /// channel of `new_versions` without a value (cleared) has no blob at that version.
  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override;

  /// `put` told what changed: the checkpoint record holds the version entries that differ from
  /// an earlier checkpoint of the same line of parents (at most log2(steps) + 1 records are read
  /// to rebuild the maps; storage/schema/checkpoint.capnp, format 2), not the whole maps.
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override;

  /// As `memory_saver::put_writes`: a normal write whose (task, index) is stored is skipped, a
  /// special write replaces the stored one; the batch is written atomically.
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override;
  /// All tasks' writes in one WriteBatch, with put_writes' rules per task.
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override;

  /// As `memory_saver::get_tuple`; read from one snapshot of the database.
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override;

  /// As `checkpoint_saver::latest_version`: two seeks per channel in the blobs (a cleared
  /// version leaves an empty marker there, so it counts too) and the latest record.
  channel_version latest_version(const checkpoint_config& config) override;

  /// As `memory_saver::list` (an empty thread id lists every thread, in thread id order).
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override;

  /// Removes the checkpoints, blobs and writes of `thread_id` in every namespace, atomically.
  void delete_thread(const std::string& thread_id) override;

  /// As `memory_saver::copy_thread`, in one atomic batch.
  void copy_thread(const std::string& source, const std::string& target) override;

  /// As `memory_saver::prune`, one atomic batch per thread.
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last = 1) override;
  std::vector<std::string> thread_ids() override;

  /// As `memory_saver::delete_checkpoints`, in one atomic batch.
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override;

  /// As `checkpoint_saver::delete_writes`.
  void delete_writes(const checkpoint_config& config) override;

  /// As `checkpoint_saver::delete_for_runs`, in one atomic batch. The column family `runs`
  /// indexes each checkpoint put with a string `run_id` in its metadata (and each thread's
  /// runs), so this reads the runs' checkpoints and the threads they are in, not the database.
  /// Checkpoints put before the index existed (databases of earlier builds) are not found.
  void delete_for_runs(const std::vector<std::string>& run_ids) override;

  /// As `checkpoint_saver::get_delta_channel_history`, read from one snapshot: per ancestor its
  /// record, the blobs of the channels still walking and its pending writes.
  std::map<std::string, delta_channel_history> get_delta_channel_history(
      const checkpoint_config& config, const std::vector<std::string>& channels) override;

  /// The runs in progress on the threads of this database: every saver (and store) this
  /// process opened on the folder shares one.
  thread_runs& runs() noexcept override;

  /// The directory of the database.
  const std::string& directory() const noexcept;

 private:
  struct impl;
  explicit rocksdb_saver(std::unique_ptr<impl> impl);

  std::unique_ptr<impl> impl_;
};

}  // namespace superstep::storage
