#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/core/error.hpp"

namespace superstep::test {

// Forwards to a real saver; the calls switched on throw a storage error instead.
class throwing_saver final : public checkpoint_saver {
 public:
  explicit throwing_saver(std::shared_ptr<checkpoint_saver> inner) : inner_(std::move(inner)) {}

  std::atomic<bool> fail_put_writes{false};
  std::atomic<bool> fail_put{false};
  std::atomic<bool> fail_get_tuple{false};
  bool only_in_subgraphs = false;  // fail only calls for a non-empty checkpoint namespace

  checkpoint_config put(const checkpoint_config& config, const checkpoint& cp,
                        const checkpoint_metadata& metadata,
                        const std::map<std::string, channel_version>& new_versions) override {
    check(fail_put, config, "put");
    return inner_->put(config, cp, metadata, new_versions);
  }
  checkpoint_config put_changes(const checkpoint_config& config, const checkpoint& cp,
                                const checkpoint_metadata& metadata,
                                const checkpoint_changes& changes) override {
    check(fail_put, config, "put");
    return inner_->put_changes(config, cp, metadata, changes);
  }
  void put_writes(const checkpoint_config& config,
                  const std::vector<std::pair<std::string, value>>& writes,
                  const std::string& task_id, const std::string& task_path) override {
    check(fail_put_writes, config, "put_writes");
    inner_->put_writes(config, writes, task_id, task_path);
  }
  void put_writes_many(const checkpoint_config& config,
                       const std::vector<task_writes>& tasks) override {
    check(fail_put_writes, config, "put_writes");
    inner_->put_writes_many(config, tasks);
  }
  std::optional<checkpoint_tuple> get_tuple(const checkpoint_config& config) override {
    check(fail_get_tuple, config, "get_tuple");
    return inner_->get_tuple(config);
  }
  std::vector<checkpoint_tuple> list(const checkpoint_config& config,
                                     const list_options& options) override {
    return inner_->list(config, options);
  }
  void delete_thread(const std::string& thread_id) override { inner_->delete_thread(thread_id); }
  void copy_thread(const std::string& source, const std::string& target) override {
    inner_->copy_thread(source, target);
  }
  void prune(const std::vector<std::string>& thread_ids, std::size_t keep_last) override {
    inner_->prune(thread_ids, keep_last);
  }
  void delete_checkpoints(const std::string& thread_id,
                          const std::vector<checkpoint_config>& which) override {
    inner_->delete_checkpoints(thread_id, which);
  }
  void delete_writes(const checkpoint_config& config) override { inner_->delete_writes(config); }
  channel_version get_next_version(channel_version current) override {
    return inner_->get_next_version(current);
  }
  channel_version latest_version(const checkpoint_config& config) override {
    return inner_->latest_version(config);
  }

 private:
  void check(const std::atomic<bool>& flag, const checkpoint_config& config, const char* call) {
    if (!flag.load()) return;
    if (only_in_subgraphs && config.checkpoint_ns.empty()) return;
    throw error(error_code::storage_error, std::string(call) + ": the disk is on fire");
  }

  std::shared_ptr<checkpoint_saver> inner_;
};

}  // namespace superstep::test
