// A RocksDB saver's pending writes: saving a batch of tasks' writes (bundled, the first saved
// copy of a task's writes kept) and reading a checkpoint's back.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <optional>

#include "capnp_message.hpp"
#include "rocksdb_keys.hpp"
#include "rocksdb_saver_impl.hpp"
#include "saver_checks.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/write_index.hpp"
#include "version_chains.hpp"

namespace superstep::storage {

using detail::damaged_key;
using detail::describe;

namespace {

// "pending write <index> of task '<id>'" from a key of the writes column family whose
// checkpoint prefix is `prefix_size` bytes long.
// The index in the key of a bundle: the writes of several tasks, the first named in the key.
constexpr std::int32_t bundle_index = std::numeric_limits<std::int32_t>::max();
// The writes of one record of a bundle, at most: a fan-out's 10^6 Sends are encoded a few
// megabytes at a time.
constexpr std::size_t bundle_writes = 16384;
// A task with this many writes or more has them saved through a table file (table_write).
constexpr std::size_t table_writes = 65536;

std::string describe_write(std::string_view key, std::size_t prefix_size) {
  std::size_t pos = prefix_size;
  auto task_id = keys::read_string(key, pos);
  auto index = task_id ? keys::read_i32(key, pos) : std::nullopt;
  if (!index) return "a pending write with a damaged key";
  if (*index == bundle_index) return "the pending writes saved with task '" + *task_id + "'";
  return "pending write " + std::to_string(*index) + " of task '" + *task_id + "'";
}

// Whether every write of these tasks is a normal one (no error, interrupt, ...).
bool all_normal(const std::vector<task_writes>& tasks) {
  for (const auto& t : tasks)
    for (std::size_t i = 0; i < t.writes.size(); ++i)
      if (write_index(t.writes[i].first, i) < 0) return false;
  return true;
}

}  // namespace

std::vector<pending_write> rocksdb_saver::impl::read_writes(const rocksdb::ReadOptions& read,
                                                            const std::string& thread_id,
                                                            const std::string& ns,
                                                            const std::string& id) const {
  const auto fail = [&](const std::string& what, const std::string& why) {
    return error(
        error_code::storage_error,
        "rocksdb_saver: cannot read " + describe(thread_id, ns, id) + ": " + what + ": " + why);
  };
  std::string write_prefix = keys::prefix(thread_id, ns, id);
  range_scan writes(db, db.writes, read, write_prefix, keys::successor(write_prefix));
  // Every write of every task, from its own records (the index in the key) and from bundles
  // (normal writes only; each record names the index of each task's first write in it). A
  // task may have both: its normal writes in a bundle, its error or interrupt saved on its
  // own. Should a (task, index) be stored twice (saved again after a crash between the
  // copies), the first in key order wins, as the first saved copy does in memory_saver.
  struct indexed {
    std::int32_t index;
    pending_write w;
  };
  std::vector<indexed> found;
  for (writes->SeekToFirst(); writes->Valid(); writes->Next()) {
    const std::string_view key = writes->key().ToStringView();
    std::vector<pending_write> decoded;
    std::vector<std::uint32_t> indexes;  // of a bundle's writes in their tasks
    try {
      decoded = records::decode_writes(writes->value().ToStringView(), *serde, &indexes);
    } catch (const error& e) {
      throw fail(describe_write(key, write_prefix.size()), e.what());
    }
    std::size_t pos = write_prefix.size();
    auto key_task = keys::read_string(key, pos);
    auto key_index = key_task ? keys::read_i32(key, pos) : std::nullopt;
    if (!key_index) damaged_key("writes", key);
    if (*key_index != bundle_index) {
      for (auto& w : decoded) found.push_back({*key_index, std::move(w)});
      continue;
    }
    if (indexes.size() != decoded.size())
      throw fail(describe_write(key, write_prefix.size()), "the record is not a bundle");
    for (std::size_t i = 0; i < decoded.size(); ++i)
      found.push_back({static_cast<std::int32_t>(indexes[i]), std::move(decoded[i])});
  }
  writes.check_status("reading the pending writes of " + describe(thread_id, ns, id));
  // memory_saver's order: by task id, then index (special writes first).
  std::stable_sort(found.begin(), found.end(), [](const indexed& a, const indexed& b) {
    if (int c = a.w.task_id.compare(b.w.task_id); c != 0) return c < 0;
    return a.index < b.index;
  });
  const auto copy_of_previous = [&](std::size_t i) {
    return i > 0 && found[i].index == found[i - 1].index &&
           found[i].w.task_id == found[i - 1].w.task_id;
  };
  std::vector<bool> skip(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) skip[i] = copy_of_previous(i);
  std::vector<pending_write> out;
  out.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i)
    if (!skip[i]) out.push_back(std::move(found[i].w));
  return out;
}

void rocksdb_saver::put_writes(const checkpoint_config& config,
                               const std::vector<std::pair<std::string, value>>& writes,
                               const std::string& task_id, const std::string& task_path) {
  put_writes_many(config, {task_writes{task_id, task_path, writes}});
}

// How many normal writes of a task are stored under `prefix`, the task's key prefix: one past
// the highest index, from its own records and its bundles.
std::size_t rocksdb_saver::impl::saved_normal_writes(const std::string& prefix,
                                                     const std::string& task_id) const {
  std::size_t count = 0;
  range_scan saved(db, db.writes, rocksdb::ReadOptions(), prefix, keys::successor(prefix));
  for (saved->SeekToFirst(); saved->Valid(); saved->Next()) {
    const std::string_view key = saved->key().ToStringView();
    std::size_t pos = prefix.size();
    auto index = keys::read_i32(key, pos);
    if (!index) damaged_key("writes", key);
    if (*index == bundle_index) {
      std::vector<std::uint32_t> indexes;
      const auto writes = records::decode_writes(saved->value().ToStringView(), *serde, &indexes);
      for (std::size_t i = 0; i < writes.size() && i < indexes.size(); ++i)
        if (writes[i].task_id == task_id)
          count = std::max(count, static_cast<std::size_t>(indexes[i]) + 1);
    } else if (*index >= 0) {
      count = std::max(count, static_cast<std::size_t>(*index) + 1);
    }
  }
  saved.check_status("looking for saved writes of task '" + task_id + "'");
  return count;
}

void rocksdb_saver::put_writes_many(const checkpoint_config& config,
                                    const std::vector<task_writes>& tasks) {
  require_thread(config.thread_id, "rocksdb_saver", "put_writes");
  require_checkpoint_id(config.checkpoint_id, "rocksdb_saver", "put_writes");
  if (tasks.empty()) return;
  impl& d = *impl_;
  const std::string base =
      keys::prefix(config.thread_id, config.checkpoint_ns, config.checkpoint_id);

  // The engine saves the writes of a batch of tasks that finished together: one record for
  // all (a fan-out of 10^6 Sends would otherwise insert 10^6 keys). Tasks of a batch have
  // never been saved before, so there is no earlier copy to keep. One task with many writes
  // (a node sending 10^6 Sends) is bundled too, unless the task has saved writes already:
  // then its first copy is kept, as below.
  constexpr std::size_t many_writes = 64;
  const bool one_big_task = tasks.size() == 1 && tasks.front().writes.size() >= many_writes;
  std::unique_lock<std::mutex> task_lock;  // held until the bundle is written
  std::size_t first_new = 0;  // one big task saved before: its writes from this index are new
  if (one_big_task && all_normal(tasks)) {
    std::string prefix = base;
    keys::append_string(prefix, tasks.front().task_id);
    task_lock = std::unique_lock<std::mutex>(d.write_locks[d.writes_stripe(prefix)]);
    first_new = d.saved_normal_writes(prefix, tasks.front().task_id);
    // Saved before: keep that copy, and save only what it lacks (the writes of no task grow
    // as Commands on one checkpoint add to them), one record each.
    if (first_new >= tasks.front().writes.size()) return;
    if (first_new > 0) task_lock.unlock();
  }
  if ((tasks.size() > 1 || (one_big_task && first_new == 0)) && all_normal(tasks)) {
    // Records of a bounded size, all in one batch (atomic: every write or none), each named
    // by its first task and when it was saved, so a later bundle starting with the same task
    // sorts after it (the first saved copy of a task's writes is the one read back).
    static std::atomic<std::uint32_t> sequence{0};
    const auto saved_at =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::size_t total = 0;
    for (const auto& t : tasks) total += t.writes.size();
    const std::string what = "writing the pending writes of " + std::to_string(tasks.size()) +
                             " tasks to " +
                             describe(config.thread_id, config.checkpoint_ns, config.checkpoint_id);
    // One task's many writes (a node sending a fan-out's Sends) go through a table file: its
    // records' keys increase (one task, one time, a count), and no write batch or memtable
    // holds them all.
    std::optional<table_write> table;
    if (one_big_task && total >= table_writes) table.emplace(d.db, d.db.writes, what);
    const std::uint64_t table_sequence = table ? sequence.fetch_add(1) : 0;
    std::uint32_t records_made = 0;  // in the table file
    std::optional<rocksdb::WriteBatch> batch;
    records::encode_write_bundles(
        tasks, *d.serde, bundle_writes,
        [&](const std::string& first_task, std::string bytes, std::size_t writes) {
          std::string key = base;
          keys::append_string(key, first_task);
          keys::append_i32(key, bundle_index);
          keys::append_u64(key, saved_at);
          if (table) {
            keys::append_u64(key, table_sequence);
            keys::append_u32(key, records_made++);
            table->put(key, bytes);
            return;
          }
          keys::append_u64(key, sequence.fetch_add(1));
          if (!batch)  // sized once, from the first record
            batch.emplace(capnp_io::room_for_parts(key.size() + bytes.size() + 16,
                                                   (total + writes - 1) / writes));
          check(batch->Put(d.db.writes, key, bytes), "batching pending writes");
        });
    if (table)
      table->commit();
    else
      d.write(*batch, what);
    return;
  }

  // Encode outside the lock.
  struct record {
    std::string key, bytes;
    bool special;  // negative index: replaces what is stored
  };
  std::vector<record> records;
  std::vector<std::size_t> stripes;
  for (const auto& t : tasks) {
    std::string prefix = base;
    keys::append_string(prefix, t.task_id);
    stripes.push_back(d.writes_stripe(prefix));
    for (std::size_t i = first_new; i < t.writes.size(); ++i) {
      const auto& [channel, v] = t.writes[i];
      const std::int32_t index = write_index(channel, i);
      std::string key = prefix;
      keys::append_i32(key, index);
      records.push_back({std::move(key),
                         records::encode_write(t.task_id, channel, t.task_path, d.serde->dumps(v)),
                         index < 0});
    }
  }
  // The tasks' lock stripes, taken in one order so that concurrent batches cannot deadlock.
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (std::size_t s : stripes) locks.emplace_back(d.write_locks[s]);

  rocksdb::WriteBatch batch;
  rocksdb::PinnableSlice existing;
  for (const auto& r : records) {
    // A retried task saves the same writes again: keep the first copy of a normal write. A
    // special write (negative index) is the task's latest word and replaces the stored one.
    if (!r.special) {
      existing.Reset();
      auto s = d.db.db().Get(rocksdb::ReadOptions(), d.db.writes, r.key, &existing);
      if (s.ok()) continue;
      if (!s.IsNotFound()) check(s, "reading a pending write");
    }
    check(batch.Put(d.db.writes, r.key, r.bytes), "batching a pending write");
  }
  if (batch.Count() > 0)
    d.write(batch, "writing the pending writes of " + std::to_string(tasks.size()) +
                       " task(s) to " +
                       describe(config.thread_id, config.checkpoint_ns, config.checkpoint_id));
}

}  // namespace superstep::storage
