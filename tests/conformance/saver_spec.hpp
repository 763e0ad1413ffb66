#pragma once

// Helpers of the saver suites (saver_*_test.cpp), the counterparts of LangGraph's
// checkpoint-conformance test_utils.py: fresh ids, well-formed checkpoints, configs and
// metadata, and puts that chain a checkpoint to its parent.

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "storage/saver_test_support.hpp"
#include "superstep/core/ids.hpp"

namespace superstep::conformance {

/// A random uuid4-style id: a thread, task or run nobody else uses.
inline std::string uuid4() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  const std::uint64_t a = rng(), b = rng();
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    const std::uint64_t word = i < 16 ? a : b;
    out += hex[(word >> ((i % 16) * 4)) & 0xf];
  }
  out[14] = '4';
  return out;
}

/// A new checkpoint id, sorting after every id issued before it in this process.
inline std::string next_checkpoint_id() {
  static thread_local checkpoint_id_generator ids;
  return ids.next();
}

/// A well-formed checkpoint (test_utils.generate_checkpoint): a fresh id, now as ts.
inline checkpoint generate_checkpoint(
    std::map<std::string, value> values = {}, std::map<std::string, channel_version> versions = {},
    std::map<std::string, std::map<std::string, channel_version>> seen = {}) {
  checkpoint cp;
  cp.id = next_checkpoint_id();
  cp.ts = now_iso8601();
  cp.channel_values.insert(values.begin(), values.end());
  cp.channel_versions.insert(versions.begin(), versions.end());
  for (auto& [node, v] : seen) cp.versions_seen[node].insert(v.begin(), v.end());
  return cp;
}

/// test_utils.generate_metadata: {source, step, parents: {}} and the `extra` keys.
inline checkpoint_metadata generate_metadata(std::string source = "loop", std::int64_t step = 0,
                                             object extra = {}) {
  checkpoint_metadata m;
  m.source = std::move(source);
  m.step = step;
  m.extra = std::move(extra);
  return m;
}

/// The versions of `cp` as the `new_versions` of a put.
inline std::map<std::string, channel_version> all_versions(const checkpoint& cp) {
  return {cp.channel_versions.begin(), cp.channel_versions.end()};
}

/// Puts `cp` in (thread, ns) as the child of `parent` (none: a root), with `new_versions`.
inline checkpoint_config put_child(checkpoint_saver& saver, const std::string& thread,
                                   const std::string& ns,
                                   const std::optional<checkpoint_config>& parent,
                                   const checkpoint& cp, const checkpoint_metadata& md,
                                   const std::map<std::string, channel_version>& new_versions) {
  return saver.put(checkpoint_config{thread, ns, parent ? parent->checkpoint_id : ""}, cp, md,
                   new_versions);
}

/// Puts a chain of `n` empty checkpoints (steps 0..n-1) in (thread, ns); their configs, oldest
/// first.
inline std::vector<checkpoint_config> put_chain(checkpoint_saver& saver, const std::string& thread,
                                                std::size_t n, const std::string& ns = "") {
  std::vector<checkpoint_config> out;
  std::optional<checkpoint_config> parent;
  for (std::size_t i = 0; i < n; ++i) {
    parent = put_child(saver, thread, ns, parent, generate_checkpoint(),
                       generate_metadata("loop", static_cast<std::int64_t>(i)), {});
    out.push_back(*parent);
  }
  return out;
}

/// The config of (thread, ns), latest checkpoint.
inline checkpoint_config config_of(const std::string& thread, const std::string& ns = "") {
  return checkpoint_config{thread, ns, ""};
}

/// Everything `list` returns for (thread, ns) with the given options.
inline std::vector<checkpoint_tuple> list_of(checkpoint_saver& saver, const std::string& thread,
                                             const std::string& ns = "",
                                             list_options options = {}) {
  return saver.list(config_of(thread, ns), options);
}

/// The pending writes of `tuple` to `channel` by `task` (any task when empty).
inline std::vector<pending_write> writes_to(const checkpoint_tuple& tuple,
                                            const std::string& channel,
                                            const std::string& task = "") {
  std::vector<pending_write> out;
  for (const auto& w : tuple.pending_writes)
    if (w.channel == channel && (task.empty() || w.task_id == task)) out.push_back(w);
  return out;
}

/// The channel values of `cp` as one object.
inline value values_of(const checkpoint& cp) {
  object o;
  for (const auto& [channel, v] : cp.channel_values) o.set(channel, v);
  return value(std::move(o));
}

/// The metadata value of `key` in `tuple` (null when absent), as LangGraph's metadata.get.
inline value metadata_get(const checkpoint_tuple& tuple, const std::string& key) {
  const value m = metadata_to_value(tuple.metadata);
  const value* v = m.as_object().find(key);
  return v ? *v : value();
}

}  // namespace superstep::conformance
