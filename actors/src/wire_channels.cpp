// The channel actors' messages as Cap'n Proto (schema/wire.capnp): writes, the two-phase
// commit's prepares and votes, placements and pushes.
#include "wire_support.hpp"

namespace superstep::actors::wire_codec {

using namespace detail;

std::string encode(const channel_writes& m) {
  if (m.result)
    throw error(error_code::internal, "channel writes carrying a batch's result left its process");
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::ChannelWrites>();
  root.setFormat(format);
  root.setStep(m.step);
  put_writes(root.initWrites(static_cast<unsigned>(m.writes.size())), m.writes);
  root.setChunk(m.chunk);
  root.setHasPrepare(m.prepare.has_value());
  if (m.prepare) put_prepare(root.initPrepare(), *m.prepare);
  std::string bytes = message_bytes_for_size(builder, pack_from);
  tally(channel_out, channel_bytes_out, bytes.size());
  return bytes;
}

void decode(std::string_view bytes, channel_writes& m) {
  tally(channel_in, channel_bytes_in, bytes.size());
  read_message<wire::ChannelWrites>(bytes, "channel writes", [&](wire::ChannelWrites::Reader root) {
    m.step = root.getStep();
    m.writes = get_writes(root.getWrites());
    m.chunk = root.getChunk();
    if (root.getHasPrepare())
      m.prepare = get_prepare(root.getPrepare());
    else
      m.prepare.reset();
  });
}

std::string encode(const step_prepare& m) {
  capnp_io::bounded_message_builder builder(256);
  put_prepare(builder.initRoot<wire::StepPrepare>(), m);
  std::string bytes = message_bytes_for_size(builder, pack_from);
  tally(channel_out, channel_bytes_out, bytes.size());
  return bytes;
}

void decode(std::string_view bytes, step_prepare& m) {
  read_message<wire::StepPrepare>(bytes, "step prepare",
                                  [&](wire::StepPrepare::Reader root) { m = get_prepare(root); });
}

std::string encode(const step_vote& m) {
  if (!m.results.empty())
    throw error(error_code::internal, "a vote carrying batches' results left its process");
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::StepVote>();
  root.setFormat(format);
  root.setStep(m.step);
  root.setOk(!m.error);
  if (m.error) put_error(root.initError(), *m.error);
  put_deltas(root.initChanged(static_cast<unsigned>(m.changes.changed.size())), m.changes.changed);
  put_strings(root.initUpdated(static_cast<unsigned>(m.changes.updated.size())), m.changes.updated);
  // A value for replicas that is the checkpoint value itself (most channels') goes once.
  const auto n = static_cast<unsigned>(m.changes.values.size());
  auto as_changed = root.initValuesAsChanged(n);
  auto values = root.initValues(n);
  for (unsigned i = 0; i < n; ++i) {
    const channel_delta& v = m.changes.values[i];
    const bool same = i < m.changes.changed.size() && v.present == m.changes.changed[i].present &&
                      (!v.present || v.v.same_instance(m.changes.changed[i].v));
    as_changed.set(i, same);
    if (same) {
      values[i].setChannel(text(v.channel));
      continue;
    }
    put_deltas_one(values[i], v);
  }
  put_strings(root.initOverwritten(static_cast<unsigned>(m.changes.overwritten.size())),
              m.changes.overwritten);
  put_strings(root.initAvailable(static_cast<unsigned>(m.changes.available.size())),
              m.changes.available);
  return message_bytes_for_size(builder, pack_from);
}

void decode(std::string_view bytes, step_vote& m) {
  tally(channel_in, channel_bytes_in, bytes.size());
  read_message<wire::StepVote>(bytes, "step vote", [&](wire::StepVote::Reader root) {
    m.step = root.getStep();
    m.error.reset();
    if (!root.getOk()) m.error = get_error(root.getError());
    m.changes.changed = get_deltas(root.getChanged());
    m.changes.updated = get_strings(root.getUpdated());
    m.changes.values = get_deltas(root.getValues());
    m.changes.overwritten = get_strings(root.getOverwritten());
    m.changes.available = get_strings(root.getAvailable());
    if (m.changes.values.size() != m.changes.changed.size())
      throw error(code, "step vote: " + std::to_string(m.changes.values.size()) + " values for " +
                            std::to_string(m.changes.changed.size()) + " changed channels");
    auto as_changed = root.getValuesAsChanged();
    for (unsigned i = 0; i < as_changed.size() && i < m.changes.values.size(); ++i)
      if (as_changed[i]) m.changes.values[i] = m.changes.changed[i];
  });
}

std::string encode(const channel_placement& m) {
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::ChannelPlacement>();
  root.setFormat(format);
  root.setGraph(text(m.graph));
  put_deltas(root.initValues(static_cast<unsigned>(m.values.size())), m.values);
  put_versions(root.initVersions(static_cast<unsigned>(m.versions.size())), m.versions);
  root.setClosedThrough(m.closed_through);
  std::string bytes = message_bytes_for_size(builder, pack_from);
  tally(channel_out, channel_bytes_out, bytes.size());
  return bytes;
}

void decode(std::string_view bytes, channel_placement& m) {
  read_message<wire::ChannelPlacement>(bytes, "channel placement",
                                       [&](wire::ChannelPlacement::Reader root) {
                                         m.graph = text_of(root.getGraph());
                                         m.values = get_deltas(root.getValues());
                                         m.versions = get_versions(root.getVersions());
                                         m.closed_through = root.getClosedThrough();
                                       });
}

std::string encode(const channel_push& m) {
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::ChannelPush>();
  root.setFormat(format);
  root.setStep(m.step);
  put_deltas(root.initValues(static_cast<unsigned>(m.values.size())), m.values);
  put_versions(root.initVersions(static_cast<unsigned>(m.versions.size())), m.versions);
  return message_bytes_for_size(builder, pack_from);
}

void decode(std::string_view bytes, channel_push& m) {
  read_message<wire::ChannelPush>(bytes, "channel push", [&](wire::ChannelPush::Reader root) {
    m.step = root.getStep();
    m.values = get_deltas(root.getValues());
    m.versions = get_versions(root.getVersions());
    if (!m.versions.empty() && m.versions.size() != m.values.size())
      throw error(code, "channel push: " + std::to_string(m.versions.size()) + " versions for " +
                            std::to_string(m.values.size()) + " values");
  });
}

std::string encode(const value& v) {
  capnp_io::bounded_message_builder builder(128);
  auto root = builder.initRoot<wire::Envelope>();
  root.setFormat(format);
  put(root.initValue(), v);
  return message_bytes_for_size(builder, pack_from);
}

void decode(std::string_view bytes, value& v) {
  read_message<wire::Envelope>(bytes, "value",
                               [&](wire::Envelope::Reader root) { v = get(root.getValue()); });
}

}  // namespace superstep::actors::wire_codec
