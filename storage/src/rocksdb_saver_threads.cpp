// rocksdb_saver: deleting, copying and pruning whole threads.
#include <functional>
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
  rocksdb::WriteBatch batch;
  for (auto* cf : {d.db.checkpoints, d.db.writes, d.db.blobs})
    check(batch.DeleteRange(cf, prefix, end), "batching a range deletion");
  d.write(batch, "deleting thread '" + thread_id + "'");
  d.db.chains.clear();
  d.db.versions.clear();
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
  d.write(batch, "copying thread '" + source + "' to '" + target + "'");
  d.db.chains.clear();
  d.db.versions.clear();  // the target's chains were replaced
}

void rocksdb_saver::prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) {
  impl& d = *impl_;
  std::lock_guard lock(d.db.maintenance);
  d.db.chains.clear();
  d.db.versions.clear();  // no delta from now on is based on a version this may remove
  for (const std::string& thread_id : thread_ids)
    d.drop_checkpoints(thread_id,
                       [keep_last](const std::string&, std::size_t index, std::size_t count,
                                   const std::string&) { return index + keep_last < count; });
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
  d.drop_checkpoints(
      thread_id, [&gone](const std::string& ns, std::size_t, std::size_t, const std::string& id) {
        return gone.count({ns, id}) > 0;
      });
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
    const std::string& thread_id,
    const std::function<bool(const std::string& ns, std::size_t index, std::size_t count,
                             const std::string& id)>& drop) {
  impl& d = *this;
  snapshot_read read(d.db);
  const std::string thread = keys::prefix(thread_id);
  // The checkpoint ids of each namespace, oldest first.
  std::map<std::string, std::vector<std::string>> ids;
  {
    range_scan it(d.db, d.db.checkpoints, read.options, thread, keys::successor(thread));
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

  rocksdb::WriteBatch batch;
  // (namespace, channel, version) of every blob a kept checkpoint still reads.
  std::set<std::tuple<std::string, std::string, channel_version>> used;
  for (const auto& [ns, of_ns] : ids) {
    const std::string prefix = keys::prefix(thread_id, ns);
    for (std::size_t i = 0; i < of_ns.size(); ++i) {
      if (drop(ns, i, of_ns.size(), of_ns[i])) {
        check(batch.Delete(d.db.checkpoints, prefix + of_ns[i]), "batching a deletion");
        const std::string writes = keys::prefix(thread_id, ns, of_ns[i]);
        check(batch.DeleteRange(d.db.writes, writes, keys::successor(writes)),
              "batching a range deletion");
        continue;
      }
      rocksdb::PinnableSlice bytes;
      check(d.db.db().Get(read.options, d.db.checkpoints, prefix + of_ns[i], &bytes),
            "reading " + describe(thread_id, ns, of_ns[i]));
      auto stored = d.decode(thread_id, ns, of_ns[i], bytes.ToStringView());
      if (!stored.versions_base.empty()) {  // its base may go: stored whole from now on
        d.resolve(read.options, thread_id, ns, stored);
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
    auto s = d.db.db().Get(read.options, d.db.blobs, key, &bytes);
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
  range_scan blobs(d.db, d.db.blobs, read.options, thread, keys::successor(thread));
  for (blobs->SeekToFirst(); blobs->Valid(); blobs->Next()) {
    std::string_view key = blobs->key().ToStringView();
    std::size_t pos = thread.size();
    auto ns = keys::read_string(key, pos);
    auto channel = ns ? keys::read_string(key, pos) : std::nullopt;
    auto version = channel ? keys::read_u64(key, pos) : std::nullopt;
    if (!version ||
        !(pos == key.size() || (pos + 1 == key.size() && (key[pos] == keys::delta_suffix ||
                                                            key[pos] == keys::cleared_suffix))))
      damaged_key("blobs", key);
    if (!used.count({*ns, *channel, *version}))
      check(batch.Delete(d.db.blobs, blobs->key()), "batching a deletion");
  }
  blobs.check_status("reading the blobs of thread '" + thread_id + "'");
  d.write(batch, "removing checkpoints of thread '" + thread_id + "'");
  d.db.chains.clear();
  d.db.versions.clear();  // the chains may name versions just removed
}

}  // namespace superstep::storage
