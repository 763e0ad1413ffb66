#include "superstep/storage/rocksdb_saver.hpp"

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
#include "superstep/storage/write_index.hpp"
#include "version_chains.hpp"

namespace superstep::storage {

namespace detail {

std::string describe(const std::string& thread_id, const std::string& ns, const std::string& id) {
  std::string out = "checkpoint " + id + " of thread '" + thread_id + "'";
  if (!ns.empty()) out += " in namespace '" + ns + "'";
  return out;
}

[[noreturn]] void damaged_key(const char* family, std::string_view key) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string shown;
  for (unsigned char c : key.substr(0, 64)) (shown += hex[c >> 4]) += hex[c & 15];
  throw error(
      error_code::storage_error,
      std::string("rocksdb_saver: damaged key in column family '") + family + "': " + shown);
}

}  // namespace detail

using detail::damaged_key;
using detail::describe;

records::stored_checkpoint rocksdb_saver::impl::decode(const std::string& thread_id,
                                                       const std::string& ns, const std::string& id,
                                                       std::string_view bytes) const {
  try {
    return records::decode_checkpoint(bytes, *serde);
  } catch (const error& e) {
    throw error(error_code::storage_error,
                "rocksdb_saver: cannot read " + describe(thread_id, ns, id) + ": " + e.what());
  }
}

checkpoint_tuple rocksdb_saver::impl::make_tuple(const rocksdb::ReadOptions& read,
                                                 const std::string& thread_id,
                                                 const std::string& ns, const std::string& id,
                                                 records::stored_checkpoint stored) const {
  const auto fail = [&](const std::string& what, const std::string& why) {
    return error(
        error_code::storage_error,
        "rocksdb_saver: cannot read " + describe(thread_id, ns, id) + ": " + what + ": " + why);
  };
  checkpoint_tuple tuple;
  tuple.config = checkpoint_config{thread_id, ns, id};
  resolve(read, thread_id, ns, stored);

  // Blobs: one batched lookup for every channel the checkpoint has a version of.
  const std::string blob_prefix = keys::prefix(thread_id, ns);
  std::vector<std::pair<const std::string*, channel_version>> channels;
  std::vector<std::string> blob_keys;
  for (const auto& [channel, version] : stored.cp.channel_versions) {
    std::string key = blob_prefix;
    keys::append_string(key, channel);
    keys::append_u64(key, version);
    channels.emplace_back(&channel, version);
    blob_keys.push_back(std::move(key));
  }
  std::vector<rocksdb::Slice> slices(blob_keys.begin(), blob_keys.end());
  std::vector<rocksdb::PinnableSlice> blobs(slices.size());
  std::vector<rocksdb::Status> statuses(slices.size());
  if (!slices.empty())
    db.db().MultiGet(read, db.blobs, slices.size(), slices.data(), blobs.data(), statuses.data());
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const auto& [channel, version] = channels[i];
    const auto what = [&, &channel = channel, &version = version] {
      return "channel '" + *channel + "' at version " + std::to_string(version);
    };
    try {
      if (statuses[i].IsNotFound()) {
        // A list delta, or no blob: the channel was cleared (or never stored) at that version.
        const std::string& key = blob_keys[i];
        auto v = read_delta(read, key.substr(0, key.size() - 8), version);
        if (v) stored.cp.channel_values.emplace(*channel, std::move(*v));
        continue;
      }
      if (!statuses[i].ok()) throw fail(what(), statuses[i].ToString());
      stored.cp.channel_values.emplace(*channel, serde->loads(blobs[i].ToStringView()));
    } catch (const error& e) {
      throw fail(what(), e.what());
    }
  }

  tuple.pending_writes = read_writes(read, thread_id, ns, id);
  if (!stored.parent_id.empty())
    tuple.parent_config = checkpoint_config{thread_id, ns, stored.parent_id};
  tuple.checkpoint = std::move(stored.cp);
  tuple.metadata = std::move(stored.metadata);
  return tuple;
}

std::optional<value> rocksdb_saver::impl::read_value(const rocksdb::ReadOptions& read,
                                                     const std::string& thread_id,
                                                     const std::string& ns,
                                                     const std::string& channel,
                                                     channel_version version) const {
  std::string channel_key = keys::prefix(thread_id, ns, channel);
  std::string key = channel_key;
  keys::append_u64(key, version);
  try {
    rocksdb::PinnableSlice bytes;
    auto s = db.db().Get(read, db.blobs, key, &bytes);
    if (s.IsNotFound()) return read_delta(read, channel_key, version);
    check(s, "reading a blob");
    return serde->loads(bytes.ToStringView());
  } catch (const error& e) {
    throw error(error_code::storage_error, "rocksdb_saver: cannot read channel '" + channel +
                                               "' at version " + std::to_string(version) +
                                               " of thread '" + thread_id + "': " + e.what());
  }
}

std::optional<value> rocksdb_saver::impl::read_delta(const rocksdb::ReadOptions& read,
                                                     const std::string& channel_key,
                                                     channel_version version) const {
  // Down the bases to a whole blob, then the deltas' elements back up.
  constexpr std::size_t max_chain = 64;  // skip-deltas need ~log2(65,536) + 1
  std::vector<records::list_delta> deltas;
  value base;
  rocksdb::PinnableSlice bytes;
  for (channel_version at = version;;) {
    std::string key = channel_key;
    keys::append_u64(key, at);
    if (!deltas.empty()) {  // a base: a whole blob, or a delta again
      bytes.Reset();
      auto s = db.db().Get(read, db.blobs, key, &bytes);
      if (s.ok()) {
        base = serde->loads(bytes.ToStringView());
        break;
      }
      if (!s.IsNotFound()) check(s, "reading version " + std::to_string(at));
    }
    if (auto whole = read_parts(read, key)) {
      if (deltas.empty()) return whole;
      base = std::move(*whole);
      break;
    }
    key += keys::delta_suffix;
    bytes.Reset();
    auto s = db.db().Get(read, db.blobs, key, &bytes);
    if (s.IsNotFound()) {
      if (deltas.empty()) return std::nullopt;
      throw error(error_code::storage_error,
                  "base version " + std::to_string(at) + " of a list delta has no value");
    }
    check(s, "reading the list delta at version " + std::to_string(at));
    records::list_delta delta = records::decode_list_delta(bytes.ToStringView());
    if (delta.base >= at || deltas.size() >= max_chain)
      throw error(error_code::storage_error,
                  "the list delta at version " + std::to_string(at) + " names base version " +
                      std::to_string(delta.base) +
                      (deltas.size() >= max_chain ? ", past the longest chain of deltas"
                                                  : ", not an earlier one"));
    at = delta.base;
    deltas.push_back(std::move(delta));
  }
  if (!base.is_list())
    throw error(
        error_code::storage_error,
        "the base of a list delta is a " + std::string(kind_name(base.kind())) + ", not a list");
  superstep::list out = base.as_list();
  for (auto it = deltas.rbegin(); it != deltas.rend(); ++it) {
    const superstep::list& from = out;
    if (from.size() < it->base_length)
      throw error(error_code::storage_error,
                  "a list delta extends the first " + std::to_string(it->base_length) +
                      " elements of a list of " + std::to_string(from.size()));
    value items = serde->loads(it->items);
    if (!items.is_list())
      throw error(error_code::storage_error, "the elements of a list delta are a " +
                                                 std::string(kind_name(items.kind())) +
                                                 ", not a list");
    superstep::list next;
    next.reserve(it->base_length + items.as_list().size());
    next.insert(next.end(), from.begin(),
                from.begin() + static_cast<std::ptrdiff_t>(it->base_length));
    next.insert(next.end(), items.as_list().begin(), items.as_list().end());
    out = std::move(next);
  }
  return value(std::move(out));
}

void rocksdb_saver::impl::list_namespace(const rocksdb::ReadOptions& read,
                                         const std::string& thread_id,
                                         const checkpoint_config& config,
                                         const list_options& options,
                                         std::vector<checkpoint_tuple>& out) const {
  const std::string& ns = config.checkpoint_ns;
  const std::string prefix = keys::prefix(thread_id, ns);
  const std::string* before = options.before && !options.before->checkpoint_id.empty()
                                  ? &options.before->checkpoint_id
                                  : nullptr;
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  const auto take = [&](const std::string& id, std::string_view bytes) {
    auto stored = decode(thread_id, ns, id, bytes);
    if (metadata_matches(options.filter, stored.metadata))
      out.push_back(make_tuple(read, thread_id, ns, id, std::move(stored)));
  };

  if (!config.checkpoint_id.empty()) {
    if (before && !(config.checkpoint_id < *before)) return;
    rocksdb::PinnableSlice bytes;
    auto s = db.db().Get(read, db.checkpoints, prefix + config.checkpoint_id, &bytes);
    if (s.IsNotFound()) return;
    check(s, "reading " + describe(thread_id, ns, config.checkpoint_id));
    take(config.checkpoint_id, bytes.ToStringView());
    return;
  }
  // Ids sort by creation: newest first is a backward scan, and "before" an upper bound.
  range_scan it(db, db.checkpoints, read, prefix,
                before ? prefix + *before : keys::successor(prefix));
  for (it->SeekToLast(); it->Valid() && !full(); it->Prev())
    take(it->key().ToString().substr(prefix.size()), it->value().ToStringView());
  it.check_status("listing the checkpoints of thread '" + thread_id + "'");
}

void rocksdb_saver::impl::list_thread(const rocksdb::ReadOptions& read,
                                      const std::string& thread_id, const checkpoint_config& config,
                                      const list_options& options,
                                      std::vector<checkpoint_tuple>& out) const {
  if (!options.every_namespace) {
    list_namespace(read, thread_id, config, options, out);
    return;
  }
  // Every namespace, in order: read the namespace of the first key, list it, then jump past
  // all of its keys.
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  const std::string thread_prefix = keys::prefix(thread_id);
  range_scan it(db, db.checkpoints, read, thread_prefix, keys::successor(thread_prefix));
  checkpoint_config at = config;
  for (it->SeekToFirst(); it->Valid() && !full();) {
    std::size_t pos = thread_prefix.size();
    auto ns = keys::read_string(it->key().ToStringView(), pos);
    if (!ns) damaged_key("checkpoints", it->key().ToStringView());
    at.checkpoint_ns = std::move(*ns);
    list_namespace(read, thread_id, at, options, out);
    it->Seek(keys::successor(keys::prefix(thread_id, at.checkpoint_ns)));
  }
  it.check_status("listing the namespaces of thread '" + thread_id + "'");
}

rocksdb_saver::rocksdb_saver(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}

rocksdb_saver::~rocksdb_saver() = default;

std::unique_ptr<rocksdb_saver> rocksdb_saver::open(const std::string& dir,
                                                   rocksdb_saver_options options) {
  if (dir.empty())
    throw error(error_code::invalid_argument, "rocksdb_saver::open needs a directory");
  return std::unique_ptr<rocksdb_saver>(
      new rocksdb_saver(std::make_unique<impl>(dir, std::move(options))));
}

const std::string& rocksdb_saver::directory() const noexcept { return impl_->db.dir(); }

checkpoint_config rocksdb_saver::put(const checkpoint_config& config, const checkpoint& cp,
                                     const checkpoint_metadata& metadata,
                                     const std::map<std::string, channel_version>& new_versions) {
  return impl_->put(config, cp, metadata, new_versions, nullptr);
}

checkpoint_config rocksdb_saver::put_changes(const checkpoint_config& config, const checkpoint& cp,
                                             const checkpoint_metadata& metadata,
                                             const checkpoint_changes& changes) {
  return impl_->put(config, cp, metadata, changes.versions, &changes);
}

checkpoint_config rocksdb_saver::impl::put(
    const checkpoint_config& config, const checkpoint& cp, const checkpoint_metadata& metadata,
    const std::map<std::string, channel_version>& new_versions, const checkpoint_changes* changes) {
  require_thread(config.thread_id, "rocksdb_saver", "put");
  require_checkpoint_id(cp.id, "rocksdb_saver", "put (checkpoint.id)");
  impl& d = *this;
  const std::string prefix = keys::prefix(config.thread_id, config.checkpoint_ns);
  // The version maps as what changed since an earlier checkpoint, when the caller said what
  // changed and this process stored that line of checkpoints (version_chains.hpp).
  version_chains::plan plan = d.db.versions.plan_put(prefix, config.checkpoint_id, cp, changes);
  const records::versions_delta delta{plan.base_id, plan.depth, &plan.channels, &plan.nodes};
  // Encoded first, so the batch is sized once: a big blob (a fan-out's Sends) is not copied
  // again each time the batch would have grown.
  std::string record = records::encode_checkpoint(cp, metadata, config.checkpoint_id, *d.serde,
                                                  plan.depth ? &delta : nullptr);
  struct blob {
    std::string chain;  // the blob key without the version: the channel's blob_chains key
    std::string key;
    channel_version version = 0;
    const value* v = nullptr;  // nullptr: cleared
    bool remember = false;     // kept by blob_chains after the write, for the next delta
    bool in_parts = false;     // a list too big to write whole: write_parts
    std::optional<blob_chains::delta> delta;
    std::string bytes;
    std::size_t size = 0;
  };
  std::vector<blob> blobs;
  blobs.reserve(new_versions.size());
  std::size_t bytes = prefix.size() + cp.id.size() + record.size() + 64;
  for (const auto& [channel, version] : new_versions) {
    blob& b = blobs.emplace_back();
    b.chain = prefix;
    keys::append_string(b.chain, channel);
    b.key = b.chain;
    keys::append_u64(b.key, version);
    b.version = version;
    // A channel with a new version but no value was cleared: no blob at that version.
    if (auto it = cp.channel_values.find(channel); it != cp.channel_values.end()) {
      b.v = &it->second;
      b.remember = !(changes && changes->not_extended.count(channel));
      b.delta = d.db.chains.plan(b.chain, *b.v, b.version);
      if (b.delta) {
        const superstep::list& all = b.v->as_list();
        records::list_delta delta{b.delta->base, b.delta->base_length, {}};
        delta.items = d.serde->dumps(value(superstep::list(
            all.begin() + static_cast<std::ptrdiff_t>(b.delta->base_length), all.end())));
        b.bytes = records::encode_list_delta(delta);
        b.key += keys::delta_suffix;
      } else if (b.v->is_list() && b.v->as_list().size() >= parts_from_items) {
        b.in_parts = true;
        continue;
      } else {
        b.bytes = d.serde->dumps(*b.v);
      }
      b.size = b.bytes.size();
    }
    bytes += b.key.size() + b.size + 32;
  }
  // Lists in parts go first, in a table file added on its own; each one's header goes in the
  // batch below, with the checkpoint: a crash in between leaves parts that nothing reads.
  std::optional<table_write> parts;
  for (auto& b : blobs) {
    if (!b.in_parts) continue;
    if (!parts)
      parts.emplace(
          d.db, d.db.blobs,
          "writing a list in parts for " + describe(config.thread_id, config.checkpoint_ns, cp.id));
    b.bytes = d.write_parts(*parts, b.key, b.v->as_list(), b.size);
    b.key += keys::parts_suffix;  // the header's key
  }
  // A delta's base must not go (a prune, delete or copy of the thread, by any saver on this
  // database) between the check that none happened since the plan and the write; nor may
  // parts, which no checkpoint reads until the batch below writes their header.
  std::unique_lock<std::mutex> maintenance;
  if (plan.depth > 0 || parts) maintenance = std::unique_lock<std::mutex>(d.db.maintenance);
  if (parts) parts->commit();
  if (plan.depth > 0 && d.db.versions.stale(plan)) {
    plan.depth = 0;
    record = records::encode_checkpoint(cp, metadata, config.checkpoint_id, *d.serde);
    bytes += record.size();
  }
  const std::string* run_id = d.db.run_index ? detail::run_of(metadata) : nullptr;
  if (run_id) bytes += 2 * (run_id->size() + config.thread_id.size()) + prefix.size() + 64;
  rocksdb::WriteBatch batch(bytes);
  check(batch.Put(d.db.checkpoints, prefix + cp.id, record), "batching a checkpoint");
  if (run_id) {  // delete_for_runs finds the run's checkpoints from here
    check(batch.Put(d.db.run_index,
                    keys::run_checkpoint(*run_id, config.thread_id, config.checkpoint_ns, cp.id),
                    rocksdb::Slice()),
          "batching a run index entry");
    std::string thread_run = keys::thread_runs(config.thread_id);
    keys::append_string(thread_run, *run_id);
    check(batch.Put(d.db.run_index, thread_run, rocksdb::Slice()), "batching a run index entry");
  }
  for (auto& b : blobs) {
    // A cleared channel's version has no value, only a marker that the version is taken.
    check(b.v ? batch.Put(d.db.blobs, b.key, b.bytes)
              : batch.Put(d.db.blobs, b.key + keys::cleared_suffix, rocksdb::Slice()),
          "batching a blob");
    std::string().swap(b.bytes);  // in the batch now: free the copy at once
  }
  d.write(batch, "writing " + describe(config.thread_id, config.checkpoint_ns, cp.id));
  for (const auto& b : blobs) {
    if (b.remember)
      d.db.chains.written(b.chain, b.version, *b.v, b.delta, b.size);
    else
      d.db.chains.forget(b.chain);
  }
  d.db.versions.written(prefix, cp.id, plan, changes);
  if (plan.depth > 0 && version_deltas_checked()) {
    auto back = decode(config.thread_id, config.checkpoint_ns, cp.id, record);
    resolve(rocksdb::ReadOptions(), config.thread_id, config.checkpoint_ns, back);
    compare_versions(cp, back.cp, "rocksdb_saver");
  }
  return checkpoint_config{config.thread_id, config.checkpoint_ns, cp.id};
}

void rocksdb_saver::impl::resolve(const rocksdb::ReadOptions& read, const std::string& thread_id,
                                  const std::string& ns, records::stored_checkpoint& stored) const {
  if (stored.versions_base.empty()) return;
  const std::string prefix = keys::prefix(thread_id, ns);
  // Down the bases to a whole record; an entry of a nearer checkpoint wins over its base's.
  std::string base_id = std::move(stored.versions_base);
  std::uint32_t depth = stored.versions_depth;
  stored.versions_base.clear();
  stored.versions_depth = 0;
  rocksdb::PinnableSlice bytes;
  while (!base_id.empty()) {
    bytes.Reset();
    auto s = db.db().Get(read, db.checkpoints, prefix + base_id, &bytes);
    if (s.IsNotFound())
      throw error(error_code::storage_error, "rocksdb_saver: cannot read " +
                                                 describe(thread_id, ns, stored.cp.id) +
                                                 ": its versions are stored against checkpoint " +
                                                 base_id + ", which is missing");
    check(s, "reading " + describe(thread_id, ns, base_id));
    auto base = decode(thread_id, ns, base_id, bytes.ToStringView());
    if (!base.versions_base.empty() && base.versions_depth >= depth)
      throw error(error_code::storage_error,
                  "rocksdb_saver: cannot read " + describe(thread_id, ns, stored.cp.id) +
                      ": checkpoint " + base_id + " is not an earlier base (depth " +
                      std::to_string(base.versions_depth) + " after " + std::to_string(depth) +
                      ")");
    for (auto& [channel, version] : base.cp.channel_versions)
      stored.cp.channel_versions.try_emplace(channel, version);
    for (auto& [node, seen] : base.cp.versions_seen)
      stored.cp.versions_seen.try_emplace(node, std::move(seen));
    base_id = std::move(base.versions_base);
    depth = base.versions_depth;
  }
}

std::optional<checkpoint_tuple> rocksdb_saver::get_tuple(const checkpoint_config& config) {
  require_thread(config.thread_id, "rocksdb_saver", "get_tuple");
  const impl& d = *impl_;
  snapshot_read read(d.db);
  const std::string& thread_id = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  const std::string prefix = keys::prefix(thread_id, ns);

  if (config.checkpoint_id.empty()) {
    range_scan it(d.db, d.db.checkpoints, read.options, prefix, keys::successor(prefix));
    it->SeekToLast();
    if (!it->Valid()) {
      it.check_status("finding the latest checkpoint of thread '" + thread_id + "'");
      return std::nullopt;
    }
    const std::string id = it->key().ToString().substr(prefix.size());
    return d.make_tuple(read.options, thread_id, ns, id,
                        d.decode(thread_id, ns, id, it->value().ToStringView()));
  }
  rocksdb::PinnableSlice bytes;
  auto s = d.db.db().Get(read.options, d.db.checkpoints, prefix + config.checkpoint_id, &bytes);
  if (s.IsNotFound()) return std::nullopt;
  check(s, "reading " + describe(thread_id, ns, config.checkpoint_id));
  return d.make_tuple(read.options, thread_id, ns, config.checkpoint_id,
                      d.decode(thread_id, ns, config.checkpoint_id, bytes.ToStringView()));
}

channel_version rocksdb_saver::latest_version(const checkpoint_config& config) {
  require_thread(config.thread_id, "rocksdb_saver", "latest_version");
  const impl& d = *impl_;
  const std::string prefix = keys::prefix(config.thread_id, config.checkpoint_ns);
  snapshot_read read(d.db);  // the blobs, the latest record and its bases as of one moment
  channel_version out = 0;
  // Every version a put issued has a key in the blobs (a value, a list delta or a cleared
  // marker), on any branch: the last key of each channel's range holds its highest version.
  {
    range_scan it(d.db, d.db.blobs, read.options, prefix, keys::successor(prefix));
    for (it->SeekToFirst(); it->Valid();) {
      std::size_t pos = prefix.size();
      std::string_view key = it->key().ToStringView();
      if (!keys::read_string(key, pos)) damaged_key("blobs", key);
      const std::string channel_end = keys::successor(std::string(key.substr(0, pos)));
      it->SeekForPrev(channel_end);
      if (!it->Valid()) break;
      key = it->key().ToStringView();
      auto version = keys::read_u64(key, pos);
      if (!version) damaged_key("blobs", key);
      out = std::max(out, *version);
      it->Seek(channel_end);
    }
    it.check_status("finding the highest version of thread '" + config.thread_id + "'");
  }
  // And the latest checkpoint's own versions (a database written before the markers).
  range_scan it(d.db, d.db.checkpoints, read.options, prefix, keys::successor(prefix));
  it->SeekToLast();
  if (!it->Valid()) {
    it.check_status("finding the latest checkpoint of thread '" + config.thread_id + "'");
    return out;
  }
  const std::string id = it->key().ToString().substr(prefix.size());
  auto stored = d.decode(config.thread_id, config.checkpoint_ns, id, it->value().ToStringView());
  d.resolve(read.options, config.thread_id, config.checkpoint_ns, stored);
  for (const auto& [_, v] : stored.cp.channel_versions) out = std::max(out, v);
  return out;
}

std::vector<checkpoint_tuple> rocksdb_saver::list(const checkpoint_config& config,
                                                  const list_options& options) {
  std::vector<checkpoint_tuple> out;
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  if (full()) return out;
  const impl& d = *impl_;
  snapshot_read read(d.db);
  if (!config.thread_id.empty()) {
    d.list_thread(read.options, config.thread_id, config, options, out);
    return out;
  }
  // Every thread, in thread id order: read the thread id of the first key, list it, then jump
  // past all of its keys.
  std::unique_ptr<rocksdb::Iterator> threads(d.db.db().NewIterator(read.options, d.db.checkpoints));
  for (threads->SeekToFirst(); threads->Valid() && !full();) {
    std::size_t pos = 0;
    auto thread_id = keys::read_string(threads->key().ToStringView(), pos);
    if (!thread_id) damaged_key("checkpoints", threads->key().ToStringView());
    d.list_thread(read.options, *thread_id, config, options, out);
    threads->Seek(keys::successor(keys::prefix(*thread_id)));
  }
  check(threads->status(), "listing the threads");
  return out;
}

}  // namespace superstep::storage
