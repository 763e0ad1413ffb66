#pragma once

// The records of the RocksDB saver (storage/schema/checkpoint.capnp) to and from bytes.
//
// Decoding damaged bytes throws `superstep::error` (storage_error) saying what is wrong, never
// crashes; the saver adds which record it was.

#include <capnp/message.h>

#include <functional>
#include <string>
#include <string_view>

#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::storage::records {

/// A checkpoint as stored: without its channel_values, which live in the blobs.
struct stored_checkpoint {
  checkpoint cp;
  checkpoint_metadata metadata;
  std::string parent_id;   ///< empty: none
  std::string serializer;  ///< name of the serializer that wrote the metadata values
  /// Not empty: `cp`'s version maps hold only the entries that differ from this checkpoint's.
  std::string versions_base;
  std::uint32_t versions_depth = 0;
};

/// Which version entries a checkpoint record holds when it is a delta.
struct versions_delta {
  std::string base;  ///< the checkpoint it is against
  std::uint32_t depth = 0;
  const std::vector<std::string>* channels = nullptr;  ///< sorted
  const std::vector<std::string>* nodes = nullptr;     ///< sorted
};

/// `cp` without its channel values, its metadata (values by `serde`) and its parent's id;
/// with `delta`, only the version entries it names.
std::string encode_checkpoint(const checkpoint& cp, const checkpoint_metadata& metadata,
                              const std::string& parent_id, const serializer& serde,
                              const versions_delta* delta = nullptr);
stored_checkpoint decode_checkpoint(std::string_view bytes, const serializer& serde);

/// A pending write with its task path; the value by `serde`.
std::string encode_write(const std::string& task_id, const std::string& channel,
                         const std::string& task_path, std::string_view value_bytes);
pending_write decode_write(std::string_view bytes, const serializer& serde);

/// The writes of several tasks as records (bundles) of at most `max_writes` writes each, each
/// value encoded by `serde` straight into its record. Each record's bytes go to `sink` as soon
/// as it is made, with the id of its first task and how many writes it holds: a fan-out's
/// million writes are never all encoded at once, unpacked, beside their packed bytes. A task's
/// writes may span records; each names the index in its task of its first write.
using bundle_sink =
    std::function<void(const std::string& first_task, std::string bytes, std::size_t writes)>;
void encode_write_bundles(const std::vector<task_writes>& tasks, const serializer& serde,
                          std::size_t max_writes, const bundle_sink& sink);

/// The writes of a record of the writes column family: one, or a bundle's. With `indexes`,
/// also each write's index in its task, for a bundle (left empty for a record of one write,
/// whose index is in its key).
std::vector<pending_write> decode_writes(std::string_view bytes, const serializer& serde,
                                         std::vector<std::uint32_t>* indexes = nullptr);

/// A list channel's value at a version, stored as an earlier version's list and what came
/// after it (storage/schema/checkpoint.capnp, ListDelta).
struct list_delta {
  channel_version base = 0;
  std::uint64_t base_length = 0;
  std::string items;  ///< the added elements as a list value, by the serializer
};
std::string encode_list_delta(const list_delta& delta);
list_delta decode_list_delta(std::string_view bytes);

}  // namespace superstep::storage::records
