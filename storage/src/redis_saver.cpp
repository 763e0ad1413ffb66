#include <algorithm>

#include "redis_saver_impl.hpp"

namespace superstep::storage {

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
  require_thread(config.thread_id, redis_detail::saver_name, "put");
  require_checkpoint_id(cp.id, redis_detail::saver_name, "put (checkpoint.id)");
  impl& d = *impl_;
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  std::vector<redis_command> cmds;
  // A checkpoint that keeps versions its parent's line stored relies on their blobs: the blob
  // hash must still hold the marker they wrote, checked in the same transaction.
  const bool relies =
      !config.checkpoint_id.empty() &&
      std::any_of(cp.channel_versions.begin(), cp.channel_versions.end(), [&](const auto& cv) {
        auto it = new_versions.find(cv.first);
        return it == new_versions.end() || it->second != cv.second;
      });
  if (relies) cmds.push_back({"HEXISTS", d.blobs(t, ns), redis_detail::blobs_marker});
  channel_version top = 0;
  redis_command hset{"HSET", d.blobs(t, ns), redis_detail::blobs_marker, std::string()};
  for (const auto& [channel, version] : new_versions) {
    hset.push_back(redis_detail::blob_field(channel, version));
    auto it = cp.channel_values.find(channel);
    // A cleared channel's version holds empty bytes: taken, without a value.
    hset.push_back(it == cp.channel_values.end() ? std::string() : d.serde->dumps(it->second));
    top = std::max(top, version);
  }
  cmds.push_back(std::move(hset));
  for (const auto& [_, version] : cp.channel_versions) top = std::max(top, version);
  cmds.push_back({"HSET", d.records(t, ns), cp.id,
                  records::encode_checkpoint(cp, metadata, config.checkpoint_id, *d.serde)});
  cmds.push_back({"ZADD", d.ids(t, ns), "0", cp.id});
  cmds.push_back({"ZADD", d.namespaces(t), "0", ns});
  cmds.push_back({"ZADD", d.threads(), "0", t});
  if (top > 0)
    cmds.push_back({"EVAL", redis_detail::top_script, "1", d.top(t, ns), std::to_string(top)});
  if (const std::string* run_id = redis_detail::run_of(metadata)) {
    cmds.push_back({"SADD", d.run_in_thread(t, *run_id), redis_detail::run_member(ns, cp.id)});
    cmds.push_back({"SADD", d.thread_runs(t), *run_id});
    cmds.push_back({"SADD", d.run(*run_id), t});
  }
  auto replies = d.conn.transaction(cmds);
  if (relies && (replies.empty() || replies.front().integer != 1)) {
    // The blobs it relies on went with the key (a FLUSHALL, an eviction, a DEL mid-run): the
    // checkpoint just written would read without them, so it goes again, and the run fails.
    d.conn.transaction({{"HDEL", d.records(t, ns), cp.id}, {"ZREM", d.ids(t, ns), cp.id}});
    throw error(error_code::storage_error,
                std::string(redis_detail::saver_name) + ": cannot save " +
                    redis_detail::describe(t, ns, cp.id) + ": the hash of the blobs it keeps, " +
                    d.blobs(t, ns) + ", is missing " + redis_detail::lost_keys);
  }
  return checkpoint_config{t, ns, cp.id};
}

void redis_saver::put_writes(const checkpoint_config& config,
                             const std::vector<std::pair<std::string, value>>& writes,
                             const std::string& task_id, const std::string& task_path) {
  put_writes_many(config, {task_writes{task_id, task_path, writes}});
}

void redis_saver::put_writes_many(const checkpoint_config& config,
                                  const std::vector<task_writes>& tasks) {
  require_thread(config.thread_id, redis_detail::saver_name, "put_writes");
  require_checkpoint_id(config.checkpoint_id, redis_detail::saver_name, "put_writes");
  impl& d = *impl_;
  const std::string key = d.writes(config.thread_id, config.checkpoint_ns, config.checkpoint_id);
  std::vector<redis_command> cmds;
  for (const auto& t : tasks)
    for (std::size_t i = 0; i < t.writes.size(); ++i) {
      const auto& [channel, v] = t.writes[i];
      const int index = write_index(channel, i);
      // A retried task saves the same writes again: the first copy of a normal write stays; a
      // special write (negative index) is the task's latest word and replaces the stored one.
      cmds.push_back({index < 0 ? "HSET" : "HSETNX", key,
                      redis_detail::write_field(t.task_id, index),
                      records::encode_write(t.task_id, channel, t.task_path, d.serde->dumps(v))});
    }
  if (!cmds.empty()) d.conn.transaction(cmds);
}

std::optional<checkpoint_tuple> redis_saver::get_tuple(const checkpoint_config& config) {
  require_thread(config.thread_id, redis_detail::saver_name, "get_tuple");
  impl& d = *impl_;
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  auto found = d.conn.command({"EVAL", redis_detail::get_script, "2", d.ids(t, ns),
                               d.records(t, ns), config.checkpoint_id, d.writes_prefix(t, ns)});
  if (found.type != redis_reply::kind::array || found.elements.size() != 3) {
    // No checkpoint, in a namespace every put registers: its ids or records are gone.
    if (config.checkpoint_id.empty() && !d.conn.command({"ZSCORE", d.namespaces(t), ns}).is_nil())
      throw error(error_code::storage_error,
                  std::string(redis_detail::saver_name) + ": thread '" + t + "'" +
                      (ns.empty() ? "" : " namespace '" + ns + "'") +
                      " has no checkpoint left in " + d.ids(t, ns) + " and " + d.records(t, ns) +
                      ", yet " + d.namespaces(t) + " names it " + redis_detail::lost_keys);
    return std::nullopt;
  }
  const std::string id = found.elements[0].str;
  auto stored = d.decode(t, ns, id, found.elements[1].str);
  redis_reply blobs;
  if (!stored.cp.channel_versions.empty()) blobs = d.conn.command(d.blobs_command(t, ns, stored));
  return d.make_tuple(t, ns, id, std::move(stored), blobs, found.elements[2]);
}

channel_version redis_saver::latest_version(const checkpoint_config& config) {
  require_thread(config.thread_id, redis_detail::saver_name, "latest_version");
  impl& d = *impl_;
  const std::string& t = config.thread_id;
  const std::string& ns = config.checkpoint_ns;
  auto r = d.conn.command({"GET", d.top(t, ns)});
  if (r.is_nil()) {
    // Versions issued (blobs stored besides the marker) but no highest one: the key is gone,
    // and versions issued again from 1 would overwrite the blobs of older checkpoints.
    if (d.conn.command({"HLEN", d.blobs(t, ns)}).integer > 1)
      throw error(error_code::storage_error,
                  std::string(redis_detail::saver_name) + ": the highest version of thread '" + t +
                      "', " + d.top(t, ns) + ", is missing " + redis_detail::lost_keys);
    return 0;
  }
  try {
    return static_cast<channel_version>(std::stoull(r.str));
  } catch (const std::exception&) {
    throw error(error_code::storage_error,
                std::string(redis_detail::saver_name) + ": the highest version of thread '" +
                    config.thread_id + "' is not a number: '" + r.str + "'");
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
    auto threads = redis_detail::strings_of(
        d.conn.command({"ZRANGEBYLEX", d.threads(), min, "+", "LIMIT", "0", "64"}));
    for (const auto& t : threads) {
      if (full()) break;
      d.list_thread(t, config, options, out);
    }
    if (threads.size() < 64) break;
    min = "(" + threads.back();
  }
  return out;
}

}  // namespace superstep::storage
