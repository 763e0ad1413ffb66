#include "superstep/storage/memory_saver.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include "saver_checks.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/write_index.hpp"
#include "version_chains.hpp"

namespace superstep::storage {

namespace {

// The first entry of `thread_id` in a map keyed by tuples that start with the thread id:
// a thread's entries are contiguous from there.
template <class Map>
auto thread_range_begin(Map& map, const std::string& thread_id) {
  typename Map::key_type first{};
  std::get<0>(first) = thread_id;
  return map.lower_bound(first);
}

template <class Map>
void erase_thread_range(Map& map, const std::string& thread_id) {
  auto it = thread_range_begin(map, thread_id);
  while (it != map.end() && std::get<0>(it->first) == thread_id) it = map.erase(it);
}

}  // namespace

memory_saver::memory_saver() : chains_(std::make_unique<version_chains>()) {}

memory_saver::~memory_saver() = default;

checkpoint_config memory_saver::put(const checkpoint_config& config, const checkpoint& cp,
                                    const checkpoint_metadata& metadata,
                                    const std::map<std::string, channel_version>& new_versions) {
  return store(config, cp, metadata, new_versions, nullptr);
}

checkpoint_config memory_saver::put_changes(const checkpoint_config& config, const checkpoint& cp,
                                            const checkpoint_metadata& metadata,
                                            const checkpoint_changes& changes) {
  return store(config, cp, metadata, changes.versions, &changes);
}

checkpoint_config memory_saver::store(const checkpoint_config& config, const checkpoint& cp,
                                      const checkpoint_metadata& metadata,
                                      const std::map<std::string, channel_version>& new_versions,
                                      const checkpoint_changes* changes) {
  require_thread(config.thread_id, "memory_saver", "put");
  require_checkpoint_id(cp.id, "memory_saver", "put (checkpoint.id)");
  std::string line = config.thread_id;
  (line += '\0') += config.checkpoint_ns;
  version_chains::plan plan = chains_->plan_put(line, config.checkpoint_id, cp, changes);
  // Values live in blobs_, one per channel version: copy the rest of the checkpoint only.
  stored_checkpoint stored;
  stored.metadata = metadata;
  stored.parent_id = config.checkpoint_id;
  stored.cp.v = cp.v;
  stored.cp.id = cp.id;
  stored.cp.ts = cp.ts;
  stored.cp.updated_channels = cp.updated_channels;
  const auto store_whole = [&] {
    plan.depth = 0;
    stored.versions_base.clear();
    stored.versions_depth = 0;
    stored.cp.channel_versions = cp.channel_versions;
    stored.cp.versions_seen = cp.versions_seen;
  };
  if (plan.depth == 0) {
    store_whole();
  } else {
    stored.versions_base = plan.base_id;
    stored.versions_depth = plan.depth;
    for (const auto& channel : plan.channels)
      stored.cp.channel_versions.emplace(channel, cp.channel_versions.at(channel));
    for (const auto& node : plan.nodes)
      stored.cp.versions_seen.emplace(node, cp.versions_seen.at(node));
  }

  {
    std::lock_guard lock(mutex_);
    for (const auto& [channel, version] : new_versions) {
      auto it = cp.channel_values.find(channel);
      std::optional<value> blob;
      if (it != cp.channel_values.end()) blob = it->second;
      blobs_.insert_or_assign(blob_key{config.thread_id, config.checkpoint_ns, channel, version},
                              std::move(blob));
    }
    checkpoints_by_id& checkpoints = threads_[config.thread_id][config.checkpoint_ns];
    // The base went away since the plan (the thread was pruned or deleted): whole after all.
    if (plan.depth > 0 && !checkpoints.count(plan.base_id)) store_whole();
    auto it = checkpoints.insert_or_assign(cp.id, std::move(stored)).first;
    if (plan.depth > 0 && version_deltas_checked()) {
      checkpoint back;
      resolve_versions(checkpoints, it->second, back);
      compare_versions(cp, back, "memory_saver");
    }
  }
  chains_->written(line, cp.id, plan, changes);
  return checkpoint_config{config.thread_id, config.checkpoint_ns, cp.id};
}

void memory_saver::resolve_versions(const checkpoints_by_id& checkpoints,
                                    const stored_checkpoint& stored, checkpoint& out) const {
  out.channel_versions = stored.cp.channel_versions;
  out.versions_seen = stored.cp.versions_seen;
  // Down the bases to a whole one; an entry of a nearer checkpoint wins over its base's.
  const stored_checkpoint* at = &stored;
  while (!at->versions_base.empty()) {
    auto base = checkpoints.find(at->versions_base);
    if (base == checkpoints.end() || base->second.versions_depth >= at->versions_depth)
      throw error(error_code::storage_error,
                  "memory_saver: checkpoint " + stored.cp.id + " is stored against checkpoint " +
                      at->versions_base + ", which is " +
                      (base == checkpoints.end() ? "missing" : "not an earlier one"));
    at = &base->second;
    for (const auto& [channel, version] : at->cp.channel_versions)
      out.channel_versions.try_emplace(channel, version);
    for (const auto& [node, seen] : at->cp.versions_seen) out.versions_seen.try_emplace(node, seen);
  }
}

void memory_saver::put_writes(const checkpoint_config& config,
                              const std::vector<std::pair<std::string, value>>& writes,
                              const std::string& task_id, const std::string& task_path) {
  require_thread(config.thread_id, "memory_saver", "put_writes");
  require_checkpoint_id(config.checkpoint_id, "memory_saver", "put_writes");

  std::lock_guard lock(mutex_);
  auto& stored = writes_[writes_key{config.thread_id, config.checkpoint_ns, config.checkpoint_id}];
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const auto& [channel, v] = writes[i];
    const std::pair<std::string, int> key{task_id, write_index(channel, i)};
    // A retried task saves the same batch again: keep the first copy of a normal write. A
    // special write is the task's latest word (its error, interrupt, resume) and replaces it.
    if (key.second >= 0 && stored.count(key)) continue;
    stored.insert_or_assign(key, stored_write{channel, v, task_path});
  }
}

std::optional<checkpoint_tuple> memory_saver::get_tuple(const checkpoint_config& config) {
  require_thread(config.thread_id, "memory_saver", "get_tuple");
  std::lock_guard lock(mutex_);
  auto thread_it = threads_.find(config.thread_id);
  if (thread_it == threads_.end()) return std::nullopt;
  auto ns_it = thread_it->second.find(config.checkpoint_ns);
  if (ns_it == thread_it->second.end() || ns_it->second.empty()) return std::nullopt;
  const checkpoints_by_id& checkpoints = ns_it->second;

  auto it = config.checkpoint_id.empty() ? std::prev(checkpoints.end())
                                         : checkpoints.find(config.checkpoint_id);
  if (it == checkpoints.end()) return std::nullopt;
  return make_tuple(config.thread_id, config.checkpoint_ns, it->first, checkpoints, it->second);
}

channel_version memory_saver::latest_version(const checkpoint_config& config) {
  require_thread(config.thread_id, "memory_saver", "latest_version");
  std::lock_guard lock(mutex_);
  // Every version a put issued has a blob (a cleared channel's is empty), on any branch: the
  // highest of each channel is the last of its range, so one lookup per channel finds it.
  channel_version out = 0;
  const std::string& thread = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  for (auto it = blobs_.lower_bound(blob_key{thread, ns, std::string(), 0});
       it != blobs_.end() && std::get<0>(it->first) == thread && std::get<1>(it->first) == ns;) {
    const std::string channel = std::get<2>(it->first);
    auto next = blobs_.upper_bound(blob_key{thread, ns, channel, ~channel_version{0}});
    out = std::max(out, std::get<3>(std::prev(next)->first));
    it = next;
  }
  return out;
}

std::vector<checkpoint_tuple> memory_saver::list(const checkpoint_config& config,
                                                 const list_options& options) {
  std::vector<checkpoint_tuple> out;
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  if (full()) return out;

  std::lock_guard lock(mutex_);
  const auto list_namespace = [&](const std::string& thread_id, const std::string& ns,
                                  const checkpoints_by_id& checkpoints) {
    // Ids sort by creation, so "created before" is "sorts before".
    auto last = options.before && !options.before->checkpoint_id.empty()
                    ? checkpoints.lower_bound(options.before->checkpoint_id)
                    : checkpoints.end();
    auto first = checkpoints.begin();
    if (!config.checkpoint_id.empty()) {
      first = checkpoints.find(config.checkpoint_id);
      if (first == checkpoints.end()) return;
      if (last != checkpoints.end() && !(first->first < last->first)) return;
      last = std::next(first);
    }
    for (auto it = std::make_reverse_iterator(last), end = std::make_reverse_iterator(first);
         it != end && !full(); ++it)
      if (metadata_matches(options.filter, it->second.metadata))
        out.push_back(make_tuple(thread_id, ns, it->first, checkpoints, it->second));
  };
  const auto list_thread = [&](const std::string& thread_id, const namespaces& nss) {
    if (!options.every_namespace) {
      if (auto ns_it = nss.find(config.checkpoint_ns); ns_it != nss.end())
        list_namespace(thread_id, ns_it->first, ns_it->second);
      return;
    }
    for (const auto& [ns, checkpoints] : nss) {
      if (full()) return;
      list_namespace(thread_id, ns, checkpoints);
    }
  };

  if (config.thread_id.empty()) {
    for (const auto& [thread_id, nss] : threads_) {
      if (full()) break;
      list_thread(thread_id, nss);
    }
  } else if (auto it = threads_.find(config.thread_id); it != threads_.end()) {
    list_thread(it->first, it->second);
  }
  return out;
}

std::vector<std::string> memory_saver::thread_ids() {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [thread, namespaces] : threads_)
    for (const auto& [ns, checkpoints] : namespaces)
      if (!checkpoints.empty()) {
        out.push_back(thread);
        break;
      }
  std::sort(out.begin(), out.end());
  return out;
}

void memory_saver::delete_thread(const std::string& thread_id) {
  std::lock_guard lock(mutex_);
  erase_thread(thread_id);
  chains_->clear();
}

void memory_saver::copy_thread(const std::string& source, const std::string& target) {
  if (source.empty() || target.empty())
    throw error(error_code::invalid_argument,
                "memory_saver::copy_thread needs non-empty source and target thread ids");
  std::lock_guard lock(mutex_);
  auto source_it = threads_.find(source);
  if (source_it == threads_.end())
    throw error(error_code::not_found, "memory_saver::copy_thread: no thread '" + source + "'");
  if (source == target) return;

  erase_thread(target);
  chains_->clear();
  threads_[target] = source_it->second;

  std::vector<std::pair<blob_key, std::optional<value>>> blobs;
  for (auto it = thread_range_begin(blobs_, source);
       it != blobs_.end() && std::get<0>(it->first) == source; ++it) {
    blob_key key = it->first;
    std::get<0>(key) = target;
    blobs.emplace_back(std::move(key), it->second);
  }
  blobs_.insert(blobs.begin(), blobs.end());

  std::vector<std::pair<writes_key, task_writes>> writes;
  for (auto it = thread_range_begin(writes_, source);
       it != writes_.end() && std::get<0>(it->first) == source; ++it) {
    writes_key key = it->first;
    std::get<0>(key) = target;
    writes.emplace_back(std::move(key), it->second);
  }
  writes_.insert(writes.begin(), writes.end());
}

void memory_saver::prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) {
  std::lock_guard lock(mutex_);
  chains_->clear();
  for (const std::string& thread_id : thread_ids)
    drop_checkpoints(thread_id,
                     [keep_last](const std::string&, std::size_t index, std::size_t count,
                                 const std::string&) { return index + keep_last < count; });
}

void memory_saver::delete_checkpoints(const std::string& thread_id,
                                      const std::vector<checkpoint_config>& which) {
  std::set<std::pair<std::string, std::string>> gone;  // (namespace, id)
  for (const auto& c : which)
    if (c.thread_id == thread_id) gone.emplace(c.checkpoint_ns, c.checkpoint_id);
  if (gone.empty()) return;
  std::lock_guard lock(mutex_);
  chains_->clear();
  drop_checkpoints(thread_id,
                   [&gone](const std::string& ns, std::size_t, std::size_t, const std::string& id) {
                     return gone.count({ns, id}) > 0;
                   });
}

void memory_saver::delete_for_runs(const std::vector<std::string>& run_ids) {
  const std::set<std::string> runs(run_ids.begin(), run_ids.end());
  if (runs.empty()) return;
  const auto of_runs = [&runs](const stored_checkpoint& stored) {
    const value* run_id = stored.metadata.extra.find("run_id");
    return run_id && run_id->is_string() && runs.count(run_id->as_string()) > 0;
  };
  std::lock_guard lock(mutex_);
  std::vector<std::string> threads;
  for (const auto& [thread_id, nss] : threads_)
    for (const auto& [ns, checkpoints] : nss)
      if (std::any_of(checkpoints.begin(), checkpoints.end(),
                      [&](const auto& entry) { return of_runs(entry.second); })) {
        threads.push_back(thread_id);
        break;
      }
  if (threads.empty()) return;
  chains_->clear();
  for (const std::string& thread_id : threads) {
    const namespaces& nss = threads_.at(thread_id);
    drop_checkpoints(thread_id, [&](const std::string& ns, std::size_t, std::size_t,
                                    const std::string& id) { return of_runs(nss.at(ns).at(id)); });
  }
}

std::map<std::string, delta_channel_history> memory_saver::get_delta_channel_history(
    const checkpoint_config& config, const std::vector<std::string>& channels) {
  require_thread(config.thread_id, "memory_saver", "get_delta_channel_history");
  std::map<std::string, delta_channel_history> out;
  std::set<std::string> remaining;
  for (const auto& channel : channels) {
    out[channel];
    remaining.insert(channel);
  }
  if (remaining.empty()) return out;
  std::lock_guard lock(mutex_);
  auto thread_it = threads_.find(config.thread_id);
  if (thread_it == threads_.end()) return out;
  auto ns_it = thread_it->second.find(config.checkpoint_ns);
  if (ns_it == thread_it->second.end() || ns_it->second.empty()) return out;
  const checkpoints_by_id& checkpoints = ns_it->second;
  auto target = config.checkpoint_id.empty() ? std::prev(checkpoints.end())
                                             : checkpoints.find(config.checkpoint_id);
  if (target == checkpoints.end()) return out;
  // Collected newest first (each checkpoint's writes backwards), reversed at the end.
  for (auto at = checkpoints.find(target->second.parent_id);
       at != checkpoints.end() && !remaining.empty(); at = checkpoints.find(at->second.parent_id)) {
    if (auto writes = writes_.find(writes_key{config.thread_id, config.checkpoint_ns, at->first});
        writes != writes_.end())
      for (auto w = writes->second.rbegin(); w != writes->second.rend(); ++w)
        if (remaining.count(w->second.channel))
          out[w->second.channel].writes.push_back(
              pending_write{w->first.first, w->second.channel, w->second.v});
    checkpoint versions;
    if (at->second.versions_base.empty())
      versions.channel_versions = at->second.cp.channel_versions;
    else
      resolve_versions(checkpoints, at->second, versions);
    for (auto it = remaining.begin(); it != remaining.end();) {
      auto version = versions.channel_versions.find(*it);
      auto blob =
          version == versions.channel_versions.end()
              ? blobs_.end()
              : blobs_.find(blob_key{config.thread_id, config.checkpoint_ns, *it, version->second});
      if (blob == blobs_.end() || !blob->second) {  // no value stored here: walk on
        ++it;
        continue;
      }
      out[*it].seed = *blob->second;
      it = remaining.erase(it);
    }
  }
  for (auto& [_, history] : out) std::reverse(history.writes.begin(), history.writes.end());
  return out;
}

void memory_saver::delete_writes(const checkpoint_config& config) {
  std::lock_guard lock(mutex_);
  writes_.erase(writes_key{config.thread_id, config.checkpoint_ns, config.checkpoint_id});
}

void memory_saver::drop_checkpoints(
    const std::string& thread_id,
    const std::function<bool(const std::string& ns, std::size_t index, std::size_t count,
                             const std::string& id)>& drop) {
  auto thread_it = threads_.find(thread_id);
  if (thread_it == threads_.end()) return;
  // (namespace, channel, version) of every blob a kept checkpoint still reads.
  std::set<std::tuple<std::string, std::string, channel_version>> used;
  for (auto ns_it = thread_it->second.begin(); ns_it != thread_it->second.end();) {
    const std::string& ns = ns_it->first;
    checkpoints_by_id& checkpoints = ns_it->second;
    const std::size_t count = checkpoints.size();
    std::set<std::string> gone;
    std::size_t index = 0;
    for (const auto& [id, stored] : checkpoints)
      if (drop(ns, index++, count, id)) gone.insert(id);
    // The kept checkpoints' version maps made whole first: their bases may go.
    if (!gone.empty()) {
      for (auto& [id, stored] : checkpoints) {
        if (gone.count(id) || stored.versions_base.empty()) continue;
        checkpoint whole;
        resolve_versions(checkpoints, stored, whole);
        stored.cp.channel_versions = std::move(whole.channel_versions);
        stored.cp.versions_seen = std::move(whole.versions_seen);
        stored.versions_base.clear();
        stored.versions_depth = 0;
      }
    }
    for (const std::string& id : gone) {
      writes_.erase(writes_key{thread_id, ns, id});
      checkpoints.erase(id);
    }
    for (const auto& [id, stored] : checkpoints)
      for (const auto& [channel, version] : stored.cp.channel_versions)
        used.emplace(ns, channel, version);
    ns_it = checkpoints.empty() ? thread_it->second.erase(ns_it) : std::next(ns_it);
  }
  for (auto it = thread_range_begin(blobs_, thread_id);
       it != blobs_.end() && std::get<0>(it->first) == thread_id;) {
    const auto& [tid, ns, channel, version] = it->first;
    it = used.count({ns, channel, version}) ? std::next(it) : blobs_.erase(it);
  }
  if (thread_it->second.empty()) threads_.erase(thread_it);
}

checkpoint_tuple memory_saver::make_tuple(const std::string& thread_id, const std::string& ns,
                                          const std::string& id,
                                          const checkpoints_by_id& checkpoints,
                                          const stored_checkpoint& stored) const {
  checkpoint_tuple tuple;
  tuple.config = checkpoint_config{thread_id, ns, id};
  tuple.checkpoint = stored.cp;
  if (!stored.versions_base.empty()) resolve_versions(checkpoints, stored, tuple.checkpoint);
  for (const auto& [channel, version] : tuple.checkpoint.channel_versions) {
    auto blob = blobs_.find(blob_key{thread_id, ns, channel, version});
    if (blob != blobs_.end() && blob->second)
      tuple.checkpoint.channel_values.emplace(channel, *blob->second);
  }
  tuple.metadata = stored.metadata;
  if (!stored.parent_id.empty())
    tuple.parent_config = checkpoint_config{thread_id, ns, stored.parent_id};
  if (auto writes = writes_.find(writes_key{thread_id, ns, id}); writes != writes_.end()) {
    tuple.pending_writes.reserve(writes->second.size());
    for (const auto& [key, w] : writes->second)
      tuple.pending_writes.push_back(pending_write{key.first, w.channel, w.v});
  }
  return tuple;
}

void memory_saver::erase_thread(const std::string& thread_id) {
  threads_.erase(thread_id);
  erase_thread_range(blobs_, thread_id);
  erase_thread_range(writes_, thread_id);
}

}  // namespace superstep::storage
