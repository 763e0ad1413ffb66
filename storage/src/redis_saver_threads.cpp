// Whole threads and runs in a redis_saver: deleting, copying and pruning them.
#include "redis_saver_impl.hpp"

namespace superstep::storage {

void redis_saver::delete_thread(const std::string& thread_id) {
  impl& d = *impl_;
  auto all = d.thread_ids(thread_id);
  auto runs = redis_detail::strings_of(d.conn.command({"SMEMBERS", d.thread_runs(thread_id)}));
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
  auto source_runs = redis_detail::strings_of(d.conn.command({"SMEMBERS", d.thread_runs(source)}));
  auto target_runs = redis_detail::strings_of(d.conn.command({"SMEMBERS", d.thread_runs(target)}));
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
    auto threads = redis_detail::strings_of(d.conn.command({"SMEMBERS", d.run(r)}));
    for (const auto& t : threads) {
      // The run's members in the thread, by namespace; a checkpoint put again under its id
      // for another run has left this run, so each record says whether it still belongs.
      std::map<std::string, std::vector<std::string>> by_ns;
      for (const auto& member :
           redis_detail::strings_of(d.conn.command({"SMEMBERS", d.run_in_thread(t, r)}))) {
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
          const std::string* of = redis_detail::run_of(stored.metadata);
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
