// The actor protocol's messages survive CAF's binary serialization: what the cluster will put
// on the wire between processes.
#include "superstep/actors/protocol.hpp"

#include <boost/test/unit_test.hpp>
#include <random>

#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/result_parts.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::actors;

namespace {

template <class T>
T round_trip(caf::actor_system& sys, T x) {
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  auto err = sink(x);
  BOOST_REQUIRE_MESSAGE(!err, sys.render(err));
  T back;
  caf::binary_deserializer source{sys, buf};
  err = source(back);
  BOOST_REQUIRE_MESSAGE(!err, sys.render(err));
  return back;
}

pregel_task sample_task() {
  pregel_task t;
  t.id = "00000000-0000-5000-8000-000000000001";
  t.node = 3;
  t.name = "worker";
  t.push = true;
  t.push_index = 41;
  t.triggers = {"branch:to:worker"};
  t.input = value::parse_json(R"({"i":7,"nested":[1,2.5,"x",null,{"b":true}]})");
  t.writes = {{"results", value::array({14})}, {"branch:to:sum", value()}};
  t.output = object{{"results", value::array({14})}};
  t.set_error(task_error{error_code::invalid_update, "At key 'x': boom"});
  t.done = true;
  t.set_timeout(object{{"idle_timeout_ms", 50.0}});
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(task_batches_and_results_round_trip_through_caf_serialization) {
  runtime rt(runtime_options{1});
  auto& sys = rt.internals().system;

  task_batch b;
  b.header.step = 4;
  b.header.stop = 26;
  b.header.config = value::parse_json(R"({"configurable":{"thread_id":"t1"}})");
  b.header.ns = {"child:abc"};
  b.header.modes = 5;
  b.header.subgraphs = true;
  b.header.message_events = true;
  b.header.replay_checkpoint_id = "cp-1";
  b.header.replay_visited = {"child", "other|inner"};
  b.deltas = {{"foo", true, value("bar")}, {"gone", false, value()}};
  b.slots = {0, 9};
  b.tasks = {sample_task(), pregel_task{}};

  task_batch back = round_trip(sys, b);
  BOOST_TEST(back.header.step == 4);
  BOOST_TEST(back.header.stop == 26);
  BOOST_TEST(back.header.config == b.header.config);
  BOOST_TEST((back.header.ns == b.header.ns));
  BOOST_TEST(back.header.subgraphs);
  BOOST_TEST(back.header.message_events);
  BOOST_TEST(back.header.replay_checkpoint_id == "cp-1");
  BOOST_TEST((back.header.replay_visited == b.header.replay_visited));
  BOOST_TEST_REQUIRE(back.deltas.size() == 2u);
  BOOST_TEST(back.deltas[0].v == value("bar"));
  BOOST_TEST(!back.deltas[1].present);
  BOOST_TEST((back.slots == b.slots));
  BOOST_TEST_REQUIRE(back.tasks.size() == 2u);
  const pregel_task& t = back.tasks[0];
  BOOST_TEST(t.id == b.tasks[0].id);
  BOOST_TEST(t.push_index == 41u);
  BOOST_TEST(t.input == b.tasks[0].input);
  BOOST_TEST_REQUIRE(t.writes.size() == 2u);
  BOOST_TEST(t.writes[0].second.to_json() == "[14]");
  BOOST_TEST_REQUIRE(t.rare->error.has_value());
  BOOST_TEST((t.rare->error->code == error_code::invalid_update));
  BOOST_TEST(t.rare->error->message == "At key 'x': boom");
  BOOST_TEST(!back.tasks[1].rare->error.has_value());
  BOOST_TEST(t.rare->timeout.to_json() == R"({"idle_timeout_ms":50.0})");
  BOOST_TEST(back.tasks[1].rare->timeout.is_null());

  stream_chunk c{{"a:1", "b:2"}, 2, value::parse_json(R"({"progress":0.5})")};
  stream_chunk cb = round_trip(sys, c);
  BOOST_TEST((cb.ns == c.ns));
  BOOST_TEST(cb.data == c.data);
}

// A batch of Sends' tasks of one node travels without the fields such tasks leave empty, and
// comes back whole; one task of another kind sends the batch in the full form.
BOOST_AUTO_TEST_CASE(a_batch_of_sends_round_trips_whole) {
  task_batch b;
  b.id = 5;
  b.slots = {0, 1};
  for (std::uint64_t i : {7u, 8u}) {
    pregel_task t;
    t.id = "00000000-0000-5000-8000-00000000000" + std::to_string(i);
    t.node = 2;
    t.name = "worker";
    t.push = true;
    t.push_index = i;
    t.input = object{{"item", static_cast<std::int64_t>(i)}};
    b.tasks.push_back(std::move(t));
  }
  b.tasks[1].set_timeout(object{{"run_timeout_ms", 20.0}});
  const std::string lean = wire_codec::encode(b);
  // Each field the Sends' form leaves out sends the batch whole (a struct of every field per
  // task, over a hundred bytes more for two tasks).
  const auto whole = [&](auto change) {
    task_batch x = b;
    change(x.tasks[1]);
    return wire_codec::encode(x).size() > lean.size() + 100;
  };
  BOOST_TEST(whole([](pregel_task& t) { t.push = false; }));
  BOOST_TEST(whole([](pregel_task& t) { t.node = 3; }));
  BOOST_TEST(whole([](pregel_task& t) { t.set_interrupts({value("asked")}); }));
  BOOST_TEST(whole([](pregel_task& t) {
    t.set_handled_error(task_error{error_code::node_error, "x"});
  }));
  BOOST_TEST(whole([](pregel_task& t) { t.triggers = {"branch:to:worker"}; }));
  task_batch back;
  wire_codec::decode(lean, back);
  BOOST_TEST_REQUIRE(back.tasks.size() == 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const pregel_task& t = back.tasks[i];
    BOOST_TEST(t.id == b.tasks[i].id);
    BOOST_TEST(t.node == 2u);
    BOOST_TEST(t.name == "worker");
    BOOST_TEST(t.push);
    BOOST_TEST(t.push_index == b.tasks[i].push_index);
    BOOST_TEST(t.input == b.tasks[i].input);
    BOOST_TEST(t.rare->timeout == b.tasks[i].rare->timeout);
  }
  b.tasks[0].set_resume({value("yes")});  // resumed: the full form, resume included
  const std::string full = wire_codec::encode(b);
  BOOST_TEST(full.size() > lean.size());
  wire_codec::decode(full, back);
  BOOST_TEST_REQUIRE(back.tasks.at(0).rare->resume.size() == 1u);
  BOOST_TEST(back.tasks[1].rare->timeout == b.tasks[1].rare->timeout);
}

// A result carries what running each task produced, in the batch's order, and not what the
// task is: the coordinator holds the batch it sent.
BOOST_AUTO_TEST_CASE(a_result_carries_each_tasks_outcome_not_the_task) {
  task_batch_done d;
  d.id = 12;
  d.slots = {3, 8};
  d.tasks = {sample_task(), sample_task()};
  d.tasks[0].set_interrupts({object{{"value", "ask"}, {"id", "i1"}}});
  d.tasks[1].set_error({});
  d.tasks[1].set_handled_error(task_error{error_code::node_error, "first try failed"});
  d.tasks[1].writes = {{"results", value::array({15})}};
  task_batch_done back;
  wire_codec::decode(wire_codec::encode(d), back);
  BOOST_TEST(back.id == 12u);
  BOOST_TEST((back.slots == d.slots));
  BOOST_TEST_REQUIRE(back.tasks.size() == 2u);
  const pregel_task& a = back.tasks[0];
  BOOST_TEST_REQUIRE(a.writes.size() == 2u);
  BOOST_TEST(a.writes[0].first == "results");
  BOOST_TEST(a.writes[0].second.to_json() == "[14]");
  BOOST_TEST(a.writes[1].second.is_null());
  BOOST_TEST_REQUIRE(a.rare->interrupts.size() == 1u);
  BOOST_TEST(a.rare->interrupts[0] == d.tasks[0].rare->interrupts[0]);
  BOOST_TEST_REQUIRE(a.rare->error.has_value());
  BOOST_TEST(a.rare->error->message == "At key 'x': boom");
  BOOST_TEST(a.done);
  const pregel_task& b = back.tasks[1];
  BOOST_TEST(!b.rare->error.has_value());
  BOOST_TEST_REQUIRE(b.rare->handled_error.has_value());
  BOOST_TEST((b.rare->handled_error->code == error_code::node_error));
  BOOST_TEST(b.rare->handled_error->message == "first try failed");
  BOOST_TEST(b.writes.at(0).second.to_json() == "[15]");
  // What the task is stays with the coordinator.
  BOOST_TEST(a.id.empty());
  BOOST_TEST(a.name.empty());
  BOOST_TEST(a.triggers.empty());
  BOOST_TEST(a.input.is_null());
  BOOST_TEST(a.output.is_null());
  BOOST_TEST(a.rare->timeout.is_null());
  BOOST_TEST(a.push_index == 0u);
}

BOOST_AUTO_TEST_CASE(a_big_result_travels_in_parts_and_is_put_back_together) {
  runtime rt(runtime_options{1});
  auto& sys = rt.internals().system;
  task_batch_done d;
  d.id = 9;
  for (int i = 0; i < 300; ++i) {
    pregel_task t;
    t.writes = {{"doc", std::string(1000, static_cast<char>('a' + i % 26))}};
    t.done = true;
    d.tasks.push_back(std::move(t));
  }
  d.encoded = wire_codec::encode(d);
  const std::string whole = d.encoded;
  // Under the limit it goes whole.
  task_batch_done small = d;
  BOOST_TEST(split_result(small, whole.size()).empty());
  BOOST_TEST(small.encoded == whole);
  BOOST_TEST(small.parts == 0u);

  std::vector<result_part> parts = split_result(d, 64 << 10);
  BOOST_TEST_REQUIRE(parts.size() == (whole.size() + (64 << 10) - 1) / (64 << 10));
  BOOST_TEST_REQUIRE(parts.size() > 2u);
  BOOST_TEST(d.parts == parts.size());
  BOOST_TEST(d.encoded.size() < 100u);  // the closing message holds no outcome
  std::string joined;
  for (std::uint32_t i = 0; i < parts.size(); ++i) {
    BOOST_TEST(parts[i].batch == 9u);
    BOOST_TEST(parts[i].index == i);
    BOOST_TEST(parts[i].bytes.size() <= std::size_t{64 << 10});
    joined += parts[i].bytes;
  }
  BOOST_TEST((joined == whole));

  // Across CAF's serialization, as pending writes for a writes saver, then put back together.
  pending_writes closing;
  static_cast<task_batch_done&>(closing) = d;
  pending_writes back = round_trip(sys, closing);
  BOOST_TEST(back.id == 9u);
  BOOST_TEST(back.parts == parts.size());
  BOOST_TEST(back.tasks.empty());
  result_assembly assembly;
  for (const auto& p : parts) assembly.add(round_trip(sys, p));
  BOOST_TEST(assembly.holds(9));
  assembly.complete(back);
  BOOST_TEST(!assembly.holds(9));
  BOOST_TEST(back.parts == 0u);
  BOOST_TEST_REQUIRE(back.tasks.size() == 300u);
  BOOST_TEST(back.tasks[27].writes.at(0).second.as_string() == std::string(1000, 'b'));
  BOOST_TEST(back.tasks[299].done);

  // A part missing, or out of order: refused, naming the batch.
  const auto refused = [](auto&& f, const std::string& what) {
    try {
      f();
      BOOST_FAIL("accepted: " + what);
    } catch (const error& e) {
      BOOST_TEST((e.code() == error_code::protocol_error));
      BOOST_TEST(std::string(e.what()).find("batch 9") != std::string::npos, e.what());
      BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
  };
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) assembly.add(parts[i]);
  task_batch_done short_closing = round_trip(sys, d);
  refused([&] { assembly.complete(short_closing); },
          std::to_string(parts.size() - 1) + " of which arrived");
  BOOST_TEST(!assembly.holds(9));
  assembly.add(parts[0]);
  refused([&] { assembly.add(parts[2]); }, "part 2 came after 1");
  assembly.add(parts[1]);  // dropped: the batch's parts were refused
  refused([&] { assembly.complete(short_closing); }, "part 2 came after 1");
  // What a receiver drops: parts of batches that will never close.
  assembly.add(parts[0]);
  assembly.keep_if([](std::uint64_t id) { return id != 9; });
  BOOST_TEST(!assembly.holds(9));
}

BOOST_AUTO_TEST_CASE(a_corrupt_value_is_an_error_not_a_crash) {
  runtime rt(runtime_options{1});
  auto& sys = rt.internals().system;
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  std::string not_capnp = "{\"unterminated";
  BOOST_REQUIRE(!sink(not_capnp));
  value v;
  caf::binary_deserializer source{sys, buf};
  BOOST_TEST(static_cast<bool>(source(v)));
}

// Messages cross processes as Cap'n Proto (actors/schema/wire.capnp): damaged frames of
// every kind are refused with an error, never a crash or a half-read message.
namespace {

// Decodes `copies` damaged copies of `good` (bytes flipped, some truncated): each is a
// protocol_error or decodes, nothing else.
template <class Message>
void expect_damage_refused(const std::string& good, int copies = 2000) {
  std::mt19937 rng(42);
  int refused = 0;
  for (int i = 0; i < copies; ++i) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (i % 10 == 0) bad.resize(rng() % bad.size());  // truncated
    try {
      Message x;
      wire_codec::decode(bad, x);
    } catch (const error& e) {
      BOOST_TEST((e.code() == error_code::protocol_error));
      ++refused;
    }
  }
  BOOST_TEST(refused > 0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(damaged_encodings_are_refused) {
  task_batch b;
  b.id = 7;
  b.header.config = value::parse_json(R"({"configurable":{"thread_id":"t1"}})");
  b.slots = {0};
  b.tasks = {sample_task()};
  const std::string good = wire_codec::encode(b);
  task_batch back;
  wire_codec::decode(good, back);
  BOOST_TEST(back.id == 7u);
  BOOST_TEST(back.tasks.at(0).input == b.tasks[0].input);
  expect_damage_refused<task_batch>(good);
  try {
    task_batch x;
    wire_codec::decode("garbage!", x);
    BOOST_FAIL("garbage decoded");
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find("malformed task batch") != std::string::npos);
  }
}

// A batch of many tasks (a megabyte and more) travels packed; it round-trips, and damaged packed
// bytes are refused as flat ones are.
BOOST_AUTO_TEST_CASE(big_batches_travel_packed_and_damage_is_refused) {
  task_batch_done d;
  d.id = 9;
  for (std::uint32_t i = 0; i < 6000; ++i) {
    d.slots.push_back(i);
    d.tasks.push_back(sample_task());
    d.tasks.back().writes[0].second = value::array({static_cast<std::int64_t>(i)});
  }
  const std::string good = wire_codec::encode(d);
  BOOST_TEST(good.substr(0, 4) == std::string(4, '\xff'));
  task_batch_done back;
  wire_codec::decode(good, back);
  BOOST_TEST_REQUIRE(back.tasks.size() == 6000u);
  BOOST_TEST(back.tasks[5999].writes.at(0).second.to_json() == "[5999]");
  expect_damage_refused<task_batch_done>(good, 100);
}
