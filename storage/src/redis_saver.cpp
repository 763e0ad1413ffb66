#include "superstep/storage/redis_saver.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "checkpoint_records.hpp"
#include "rocksdb_keys.hpp"
#include "saver_checks.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/write_index.hpp"

namespace superstep::storage {

namespace {

constexpr const char* saver_name = "redis_saver";

// A key part with '%' and ':' escaped, so that keys split on ':' unambiguously.
std::string enc(std::string_view part) {
  std::string out;
  out.reserve(part.size());
  for (char c : part) {
    if (c == '%')
      out += "%25";
    else if (c == ':')
      out += "%3A";
    else
      out += c;
  }
  return out;
}

// The field of a blob: "<version>:<channel>".
std::string blob_field(const std::string& channel, channel_version version) {
  return std::to_string(version) + ":" + channel;
}

// The field of a pending write: task id and index, so that the byte order of fields is
// memory_saver's order of writes (by task id, then index, special writes first).
std::string write_field(const std::string& task_id, int index) {
  std::string field;
  keys::append_string(field, task_id);
  keys::append_i32(field, index);
  return field;
}

// A member of a run's set in a thread: S(namespace) id.
std::string run_member(const std::string& ns, const std::string& id) {
  return keys::prefix(ns) + id;
}

std::string describe(const std::string& thread_id, const std::string& ns, const std::string& id) {
  std::string out = "checkpoint " + id + " of thread '" + thread_id + "'";
  if (!ns.empty()) out += " in namespace '" + ns + "'";
  return out;
}

const std::string* run_of(const checkpoint_metadata& metadata) {
  const value* run_id = metadata.extra.find("run_id");
  if (!run_id || !run_id->is_string() || run_id->as_string().empty()) return nullptr;
  return &run_id->as_string();
}

std::vector<std::string> strings_of(const redis_reply& r) {
  std::vector<std::string> out;
  out.reserve(r.elements.size());
  for (const auto& e : r.elements) out.push_back(e.str);
  return out;
}

// Keeps the highest version stored in a namespace (P:t:T:N:top).
constexpr const char* top_script =
    "local c = tonumber(redis.call('GET', KEYS[1]) or '0') "
    "if tonumber(ARGV[1]) > c then redis.call('SET', KEYS[1], ARGV[1]) end "
    "return 0";

// The checkpoint ARGV[1] (the latest of KEYS[1] when empty): {id, record, writes as HGETALL
// gives them} or nil. KEYS[2] is the records hash, ARGV[2] the writes keys' prefix.
constexpr const char* get_script =
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

}  // namespace

struct redis_saver::impl {
  impl(redis_options connection, redis_saver_options options)
      : conn(std::move(connection)),
        serde(options.serde ? std::move(options.serde) : make_capnp_serializer()),
        prefix(std::move(options.prefix)) {
    conn.set_owner(saver_name);
  }

  redis_connection conn;
  std::shared_ptr<const serializer> serde;
  std::string prefix;

  // Keys (see redis_saver.hpp).
  std::string threads() const { return prefix + ":threads"; }
  std::string thread(const std::string& t) const { return prefix + ":t:" + enc(t); }
  std::string namespaces(const std::string& t) const { return thread(t) + ":ns"; }
  std::string thread_runs(const std::string& t) const { return thread(t) + ":runs"; }
  std::string base(const std::string& t, const std::string& ns) const {
    return thread(t) + ":" + enc(ns);
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
    return writes_prefix(t, ns) + enc(id);
  }
  // The threads with checkpoints of run R, and the checkpoints of R in thread T.
  std::string run(const std::string& r) const { return prefix + ":run:" + enc(r); }
  std::string run_in_thread(const std::string& t, const std::string& r) const {
    return thread(t) + ":run:" + enc(r);
  }

  records::stored_checkpoint decode(const std::string& t, const std::string& ns,
                                    const std::string& id, std::string_view bytes) const {
    try {
      return records::decode_checkpoint(bytes, *serde);
    } catch (const error& e) {
      throw error(error_code::storage_error, std::string(saver_name) + ": cannot read " +
                                                 describe(t, ns, id) + ": " + e.what());
    }
  }

  // The commands that read what a tuple needs besides its record: the blobs of its versions.
  redis_command blobs_command(const std::string& t, const std::string& ns,
                              const records::stored_checkpoint& stored) const {
    redis_command cmd{"HMGET", blobs(t, ns)};
    for (const auto& [channel, version] : stored.cp.channel_versions)
      cmd.push_back(blob_field(channel, version));
    return cmd;
  }

  // A tuple from its record, the reply of `blobs_command` and the writes (HGETALL's reply).
  checkpoint_tuple make_tuple(const std::string& t, const std::string& ns, const std::string& id,
                              records::stored_checkpoint stored, const redis_reply& blob_reply,
                              const redis_reply& writes_reply) const {
    const auto fail = [&](const std::string& what, const std::string& why) {
      return error(error_code::storage_error, std::string(saver_name) + ": cannot read " +
                                                  describe(t, ns, id) + ": " + what + ": " + why);
    };
    checkpoint_tuple tuple;
    tuple.config = checkpoint_config{t, ns, id};
    std::size_t i = 0;
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
      std::vector<std::string> id_list = strings_of(id_reply);
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
    for (const auto& ns : strings_of(conn.command({"ZRANGE", namespaces(t), "0", "-1"}))) {
      if (options.limit && out.size() >= *options.limit) return;
      list_namespace(t, ns, config, options, out);
    }
  }

  // The checkpoint ids of every namespace of thread t, oldest first.
  std::map<std::string, std::vector<std::string>> thread_ids(const std::string& t) {
    std::map<std::string, std::vector<std::string>> out;
    auto nss = strings_of(conn.command({"ZRANGE", namespaces(t), "0", "-1"}));
    if (nss.empty()) return out;
    std::vector<redis_command> cmds;
    for (const auto& ns : nss) cmds.push_back({"ZRANGE", ids(t, ns), "0", "-1"});
    auto replies = conn.pipeline(cmds);
    for (std::size_t i = 0; i < nss.size(); ++i) out[nss[i]] = strings_of(replies[i]);
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
          if (const std::string* rid = run_of(stored.metadata)) {
            cmds.push_back({"SREM", run_in_thread(t, *rid), run_member(ns, id)});
            touched_runs.insert(*rid);
          }
          continue;
        }
        ++kept;
        for (const auto& [channel, version] : stored.cp.channel_versions)
          used.insert(blob_field(channel, version));
      }
      if (hdel_cp.size() == 2) continue;  // nothing dropped here
      redis_command hdel_blobs{"HDEL", blobs(t, ns)};
      for (const auto& field : strings_of(replies[2 * n + 1]))
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

redis_saver::redis_saver(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
redis_saver::~redis_saver() = default;

std::unique_ptr<redis_saver> redis_saver::open(const std::string& url,
                                               redis_saver_options options) {
  if (options.prefix.empty())
    throw error(error_code::invalid_argument, "redis_saver: the key prefix is empty");
  redis_options connection;
  connection.url = redis_url::parse(url);
  connection.connect_timeout = options.connect_timeout;
  connection.command_timeout = options.command_timeout;
  return std::unique_ptr<redis_saver>(
      new redis_saver(std::make_unique<impl>(std::move(connection), std::move(options))));
}

std::string redis_saver::server() const { return impl_->conn.url().server(); }

checkpoint_config redis_saver::put(const checkpoint_config& config, const checkpoint& cp,
                                   const checkpoint_metadata& metadata,
                                   const std::map<std::string, channel_version>& new_versions) {
  require_thread(config.thread_id, saver_name, "put");
  require_checkpoint_id(cp.id, saver_name, "put (checkpoint.id)");
  impl& d = *impl_;
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  std::vector<redis_command> cmds;
  channel_version top = 0;
  if (!new_versions.empty()) {
    redis_command hset{"HSET", d.blobs(t, ns)};
    for (const auto& [channel, version] : new_versions) {
      hset.push_back(blob_field(channel, version));
      auto it = cp.channel_values.find(channel);
      // A cleared channel's version holds empty bytes: taken, without a value.
      hset.push_back(it == cp.channel_values.end() ? std::string() : d.serde->dumps(it->second));
      top = std::max(top, version);
    }
    cmds.push_back(std::move(hset));
  }
  for (const auto& [_, version] : cp.channel_versions) top = std::max(top, version);
  cmds.push_back({"HSET", d.records(t, ns), cp.id,
                  records::encode_checkpoint(cp, metadata, config.checkpoint_id, *d.serde)});
  cmds.push_back({"ZADD", d.ids(t, ns), "0", cp.id});
  cmds.push_back({"ZADD", d.namespaces(t), "0", ns});
  cmds.push_back({"ZADD", d.threads(), "0", t});
  if (top > 0) cmds.push_back({"EVAL", top_script, "1", d.top(t, ns), std::to_string(top)});
  if (const std::string* run_id = run_of(metadata)) {
    cmds.push_back({"SADD", d.run_in_thread(t, *run_id), run_member(ns, cp.id)});
    cmds.push_back({"SADD", d.thread_runs(t), *run_id});
    cmds.push_back({"SADD", d.run(*run_id), t});
  }
  d.conn.transaction(cmds);
  return checkpoint_config{t, ns, cp.id};
}

void redis_saver::put_writes(const checkpoint_config& config,
                             const std::vector<std::pair<std::string, value>>& writes,
                             const std::string& task_id, const std::string& task_path) {
  put_writes_many(config, {task_writes{task_id, task_path, writes}});
}

void redis_saver::put_writes_many(const checkpoint_config& config,
                                  const std::vector<task_writes>& tasks) {
  require_thread(config.thread_id, saver_name, "put_writes");
  require_checkpoint_id(config.checkpoint_id, saver_name, "put_writes");
  impl& d = *impl_;
  const std::string key = d.writes(config.thread_id, config.checkpoint_ns, config.checkpoint_id);
  std::vector<redis_command> cmds;
  for (const auto& t : tasks)
    for (std::size_t i = 0; i < t.writes.size(); ++i) {
      const auto& [channel, v] = t.writes[i];
      const int index = write_index(channel, i);
      // A retried task saves the same writes again: the first copy of a normal write stays; a
      // special write (negative index) is the task's latest word and replaces the stored one.
      cmds.push_back({index < 0 ? "HSET" : "HSETNX", key, write_field(t.task_id, index),
                      records::encode_write(t.task_id, channel, t.task_path, d.serde->dumps(v))});
    }
  if (!cmds.empty()) d.conn.transaction(cmds);
}

std::optional<checkpoint_tuple> redis_saver::get_tuple(const checkpoint_config& config) {
  require_thread(config.thread_id, saver_name, "get_tuple");
  impl& d = *impl_;
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  auto found = d.conn.command({"EVAL", get_script, "2", d.ids(t, ns), d.records(t, ns),
                               config.checkpoint_id, d.writes_prefix(t, ns)});
  if (found.type != redis_reply::kind::array || found.elements.size() != 3) return std::nullopt;
  const std::string id = found.elements[0].str;
  auto stored = d.decode(t, ns, id, found.elements[1].str);
  redis_reply blobs;
  if (!stored.cp.channel_versions.empty()) blobs = d.conn.command(d.blobs_command(t, ns, stored));
  return d.make_tuple(t, ns, id, std::move(stored), blobs, found.elements[2]);
}

channel_version redis_saver::latest_version(const checkpoint_config& config) {
  require_thread(config.thread_id, saver_name, "latest_version");
  auto r = impl_->conn.command({"GET", impl_->top(config.thread_id, config.checkpoint_ns)});
  if (r.is_nil()) return 0;
  try {
    return static_cast<channel_version>(std::stoull(r.str));
  } catch (const std::exception&) {
    throw error(error_code::storage_error,
                std::string(saver_name) + ": the highest version of thread '" + config.thread_id +
                    "' is not a number: '" + r.str + "'");
  }
}

std::vector<checkpoint_tuple> redis_saver::list(const checkpoint_config& config,
                                                const list_options& options) {
  std::vector<checkpoint_tuple> out;
  const auto full = [&] { return options.limit && out.size() >= *options.limit; };
  if (full()) return out;
  impl& d = *impl_;
  if (!config.thread_id.empty()) {
    d.list_thread(config.thread_id, config, options, out);
    return out;
  }
  // Every thread, in thread id order, a page of thread ids at a time.
  std::string min = "-";
  while (!full()) {
    auto threads =
        strings_of(d.conn.command({"ZRANGEBYLEX", d.threads(), min, "+", "LIMIT", "0", "64"}));
    for (const auto& t : threads) {
      if (full()) break;
      d.list_thread(t, config, options, out);
    }
    if (threads.size() < 64) break;
    min = "(" + threads.back();
  }
  return out;
}

void redis_saver::delete_thread(const std::string& thread_id) {
  impl& d = *impl_;
  auto all = d.thread_ids(thread_id);
  auto runs = strings_of(d.conn.command({"SMEMBERS", d.thread_runs(thread_id)}));
  std::vector<redis_command> cmds;
  d.delete_thread_commands(thread_id, all, runs, cmds);
  d.conn.transaction(cmds);
}

void redis_saver::copy_thread(const std::string& source, const std::string& target) {
  if (source.empty() || target.empty())
    throw error(error_code::invalid_argument,
                "redis_saver::copy_thread needs non-empty source and target thread ids");
  impl& d = *impl_;
  auto from = d.thread_ids(source);
  if (from.empty())
    throw error(error_code::not_found, "redis_saver::copy_thread: no thread '" + source + "'");
  if (source == target) return;
  auto to = d.thread_ids(target);
  auto source_runs = strings_of(d.conn.command({"SMEMBERS", d.thread_runs(source)}));
  auto target_runs = strings_of(d.conn.command({"SMEMBERS", d.thread_runs(target)}));
  std::vector<redis_command> cmds;
  d.delete_thread_commands(target, to, target_runs, cmds);
  const auto copy = [&](const std::string& from_key, const std::string& to_key) {
    cmds.push_back({"COPY", from_key, to_key, "REPLACE"});
  };
  copy(d.namespaces(source), d.namespaces(target));
  copy(d.thread_runs(source), d.thread_runs(target));
  for (const auto& [ns, id_list] : from) {
    copy(d.ids(source, ns), d.ids(target, ns));
    copy(d.records(source, ns), d.records(target, ns));
    copy(d.blobs(source, ns), d.blobs(target, ns));
    copy(d.top(source, ns), d.top(target, ns));
    for (const auto& id : id_list) copy(d.writes(source, ns, id), d.writes(target, ns, id));
  }
  for (const auto& r : source_runs) {
    copy(d.run_in_thread(source, r), d.run_in_thread(target, r));
    cmds.push_back({"SADD", d.run(r), target});
  }
  cmds.push_back({"ZADD", d.threads(), "0", target});
  d.conn.transaction(cmds);
}

void redis_saver::prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) {
  for (const std::string& t : thread_ids)
    impl_->drop_checkpoints(t,
                            [keep_last](const std::string&, std::size_t index, std::size_t count,
                                        const std::string&) { return index + keep_last < count; });
}

void redis_saver::delete_checkpoints(const std::string& thread_id,
                                     const std::vector<checkpoint_config>& which) {
  std::set<std::pair<std::string, std::string>> gone;  // (namespace, id)
  for (const auto& c : which)
    if (c.thread_id == thread_id) gone.emplace(c.checkpoint_ns, c.checkpoint_id);
  if (gone.empty()) return;
  impl_->drop_checkpoints(
      thread_id, [&gone](const std::string& ns, std::size_t, std::size_t, const std::string& id) {
        return gone.count({ns, id}) > 0;
      });
}

void redis_saver::delete_writes(const checkpoint_config& config) {
  impl_->conn.command(
      {"DEL", impl_->writes(config.thread_id, config.checkpoint_ns, config.checkpoint_id)});
}

void redis_saver::delete_for_runs(const std::vector<std::string>& run_ids) {
  impl& d = *impl_;
  const std::set<std::string> runs(run_ids.begin(), run_ids.end());
  for (const auto& r : runs) {
    auto threads = strings_of(d.conn.command({"SMEMBERS", d.run(r)}));
    for (const auto& t : threads) {
      // The run's members in the thread, by namespace; a checkpoint put again under its id
      // for another run has left this run, so each record says whether it still belongs.
      std::map<std::string, std::vector<std::string>> by_ns;
      for (const auto& member : strings_of(d.conn.command({"SMEMBERS", d.run_in_thread(t, r)}))) {
        std::size_t pos = 0;
        auto ns = keys::read_string(member, pos);
        if (!ns)
          throw error(error_code::storage_error,
                      "redis_saver: a damaged member of " + d.run_in_thread(t, r));
        by_ns[*ns].push_back(member.substr(pos));
      }
      std::vector<redis_command> reads;
      for (const auto& [ns, id_list] : by_ns) {
        redis_command hmget{"HMGET", d.records(t, ns)};
        hmget.insert(hmget.end(), id_list.begin(), id_list.end());
        reads.push_back(std::move(hmget));
      }
      auto recs = d.conn.pipeline(reads);
      std::vector<checkpoint_config> which;
      std::size_t n = 0;
      for (const auto& [ns, id_list] : by_ns) {
        for (std::size_t i = 0; i < id_list.size(); ++i) {
          const redis_reply& rec = recs[n].elements.at(i);
          if (rec.is_nil()) continue;
          const auto stored = d.decode(t, ns, id_list[i], rec.str);
          const std::string* of = run_of(stored.metadata);
          if (of && *of == r) which.push_back(checkpoint_config{t, ns, id_list[i]});
        }
        ++n;
      }
      delete_checkpoints(t, which);
      d.conn.pipeline({{"DEL", d.run_in_thread(t, r)}, {"SREM", d.thread_runs(t), r}});
    }
    d.conn.command({"DEL", d.run(r)});
  }
}

}  // namespace superstep::storage
