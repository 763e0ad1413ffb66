#include "superstep/storage/memory_saver.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include "saver_checks.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/write_index.hpp"

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

checkpoint_config memory_saver::put(const checkpoint_config& config, const checkpoint& cp,
                                    const checkpoint_metadata& metadata,
                                    const std::map<std::string, channel_version>& new_versions) {
  require_thread(config.thread_id, "memory_saver", "put");
  require_checkpoint_id(cp.id, "memory_saver", "put (checkpoint.id)");
  // Values live in blobs_, one per channel version: copy the rest of the checkpoint only.
  stored_checkpoint stored{{}, metadata, config.checkpoint_id};
  stored.cp.v = cp.v;
  stored.cp.id = cp.id;
  stored.cp.ts = cp.ts;
  stored.cp.channel_versions = cp.channel_versions;
  stored.cp.versions_seen = cp.versions_seen;
  stored.cp.updated_channels = cp.updated_channels;

  std::lock_guard lock(mutex_);
  for (const auto& [channel, version] : new_versions) {
    auto it = cp.channel_values.find(channel);
    std::optional<value> blob;
    if (it != cp.channel_values.end()) blob = it->second;
    blobs_.insert_or_assign(blob_key{config.thread_id, config.checkpoint_ns, channel, version},
                            std::move(blob));
  }
  threads_[config.thread_id][config.checkpoint_ns].insert_or_assign(cp.id, std::move(stored));
  return checkpoint_config{config.thread_id, config.checkpoint_ns, cp.id};
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
  return make_tuple(config.thread_id, config.checkpoint_ns, it->first, it->second);
}

channel_version memory_saver::latest_version(const checkpoint_config& config) {
  require_thread(config.thread_id, "memory_saver", "latest_version");
  std::lock_guard lock(mutex_);
  channel_version out = 0;
  auto thread_it = threads_.find(config.thread_id);
  if (thread_it == threads_.end()) return out;
  auto ns_it = thread_it->second.find(config.checkpoint_ns);
  if (ns_it == thread_it->second.end() || ns_it->second.empty()) return out;
  for (const auto& [_, v] : ns_it->second.rbegin()->second.cp.channel_versions)
    out = std::max(out, v);
  return out;
}

std::vector<checkpoint_tuple> memory_saver::list(const checkpoint_config& config,
                                                 const list_options& options) {
  std::vector<checkpoint_tuple> out;
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  if (full()) return out;

  std::lock_guard lock(mutex_);
  const auto list_thread = [&](const std::string& thread_id, const namespaces& nss) {
    auto ns_it = nss.find(config.checkpoint_ns);
    if (ns_it == nss.end()) return;
    const checkpoints_by_id& checkpoints = ns_it->second;
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
        out.push_back(make_tuple(thread_id, config.checkpoint_ns, it->first, it->second));
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

void memory_saver::delete_thread(const std::string& thread_id) {
  std::lock_guard lock(mutex_);
  erase_thread(thread_id);
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
  for (const std::string& thread_id : thread_ids) {
    auto thread_it = threads_.find(thread_id);
    if (thread_it == threads_.end()) continue;
    // (namespace, channel, version) of every blob a kept checkpoint still reads.
    std::set<std::tuple<std::string, std::string, channel_version>> used;
    for (auto ns_it = thread_it->second.begin(); ns_it != thread_it->second.end();) {
      const std::string& ns = ns_it->first;
      checkpoints_by_id& checkpoints = ns_it->second;
      while (checkpoints.size() > keep_last) {
        writes_.erase(writes_key{thread_id, ns, checkpoints.begin()->first});
        checkpoints.erase(checkpoints.begin());
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
}

checkpoint_tuple memory_saver::make_tuple(const std::string& thread_id, const std::string& ns,
                                          const std::string& id,
                                          const stored_checkpoint& stored) const {
  checkpoint_tuple tuple;
  tuple.config = checkpoint_config{thread_id, ns, id};
  tuple.checkpoint = stored.cp;
  for (const auto& [channel, version] : stored.cp.channel_versions) {
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
