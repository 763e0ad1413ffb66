// rocksdb_saver: deleting, copying and pruning whole threads, removing runs, and the index of
// runs (column family `runs`) those keep up to date.
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "rocksdb_keys.hpp"
#include "rocksdb_saver_impl.hpp"
#include "superstep/core/error.hpp"

namespace superstep::storage {

using detail::damaged_key;
using detail::describe;

void rocksdb_saver::delete_thread(const std::string& thread_id) {
  impl& d = *impl_;
  const std::string prefix = keys::prefix(thread_id);
  const std::string end = keys::successor(prefix);
  std::lock_guard lock(d.db.maintenance);
  snapshot_read read(d.db);
  rocksdb::WriteBatch batch;
  for (auto* cf : {d.db.checkpoints, d.db.writes, d.db.blobs})
    check(batch.DeleteRange(cf, prefix, end), "batching a range deletion");
  d.unindex_thread(read.options, thread_id, batch);
  d.write(batch, "deleting thread '" + thread_id + "'");
  d.db.chains.clear();
  d.db.versions.clear();
}

std::vector<std::string> rocksdb_saver::thread_ids() {
  impl& d = *impl_;
  snapshot_read read(d.db);
  // One seek per thread: read the thread part of a key, then jump past the thread's range.
  std::unique_ptr<rocksdb::Iterator> it(d.db.db().NewIterator(read.options, d.db.checkpoints));
  std::vector<std::string> out;
  for (it->SeekToFirst(); it->Valid();) {
    std::string_view key(it->key().data(), it->key().size());
    std::size_t pos = 0;
    std::optional<std::string> thread = keys::read_string(key, pos);
    if (!thread)
      throw error(error_code::storage_error, "rocksdb_saver: a checkpoint key has no thread part");
    it->Seek(keys::successor(keys::prefix(*thread)));
    out.push_back(std::move(*thread));
  }
  check(it->status(), "listing threads");
  return out;
}

void rocksdb_saver::copy_thread(const std::string& source, const std::string& target) {
  if (source.empty() || target.empty())
    throw error(error_code::invalid_argument,
                "rocksdb_saver::copy_thread needs non-empty source and target thread ids");
  impl& d = *impl_;
  const std::string from = keys::prefix(source), to = keys::prefix(target);
  std::lock_guard lock(d.db.maintenance);
  snapshot_read read(d.db);
  {
    range_scan any(d.db, d.db.checkpoints, read.options, from, keys::successor(from));
    any->SeekToFirst();
    any.check_status("reading thread '" + source + "'");
    if (!any->Valid())
      throw error(error_code::not_found, "rocksdb_saver::copy_thread: no thread '" + source + "'");
  }
  if (source == target) return;

  // Records hold no thread id: the copy is the source's keys with the thread part replaced.
  rocksdb::WriteBatch batch;
  for (auto* cf : {d.db.checkpoints, d.db.writes, d.db.blobs}) {
    check(batch.DeleteRange(cf, to, keys::successor(to)), "batching a range deletion");
    range_scan it(d.db, cf, read.options, from, keys::successor(from));
    for (it->SeekToFirst(); it->Valid(); it->Next())
      check(batch.Put(cf, to + it->key().ToString().substr(from.size()), it->value()),
            "batching a copy");
    it.check_status("reading thread '" + source + "'");
  }
  d.unindex_thread(read.options, target, batch);
  d.copy_run_index(read.options, source, target, batch);
  d.write(batch, "copying thread '" + source + "' to '" + target + "'");
  d.db.chains.clear();
  d.db.versions.clear();  // the target's chains were replaced
}

void rocksdb_saver::prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) {
  impl& d = *impl_;
  std::lock_guard lock(d.db.maintenance);
  d.db.chains.clear();
  d.db.versions.clear();  // no delta from now on is based on a version this may remove
  for (const std::string& thread_id : thread_ids) {
    snapshot_read read(d.db);
    rocksdb::WriteBatch batch;
    d.drop_checkpoints(
        read.options, thread_id,
        [keep_last](const std::string&, std::size_t index, std::size_t count, const std::string&) {
          return index + keep_last < count;
        },
        batch);
    d.write(batch, "pruning thread '" + thread_id + "'");
    d.db.chains.clear();
    d.db.versions.clear();
  }
}

void rocksdb_saver::delete_checkpoints(const std::string& thread_id,
                                       const std::vector<checkpoint_config>& which) {
  std::set<std::pair<std::string, std::string>> gone;  // (namespace, id)
  for (const auto& c : which)
    if (c.thread_id == thread_id) gone.emplace(c.checkpoint_ns, c.checkpoint_id);
  if (gone.empty()) return;
  impl& d = *impl_;
  std::lock_guard lock(d.db.maintenance);
  d.db.chains.clear();
  d.db.versions.clear();
  snapshot_read read(d.db);
  rocksdb::WriteBatch batch;
  d.drop_checkpoints(
      read.options, thread_id,
      [&gone](const std::string& ns, std::size_t, std::size_t, const std::string& id) {
        return gone.count({ns, id}) > 0;
      },
      batch);
  d.write(batch, "removing checkpoints of thread '" + thread_id + "'");
  d.db.chains.clear();
  d.db.versions.clear();  // the chains may name versions just removed
}

void rocksdb_saver::impl::index_runs() {
  if (!db.run_index) return;
  static const std::string whole = "v";  // the mark: no 'r' or 't' entry sorts here
  rocksdb::PinnableSlice mark;
  auto found = db.db().Get(rocksdb::ReadOptions(), db.run_index, whole, &mark);
  if (found.ok()) return;
  if (!found.IsNotFound()) check(found, "reading the run index mark");
  std::lock_guard lock(db.maintenance);
  snapshot_read read(db);
  rocksdb::WriteBatch batch;
  range_scan it(db, db.checkpoints, read.options, std::string(), std::string(1, '\xff'));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    std::size_t pos = 0;
    auto thread_id = keys::read_string(key, pos);
    auto ns = thread_id ? keys::read_string(key, pos) : std::nullopt;
    if (!ns) damaged_key("checkpoints", key);
    const std::string id(key.substr(pos));
    std::optional<records::stored_checkpoint> stored;
    try {
      stored = decode(*thread_id, *ns, id, it->value().ToStringView());
    } catch (const error&) {
      return;  // another serializer's records: left for an open that can read them
    }
    const std::string* run_id = detail::run_of(stored->metadata);
    if (!run_id) continue;
    check(batch.Put(db.run_index, keys::run_checkpoint(*run_id, *thread_id, *ns, id),
                    rocksdb::Slice()),
          "batching a run index entry");
    std::string thread_run = keys::thread_runs(*thread_id);
    keys::append_string(thread_run, *run_id);
    check(batch.Put(db.run_index, thread_run, rocksdb::Slice()), "batching a run index entry");
    if (batch.Count() >= 8192) {
      write(batch, "indexing the runs of existing checkpoints");
      batch.Clear();
    }
  }
  it.check_status("reading the checkpoints to index their runs");
  check(batch.Put(db.run_index, whole, rocksdb::Slice()), "batching the run index mark");
  write(batch, "indexing the runs of existing checkpoints");
}

void rocksdb_saver::delete_for_runs(const std::vector<std::string>& run_ids) {
  const std::set<std::string> runs(run_ids.begin(), run_ids.end());
  impl& d = *impl_;
  if (runs.empty() || !d.db.run_index) return;  // no family: a read-only database without runs
  std::lock_guard lock(d.db.maintenance);
  snapshot_read read(d.db);
  // thread -> (namespace, id) of the checkpoints to remove.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> gone;
  rocksdb::WriteBatch batch;
  for (const std::string& run_id : runs) {
    std::string of_run(1, 'r');
    keys::append_string(of_run, run_id);
    range_scan it(d.db, d.db.run_index, read.options, of_run, keys::successor(of_run));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      std::size_t pos = of_run.size();
      auto thread_id = keys::read_string(key, pos);
      auto ns = thread_id ? keys::read_string(key, pos) : std::nullopt;
      if (!ns) damaged_key("runs", key);
      const std::string id(key.substr(pos));
      // An entry is stale when its checkpoint went without it (rocksdb_check drops unreadable
      // ones) or was put again for another run: removed, and its checkpoint kept.
      rocksdb::PinnableSlice bytes;
      auto s =
          d.db.db().Get(read.options, d.db.checkpoints, keys::prefix(*thread_id, *ns) + id, &bytes);
      bool of_this_run = false;
      if (!s.IsNotFound()) {
        check(s, "reading " + describe(*thread_id, *ns, id));
        const auto stored = d.decode(*thread_id, *ns, id, bytes.ToStringView());
        const std::string* run = detail::run_of(stored.metadata);
        of_this_run = run && *run == run_id;
      }
      if (of_this_run)
        gone[*thread_id].emplace(*ns, id);
      else
        check(batch.Delete(d.db.run_index, it->key()), "batching a deletion");
    }
    it.check_status("reading the checkpoints of run '" + run_id + "'");
  }
  for (const auto& [thread_id, of_thread] : gone)
    d.drop_checkpoints(
        read.options, thread_id,
        [&of_thread = of_thread](const std::string& ns, std::size_t, std::size_t,
                                 const std::string& id) {
          return of_thread.count({ns, id}) > 0;
        },
        batch);
  if (batch.Count() == 0) return;
  d.write(batch, "removing the checkpoints of " + std::to_string(runs.size()) + " run(s)");
  d.db.chains.clear();
  d.db.versions.clear();
}

void rocksdb_saver::impl::unindex_thread(const rocksdb::ReadOptions& read,
                                         const std::string& thread_id,
                                         rocksdb::WriteBatch& batch) const {
  if (!db.run_index) return;
  const std::string of_thread = keys::thread_runs(thread_id);
  range_scan it(db, db.run_index, read, of_thread, keys::successor(of_thread));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::size_t pos = of_thread.size();
    auto run_id = keys::read_string(it->key().ToStringView(), pos);
    if (!run_id) damaged_key("runs", it->key().ToStringView());
    const std::string entries = keys::run_in_thread(*run_id, thread_id);
    check(batch.DeleteRange(db.run_index, entries, keys::successor(entries)),
          "batching a range deletion");
  }
  it.check_status("reading the runs of thread '" + thread_id + "'");
  check(batch.DeleteRange(db.run_index, of_thread, keys::successor(of_thread)),
        "batching a range deletion");
}

void rocksdb_saver::impl::copy_run_index(const rocksdb::ReadOptions& read,
                                         const std::string& source, const std::string& target,
                                         rocksdb::WriteBatch& batch) const {
  if (!db.run_index) return;
  const std::string of_source = keys::thread_runs(source), of_target = keys::thread_runs(target);
  range_scan it(db, db.run_index, read, of_source, keys::successor(of_source));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    std::size_t pos = of_source.size();
    auto run_id = keys::read_string(key, pos);
    if (!run_id) damaged_key("runs", key);
    check(batch.Put(db.run_index, of_target + std::string(key.substr(of_source.size())),
                    rocksdb::Slice()),
          "batching a run index entry");
    const std::string from = keys::run_in_thread(*run_id, source);
    const std::string to = keys::run_in_thread(*run_id, target);
    range_scan entries(db, db.run_index, read, from, keys::successor(from));
    for (entries->SeekToFirst(); entries->Valid(); entries->Next())
      check(batch.Put(db.run_index, to + entries->key().ToString().substr(from.size()),
                      rocksdb::Slice()),
            "batching a run index entry");
    entries.check_status("reading the checkpoints of run '" + *run_id + "'");
  }
  it.check_status("reading the runs of thread '" + source + "'");
}

void rocksdb_saver::delete_writes(const checkpoint_config& config) {
  impl& d = *impl_;
  const std::string writes =
      keys::prefix(config.thread_id, config.checkpoint_ns, config.checkpoint_id);
  rocksdb::WriteBatch batch;
  check(batch.DeleteRange(d.db.writes, writes, keys::successor(writes)),
        "batching a range deletion");
  d.write(batch, "deleting the pending writes of " +
                     describe(config.thread_id, config.checkpoint_ns, config.checkpoint_id));
}

thread_runs& rocksdb_saver::runs() noexcept { return impl_->db.runs; }

void rocksdb_saver::impl::drop_checkpoints(
    const rocksdb::ReadOptions& read, const std::string& thread_id,
    const std::function<bool(const std::string& ns, std::size_t index, std::size_t count,
                             const std::string& id)>& drop,
    rocksdb::WriteBatch& batch) {
  impl& d = *this;
  const std::string thread = keys::prefix(thread_id);
  // The checkpoint ids of each namespace, oldest first.
  std::map<std::string, std::vector<std::string>> ids;
  {
    range_scan it(d.db, d.db.checkpoints, read, thread, keys::successor(thread));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string_view key = it->key().ToStringView();
      std::size_t pos = thread.size();
      auto ns = keys::read_string(key, pos);
      if (!ns) damaged_key("checkpoints", key);
      ids[*ns].emplace_back(key.substr(pos));
    }
    it.check_status("reading thread '" + thread_id + "'");
  }
  if (ids.empty()) return;

  std::set<std::pair<std::string, std::string>> dropped;  // (namespace, id)
  // (namespace, channel, version) of every blob a kept checkpoint still reads.
  std::set<std::tuple<std::string, std::string, channel_version>> used;
  for (const auto& [ns, of_ns] : ids) {
    const std::string prefix = keys::prefix(thread_id, ns);
    for (std::size_t i = 0; i < of_ns.size(); ++i) {
      if (drop(ns, i, of_ns.size(), of_ns[i])) {
        dropped.emplace(ns, of_ns[i]);
        check(batch.Delete(d.db.checkpoints, prefix + of_ns[i]), "batching a deletion");
        const std::string writes = keys::prefix(thread_id, ns, of_ns[i]);
        check(batch.DeleteRange(d.db.writes, writes, keys::successor(writes)),
              "batching a range deletion");
        continue;
      }
      rocksdb::PinnableSlice bytes;
      check(d.db.db().Get(read, d.db.checkpoints, prefix + of_ns[i], &bytes),
            "reading " + describe(thread_id, ns, of_ns[i]));
      auto stored = d.decode(thread_id, ns, of_ns[i], bytes.ToStringView());
      if (!stored.versions_base.empty()) {  // its base may go: stored whole from now on
        d.resolve(read, thread_id, ns, stored);
        check(batch.Put(d.db.checkpoints, prefix + of_ns[i],
                        records::encode_checkpoint(stored.cp, stored.metadata, stored.parent_id,
                                                   *d.serde)),
              "batching a checkpoint");
      }
      for (const auto& [channel, version] : stored.cp.channel_versions)
        used.emplace(ns, channel, version);
    }
  }
  // A list delta reads its base version too, and the base's base.
  std::vector<std::tuple<std::string, std::string, channel_version>> bases(used.begin(),
                                                                           used.end());
  while (!bases.empty()) {
    auto [ns, channel, version] = std::move(bases.back());
    bases.pop_back();
    std::string key = keys::prefix(thread_id, ns, channel);
    keys::append_u64(key, version);
    key += keys::delta_suffix;
    rocksdb::PinnableSlice bytes;
    auto s = d.db.db().Get(read, d.db.blobs, key, &bytes);
    if (s.IsNotFound()) continue;
    check(s, "reading a list delta of thread '" + thread_id + "'");
    channel_version base = 0;
    try {
      base = records::decode_list_delta(bytes.ToStringView()).base;
    } catch (const error& e) {
      throw error(error_code::storage_error,
                  "rocksdb_saver: cannot read the list delta of "
                  "channel '" +
                      channel + "' at version " + std::to_string(version) + " of thread '" +
                      thread_id + "': " + e.what());
    }
    if (used.emplace(ns, channel, base).second) bases.emplace_back(ns, channel, base);
  }
  // A list's parts are read through its header, which sorts just before them, and only below
  // the number of parts it names: parts a crash left without a header, or past the count (a
  // longer list written at that version by a try that failed), are never read, and go too.
  std::string header;  // the key of the last header kept
  std::uint64_t header_parts = 0;
  range_scan blobs(d.db, d.db.blobs, read, thread, keys::successor(thread));
  for (blobs->SeekToFirst(); blobs->Valid(); blobs->Next()) {
    std::string_view key = blobs->key().ToStringView();
    std::size_t pos = thread.size();
    auto ns = keys::read_string(key, pos);
    auto channel = ns ? keys::read_string(key, pos) : std::nullopt;
    auto version = channel ? keys::read_u64(key, pos) : std::nullopt;
    const std::size_t suffix = version ? key.size() - pos : 0;
    const char kind = suffix ? key[pos] : '\0';
    if (!version || !(suffix == 0 ||
                      (suffix == 1 && (kind == keys::delta_suffix || kind == keys::cleared_suffix ||
                                       kind == keys::parts_suffix)) ||
                      (suffix == 5 && kind == keys::parts_suffix)))
      damaged_key("blobs", key);
    bool unused = !used.count({*ns, *channel, *version});
    if (!unused && suffix == 1 && kind == keys::parts_suffix) {
      header.assign(key);
      const auto decoded = decode_parts_header(blobs->value().ToStringView());
      header_parts = decoded ? decoded->parts : std::numeric_limits<std::uint64_t>::max();
    } else if (!unused && suffix == 5) {
      std::size_t at = pos + 1;
      const std::uint64_t k = *keys::read_u32(key, at);
      unused = key.substr(0, pos + 1) != header || k >= header_parts;
    }
    if (unused) check(batch.Delete(d.db.blobs, blobs->key()), "batching a deletion");
  }
  blobs.check_status("reading the blobs of thread '" + thread_id + "'");
  if (dropped.empty() || !d.db.run_index) return;

  // The run index entries of the dropped checkpoints; a run left without any in the thread
  // loses its thread entry too.
  const std::string of_thread = keys::thread_runs(thread_id);
  range_scan runs(d.db, d.db.run_index, read, of_thread, keys::successor(of_thread));
  for (runs->SeekToFirst(); runs->Valid(); runs->Next()) {
    std::size_t pos = of_thread.size();
    auto run_id = keys::read_string(runs->key().ToStringView(), pos);
    if (!run_id) damaged_key("runs", runs->key().ToStringView());
    const std::string entries = keys::run_in_thread(*run_id, thread_id);
    bool kept = false;
    range_scan it(d.db, d.db.run_index, read, entries, keys::successor(entries));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      std::size_t at = entries.size();
      auto ns = keys::read_string(key, at);
      if (!ns) damaged_key("runs", key);
      if (dropped.count({*ns, std::string(key.substr(at))}))
        check(batch.Delete(d.db.run_index, it->key()), "batching a deletion");
      else
        kept = true;
    }
    it.check_status("reading the checkpoints of run '" + *run_id + "'");
    if (!kept) check(batch.Delete(d.db.run_index, runs->key()), "batching a deletion");
  }
  runs.check_status("reading the runs of thread '" + thread_id + "'");
}

}  // namespace superstep::storage
