// The state of a redis_saver (superstep/storage/redis_saver.hpp): its connection, the keys it
// uses and the commands it builds. Included by redis_saver.cpp and redis_saver_threads.cpp only.
#pragma once

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "checkpoint_records.hpp"
#include "rocksdb_keys.hpp"
#include "saver_checks.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/redis_saver.hpp"
#include "superstep/storage/write_index.hpp"

namespace superstep::storage {

// Internal to the saver's translation units.
namespace redis_detail {
inline constexpr const char* saver_name = "redis_saver";

// A key part with '%' and ':' escaped, so that keys split on ':' unambiguously.
inline std::string enc(std::string_view part) { return redis_key_part(part); }

// The field of a blob: "<version>:<channel>".
inline std::string blob_field(const std::string& channel, channel_version version) {
  return std::to_string(version) + ":" + channel;
}

// A field every put writes into a thread's blob hash (no blob field starts with '-'): a
// checkpoint read without it lost its blobs with the key (an eviction policy, a TTL, a DEL or a
// FLUSHALL on a shared server), where a field alone missing is a version never stored.
inline constexpr const char* blobs_marker = "-";

// Why a key the saver wrote is missing, in its errors.
inline constexpr const char* lost_keys =
    "(the server lost keys: evicted, expired, deleted or flushed)";

// The field of a pending write: task id and index, so that the byte order of fields is
// memory_saver's order of writes (by task id, then index, special writes first).
inline std::string write_field(const std::string& task_id, int index) {
  std::string field;
  keys::append_string(field, task_id);
  keys::append_i32(field, index);
  return field;
}

// A member of a run's set in a thread: S(namespace) id.
inline std::string run_member(const std::string& ns, const std::string& id) {
  return keys::prefix(ns) + id;
}

inline std::string describe(const std::string& thread_id, const std::string& ns,
                            const std::string& id) {
  std::string out = "checkpoint " + id + " of thread '" + thread_id + "'";
  if (!ns.empty()) out += " in namespace '" + ns + "'";
  return out;
}

inline const std::string* run_of(const checkpoint_metadata& metadata) {
  const value* run_id = metadata.extra.find("run_id");
  if (!run_id || !run_id->is_string() || run_id->as_string().empty()) return nullptr;
  return &run_id->as_string();
}

inline std::vector<std::string> strings_of(const redis_reply& r) {
  std::vector<std::string> out;
  out.reserve(r.elements.size());
  for (const auto& e : r.elements) out.push_back(e.str);
  return out;
}

// Keeps the highest version stored in a namespace (P:t:T:N:top).
inline constexpr const char* top_script =
    "local c = tonumber(redis.call('GET', KEYS[1]) or '0') "
    "if tonumber(ARGV[1]) > c then redis.call('SET', KEYS[1], ARGV[1]) end "
    "return 0";

// The checkpoint ARGV[1] (the latest of KEYS[1] when empty): {id, record, writes as HGETALL
// gives them} or nil. KEYS[2] is the records hash, ARGV[2] the writes keys' prefix.
inline constexpr const char* get_script =
    "local id = ARGV[1] "
    "if id == '' then "
    "  local r = redis.call('ZREVRANGEBYLEX', KEYS[1], '+', '-', 'LIMIT', 0, 1) "
    "  if #r == 0 then return false end "
    "  id = r[1] "
    "end "
    "local rec = redis.call('HGET', KEYS[2], id) "
    "if not rec then return false end "
    "local e = (string.gsub(id, '[%%:]', function(c) if c == '%' then return '%25' end "
    "  return '%3A' end)) "
    "return {id, rec, redis.call('HGETALL', ARGV[2] .. e)}";

}  // namespace redis_detail

struct redis_saver::impl {
  impl(redis_options connection, redis_saver_options options)
      : conn(std::move(connection)),
        serde(options.serde ? std::move(options.serde) : make_capnp_serializer()),
        prefix(std::move(options.prefix)) {
    conn.set_owner(redis_detail::saver_name);
  }

  redis_connection conn;
  std::shared_ptr<const serializer> serde;
  std::string prefix;

  // Keys (see redis_saver.hpp).
  std::string threads() const { return prefix + ":threads"; }
  std::string thread(const std::string& t) const { return prefix + ":t:" + redis_detail::enc(t); }
  std::string namespaces(const std::string& t) const { return thread(t) + ":ns"; }
  std::string thread_runs(const std::string& t) const { return thread(t) + ":runs"; }
  std::string base(const std::string& t, const std::string& ns) const {
    return thread(t) + ":" + redis_detail::enc(ns);
  }
  std::string ids(const std::string& t, const std::string& ns) const {
    return base(t, ns) + ":ids";
  }
  std::string records(const std::string& t, const std::string& ns) const {
    return base(t, ns) + ":cp";
  }
  std::string blobs(const std::string& t, const std::string& ns) const {
    return base(t, ns) + ":blobs";
  }
  std::string top(const std::string& t, const std::string& ns) const {
    return base(t, ns) + ":top";
  }
  std::string writes_prefix(const std::string& t, const std::string& ns) const {
    return base(t, ns) + ":w:";
  }
  std::string writes(const std::string& t, const std::string& ns, const std::string& id) const {
    return writes_prefix(t, ns) + redis_detail::enc(id);
  }
  // The threads with checkpoints of run R, and the checkpoints of R in thread T.
  std::string run(const std::string& r) const { return prefix + ":run:" + redis_detail::enc(r); }
  std::string run_in_thread(const std::string& t, const std::string& r) const {
    return thread(t) + ":run:" + redis_detail::enc(r);
  }

  records::stored_checkpoint decode(const std::string& t, const std::string& ns,
                                    const std::string& id, std::string_view bytes) const {
    try {
      return records::decode_checkpoint(bytes, *serde);
    } catch (const error& e) {
      throw error(error_code::storage_error,
                  std::string(redis_detail::saver_name) + ": cannot read " +
                      redis_detail::describe(t, ns, id) + ": " + e.what());
    }
  }

  // The commands that read what a tuple needs besides its record: the blobs of its versions.
  redis_command blobs_command(const std::string& t, const std::string& ns,
                              const records::stored_checkpoint& stored) const {
    redis_command cmd{"HMGET", blobs(t, ns), redis_detail::blobs_marker};
    for (const auto& [channel, version] : stored.cp.channel_versions)
      cmd.push_back(redis_detail::blob_field(channel, version));
    return cmd;
  }

  // A tuple from its record, the reply of `blobs_command` and the writes (HGETALL's reply).
  checkpoint_tuple make_tuple(const std::string& t, const std::string& ns, const std::string& id,
                              records::stored_checkpoint stored, const redis_reply& blob_reply,
                              const redis_reply& writes_reply) const {
    const auto fail = [&](const std::string& what, const std::string& why) {
      return error(error_code::storage_error,
                   std::string(redis_detail::saver_name) + ": cannot read " +
                       redis_detail::describe(t, ns, id) + ": " + what + ": " + why);
    };
    checkpoint_tuple tuple;
    tuple.config = checkpoint_config{t, ns, id};
    if (!stored.cp.channel_versions.empty() &&
        (blob_reply.elements.empty() || blob_reply.elements.front().is_nil()))
      throw fail(
          "channel '" + stored.cp.channel_versions.begin()->first + "' and every other",
          "the hash of its blobs, " + blobs(t, ns) + ", is missing " + redis_detail::lost_keys);
    std::size_t i = 1;  // after the marker
    for (const auto& [channel, version] : stored.cp.channel_versions) {
      const redis_reply* blob = i < blob_reply.elements.size() ? &blob_reply.elements[i] : nullptr;
      ++i;
      // No blob, or an empty one: the channel was cleared (or never stored) at that version.
      if (!blob || blob->is_nil() || blob->str.empty()) continue;
      try {
        stored.cp.channel_values.emplace(channel, serde->loads(blob->str));
      } catch (const error& e) {
        throw fail("channel '" + channel + "' at version " + std::to_string(version), e.what());
      }
    }
    // HGETALL: field, value, ...; fields sort as memory_saver orders writes.
    std::vector<std::pair<const std::string*, const std::string*>> fields;
    for (std::size_t k = 0; k + 1 < writes_reply.elements.size(); k += 2)
      fields.emplace_back(&writes_reply.elements[k].str, &writes_reply.elements[k + 1].str);
    std::sort(fields.begin(), fields.end(),
              [](const auto& a, const auto& b) { return *a.first < *b.first; });
    tuple.pending_writes.reserve(fields.size());
    for (const auto& [field, bytes] : fields) {
      try {
        tuple.pending_writes.push_back(records::decode_write(*bytes, *serde));
      } catch (const error& e) {
        throw fail("a pending write", e.what());
      }
    }
    if (!stored.parent_id.empty()) tuple.parent_config = checkpoint_config{t, ns, stored.parent_id};
    tuple.checkpoint = std::move(stored.cp);
    tuple.metadata = std::move(stored.metadata);
    return tuple;
  }

  // The tuples of checkpoints `ids` of (t, ns) whose records are `recs` (HMGET's reply),
  // filtered by `filter`, at most `room` of them, appended to `out`.
  void read_tuples(const std::string& t, const std::string& ns,
                   const std::vector<std::string>& id_list, const redis_reply& recs,
                   const object& filter, std::size_t room, std::vector<checkpoint_tuple>& out) {
    struct found {
      const std::string* id;
      records::stored_checkpoint stored;
    };
    std::vector<found> kept;
    for (std::size_t i = 0; i < id_list.size() && kept.size() < room; ++i) {
      const redis_reply& r = recs.elements.at(i);
      if (r.is_nil()) continue;  // removed since the ids were read
      auto stored = decode(t, ns, id_list[i], r.str);
      if (metadata_matches(filter, stored.metadata))
        kept.push_back({&id_list[i], std::move(stored)});
    }
    if (kept.empty()) return;
    // The blobs (when the checkpoint has versions) and the writes of each, in one pipeline.
    std::vector<redis_command> cmds;
    std::vector<std::size_t> blob_at;  // index of each one's HMGET reply; npos: none
    for (const auto& k : kept) {
      if (k.stored.cp.channel_versions.empty()) {
        blob_at.push_back(std::string::npos);
      } else {
        blob_at.push_back(cmds.size());
        cmds.push_back(blobs_command(t, ns, k.stored));
      }
      cmds.push_back({"HGETALL", writes(t, ns, *k.id)});
    }
    auto replies = conn.pipeline(cmds);
    const redis_reply none;
    for (std::size_t i = 0, at = 0; i < kept.size(); ++i) {
      const redis_reply& blob_reply = blob_at[i] == std::string::npos ? none : replies[at++];
      const redis_reply& writes_reply = replies[at++];
      out.push_back(
          make_tuple(t, ns, *kept[i].id, std::move(kept[i].stored), blob_reply, writes_reply));
    }
  }

  // Appends the checkpoints of (t, config.checkpoint_ns) that `config` and `options` select,
  // newest first, until `out` holds `options.limit`.
  void list_namespace(const std::string& t, const std::string& ns, const checkpoint_config& config,
                      const list_options& options, std::vector<checkpoint_tuple>& out) {
    const auto room = [&] {
      return options.limit ? *options.limit - std::min(*options.limit, out.size())
                           : std::numeric_limits<std::size_t>::max();
    };
    const std::string* before = options.before && !options.before->checkpoint_id.empty()
                                    ? &options.before->checkpoint_id
                                    : nullptr;
    if (!config.checkpoint_id.empty()) {
      if (before && !(config.checkpoint_id < *before)) return;
      auto rec = conn.command({"HMGET", records(t, ns), config.checkpoint_id});
      read_tuples(t, ns, {config.checkpoint_id}, rec, options.filter, room(), out);
      return;
    }
    // Newest first, a page at a time (a filter may reject some).
    std::string max = before ? "(" + *before : "+";
    while (room() > 0) {
      const std::size_t page = options.filter.empty()
                                   ? std::min<std::size_t>(room(), 256)
                                   : std::min<std::size_t>(std::max<std::size_t>(room(), 32), 256);
      auto id_reply = conn.command(
          {"ZREVRANGEBYLEX", ids(t, ns), max, "-", "LIMIT", "0", std::to_string(page)});
      std::vector<std::string> id_list = redis_detail::strings_of(id_reply);
      if (id_list.empty()) return;
      redis_command hmget{"HMGET", records(t, ns)};
      hmget.insert(hmget.end(), id_list.begin(), id_list.end());
      auto recs = conn.command(hmget);
      read_tuples(t, ns, id_list, recs, options.filter, room(), out);
      if (id_list.size() < page) return;
      max = "(" + id_list.back();
    }
  }

  void list_thread(const std::string& t, const checkpoint_config& config,
                   const list_options& options, std::vector<checkpoint_tuple>& out) {
    if (!options.every_namespace) {
      list_namespace(t, config.checkpoint_ns, config, options, out);
      return;
    }
    for (const auto& ns :
         redis_detail::strings_of(conn.command({"ZRANGE", namespaces(t), "0", "-1"}))) {
      if (options.limit && out.size() >= *options.limit) return;
      list_namespace(t, ns, config, options, out);
    }
  }

  // The checkpoint ids of every namespace of thread t, oldest first.
  std::map<std::string, std::vector<std::string>> thread_ids(const std::string& t) {
    std::map<std::string, std::vector<std::string>> out;
    auto nss = redis_detail::strings_of(conn.command({"ZRANGE", namespaces(t), "0", "-1"}));
    if (nss.empty()) return out;
    std::vector<redis_command> cmds;
    for (const auto& ns : nss) cmds.push_back({"ZRANGE", ids(t, ns), "0", "-1"});
    auto replies = conn.pipeline(cmds);
    for (std::size_t i = 0; i < nss.size(); ++i) out[nss[i]] = redis_detail::strings_of(replies[i]);
    return out;
  }

  // Appends to `cmds` the removal of every key of thread t (whose checkpoints are `all`).
  void delete_thread_commands(const std::string& t,
                              const std::map<std::string, std::vector<std::string>>& all,
                              const std::vector<std::string>& runs,
                              std::vector<redis_command>& cmds) const {
    redis_command del{"DEL", namespaces(t), thread_runs(t)};
    for (const auto& [ns, id_list] : all) {
      for (auto k : {ids(t, ns), records(t, ns), blobs(t, ns), top(t, ns)})
        del.push_back(std::move(k));
      for (const auto& id : id_list) del.push_back(writes(t, ns, id));
    }
    for (const auto& r : runs) {
      del.push_back(run_in_thread(t, r));
      cmds.push_back({"SREM", run(r), t});
    }
    cmds.push_back(std::move(del));
    cmds.push_back({"ZREM", threads(), t});
  }

  // Removes the checkpoints of thread t for which drop(ns, index, count, id) holds (index of
  // count in the namespace, oldest first), their writes and run entries, and the blobs no
  // kept checkpoint reads; one transaction.
  void drop_checkpoints(const std::string& t,
                        const std::function<bool(const std::string&, std::size_t, std::size_t,
                                                 const std::string&)>& drop) {
    auto all = thread_ids(t);
    if (all.empty()) return;
    std::vector<redis_command> reads;
    std::vector<const std::string*> order;
    for (const auto& [ns, id_list] : all) {
      redis_command hmget{"HMGET", records(t, ns)};
      hmget.insert(hmget.end(), id_list.begin(), id_list.end());
      reads.push_back(std::move(hmget));
      reads.push_back({"HKEYS", blobs(t, ns)});
      order.push_back(&ns);
    }
    auto replies = conn.pipeline(reads);
    std::vector<redis_command> cmds;
    std::set<std::string> touched_runs;
    std::size_t emptied = 0;
    for (std::size_t n = 0; n < order.size(); ++n) {
      const std::string& ns = *order[n];
      const auto& id_list = all.at(ns);
      const redis_reply& recs = replies[2 * n];
      std::set<std::string> used;  // blob fields the kept checkpoints read
      redis_command hdel_cp{"HDEL", records(t, ns)}, zrem{"ZREM", ids(t, ns)}, del{"DEL"};
      std::size_t kept = 0;
      for (std::size_t i = 0; i < id_list.size(); ++i) {
        const std::string& id = id_list[i];
        const redis_reply& r = recs.elements.at(i);
        if (r.is_nil()) continue;
        auto stored = decode(t, ns, id, r.str);
        if (drop(ns, i, id_list.size(), id)) {
          hdel_cp.push_back(id);
          zrem.push_back(id);
          del.push_back(writes(t, ns, id));
          if (const std::string* rid = redis_detail::run_of(stored.metadata)) {
            cmds.push_back({"SREM", run_in_thread(t, *rid), redis_detail::run_member(ns, id)});
            touched_runs.insert(*rid);
          }
          continue;
        }
        ++kept;
        for (const auto& [channel, version] : stored.cp.channel_versions)
          used.insert(redis_detail::blob_field(channel, version));
      }
      used.insert(redis_detail::blobs_marker);
      if (hdel_cp.size() == 2) continue;  // nothing dropped here
      redis_command hdel_blobs{"HDEL", blobs(t, ns)};
      for (const auto& field : redis_detail::strings_of(replies[2 * n + 1]))
        if (!used.count(field)) hdel_blobs.push_back(field);
      cmds.push_back(std::move(hdel_cp));
      cmds.push_back(std::move(zrem));
      cmds.push_back(std::move(del));
      if (hdel_blobs.size() > 2) cmds.push_back(std::move(hdel_blobs));
      if (kept == 0) {
        cmds.push_back({"DEL", ids(t, ns), records(t, ns), blobs(t, ns), top(t, ns)});
        cmds.push_back({"ZREM", namespaces(t), ns});
        ++emptied;
      }
    }
    if (emptied == all.size()) cmds.push_back({"ZREM", threads(), t});
    if (!cmds.empty()) conn.transaction(cmds);
    // Runs left without checkpoints in the thread leave its indexes.
    for (const auto& r : touched_runs) {
      auto left = conn.command({"SCARD", run_in_thread(t, r)});
      if (left.integer == 0) conn.pipeline({{"SREM", thread_runs(t), r}, {"SREM", run(r), t}});
    }
  }
};

}  // namespace superstep::storage
