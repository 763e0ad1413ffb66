// rocksdb_saver: the history of delta channels (get_delta_channel_history), walking a
// checkpoint's parents on one snapshot.
#include <algorithm>
#include <set>

#include "rocksdb_keys.hpp"
#include "rocksdb_saver_impl.hpp"
#include "saver_checks.hpp"
#include "superstep/core/error.hpp"

namespace superstep::storage {

using detail::describe;

std::map<std::string, delta_channel_history> rocksdb_saver::get_delta_channel_history(
    const checkpoint_config& config, const std::vector<std::string>& channels) {
  require_thread(config.thread_id, "rocksdb_saver", "get_delta_channel_history");
  std::map<std::string, delta_channel_history> out;
  std::set<std::string> remaining;
  for (const auto& channel : channels) {
    out[channel];
    remaining.insert(channel);
  }
  if (remaining.empty()) return out;
  const impl& d = *impl_;
  snapshot_read read(d.db);
  const std::string& thread_id = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  const std::string prefix = keys::prefix(thread_id, ns);
  // The record of checkpoint `id` (the latest when empty): nullopt when there is none.
  const auto record = [&](const std::string& id) -> std::optional<records::stored_checkpoint> {
    if (id.empty()) {
      range_scan it(d.db, d.db.checkpoints, read.options, prefix, keys::successor(prefix));
      it->SeekToLast();
      if (!it->Valid()) {
        it.check_status("finding the latest checkpoint of thread '" + thread_id + "'");
        return std::nullopt;
      }
      const std::string latest = it->key().ToString().substr(prefix.size());
      return d.decode(thread_id, ns, latest, it->value().ToStringView());
    }
    rocksdb::PinnableSlice bytes;
    auto s = d.db.db().Get(read.options, d.db.checkpoints, prefix + id, &bytes);
    if (s.IsNotFound()) return std::nullopt;
    check(s, "reading " + describe(thread_id, ns, id));
    return d.decode(thread_id, ns, id, bytes.ToStringView());
  };

  auto target = record(config.checkpoint_id);
  std::string at = target ? target->parent_id : std::string();
  // Collected newest first (each checkpoint's writes backwards), reversed at the end.
  while (!at.empty() && !remaining.empty()) {
    auto stored = record(at);
    if (!stored) break;
    std::vector<pending_write> writes = d.read_writes(read.options, thread_id, ns, at);
    for (auto w = writes.rbegin(); w != writes.rend(); ++w)
      if (remaining.count(w->channel)) out[w->channel].writes.push_back(std::move(*w));
    d.resolve(read.options, thread_id, ns, *stored);
    for (auto it = remaining.begin(); it != remaining.end();) {
      auto version = stored->cp.channel_versions.find(*it);
      std::optional<value> v;
      if (version != stored->cp.channel_versions.end())
        v = d.read_value(read.options, thread_id, ns, *it, version->second);
      if (!v) {  // no value stored here: walk on
        ++it;
        continue;
      }
      out[*it].seed = std::move(*v);
      it = remaining.erase(it);
    }
    at = stored->parent_id;
  }
  for (auto& [_, history] : out) std::reverse(history.writes.begin(), history.writes.end());
  return out;
}

}  // namespace superstep::storage
