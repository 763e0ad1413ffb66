// The protocol's messages as Cap'n Proto (schema/wire.capnp), for the hops between processes.
#include <atomic>

#include "superstep/actors/protocol.hpp"
#include "wire_support.hpp"

namespace superstep::actors {

namespace {
std::function<void(const std::string&)> protocol_error_handler;
}

void on_protocol_error(std::function<void(const std::string&)> handler) {
  protocol_error_handler = std::move(handler);
}

void report_protocol_error(const std::string& what) noexcept {
  try {
    if (protocol_error_handler) protocol_error_handler(what);
  } catch (...) {
  }
}

}  // namespace superstep::actors

namespace superstep::actors::wire_codec::detail {

std::atomic<std::uint64_t> batches_out{0}, batch_bytes_out{0}, results_in{0}, result_bytes_in{0},
    chunks_in{0}, chunk_bytes_in{0}, channel_out{0}, channel_bytes_out{0}, channel_in{0},
    channel_bytes_in{0}, writes_in{0}, write_bytes_in{0};

void tally(std::atomic<std::uint64_t>& messages, std::atomic<std::uint64_t>& bytes,
           std::size_t n) noexcept {
  messages.fetch_add(1, std::memory_order_relaxed);
  bytes.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace superstep::actors::wire_codec::detail

namespace superstep::actors {

wire_traffic traffic() noexcept {
  constexpr auto r = std::memory_order_relaxed;
  using namespace wire_codec::detail;
  return {batches_out.load(r),      batch_bytes_out.load(r),   results_in.load(r),
          result_bytes_in.load(r),  chunks_in.load(r),         chunk_bytes_in.load(r),
          channel_out.load(r),      channel_bytes_out.load(r), channel_in.load(r),
          channel_bytes_in.load(r), writes_in.load(r),         write_bytes_in.load(r)};
}

}  // namespace superstep::actors

namespace superstep::actors::wire_codec {

using namespace detail;

namespace {

template <class Builder>
void put_writes_of(Builder out, const pregel_task& t) {
  auto writes = out.initWrites(static_cast<unsigned>(t.writes.size()));
  for (unsigned i = 0; i < t.writes.size(); ++i) {
    writes[i].setChannel(text(t.writes[i].first));
    put(writes[i].initValue(), t.writes[i].second);
  }
}

// The error, handled error and done fields, which Task and TaskOutcome share.
template <class Builder>
void put_outcome_flags(Builder out, const pregel_task& t) {
  out.setHasError(t.rare->error.has_value());
  if (t.rare->error) put_error(out.initError(), *t.rare->error);
  out.setDone(t.done);
  out.setHasHandledError(t.rare->handled_error.has_value());
  if (t.rare->handled_error) put_error(out.initHandledError(), *t.rare->handled_error);
}

template <class Reader>
void get_outcome(Reader in, pregel_task& t) {
  for (auto w : in.getWrites()) t.writes.emplace_back(text_of(w.getChannel()), get(w.getValue()));
  for (auto i : in.getInterrupts()) t.rare.edit().interrupts.push_back(get(i));
  if (in.getHasError()) t.set_error(get_error(in.getError()));
  t.done = in.getDone();
  if (in.getHasHandledError()) t.set_handled_error(get_error(in.getHandledError()));
}

void put_outcome(wire::TaskOutcome::Builder out, const pregel_task& t) {
  put_writes_of(out, t);
  auto interrupts = out.initInterrupts(static_cast<unsigned>(t.rare->interrupts.size()));
  for (unsigned i = 0; i < t.rare->interrupts.size(); ++i)
    put(interrupts[i], t.rare->interrupts[i]);
  put_outcome_flags(out, t);
}

void put_task(wire::Task::Builder out, const pregel_task& t) {
  out.setId(text(t.id));
  out.setNode(t.node);
  out.setName(text(t.name));
  out.setPush(t.push);
  out.setPushIndex(t.push_index);
  put_strings(out.initTriggers(static_cast<unsigned>(t.triggers.size())), t.triggers);
  put(out.initInput(), t.input);
  put_writes_of(out, t);
  put(out.initOutput(), t.output);
  auto resume = out.initResume(static_cast<unsigned>(t.rare->resume.size()));
  for (unsigned i = 0; i < t.rare->resume.size(); ++i) put(resume[i], t.rare->resume[i]);
  auto interrupts = out.initInterrupts(static_cast<unsigned>(t.rare->interrupts.size()));
  for (unsigned i = 0; i < t.rare->interrupts.size(); ++i)
    put(interrupts[i], t.rare->interrupts[i]);
  put_outcome_flags(out, t);
  if (!t.rare->timeout.is_null()) put(out.initTimeout(), t.rare->timeout);
}

pregel_task get_task(wire::Task::Reader in) {
  pregel_task t;
  t.id = text_of(in.getId());
  t.node = in.getNode();
  t.name = text_of(in.getName());
  t.push = in.getPush();
  t.push_index = in.getPushIndex();
  t.triggers = get_strings(in.getTriggers());
  t.input = get(in.getInput());
  t.output = get(in.getOutput());
  for (auto r : in.getResume()) t.rare.edit().resume.push_back(get(r));
  get_outcome(in, t);
  if (in.hasTimeout()) t.set_timeout(get(in.getTimeout()));
  return t;
}

template <class List>
void put_tasks(List out, const std::vector<pregel_task>& tasks) {
  for (unsigned i = 0; i < tasks.size(); ++i) put_task(out[i], tasks[i]);
}

template <class List>
std::vector<pregel_task> get_tasks(List in) {
  std::vector<pregel_task> out;
  out.reserve(in.size());
  for (auto t : in) out.push_back(get_task(t));
  return out;
}

// Whether every task of `tasks` is a Send's task of one node, not yet run, resumed or failed:
// such a batch travels as TaskBatch.pushes.
bool push_only(const std::vector<pregel_task>& tasks) {
  if (tasks.empty()) return false;
  for (const auto& t : tasks)
    if (!t.push || t.node != tasks.front().node || t.name != tasks.front().name ||
        !t.triggers.empty() || !t.writes.empty() || !t.output.is_null() ||
        !t.rare->resume.empty() || !t.rare->interrupts.empty() || t.rare->error ||
        t.rare->handled_error || t.done || t.cached)
      return false;
  return true;
}

void put_pushes(wire::TaskBatch::Builder root, const std::vector<pregel_task>& tasks) {
  root.setPushOnly(true);
  root.setPushNode(tasks.front().node);
  root.setPushName(text(tasks.front().name));
  auto out = root.initPushes(static_cast<unsigned>(tasks.size()));
  for (unsigned i = 0; i < tasks.size(); ++i) {
    out[i].setId(text(tasks[i].id));
    out[i].setPushIndex(tasks[i].push_index);
    put(out[i].initInput(), tasks[i].input);
    if (!tasks[i].rare->timeout.is_null()) put(out[i].initTimeout(), tasks[i].rare->timeout);
  }
}

std::vector<pregel_task> get_pushes(wire::TaskBatch::Reader root) {
  const std::string name = text_of(root.getPushName());
  std::vector<pregel_task> out;
  out.reserve(root.getPushes().size());
  for (auto p : root.getPushes()) {
    pregel_task& t = out.emplace_back();
    t.id = text_of(p.getId());
    t.node = root.getPushNode();
    t.name = name;
    t.push = true;
    t.push_index = p.getPushIndex();
    t.input = get(p.getInput());
    if (p.hasTimeout()) t.set_timeout(get(p.getTimeout()));
  }
  return out;
}

template <class List>
void put_slots(List out, const std::vector<std::uint32_t>& slots) {
  for (unsigned i = 0; i < slots.size(); ++i) out.set(i, slots[i]);
}

template <class List>
std::vector<std::uint32_t> get_slots(List in) {
  std::vector<std::uint32_t> out;
  out.reserve(in.size());
  for (auto s : in) out.push_back(s);
  return out;
}

}  // namespace

std::string encode(const task_batch& b) {
  if (b.result_with_writes)
    throw error(error_code::internal, "a batch whose result goes with its writes left its process");
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::TaskBatch>();
  root.setFormat(task_format);
  root.setId(b.id);
  auto h = root.initHeader();
  h.setStep(b.header.step);
  h.setStop(b.header.stop);
  h.setCheckpointId(text(b.header.checkpoint_id));
  h.setResuming(b.header.resuming);
  put(h.initConfig(), b.header.config);
  put_strings(h.initNs(static_cast<unsigned>(b.header.ns.size())), b.header.ns);
  h.setModes(b.header.modes);
  h.setSubgraphs(b.header.subgraphs);
  h.setMessageEvents(b.header.message_events);
  h.setInputsFromReplica(b.header.inputs_from_replica);
  h.setReplayCheckpointId(text(b.header.replay_checkpoint_id));
  put_strings(h.initReplayVisited(static_cast<unsigned>(b.header.replay_visited.size())),
              b.header.replay_visited);
  put_deltas(root.initDeltas(static_cast<unsigned>(b.deltas.size())), b.deltas);
  put_slots(root.initSlots(static_cast<unsigned>(b.slots.size())), b.slots);
  if (push_only(b.tasks))
    put_pushes(root, b.tasks);
  else
    put_tasks(root.initTasks(static_cast<unsigned>(b.tasks.size())), b.tasks);
  put_slots(root.initOrders(static_cast<unsigned>(b.orders.size())), b.orders);
  root.setChunk(b.chunk);
  put_strings(root.initNeedChannels(static_cast<unsigned>(b.need_channels.size())),
              b.need_channels);
  put_versions(root.initNeedVersions(static_cast<unsigned>(b.need_versions.size())),
               b.need_versions);
  auto prepares = root.initPrepares(static_cast<unsigned>(b.prepares.size()));
  for (unsigned i = 0; i < b.prepares.size(); ++i) put_prepare(prepares[i], b.prepares[i]);
  std::string bytes = message_bytes_for_size(builder, pack_from);
  tally(batches_out, batch_bytes_out, bytes.size());
  return bytes;
}

void decode(std::string_view bytes, task_batch& b) {
  read_message<wire::TaskBatch>(
      bytes, "task batch",
      [&](wire::TaskBatch::Reader root) {
        b.id = root.getId();
        auto h = root.getHeader();
        b.header.step = h.getStep();
        b.header.stop = h.getStop();
        b.header.checkpoint_id = text_of(h.getCheckpointId());
        b.header.resuming = h.getResuming();
        b.header.config = get(h.getConfig());
        b.header.ns = get_strings(h.getNs());
        b.header.modes = h.getModes();
        b.header.subgraphs = h.getSubgraphs();
        b.header.message_events = h.getMessageEvents();
        b.header.inputs_from_replica = h.getInputsFromReplica();
        b.header.replay_checkpoint_id = text_of(h.getReplayCheckpointId());
        b.header.replay_visited = get_strings(h.getReplayVisited());
        b.deltas = get_deltas(root.getDeltas());
        b.slots = get_slots(root.getSlots());
        b.tasks = root.getPushOnly() ? get_pushes(root) : get_tasks(root.getTasks());
        b.orders = get_slots(root.getOrders());
        b.chunk = root.getChunk();
        b.need_channels = get_strings(root.getNeedChannels());
        b.need_versions = get_versions(root.getNeedVersions());
        if (b.need_channels.size() != b.need_versions.size())
          throw error(error_code::protocol_error, "task batch: channels and versions do not match");
        b.prepares.clear();
        for (auto p : root.getPrepares()) b.prepares.push_back(get_prepare(p));
        if (!b.orders.empty() && b.orders.size() != b.tasks.size())
          throw error(error_code::protocol_error, "task batch: " + std::to_string(b.orders.size()) +
                                                      " task orders for " +
                                                      std::to_string(b.tasks.size()) + " tasks");
      },
      task_format);
}

std::string encode(const task_batch_done& d) {
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::TaskBatchDone>();
  root.setFormat(task_format);
  root.setId(d.id);
  put_slots(root.initSlots(static_cast<unsigned>(d.slots.size())), d.slots);
  root.setLean(true);
  root.setParts(d.parts);
  auto outcomes = root.initOutcomes(static_cast<unsigned>(d.tasks.size()));
  for (unsigned i = 0; i < d.tasks.size(); ++i) put_outcome(outcomes[i], d.tasks[i]);
  return message_bytes_for_size(builder, pack_from);
}

namespace {
void decode_done(std::string_view bytes, task_batch_done& d, const char* what) {
  read_message<wire::TaskBatchDone>(
      bytes, what,
      [&](wire::TaskBatchDone::Reader root) {
        d.id = root.getId();
        d.slots = get_slots(root.getSlots());
        d.parts = root.getParts();
        if (!root.getLean()) {
          d.tasks = get_tasks(root.getTasks());
          return;
        }
        auto outcomes = root.getOutcomes();
        d.tasks.clear();
        d.tasks.resize(outcomes.size());
        for (unsigned i = 0; i < outcomes.size(); ++i) get_outcome(outcomes[i], d.tasks[i]);
      },
      task_format);
}
}  // namespace

// A result that came in parts is counted once, when its parts are decoded as a whole
// (result_assembly), not for the message that closes them.
void decode(std::string_view bytes, task_batch_done& d) {
  decode_done(bytes, d, "task results");
  if (d.parts == 0) tally(results_in, result_bytes_in, bytes.size());
}

std::string encode(const pending_writes& d) {
  return encode(static_cast<const task_batch_done&>(d));
}

void decode(std::string_view bytes, pending_writes& d) {
  decode_done(bytes, d, "pending writes");
  if (d.parts == 0) tally(writes_in, write_bytes_in, bytes.size());
}

std::string encode(const result_part& p) {
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::ResultPart>();
  root.setFormat(format);
  root.setBatch(p.batch);
  root.setIndex(p.index);
  root.setData(
      capnp::Data::Reader(reinterpret_cast<const kj::byte*>(p.bytes.data()), p.bytes.size()));
  return message_bytes(builder);
}

void decode(std::string_view bytes, result_part& p) {
  read_message<wire::ResultPart>(bytes, "result part", [&](wire::ResultPart::Reader root) {
    p.batch = root.getBatch();
    p.index = root.getIndex();
    auto data = root.getData();
    p.bytes.assign(reinterpret_cast<const char*>(data.begin()), data.size());
  });
}

std::string encode(const stream_chunk& c) {
  capnp_io::bounded_message_builder builder;
  auto root = builder.initRoot<wire::StreamChunk>();
  root.setFormat(format);
  put_strings(root.initNs(static_cast<unsigned>(c.ns.size())), c.ns);
  root.setMode(c.mode);
  put(root.initData(), c.data);
  return message_bytes_for_size(builder, pack_from);
}

void decode(std::string_view bytes, stream_chunk& c) {
  tally(chunks_in, chunk_bytes_in, bytes.size());
  read_message<wire::StreamChunk>(bytes, "stream event", [&](wire::StreamChunk::Reader root) {
    c.ns = get_strings(root.getNs());
    c.mode = root.getMode();
    c.data = get(root.getData());
  });
}

}  // namespace superstep::actors::wire_codec
