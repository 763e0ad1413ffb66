#pragma once

// The data folder of the `superstep` program (--data): the checkpoint database, and beside it
// the graph spec each thread last ran with, so that commands on a thread need no spec.

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "net/command.hpp"
#include "superstep/checkpoint/checkpoint.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/cluster/function_registry.hpp"
#include "superstep/storage/record_tables.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::ops {

// The operations and their arguments are the cluster's (net/command.hpp).
using net::cancel_args;
using net::delete_args;
using net::embedder_args;
using net::exit_done;
using net::exit_failed;
using net::exit_interrupted;
using net::exit_status;
using net::exit_usage;
using net::graph_args;
using net::history_args;
using net::maintenance_args;
using net::run_args;
using net::state_args;
using net::store_args;
using net::thread_args;
using net::threads_args;
using net::update_args;
using net::usage_error;

/// How a data folder is opened (data_dir, open_store).
struct data_options {
  /// Flush every write to disk before it returns (survives power loss). Without it a write is
  /// in RocksDB's write-ahead log, which survives the process being killed.
  bool fsync = false;
  /// The semantic search of the store; nullopt: `default_store_index()`.
  std::optional<storage::index_config> index = std::nullopt;
  /// For commands that only read (state, history): the database is opened without its lock,
  /// beside a process that writes to it, and nothing is written (a folder without a database
  /// is opened as a new one, as for writing).
  bool read_only = false;
  /// A redis:// URL keeps the checkpoints on that server (`redis_saver`); the folder still
  /// holds specs and the store.
  std::string saver_url = "";
  /// How records are encoded (the program passes one that encrypts with SUPERSTEP_AES_KEY
  /// when it is set); null: Cap'n Proto, unencrypted.
  std::shared_ptr<const storage::serializer> serde = nullptr;
};

/// The folder DIR of --data. The RocksDB database is DIR itself; thread specs are files
/// DIR/graphs/<thread id in hex>.json, each a hard link to the one copy of its text in
/// DIR/graphs/shared/ where the file system allows it (spec files are replaced, never
/// written in place).
class data_dir {
 public:
  /// Opens the database in `path` as `options` say, creating the folder and the database
  /// when missing. Throws `superstep::error` (storage_error) naming `path` when it cannot be
  /// opened: another process holds it (the error names the folder, that process and what to
  /// do), or it is not a readable database; with a saver URL, naming the server when it cannot
  /// be reached.
  explicit data_dir(std::string path, data_options options = {});

  const std::string& path() const noexcept { return path_; }
  const std::shared_ptr<checkpoint_saver>& saver() const noexcept { return saver_; }

  /// Where the checkpoints are, for messages: the folder, or "redis at HOST:PORT".
  const std::string& checkpoints_place() const noexcept { return place_; }

  /// The long-term store in the same database (opened on first use), which the graphs' nodes
  /// reach through their context, with the index given to the constructor.
  std::shared_ptr<storage::store> store() const;

  /// The tables of the server API's records (opened on first use), beside the checkpoints: in
  /// the folder's database, or with a redis:// saver URL on that server.
  std::shared_ptr<storage::record_tables> records() const;

  /// The thread's checkpoint `checkpoint_id`, or its latest when that is empty. Throws
  /// error(not_found) with "thread 'T' has no checkpoints in DIR" when the thread has none, or
  /// "checkpoint C not found in thread T"; and the saver's storage_error when the record
  /// cannot be read (damaged, or written with another encryption key).
  [[nodiscard]] checkpoint_tuple checkpoint(const std::string& thread_id,
                                            const std::string& checkpoint_id = "") const;

  /// Throws as `checkpoint` does unless the thread has a readable latest checkpoint.
  void require_thread(const std::string& thread_id) const;

  /// Throws as `checkpoint` does unless the thread's checkpoint `checkpoint_id` is readable.
  void require_checkpoint(const std::string& thread_id, const std::string& checkpoint_id) const;

  /// Keeps a copy of the spec file `spec_path` as the thread's spec. The copy is written to a
  /// temporary file and renamed over the old one, so a crash leaves either spec, whole.
  void save_graph(const std::string& thread_id, const std::string& spec_path) const;

  /// Keeps the spec text `text` as the thread's spec, likewise.
  void save_graph_text(const std::string& thread_id, const std::string& text) const;

  /// The path of the thread's saved spec, nullopt when there is none.
  std::optional<std::string> saved_graph(const std::string& thread_id) const;

  /// Removes the thread's saved spec, if any (and the record of an unfinished exit run).
  void forget_graph(const std::string& thread_id) const;

  /// Records that a run with durability exit started on the thread: such a run saves its
  /// steps only when it ends, so a crash loses all of them. A file beside the thread's spec
  /// holds the start time until `end_exit_run`.
  void begin_exit_run(const std::string& thread_id) const;

  /// The run of `begin_exit_run` ended (done, interrupted, failed or stopped: it saved what
  /// it ran); its record goes.
  void end_exit_run(const std::string& thread_id) const;

  /// When a run with durability exit started on the thread and never ended (its process
  /// died): the time it started (ISO 8601, UTC); nullopt otherwise.
  std::optional<std::string> unfinished_exit_run(const std::string& thread_id) const;

 private:
  std::string graph_file(const std::string& thread_id) const;
  std::string exit_run_file(const std::string& thread_id) const;
  // A fresh name beside `target` for a writer's temporary file.
  static std::string temp_name(const std::string& target);
  // Makes `link_path` a hard link to the folder's shared copy of `text` (graphs/shared/, named
  // by the text's hash), writing that copy first when needed; false when it cannot.
  bool link_shared_spec(const std::string& text, const std::string& link_path) const;

  std::string path_;
  data_options options_;
  std::shared_ptr<checkpoint_saver> saver_;
  std::string place_;
  mutable std::shared_ptr<storage::store> store_;
  mutable std::mutex store_mutex_;
  // The shared spec copies this process wrote or read back whole (link_shared_spec).
  mutable std::set<std::string> shared_specs_;
  mutable std::mutex shared_specs_mutex_;
  mutable std::shared_ptr<storage::record_tables> records_;
};

/// The store of the database in `dir`, opened as `options` say (its saver_url aside). Throws
/// as data_dir's constructor does.
std::shared_ptr<storage::store> open_store(const std::string& dir, data_options options);

/// Whether `dir` holds a database (a reader of a folder without one opens it for writing,
/// which makes one).
bool has_database(const std::string& dir);

/// The index of the commands' stores when no --embedder is given: the hashing embedder, 384
/// dimensions.
storage::index_config default_store_index();

/// The index `embedder` describes (with its distance type), its embedding function made by
/// `registry` with the params of `embedder` and "dims". Its embedder_id is the name, with "/MODEL"
/// when the params name a "model" ("openai/text-embedding-3-small"), so that a database refuses
/// another model. Throws what `function_registry::make_embedder` throws.
storage::index_config store_index(const embedder_args& embedder,
                                  const cluster::function_registry& registry);

/// A fresh thread id: 32 random hex digits in uuid form.
std::string new_thread_id();

}  // namespace superstep::ops
