// Channel actors: a step's writes in any arrival order give the same staged values as
// LangGraph's apply_writes; nothing staged is visible before commit; abort leaves no trace;
// subscribers get what commits changed; the messages survive the wire encoding.
#include "superstep/actors/channel_actor.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <set>
#include <string>

#include "superstep/actors/caf_runtime.hpp"
#include "superstep/actors/process_replica.hpp"
#include "superstep/channels/binary_operator_aggregate.hpp"
#include "superstep/channels/ephemeral_value.hpp"
#include "superstep/channels/last_value.hpp"
#include "superstep/channels/last_value_after_finish.hpp"
#include "superstep/channels/reducer.hpp"
#include "superstep/channels/topic.hpp"
#include "superstep/core/error.hpp"

using namespace superstep;
using namespace superstep::actors;

namespace {

constexpr auto wait = std::chrono::seconds(10);

channel_group sample_group() {
  std::unordered_map<std::string, std::unique_ptr<channels::channel>> m;
  m.emplace("name", std::make_unique<channels::last_value>("name"));
  m.emplace("total", std::make_unique<channels::binary_operator_aggregate>(
                         "total", *channels::builtin_reducer("add"), value(std::int64_t{0})));
  m.emplace("log", std::make_unique<channels::topic>("log", true));
  m.emplace("flash", std::make_unique<channels::ephemeral_value>("flash"));
  m.emplace("final", std::make_unique<channels::last_value_after_finish>("final"));
  return channel_group(std::move(m));
}

channel_writes cw(std::int64_t step, std::vector<ordered_write> writes, std::uint32_t chunk = 0,
                  std::optional<step_prepare> prepare = std::nullopt) {
  channel_writes m;
  m.step = step;
  m.writes = std::move(writes);
  m.chunk = chunk;
  m.prepare = std::move(prepare);
  return m;
}

std::optional<value> find(const std::vector<channel_delta>& ds, const std::string& ch) {
  for (const auto& d : ds)
    if (d.channel == ch) return d.present ? std::optional<value>(d.v) : std::nullopt;
  BOOST_FAIL("no value for channel " + ch);
  return std::nullopt;
}

template <class T>
T request(caf::scoped_actor& self, const channel_actor& to, auto... args) {
  T out;
  self->request(to, wait, std::move(args)...)
      .receive([&](T& r) { out = std::move(r); },
               [&](caf::error& e) { BOOST_FAIL("request failed: " + to_string(e)); });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_group_applies_writes_in_task_path_order_whatever_their_arrival) {
  auto g = sample_group();
  // Task 1's writes arrive before task 0's: the fold and the topic still see task 0 first.
  auto changes = g.prepare({{1, "log", value("b")},
                            {1, "total", value(std::int64_t{5})},
                            {0, "log", value("a")},
                            {0, "name", value("x")},
                            {0, "log", value("a2")}},
                           {}, true);
  std::vector<std::string> changed;
  for (const auto& c : changes.changed) changed.push_back(c.channel);
  BOOST_TEST(changed == (std::vector<std::string>{"log", "name", "total"}),
             boost::test_tools::per_element());
  BOOST_TEST(find(changes.changed, "log")->to_json() == R"(["a","a2","b"])");
  BOOST_TEST(find(changes.changed, "total")->to_json() == "5");
  // Staged, not visible: readers see the values from before the step.
  BOOST_TEST(!g.read("name").has_value());
  g.commit();
  BOOST_TEST(g.read("name")->to_json() == R"("x")");
  BOOST_TEST(g.read("total")->to_json() == "5");
}

BOOST_AUTO_TEST_CASE(a_group_reads_a_steps_writes_in_parts_in_task_path_order) {
  // Parts as chunks come: in the order of their first writes when they do not overlap...
  using parts = std::vector<std::vector<ordered_write>>;
  auto g = sample_group();
  auto changes = g.prepare(parts{{{2, "log", value("c")}, {3, "log", value("d")}},
                                 {},
                                 {{0, "log", value("a")}, {1, "log", value("b")}}},
                           {}, true);
  BOOST_TEST(find(changes.changed, "log")->to_json() == R"(["a","b","c","d"])");
  g.abort();
  // ... and merged when they do (a coordinator's share between a batch's tasks), or when a
  // part is out of order; a task's own writes keep their order.
  changes = g.prepare(parts{{{0, "log", value("a")}, {2, "log", value("c")}},
                            {{1, "log", value("b")}, {1, "log", value("b2")}},
                            {{4, "log", value("e")}, {3, "log", value("d")}}},
                      {}, true);
  BOOST_TEST(find(changes.changed, "log")->to_json() == R"(["a","b","b2","c","d","e"])");
}

BOOST_AUTO_TEST_CASE(a_group_clears_ephemeral_values_and_finishes_deferred_ones) {
  auto g = sample_group();
  g.prepare({{0, "flash", value(1)}, {0, "final", value("done")}}, {}, true);
  g.commit();
  BOOST_TEST(g.read("flash")->to_json() == "1");
  // The next step writes nothing to `flash`: it clears. `final` shows only once finished.
  auto changes = g.prepare(std::vector<ordered_write>{}, {}, true);
  BOOST_TEST(changes.changed.size() == 1u);
  BOOST_TEST(changes.changed[0].channel == "flash");
  BOOST_TEST(!changes.changed[0].present);
  auto finished = g.finish();
  BOOST_REQUIRE(finished.changed.size() == 1u);
  BOOST_TEST(finished.changed[0].channel == "final");
  BOOST_TEST(finished.updated == std::vector<std::string>{"final"});
  g.commit();
  BOOST_TEST(!g.read("flash").has_value());
}

BOOST_AUTO_TEST_CASE(an_aborted_step_leaves_no_trace_and_a_refused_write_aborts) {
  auto g = sample_group();
  g.prepare({{0, "total", value(std::int64_t{2})}}, {}, true);
  g.commit();
  g.prepare({{0, "total", value(std::int64_t{40})}, {0, "name", value("y")}}, {}, true);
  g.abort();
  BOOST_TEST(g.read("total")->to_json() == "2");
  BOOST_TEST(!g.read("name").has_value());
  // Two writes to a last_value in one step: refused, and nothing of the step stays.
  BOOST_CHECK_EXCEPTION(
      g.prepare(
          {{0, "total", value(std::int64_t{1})}, {0, "name", value("a")}, {1, "name", value("b")}},
          {}, true),
      error, [](const error& e) {
        return e.code() == error_code::invalid_update &&
               std::string(e.what()).find("name") != std::string::npos;
      });
  BOOST_TEST(!g.staging());
  auto again = g.prepare({{0, "total", value(std::int64_t{1})}}, {}, true);
  BOOST_TEST(find(again.changed, "total")->to_json() == "3");
  BOOST_CHECK_THROW(g.prepare({{0, "nope", value(1)}}, {}, true), error);
}

BOOST_AUTO_TEST_CASE(a_channel_actor_waits_for_the_writes_it_expects_then_votes) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  auto ch = spawn_channel_actor(sys, sample_group());
  caf::scoped_actor self{sys};

  // A subscriber sees the committed values at once, then every commit that changes them.
  auto first = request<channel_push>(self, ch, subscribe_atom::value, caf::actor(self),
                                     std::vector<std::string>{"total", "name"});
  BOOST_TEST(first.values.size() == 2u);
  BOOST_TEST(find(first.values, "total")->to_json() == "0");

  // The prepare arrives before the second of the two write messages it expects.
  self->send(ch, cw(0, {{1, "total", value(std::int64_t{10})}}));
  auto pending = self->request(ch, wait, step_prepare{0, 2, {}, true, false, {}, -1});
  self->send(ch, cw(0, {{0, "total", value(std::int64_t{1})}}, 1));
  step_vote vote;
  pending.receive([&](step_vote& v) { vote = std::move(v); },
                  [&](caf::error& e) { BOOST_FAIL(to_string(e)); });
  BOOST_TEST(!vote.error.has_value());
  BOOST_TEST(find(vote.changes.changed, "total")->to_json() == "11");

  // Before the commit, nobody sees the staged value.
  auto before =
      request<channel_push>(self, ch, read_atom::value, std::vector<std::string>{"total"});
  BOOST_TEST(find(before.values, "total")->to_json() == "0");

  self->send(ch, commit_atom::value, std::int64_t{0}, std::uint64_t{1});
  self->receive([&](channel_push& p) {
    BOOST_TEST(p.step == 0);
    BOOST_REQUIRE(p.values.size() == 1u);
    BOOST_TEST(p.values[0].channel == "total");
    BOOST_TEST(p.values[0].v.to_json() == "11");
  });

  // A step that aborts: nothing pushed, nothing visible; the next step starts from 11.
  self->send(ch, cw(1, {{0, "total", value(std::int64_t{100})}}));
  auto v1 = request<step_vote>(self, ch, step_prepare{1, 1, {}, true, false, {}, -1});
  BOOST_TEST(find(v1.changes.changed, "total")->to_json() == "111");
  self->send(ch, abort_atom::value, std::int64_t{1});
  self->send(ch, commit_atom::value, std::int64_t{1}, std::uint64_t{2});  // too late: ignored
  auto after = request<channel_push>(self, ch, read_atom::value, std::vector<std::string>{"total"});
  BOOST_TEST(find(after.values, "total")->to_json() == "11");

  // A refused step votes no, naming the channel.
  self->send(ch, cw(2, {{0, "name", value("a")}, {1, "name", value("b")}}));
  auto no = request<step_vote>(self, ch, step_prepare{2, 1, {}, true, false, {}, -1});
  BOOST_REQUIRE(no.error.has_value());
  BOOST_TEST(no.error->message.find("name") != std::string::npos);
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_prepare_carries_writes_and_the_commit_of_the_step_before) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  auto ch = spawn_channel_actor(sys, sample_group());
  caf::scoped_actor self{sys};
  auto sub = request<channel_push>(self, ch, subscribe_atom::value, caf::actor(self),
                                   std::vector<std::string>{"total"});
  BOOST_TEST(find(sub.values, "total")->to_json() == "0");

  // Writes inside the prepare and in a message of their own (expected: 1) are staged together,
  // in task-path order whatever the order they came in.
  self->send(ch, cw(0, {{1, "total", value(std::int64_t{10})}}));
  step_prepare p0{0, 1, {}, true, false, {{0, "total", value(std::int64_t{1})}}, -1};
  auto v0 = request<step_vote>(self, ch, p0);
  BOOST_REQUIRE(!v0.error.has_value());
  BOOST_TEST(find(v0.changes.changed, "total")->to_json() == "11");

  // Step 0's commit travels with step 1's prepare: committed (and pushed) first, then step 1
  // staged on top of it.
  step_prepare p1{1, 0, {}, true, false, {{0, "total", value(std::int64_t{100})}}, 0};
  auto v1 = request<step_vote>(self, ch, p1);
  self->receive([&](channel_push& p) {
    BOOST_TEST(p.step == 0);
    BOOST_TEST(p.values.at(0).v.to_json() == "11");
  });
  BOOST_TEST(find(v1.changes.changed, "total")->to_json() == "111");
  auto read = request<channel_push>(self, ch, read_atom::value, std::vector<std::string>{"total"});
  BOOST_TEST(find(read.values, "total")->to_json() == "11");  // step 1 is staged only

  // A batch that ran again (its first node actor went away) replaces the writes of its
  // first run; writes to a channel the group does not own (a task's reserved writes) are
  // not staged.
  self->send(ch, abort_atom::value, std::int64_t{1});
  self->send(ch, cw(5, {{0, "total", value(std::int64_t{7})}}, 3));
  self->send(ch, cw(5, {{0, "total", value(std::int64_t{7})}, {0, "__x__", value(1)}}, 3));
  self->send(ch, cw(5, {{1, "total", value(std::int64_t{20})}}, 4));
  auto v5 = request<step_vote>(self, ch, step_prepare{5, 2, {}, true, false, {}, -1});
  BOOST_REQUIRE(!v5.error.has_value());
  BOOST_TEST(find(v5.changes.changed, "total")->to_json() == "38");  // 11 + 7 + 20, once each
  self->send(ch, abort_atom::value, std::int64_t{5});

  // A commit carried for a step that is not the staged one is ignored: step 1 aborts.
  self->send(ch, abort_atom::value, std::int64_t{1});
  step_prepare p2{2, 0, {}, true, false, {}, 1};
  auto v2 = request<step_vote>(self, ch, p2);
  BOOST_TEST(!v2.error.has_value());
  read = request<channel_push>(self, ch, read_atom::value, std::vector<std::string>{"total"});
  BOOST_TEST(find(read.values, "total")->to_json() == "11");
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_prepare_riding_with_writes_votes_to_the_coordinator) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  caf::scoped_actor self{sys};
  auto ch = spawn_channel_actor(sys, sample_group(), caf::actor(self));
  // Two batches carry the step's prepare (expecting both): the first taken, the vote sent to
  // the coordinator once the second batch's writes are in.
  step_prepare p{0, 2, {}, true, false, {}, -1};
  self->send(ch, cw(0, {{1, "total", value(std::int64_t{10})}}, 1, p));
  self->send(ch, cw(0, {{0, "total", value(std::int64_t{1})}}, 0, p));
  self->receive([&](step_vote& v) {
    BOOST_TEST(v.step == 0);
    BOOST_REQUIRE(!v.error.has_value());
    BOOST_TEST(find(v.changes.changed, "total")->to_json() == "11");
  });
  // The next step's prepare rides with its one batch, carrying step 0's commit.
  step_prepare p1{1, 1, {}, true, false, {}, 0};
  self->send(ch, cw(1, {{0, "total", value(std::int64_t{100})}}, 0, p1));
  self->receive([&](step_vote& v) {
    BOOST_TEST(v.step == 1);
    BOOST_TEST(find(v.changes.changed, "total")->to_json() == "111");
  });
  auto read = request<channel_push>(self, ch, read_atom::value, std::vector<std::string>{"total"});
  BOOST_TEST(find(read.values, "total")->to_json() == "11");  // step 0 committed, 1 staged
  // An aborted step's prepare riding with a late batch is not taken again: no vote comes.
  self->send(ch, abort_atom::value, std::int64_t{1});
  self->send(ch, cw(1, {}, 5, p1));
  bool voted = false;
  self->receive([&](step_vote&) { voted = true; },
                caf::after(std::chrono::milliseconds(100)) >> [] {});
  BOOST_TEST(!voted);
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(only_chunk_0_carries_the_prepare_and_later_chunks_may_come_first) {
  // The coordinator puts the step's prepare in its first batch only (one copy per step, not
  // per batch): the other chunks' writes come without it, before or after, and wait for it.
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  caf::scoped_actor self{sys};
  auto ch = spawn_channel_actor(sys, sample_group(), caf::actor(self));
  step_prepare p{0, 3, {}, true, false, {}, -1};
  self->send(ch, cw(0, {{2, "total", value(std::int64_t{100})}}, 2));
  self->send(ch, cw(0, {{1, "total", value(std::int64_t{10})}}, 1));
  bool early = false;
  self->receive([&](step_vote&) { early = true; },
                caf::after(std::chrono::milliseconds(50)) >> [] {});
  BOOST_TEST(!early);  // no prepare yet: no vote, whatever came
  self->send(ch, cw(0, {{0, "total", value(std::int64_t{1})}}, 0, p));
  self->receive([&](step_vote& v) {
    BOOST_TEST(v.step == 0);
    BOOST_REQUIRE(!v.error.has_value());
    BOOST_TEST(find(v.changes.changed, "total")->to_json() == "111");
  });
  // Chunk 0 sent again (its node actor was lost) brings the prepare again: not taken twice.
  self->send(ch, cw(0, {{0, "total", value(std::int64_t{1})}}, 0, p));
  bool again = false;
  self->receive([&](step_vote&) { again = true; },
                caf::after(std::chrono::milliseconds(100)) >> [] {});
  BOOST_TEST(!again);
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_result_riding_with_writes_comes_back_with_the_vote_they_complete) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  caf::scoped_actor self{sys};
  auto ch = spawn_channel_actor(sys, sample_group(), caf::actor(self));
  const auto with_result = [](channel_writes m, std::uint32_t slot) {
    m.result = task_batch_done{0, {slot}, {}, {}, 0};
    return m;
  };
  // The step expects two batches: the result with the first one's writes, which complete no
  // vote, comes back to the coordinator at once, on its own.
  step_prepare p{0, 2, {}, true, false, {}, -1};
  self->send(ch, with_result(cw(0, {{1, "total", value(std::int64_t{10})}}, 1, p), 7));
  self->receive([&](task_batch_done& d) {
    BOOST_TEST(d.slots == std::vector<std::uint32_t>{7}, boost::test_tools::per_element());
  });
  // The second one's writes complete the step: its result comes with the vote, in one message.
  self->send(ch, with_result(cw(0, {{0, "total", value(std::int64_t{1})}}, 0, p), 3));
  self->receive(
      [&](step_vote& v) {
        BOOST_REQUIRE(!v.error.has_value());
        BOOST_TEST(find(v.changes.changed, "total")->to_json() == "11");
        BOOST_REQUIRE(v.results.size() == 1u);
        BOOST_TEST(v.results[0].slots == std::vector<std::uint32_t>{3},
                   boost::test_tools::per_element());
      },
      [&](task_batch_done&) { BOOST_FAIL("the result came apart from the vote"); });
  // Writes of a step already voted on (sent again) bring their result back on its own.
  self->send(ch, with_result(cw(0, {}, 0, p), 4));
  self->receive([&](task_batch_done& d) { BOOST_TEST(d.slots.front() == 4u); });
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(a_group_placed_again_mid_step_takes_the_step_from_its_prepare_only) {
  // Placed during step 3 (the group it replaces was lost): batches' writes for step 3 are
  // late copies of what the coordinator's prepare carries, so they are not taken, and the
  // step's values are those of the prepare's writes, once.
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  caf::scoped_actor self{sys};
  auto ch = spawn_channel_actor(sys, sample_group(), caf::actor(self), {}, 3);
  step_prepare riding{3, 2, {}, true, false, {}, -1};
  self->send(ch, cw(3, {{0, "total", value(std::int64_t{5})}}, 0, riding));
  self->send(ch, cw(3, {{1, "total", value(std::int64_t{7})}}, 1, riding));
  bool voted = false;
  self->receive([&](step_vote&) { voted = true; },
                caf::after(std::chrono::milliseconds(100)) >> [] {});
  BOOST_TEST(!voted);  // the riding prepare was not taken either
  step_prepare carried{3, 0, {}, true, false, {}, -1};
  carried.writes = {{0, "total", value(std::int64_t{5})}, {1, "total", value(std::int64_t{7})}};
  auto vote = request<step_vote>(self, ch, carried);
  BOOST_REQUIRE(!vote.error.has_value());
  BOOST_TEST(find(vote.changes.changed, "total")->to_json() == "12");
  self->send(ch, commit_atom::value, std::int64_t{3}, std::uint64_t{9});
  // The next step's writes are taken as usual.
  step_prepare next{4, 1, {}, true, false, {}, -1};
  self->send(ch, cw(4, {{0, "total", value(std::int64_t{1})}}, 0, next));
  self->receive([&](step_vote& v) {
    BOOST_TEST(v.step == 4);
    BOOST_TEST(find(v.changes.changed, "total")->to_json() == "13");
  });
  // The placement says where it was placed again, through the wire too.
  channel_placement placed;
  placed.graph = "g";
  placed.closed_through = 3;
  channel_placement back;
  wire_codec::decode(wire_codec::encode(placed), back);
  BOOST_TEST(back.closed_through == 3);
  wire_codec::decode(wire_codec::encode(channel_placement{}), back);
  BOOST_TEST(back.closed_through == -1);
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(spread_groups_leave_the_tasks_topic_beside_the_coordinator) {
  // One group owns everything; with more, the last (beside the coordinator, which plans the
  // next step's PUSH tasks from the Sends) owns the tasks topic and nothing else, and the
  // other channels are split over the rest, the same way on every call.
  BOOST_TEST(channel_owner(tasks_topic, 1) == 0u);
  BOOST_TEST(channel_owner("results", 1) == 0u);
  for (std::size_t n : {2u, 3u, 5u}) {
    BOOST_TEST(channel_owner(tasks_topic, n) == n - 1);
    std::set<std::uint32_t> used;
    for (int i = 0; i < 64; ++i) {
      const std::string name = "channel_" + std::to_string(i);
      const auto g = channel_owner(name, n);
      BOOST_TEST(g < n - 1);
      BOOST_TEST(channel_owner(name, n) == g);
      used.insert(g);
    }
    BOOST_TEST(used.size() == n - 1);  // every worker's group gets some
  }
}

BOOST_AUTO_TEST_CASE(channel_actor_messages_round_trip_through_the_wire_encoding) {
  step_vote v;
  v.step = 7;
  v.error = task_error{error_code::invalid_update, "At key 'name': two writes"};
  v.changes.changed = {{"a", true, value::parse_json(R"({"x":[1,2]})")}, {"b", false, value()}};
  v.changes.updated = {"a"};
  v.changes.values = {{"a", true, value::parse_json(R"({"x":[1,2]})")},
                      {"b", true, value(std::int64_t{3})}};
  v.changes.overwritten = {"b"};
  step_vote back;
  wire_codec::decode(wire_codec::encode(v), back);
  BOOST_TEST(back.step == 7);
  BOOST_REQUIRE(back.error.has_value());
  BOOST_TEST(back.error->message == v.error->message);
  BOOST_TEST(back.changes.changed.size() == 2u);
  BOOST_TEST(back.changes.changed[0].v.to_json() == R"({"x":[1,2]})");
  BOOST_TEST(!back.changes.changed[1].present);
  BOOST_TEST(back.changes.updated == v.changes.updated, boost::test_tools::per_element());
  BOOST_TEST(back.changes.values.size() == 2u);
  BOOST_TEST(back.changes.values[1].v.to_json() == "3");  // an untracked value's, say
  BOOST_TEST(back.changes.overwritten == v.changes.overwritten, boost::test_tools::per_element());
  // A value for replicas that is the checkpoint value itself travels once.
  const std::string text = R"({"long": ")" + std::string(500, 'x') + R"("})";
  step_vote same;
  same.changes.changed = {{"a", true, value::parse_json(text)}};
  same.changes.values = same.changes.changed;
  step_vote twice = same;
  twice.changes.values[0].v = value::parse_json(text);  // equal, not the same
  BOOST_TEST(wire_codec::encode(same).size() + 400 < wire_codec::encode(twice).size());
  wire_codec::decode(wire_codec::encode(same), back);
  BOOST_REQUIRE(back.changes.values.size() == 1u);
  BOOST_TEST(back.changes.values[0].present);
  BOOST_TEST(back.changes.values[0].v.to_json() == value::parse_json(text).to_json());
  // A vote whose values do not match its changed channels is refused as malformed.
  v.changes.values.pop_back();
  BOOST_CHECK_THROW(wire_codec::decode(wire_codec::encode(v), back), error);

  channel_writes w = cw(3, {{4, "log", value("hi")}});
  channel_writes wb;
  wire_codec::decode(wire_codec::encode(w), wb);
  BOOST_TEST(wb.step == 3);
  BOOST_TEST(wb.writes.size() == 1u);
  BOOST_TEST(wb.writes[0].order == 4u);
  BOOST_TEST(wb.writes[0].v.to_json() == R"("hi")");
  BOOST_TEST(!wb.prepare.has_value());
  channel_writes riding = cw(3, {}, 9, step_prepare{3, 4, {"a"}, true, false, {}, 2});
  wire_codec::decode(wire_codec::encode(riding), wb);
  BOOST_TEST(wb.chunk == 9u);
  BOOST_REQUIRE(wb.prepare.has_value());
  BOOST_TEST(wb.prepare->expected == 4u);
  BOOST_TEST(wb.prepare->commits == 2);

  step_prepare p{5, 2, {"barrier"}, true, true, {{1, "log", value("carried")}}, 4};
  step_prepare pb;
  wire_codec::decode(wire_codec::encode(p), pb);
  BOOST_TEST(pb.step == 5);
  BOOST_TEST(pb.expected == 2u);
  BOOST_TEST(pb.consumed == p.consumed, boost::test_tools::per_element());
  BOOST_TEST(pb.bump_step);
  BOOST_TEST(pb.finish);
  BOOST_REQUIRE(pb.writes.size() == 1u);
  BOOST_TEST(pb.writes[0].order == 1u);
  BOOST_TEST(pb.writes[0].v.to_json() == R"("carried")");
  BOOST_TEST(pb.commits == 4);
  step_prepare none;
  wire_codec::decode(wire_codec::encode(step_prepare{}), none);
  BOOST_TEST(none.commits == -1);  // no commit travels with it

  // A result riding with writes or a vote, or a batch whose result would, stays in its
  // process: encoding one is an internal error, not a message that loses the result.
  channel_writes carrying = w;
  carrying.result = task_batch_done{};
  BOOST_CHECK_THROW(wire_codec::encode(carrying), error);
  step_vote with_results;
  with_results.results.emplace_back();
  BOOST_CHECK_THROW(wire_codec::encode(with_results), error);
  task_batch routed;
  routed.result_with_writes = true;
  BOOST_CHECK_THROW(wire_codec::encode(routed), error);

  // Damaged bytes are refused with an error naming the message.
  std::string bytes = wire_codec::encode(w);
  bytes.resize(bytes.size() / 2);
  BOOST_CHECK_EXCEPTION(wire_codec::decode(bytes, wb), error, [](const error& e) {
    return e.code() == error_code::protocol_error &&
           std::string(e.what()).find("channel writes") != std::string::npos;
  });
}

// A process's replica reads a channel once when a task here first needs it, and subscribes
// when a task needs a later version (a node run once here, as the input node, has no later
// change pushed to it). A read answered before the commit a wait needs subscribes too.
BOOST_AUTO_TEST_CASE(a_replica_reads_a_channel_once_then_subscribes_for_a_later_version) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  auto ch = spawn_channel_actor(sys, sample_group());
  caf::scoped_actor self{sys};
  auto replica = replica_of_run(sys, caf::actor(self), {caf::actor_cast<caf::actor>(ch)});
  const auto await = [&](std::vector<std::string> channels, std::vector<std::uint64_t> versions) {
    channel_push out;
    self->request(replica, wait, await_atom::value,
                  replica_wait{std::move(channels), std::move(versions)})
        .receive([&](channel_push& p) { out = std::move(p); },
                 [&](caf::error& e) { BOOST_FAIL("the wait was not answered: " + to_string(e)); });
    return out;
  };
  BOOST_TEST(find(await({"total"}, {0}).values, "total")->to_json() == "0");

  // Step 0 staged, its commit (version 1) on its way: "total" was read before and is now
  // subscribed to; "name" is read first, answered before the commit, then subscribed to.
  step_prepare p0{0, 0, {}, true, false, {{0, "total", value(5)}, {0, "name", value("x")}}, -1};
  auto v0 = request<step_vote>(self, ch, p0);
  BOOST_REQUIRE(!v0.error.has_value());
  self->delayed_send(ch, std::chrono::milliseconds(300), commit_atom::value, std::int64_t{0},
                     std::uint64_t{1});
  auto after = await({"total", "name"}, {1, 1});
  BOOST_TEST(find(after.values, "total")->to_json() == "5");
  BOOST_TEST(find(after.values, "name")->to_json() == "\"x\"");
  BOOST_TEST(after.versions == (std::vector<std::uint64_t>{1, 1}));
  self->send_exit(ch, caf::exit_reason::user_shutdown);
}

// The coordinator's own process has no remote node actor to pass on where a lost group's
// channels were placed again: its replica is told directly (regroup_replica), and a wait
// for a later version is answered by the new group, not asked of the lost one.
BOOST_AUTO_TEST_CASE(a_replica_told_of_a_group_placed_again_asks_the_new_one) {
  runtime rt(runtime_options{2});
  auto& sys = rt.internals().system;
  auto lost = spawn_channel_actor(sys, sample_group());
  caf::scoped_actor self{sys};
  auto replica = replica_of_run(sys, caf::actor(self), {caf::actor_cast<caf::actor>(lost)});
  const auto await = [&](std::uint64_t version) {
    channel_push out;
    self->request(replica, wait, await_atom::value, replica_wait{{"total"}, {version}})
        .receive([&](channel_push& p) { out = std::move(p); },
                 [&](caf::error& e) { BOOST_FAIL("the wait was not answered: " + to_string(e)); });
    return out;
  };
  BOOST_TEST(find(await(0).values, "total")->to_json() == "0");
  self->send_exit(lost, caf::exit_reason::kill);
  // Placed again at the version of the last commit, 1.
  auto placed = spawn_channel_actor(sys, sample_group(), caf::actor(), {{"total", 1}});
  regroup_replica(caf::actor(self), {caf::actor_cast<caf::actor>(placed)});
  auto after = await(1);
  BOOST_TEST(after.versions == (std::vector<std::uint64_t>{1}));
  self->send_exit(placed, caf::exit_reason::user_shutdown);
}

// A staged write names its channel by the process's one copy of that name: equal names are
// one pointer. Past the names a process keeps, a new name is a copy of its own (names made up
// without end cost only while they are used), equal to another copy of it. Keep this case last:
// it fills the process's table.
BOOST_AUTO_TEST_CASE(a_channel_name_is_one_shared_copy_up_to_a_bound) {
  const std::string long_name = "branch:to:a_node_with_a_long_name";
  const std::string_view view = long_name;
  channel_name a(long_name), b(view), c("total");
  BOOST_TEST(&a.str() == &b.str());
  BOOST_TEST((a == b));
  BOOST_TEST(!(a == c));
  BOOST_TEST((c == "total"));
  BOOST_TEST((a == long_name));
  BOOST_TEST(channel_name().str().empty());
  BOOST_TEST(sizeof(ordered_write) == 40u);
  std::vector<channel_name> many;
  for (int i = 0; i < 70000; ++i) many.emplace_back("generated_" + std::to_string(i));
  channel_name late("generated_69999");
  BOOST_TEST(late.str() == "generated_69999");
  BOOST_TEST(&late.str() != &many.back().str());  // past the bound: a copy of its own
  BOOST_TEST((late == many.back()));
  channel_name copied = late;
  BOOST_TEST((copied == late));
  BOOST_TEST(&copied.str() != &late.str());
  channel_name moved = std::move(copied);
  BOOST_TEST(moved.str() == "generated_69999");
  BOOST_TEST(&channel_name(long_name).str() == &a.str());  // known names are still shared
  BOOST_TEST(&channel_name("generated_0").str() == &many.front().str());
}
