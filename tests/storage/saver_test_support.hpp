#pragma once

// Helpers for saver tests: checkpoints with sortable ids, and value forms of checkpoints,
// configs and writes to compare them with a readable diff.

#include <boost/test/unit_test.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/checkpoint_saver.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/ids.hpp"
#include "support/expect_error.hpp"

namespace superstep::conformance {

inline value versions_value(const std::map<std::string, channel_version>& versions) {
  object o;
  for (const auto& [channel, version] : versions) o.set(channel, version);
  return value(std::move(o));
}

/// The same for the checkpoint's hash maps, in key order.
inline value versions_value(const std::unordered_map<std::string, channel_version>& versions) {
  return versions_value(std::map<std::string, channel_version>(versions.begin(), versions.end()));
}

/// A checkpoint as one value, to compare two of them with a readable diff.
inline value checkpoint_value(const checkpoint& cp) {
  object values;
  for (const auto& [channel, v] : cp.channel_values) values.set(channel, v);
  object seen;
  for (const auto& [node, versions] : cp.versions_seen) seen.set(node, versions_value(versions));
  list updated(cp.updated_channels.begin(), cp.updated_channels.end());
  return object{{"v", cp.v},
                {"id", cp.id},
                {"ts", cp.ts},
                {"channel_values", value(std::move(values))},
                {"channel_versions", versions_value(cp.channel_versions)},
                {"versions_seen", value(std::move(seen))},
                {"updated_channels", value(std::move(updated))}};
}

inline value config_value(const checkpoint_config& c) {
  return object{{"thread_id", c.thread_id},
                {"checkpoint_ns", c.checkpoint_ns},
                {"checkpoint_id", c.checkpoint_id}};
}

inline value optional_config_value(const std::optional<checkpoint_config>& c) {
  return c ? config_value(*c) : value();
}

inline value writes_value(const std::vector<pending_write>& writes) {
  list l;
  for (const auto& w : writes) l.push_back(value::array({w.task_id, w.channel, w.v}));
  return value(std::move(l));
}

/// The checkpoint ids of `tuples`, in order.
inline std::vector<std::string> ids_of(const std::vector<checkpoint_tuple>& tuples) {
  std::vector<std::string> ids;
  for (const auto& t : tuples) ids.push_back(t.checkpoint.id);
  return ids;
}

/// Builds checkpoints with ids that sort by creation, as the run loop issues them.
class checkpoint_builder {
 public:
  checkpoint make(std::map<std::string, value> values,
                  std::map<std::string, channel_version> versions) {
    checkpoint cp;
    cp.id = ids_.next();
    cp.ts = now_iso8601();
    cp.channel_values.insert(values.begin(), values.end());
    cp.channel_versions.insert(versions.begin(), versions.end());
    return cp;
  }

 private:
  checkpoint_id_generator ids_;
};

inline checkpoint_metadata loop_metadata(std::int64_t step, object extra = {}) {
  checkpoint_metadata m;
  m.source = step < 0 ? "input" : "loop";
  m.step = step;
  m.extra = std::move(extra);
  return m;
}

/// Puts `cp` as the child of `parent` (empty: none) in (thread, ns), naming every channel of
/// its versions as new. Returns the stored config.
inline checkpoint_config put_all(checkpoint_saver& saver, const std::string& thread,
                                 const std::string& ns, const std::string& parent,
                                 const checkpoint& cp, const checkpoint_metadata& meta) {
  return saver.put(checkpoint_config{thread, ns, parent}, cp, meta,
                   {cp.channel_versions.begin(), cp.channel_versions.end()});
}

using test::expect_error;

// Everything list() returns for (thread, ns), with the thread id blanked out, for comparing a
// thread with its copy.
inline value history_without_thread(checkpoint_saver& saver, const std::string& thread,
                                    const std::string& ns) {
  list out;
  for (auto& t : saver.list({thread, ns, ""}, {})) {
    BOOST_TEST(t.config.thread_id == thread);
    if (t.parent_config) BOOST_TEST(t.parent_config->thread_id == thread);
    out.push_back(object{{"ns", t.config.checkpoint_ns},
                         {"checkpoint", checkpoint_value(t.checkpoint)},
                         {"metadata", metadata_to_value(t.metadata)},
                         {"parent", t.parent_config ? t.parent_config->checkpoint_id : ""},
                         {"writes", writes_value(t.pending_writes)}});
  }
  return value(std::move(out));
}

}  // namespace superstep::conformance
