// Helpers shared by the protocol's Cap'n Proto codecs (wire.cpp: task batches and results;
// wire_channels.cpp: the channel actors' messages). Internal to the actors library.
#pragma once

#include <kj/exception.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/actors/channel_actor.hpp"
#include "superstep/actors/protocol.hpp"
#include "superstep/core/capnp_message.hpp"
#include "superstep/core/capnp_value.hpp"
#include "wire.capnp.h"

namespace superstep::actors::wire_codec::detail {

using namespace capnp_io;
inline constexpr std::uint16_t format = 1;
// Task batches and their results: format 2 carries a batch of Sends' tasks as `pushes` and a
// result as `outcomes` (a build that reads format 1 would take them for empty ones); format 3
// a big result in parts (a build that reads 2 would take the closing message for the result).
inline constexpr std::uint16_t task_format = 3;
inline constexpr auto code = error_code::protocol_error;

// The wire counters that actors::traffic() reads (wire.cpp).
extern std::atomic<std::uint64_t> batches_out, batch_bytes_out, results_in, result_bytes_in,
    chunks_in, chunk_bytes_in, channel_out, channel_bytes_out, channel_in, channel_bytes_in,
    writes_in, write_bytes_in;
void tally(std::atomic<std::uint64_t>& messages, std::atomic<std::uint64_t>& bytes,
           std::size_t n) noexcept;

inline void put(schema::Value::Builder out, const value& v) {
  capnp_value::write(out, v, capnp_value::nesting_limit - 1, code);
}

inline value get(schema::Value::Reader in) { return capnp_value::read(in, code); }

template <class List>
void put_strings(List out, const std::vector<std::string>& v) {
  for (unsigned i = 0; i < v.size(); ++i) out.set(i, text(v[i]));
}

template <class List>
std::vector<std::string> get_strings(List in) {
  std::vector<std::string> out;
  out.reserve(in.size());
  for (auto s : in) out.push_back(text_of(s));
  return out;
}

inline void put_error(wire::TaskError::Builder out, const task_error& e) {
  out.setCode(static_cast<std::uint16_t>(e.code));
  out.setMessage(text(e.message));
  if (e.payload) put(out.initPayload(), *e.payload);
}

inline task_error get_error(wire::TaskError::Reader in) {
  return task_error{
      static_cast<error_code>(in.getCode()), text_of(in.getMessage()),
      in.hasPayload() ? std::make_shared<const value>(get(in.getPayload())) : nullptr};
}

inline void check_format(std::uint16_t found, const char* what, std::uint16_t expected = format) {
  if (found != expected)
    throw error(code, std::string(what) + " of format " + std::to_string(found) +
                          " (this build reads format " + std::to_string(expected) + ")");
}

// Reads a message of root type T with `read`, turning any damage into protocol_error.
template <class T, class F>
void read_message(std::string_view bytes, const char* what, F&& read,
                  std::uint16_t expected = format) {
  try {
    capnp::ReaderOptions options;
    options.nestingLimit = capnp_value::nesting_limit + 16;
    message_reader reader(bytes, options, code);
    auto root = reader.root<T>();
    check_format(root.getFormat(), what, expected);
    read(root);
  } catch (const kj::Exception& e) {
    throw error(code, std::string("malformed ") + what + ": " + e.getDescription().cStr());
  } catch (const error& e) {
    throw error(code, std::string("malformed ") + what + ": " + e.what());
  }
}

inline void put_versions(capnp::List<std::uint64_t>::Builder out,
                         const std::vector<std::uint64_t>& v) {
  for (unsigned i = 0; i < v.size(); ++i) out.set(i, v[i]);
}

inline std::vector<std::uint64_t> get_versions(capnp::List<std::uint64_t>::Reader in) {
  std::vector<std::uint64_t> out;
  out.reserve(in.size());
  for (auto v : in) out.push_back(v);
  return out;
}

inline void put_deltas_one(wire::ChannelDelta::Builder out, const channel_delta& d) {
  out.setChannel(text(d.channel));
  out.setPresent(d.present);
  put(out.initValue(), d.v);
}

template <class List>
void put_deltas(List out, const std::vector<channel_delta>& deltas) {
  for (unsigned i = 0; i < deltas.size(); ++i) put_deltas_one(out[i], deltas[i]);
}

template <class List>
std::vector<channel_delta> get_deltas(List in) {
  std::vector<channel_delta> out;
  out.reserve(in.size());
  for (auto d : in)
    out.push_back(channel_delta{text_of(d.getChannel()), d.getPresent(), get(d.getValue())});
  return out;
}

// Messages of a megabyte and more (a task whose writes are a fan-out's Sends) are packed: a
// third of the bytes to copy through CAF and the network. Task batches of ordinary tasks stay
// flat: packing them costs more CPU than their bytes cost to send over loopback.
inline constexpr std::size_t pack_from = std::size_t{1} << 20;

inline void put_writes(capnp::List<wire::OrderedWrite>::Builder out,
                       const std::vector<ordered_write>& writes) {
  for (unsigned i = 0; i < writes.size(); ++i) {
    out[i].setOrder(writes[i].order);
    out[i].setChannel(text(writes[i].channel));
    put(out[i].initValue(), writes[i].v);
  }
}

inline std::vector<ordered_write> get_writes(capnp::List<wire::OrderedWrite>::Reader in) {
  std::vector<ordered_write> out;
  out.reserve(in.size());
  for (auto w : in)
    out.push_back(ordered_write{w.getOrder(), text_of(w.getChannel()), get(w.getValue())});
  return out;
}

inline void put_prepare(wire::StepPrepare::Builder root, const step_prepare& m) {
  root.setFormat(format);
  root.setStep(m.step);
  root.setExpected(m.expected);
  put_strings(root.initConsumed(static_cast<unsigned>(m.consumed.size())), m.consumed);
  root.setBumpStep(m.bump_step);
  root.setFinish(m.finish);
  put_writes(root.initWrites(static_cast<unsigned>(m.writes.size())), m.writes);
  root.setCommits(m.commits);
  root.setCommitsVersion(m.commits_version);
}

inline step_prepare get_prepare(wire::StepPrepare::Reader root) {
  step_prepare m;
  m.step = root.getStep();
  m.expected = root.getExpected();
  m.consumed = get_strings(root.getConsumed());
  m.bump_step = root.getBumpStep();
  m.finish = root.getFinish();
  m.writes = get_writes(root.getWrites());
  m.commits = root.getCommits();
  m.commits_version = root.getCommitsVersion();
  return m;
}

}  // namespace superstep::actors::wire_codec::detail
