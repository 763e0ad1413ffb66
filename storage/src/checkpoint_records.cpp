#include "checkpoint_records.hpp"

#include <kj/exception.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "capnp_message.hpp"
#include "checkpoint.capnp.h"
#include "superstep/core/error.hpp"
#include "superstep/core/two_threads.hpp"

namespace superstep::storage::records {

namespace {

// The record layout this code writes; a reader refuses a newer one.
constexpr std::uint16_t format = 1;
constexpr std::uint16_t versions_delta_format = 2;  // a checkpoint record with versionsBase
constexpr std::uint16_t bundle_format = 2;          // a PendingWrite holding a bundle
constexpr std::uint16_t grouped_bundle_format = 3;  // a bundle grouped by task

template <class Map>
std::vector<std::pair<std::string, channel_version>> sorted(const Map& versions) {
  std::vector<std::pair<std::string, channel_version>> out(versions.begin(), versions.end());
  std::sort(out.begin(), out.end());
  return out;
}

template <class Init, class Map>
void write_versions(Init&& init, const Map& versions) {
  const auto entries = sorted(versions);
  auto out = init(static_cast<unsigned>(entries.size()));
  for (unsigned i = 0; i < entries.size(); ++i) {
    out[i].setChannel(text(entries[i].first));
    out[i].setVersion(entries[i].second);
  }
}

std::unordered_map<std::string, channel_version> read_versions(
    capnp::List<schema::ChannelVersion>::Reader in) {
  std::unordered_map<std::string, channel_version> out;
  out.reserve(in.size());
  for (auto entry : in) out.insert_or_assign(text_of(entry.getChannel()), entry.getVersion());
  return out;
}

void check_format(std::uint16_t found, const char* what, std::uint16_t newest = format) {
  if (found == 0 || found > newest)
    throw error(error_code::storage_error,
                std::string(what) + " record format " + std::to_string(found) +
                    " is not one this build reads (1.." + std::to_string(newest) + ")");
}

// Runs the read-and-walk `f`, turning Cap'n Proto's errors into ours.
template <class F>
auto guarded(F&& f) {
  try {
    return f();
  } catch (const kj::Exception& e) {
    throw error(error_code::storage_error, e.getDescription().cStr());
  }
}

}  // namespace

std::string encode_checkpoint(const checkpoint& cp, const checkpoint_metadata& metadata,
                              const std::string& parent_id, const serializer& serde,
                              const versions_delta* delta) {
  capnp::MallocMessageBuilder builder(256);
  auto record = builder.initRoot<schema::CheckpointRecord>();
  record.setFormat(delta ? versions_delta_format : format);
  if (delta) {
    record.setVersionsBase(text(delta->base));
    record.setVersionsDepth(delta->depth);
  }
  record.setParentCheckpointId(text(parent_id));
  const std::string serde_name(serde.name());
  record.setSerializer(text(serde_name));

  auto c = record.initCheckpoint();
  c.setV(cp.v);
  c.setId(text(cp.id));
  c.setTs(text(cp.ts));
  std::vector<std::string> nodes;
  if (delta) {
    auto versions = c.initChannelVersions(static_cast<unsigned>(delta->channels->size()));
    for (unsigned i = 0; i < delta->channels->size(); ++i) {
      const std::string& channel = (*delta->channels)[i];
      versions[i].setChannel(text(channel));
      versions[i].setVersion(cp.channel_versions.at(channel));
    }
  } else {
    write_versions([&](unsigned n) { return c.initChannelVersions(n); }, cp.channel_versions);
    nodes.reserve(cp.versions_seen.size());
    for (const auto& [node, versions] : cp.versions_seen) nodes.push_back(node);
    std::sort(nodes.begin(), nodes.end());
  }
  const std::vector<std::string>& seen_nodes = delta ? *delta->nodes : nodes;
  auto seen = c.initVersionsSeen(static_cast<unsigned>(seen_nodes.size()));
  for (unsigned i = 0; i < seen_nodes.size(); ++i) {
    seen[i].setNode(text(seen_nodes[i]));
    write_versions([&](unsigned n) { return seen[i].initVersions(n); },
                   cp.versions_seen.at(seen_nodes[i]));
  }
  auto updated = c.initUpdatedChannels(static_cast<unsigned>(cp.updated_channels.size()));
  for (unsigned i = 0; i < cp.updated_channels.size(); ++i)
    updated.set(i, text(cp.updated_channels[i]));

  auto m = record.initMetadata();
  m.setSource(text(metadata.source));
  m.setStep(metadata.step);
  auto parents = m.initParents(static_cast<unsigned>(metadata.parents.size()));
  unsigned i = 0;
  for (const auto& [ns, id] : metadata.parents) {
    parents[i].setCheckpointNs(text(ns));
    parents[i++].setCheckpointId(text(id));
  }
  // `writes` (@3) is no longer written (LangGraph dropped it); older records keep theirs.
  m.setExtra(data_ptr(serde.dumps(value(metadata.extra))));
  return message_bytes(builder);
}

stored_checkpoint decode_checkpoint(std::string_view bytes, const serializer& serde) {
  stored_checkpoint out;
  std::string extra;
  guarded([&] {
    message_reader reader(bytes, capnp::ReaderOptions());
    auto record = reader.root<schema::CheckpointRecord>();
    check_format(record.getFormat(), "checkpoint", versions_delta_format);
    out.parent_id = text_of(record.getParentCheckpointId());
    if (record.getFormat() == versions_delta_format) {
      out.versions_base = text_of(record.getVersionsBase());
      out.versions_depth = record.getVersionsDepth();
      if (out.versions_base.empty() || out.versions_depth == 0)
        throw error(error_code::storage_error,
                    "a checkpoint record of format 2 names no base checkpoint or depth 0");
    }
    out.serializer = text_of(record.getSerializer());

    auto c = record.getCheckpoint();
    out.cp.v = c.getV();
    out.cp.id = text_of(c.getId());
    out.cp.ts = text_of(c.getTs());
    out.cp.channel_versions = read_versions(c.getChannelVersions());
    for (auto node : c.getVersionsSeen())
      out.cp.versions_seen.insert_or_assign(text_of(node.getNode()),
                                            read_versions(node.getVersions()));
    for (auto channel : c.getUpdatedChannels()) out.cp.updated_channels.push_back(text_of(channel));

    auto m = record.getMetadata();
    out.metadata.source = text_of(m.getSource());
    out.metadata.step = m.getStep();
    for (auto parent : m.getParents())
      out.metadata.parents.insert_or_assign(text_of(parent.getCheckpointNs()),
                                            text_of(parent.getCheckpointId()));
    extra = data_of(m.getExtra());
    return 0;
  });

  // The serializer's errors say what is wrong; say which part and who wrote it.
  const auto load = [&](const std::string& part, const char* what) {
    try {
      return serde.loads(part);
    } catch (const error& e) {
      std::string why = std::string("metadata ") + what + ": " + e.what();
      if (out.serializer != serde.name())
        why += " (written by serializer '" + out.serializer + "', read with '" +
               std::string(serde.name()) + "')";
      throw error(error_code::storage_error, why);
    }
  };
  value extra_value = load(extra, "extra");
  if (!extra_value.is_object())
    throw error(error_code::storage_error, std::string("metadata extra is a ") +
                                               std::string(kind_name(extra_value.kind())) +
                                               ", not an object");
  out.metadata.extra = extra_value.as_object();
  return out;
}

std::string encode_write(const std::string& task_id, const std::string& channel,
                         const std::string& task_path, std::string_view value_bytes) {
  capnp::MallocMessageBuilder builder(64);
  auto record = builder.initRoot<schema::PendingWrite>();
  record.setFormat(format);
  record.setTaskId(text(task_id));
  record.setChannel(text(channel));
  record.setTaskPath(text(task_path));
  record.setValue(data_ptr(value_bytes));
  return message_bytes(builder);
}

void encode_write_bundles(const std::vector<task_writes>& tasks, const serializer& serde,
                          std::size_t max_writes, const bundle_sink& sink) {
  struct slice {
    const task_writes* task;
    std::size_t first, count;  // writes [first, first + count) of `task`
  };
  struct record {
    std::vector<slice> slices;
    std::size_t writes = 0;
  };
  max_writes = std::max<std::size_t>(max_writes, 1);
  std::vector<record> records(1);
  for (const auto& t : tasks) {
    std::size_t first = 0;
    do {
      if (records.back().writes == max_writes) records.emplace_back();
      record& r = records.back();
      const std::size_t count = std::min(t.writes.size() - first, max_writes - r.writes);
      r.slices.push_back(slice{&t, first, count});
      first += count;
      r.writes += count;
    } while (first < t.writes.size());
  }
  if (records.back().slices.empty()) records.pop_back();
  const auto encode = [&](std::size_t k) {
    const record& r = records[k];
    // The first segment sized for a batch of small writes; a bigger record grows in segments
    // with little slack.
    capnp_io::bounded_message_builder builder(
        static_cast<unsigned>(std::min<std::size_t>(64 + 24 * r.writes, std::size_t{1} << 20)));
    auto out = builder.initRoot<schema::PendingWrite>();
    out.setFormat(grouped_bundle_format);
    auto list = out.initTasks(static_cast<unsigned>(r.slices.size()));
    for (unsigned i = 0; i < r.slices.size(); ++i) {
      const slice& sl = r.slices[i];
      auto task = list[i];
      task.setTaskId(text(sl.task->task_id));
      task.setTaskPath(text(sl.task->task_path));
      task.setFirstIndex(static_cast<std::uint32_t>(sl.first));
      auto writes = task.initWrites(static_cast<unsigned>(sl.count));
      for (unsigned j = 0; j < sl.count; ++j) {
        const auto& [channel, v] = sl.task->writes[sl.first + j];
        writes[j].setChannel(text(channel));
        writes[j].setValue(data_ptr(serde.dumps(v)));
      }
    }
    // A big record (a fan-out's Sends) is packed: a third of the bytes to copy, log and hold
    // in the memtable.
    return capnp_io::message_bytes_for_size(builder);
  };
  // A task sending 10^6 Sends fills 62 records, encoded two at a time.
  superstep::detail::make_in_order_on_two_threads(
      records.size(), encode, [&](std::size_t k, std::string bytes) {
        sink(records[k].slices.front().task->task_id, std::move(bytes), records[k].writes);
      });
}

std::vector<pending_write> decode_writes(std::string_view bytes, const serializer& serde,
                                         std::vector<std::uint32_t>* indexes) {
  std::vector<pending_write> out;
  if (indexes) indexes->clear();
  std::vector<std::string> values = guarded([&] {
    message_reader reader(bytes, capnp::ReaderOptions());
    auto record = reader.root<schema::PendingWrite>();
    std::vector<std::string> v;
    auto take = [&](schema::PendingWrite::Reader w) {
      pending_write p;
      p.task_id = text_of(w.getTaskId());
      p.channel = text_of(w.getChannel());
      out.push_back(std::move(p));
      v.push_back(data_of(w.getValue()));
    };
    if (record.getFormat() == grouped_bundle_format) {
      for (auto t : record.getTasks()) {
        std::string task_id = text_of(t.getTaskId());
        std::uint32_t index = t.getFirstIndex();
        for (auto w : t.getWrites()) {
          out.push_back(pending_write{task_id, text_of(w.getChannel()), value()});
          v.push_back(data_of(w.getValue()));
          if (indexes) indexes->push_back(index++);
        }
      }
    } else if (record.getFormat() == bundle_format) {
      // Format 2: each task's writes in one record, consecutive, from index 0.
      for (auto w : record.getBundle()) {
        check_format(w.getFormat(), "pending write");
        take(w);
        if (indexes) {
          const bool same_task =
              out.size() > 1 && out[out.size() - 2].task_id == out.back().task_id;
          indexes->push_back(same_task ? indexes->back() + 1 : 0);
        }
      }
    } else {
      check_format(record.getFormat(), "pending write");
      take(record);
    }
    return v;
  });
  for (std::size_t i = 0; i < out.size(); ++i) out[i].v = serde.loads(values[i]);
  return out;
}

pending_write decode_write(std::string_view bytes, const serializer& serde) {
  pending_write out;
  std::string value_bytes = guarded([&] {
    message_reader reader(bytes, capnp::ReaderOptions());
    auto record = reader.root<schema::PendingWrite>();
    check_format(record.getFormat(), "pending write");
    out.task_id = text_of(record.getTaskId());
    out.channel = text_of(record.getChannel());
    return data_of(record.getValue());
  });
  out.v = serde.loads(value_bytes);
  return out;
}

std::string encode_list_delta(const list_delta& delta) {
  capnp::MallocMessageBuilder builder(static_cast<unsigned>(8 + delta.items.size() / 8));
  auto record = builder.initRoot<schema::ListDelta>();
  record.setFormat(format);
  record.setBase(delta.base);
  record.setBaseLength(delta.base_length);
  record.setItems(data_ptr(delta.items));
  return message_bytes(builder);
}

list_delta decode_list_delta(std::string_view bytes) {
  return guarded([&] {
    message_reader reader(bytes, capnp::ReaderOptions());
    auto record = reader.root<schema::ListDelta>();
    check_format(record.getFormat(), "list delta");
    return list_delta{record.getBase(), record.getBaseLength(), data_of(record.getItems())};
  });
}

}  // namespace superstep::storage::records
