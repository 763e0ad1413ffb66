#pragma once

// The state of a rocksdb_saver behind its pimpl, shared by rocksdb_saver.cpp (checkpoints and
// writes) and rocksdb_saver_threads.cpp (deleting, copying and pruning threads).

#include <rocksdb/write_batch.h>

#include <array>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint_records.hpp"
#include "rocksdb_database.hpp"
#include "superstep/storage/rocksdb_saver.hpp"

namespace superstep::storage {

namespace detail {

/// "checkpoint <id> of thread '<t>'" (and its namespace when it has one), for error messages.
std::string describe(const std::string& thread_id, const std::string& ns, const std::string& id);

/// Throws storage_error for a key of column family `family` that does not parse.
[[noreturn]] void damaged_key(const char* family, std::string_view key);

/// The run a checkpoint belongs to: its metadata's `run_id` when that is a non-empty string.
inline const std::string* run_of(const checkpoint_metadata& metadata) {
  const value* run_id = metadata.extra.find("run_id");
  if (!run_id || !run_id->is_string() || run_id->as_string().empty()) return nullptr;
  return &run_id->as_string();
}

}  // namespace detail

struct rocksdb_saver::impl {
  impl(const std::string& dir, rocksdb_saver_options options)
      : db_owner(rocksdb_database::shared(dir, {options.read_only, options.env})),
        db(*db_owner),
        serde(options.serde ? std::move(options.serde) : make_capnp_serializer()) {
    write_options.sync = options.sync;
    if (!options.read_only) index_runs();
  }

  /// Builds the run index (`delete_for_runs`) of a database written before it existed, once:
  /// every checkpoint whose metadata names a run gets its entries, then a mark says the index
  /// is whole. A checkpoint that does not decode (another key) leaves the mark unwritten, for
  /// the next open to try again.
  void index_runs();

  void write(rocksdb::WriteBatch& batch, std::string_view what) {
    db.write(write_options, batch, what);
  }

  /// `rocksdb_saver::put` and `put_changes` (`changes` nullptr: not known).
  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions,
                        const checkpoint_changes* changes);

  /// Makes the version maps of a decoded checkpoint stored as a delta whole, from its bases
  /// read on the snapshot of `read`.
  void resolve(const rocksdb::ReadOptions& read, const std::string& thread_id,
               const std::string& ns, records::stored_checkpoint& stored) const;

  /// The checkpoint record under (thread, ns, id), decoded; its errors say which it is.
  records::stored_checkpoint decode(const std::string& thread_id, const std::string& ns,
                                    const std::string& id, std::string_view bytes) const;

  /// The tuple of a decoded checkpoint: its values from the blobs and its pending writes, read
  /// on the snapshot of `read`.
  checkpoint_tuple make_tuple(const rocksdb::ReadOptions& read, const std::string& thread_id,
                              const std::string& ns, const std::string& id,
                              records::stored_checkpoint stored) const;

  /// The value of a channel at a version whose whole blob is not stored under its key: a list in
  /// parts, or from its delta (and the delta's bases), or nullopt when the version has no blob
  /// (the channel was cleared).
  /// `channel_key` is the blob key without the version.
  std::optional<value> read_delta(const rocksdb::ReadOptions& read, const std::string& channel_key,
                                  channel_version version) const;

  /// A list this long or longer is stored in parts, through a table file (table_write):
  /// neither its encoding whole nor a write batch holding it is ever made.
  static constexpr std::size_t parts_from_items = 65536;
  /// The elements of each part but the last.
  static constexpr std::size_t part_items = 16384;
  /// Writes `items`, the value at blob key `key`, in parts to `table`, setting `bytes` to the
  /// bytes written; returns the header, for the caller to write under `key` and
  /// keys::parts_suffix with the checkpoint that reads it.
  std::string write_parts(table_write& table, const std::string& key, const superstep::list& items,
                          std::size_t& bytes) const;
  /// The header of a list in parts: its length and number of parts.
  struct parts_header {
    std::uint64_t length = 0;
    std::uint64_t parts = 0;
  };
  /// A header's bytes decoded; nullopt when they are not one.
  static std::optional<parts_header> decode_parts_header(std::string_view bytes);
  /// The list stored in parts at blob key `key` (without a suffix), or nullopt when it has no
  /// header there.
  std::optional<value> read_parts(const rocksdb::ReadOptions& read, const std::string& key) const;

  /// The pending writes of checkpoint (thread, ns, id), in memory_saver's order (by task id,
  /// then index).
  std::vector<pending_write> read_writes(const rocksdb::ReadOptions& read,
                                         const std::string& thread_id, const std::string& ns,
                                         const std::string& id) const;

  /// The value of `channel` at `version` in (thread, ns): nullopt when the version has no
  /// value (the channel was cleared, or never stored at it).
  std::optional<value> read_value(const rocksdb::ReadOptions& read, const std::string& thread_id,
                                  const std::string& ns, const std::string& channel,
                                  channel_version version) const;

  /// How many normal writes of a task are stored under `prefix` (the writes key prefix of the
  /// task): one past the highest index, counting its own records and its bundles.
  std::size_t saved_normal_writes(const std::string& prefix, const std::string& task_id) const;

  /// Appends to `out` the checkpoints of (thread, config.checkpoint_ns) that `config` and
  /// `options` select, newest first, until `out` is full.
  void list_namespace(const rocksdb::ReadOptions& read, const std::string& thread_id,
                      const checkpoint_config& config, const list_options& options,
                      std::vector<checkpoint_tuple>& out) const;

  /// `list_namespace` for config.checkpoint_ns, or with `options.every_namespace` for each
  /// namespace of the thread in order.
  void list_thread(const rocksdb::ReadOptions& read, const std::string& thread_id,
                   const checkpoint_config& config, const list_options& options,
                   std::vector<checkpoint_tuple>& out) const;

  /// Batches into `batch` the removal of the checkpoints of the thread for which
  /// `drop(ns, index, count, id)` holds (index of count in the namespace, oldest first), their
  /// writes, their run index entries and the blobs no kept checkpoint reads; kept checkpoints
  /// stored against a base are stored whole. Reads on the snapshot of `read`. The caller holds
  /// db.maintenance, writes the batch and then clears db.chains and db.versions
  /// (rocksdb_saver_threads.cpp).
  void drop_checkpoints(const rocksdb::ReadOptions& read, const std::string& thread_id,
                        const std::function<bool(const std::string& ns, std::size_t index,
                                                 std::size_t count, const std::string& id)>& drop,
                        rocksdb::WriteBatch& batch);

  /// Batches the removal of every run index entry of thread `thread_id`.
  void unindex_thread(const rocksdb::ReadOptions& read, const std::string& thread_id,
                      rocksdb::WriteBatch& batch) const;

  /// Batches run index entries for thread `target` that copy those of thread `source`.
  void copy_run_index(const rocksdb::ReadOptions& read, const std::string& source,
                      const std::string& target, rocksdb::WriteBatch& batch) const;

  // The lock of put_writes for one task of one checkpoint: its check-then-write must not
  // interleave with another batch of the same task, while other tasks' batches go on.
  std::size_t writes_stripe(const std::string& key) const {
    return std::hash<std::string>{}(key) % write_locks.size();
  }

  std::shared_ptr<rocksdb_database> db_owner;  // shared with a store on the same folder
  rocksdb_database& db;
  std::shared_ptr<const serializer> serde;
  rocksdb::WriteOptions write_options;
  std::array<std::mutex, 16> write_locks;
};

}  // namespace superstep::storage
