// rocksdb_saver with values too big to write through a write batch and the memtable (a
// fan-out's 10^6 Sends: the tasks topic in the checkpoint, the pending writes of the task that
// sent them): a big list is stored in parts and a task's many writes in bundles, each through
// a table file added to the database at once. Every reader sees them whole: get_tuple after
// reopening, a list delta based on a list in parts, copy_thread, prune.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "raw_db.hpp"
#include "saver_conformance.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/pregel/send.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::rocksdb_saver;
using superstep::test::raw_db;
using superstep::test::table_files;

namespace {

// More elements than rocksdb_saver stores whole (65,536).
constexpr int big = 70'000;

list numbers(int n, int from = 0) {
  list out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(object{{"n", from + i}});
  return out;
}

struct blob_keys {
  int headers = 0, parts = 0, big_values = 0;
};

// The blobs of a list in parts: the header's key ends with 'p', a part's with 'p' and a u32.
blob_keys count_blobs(const std::string& dir) {
  blob_keys out;
  raw_db db(dir);
  for (const auto& [key, bytes] : db.entries("blobs")) {
    out.headers += key.back() == 'p';
    out.parts += key.size() > 5 && key[key.size() - 5] == 'p';
    out.big_values += bytes.size() > 600'000;  // whole, the list is about 1 MB
  }
  return out;
}

storage::rocksdb_saver_options unsynced() {
  storage::rocksdb_saver_options o;
  o.sync = false;  // a clean close keeps unsynced writes too
  return o;
}

// A saver in `dir` puts one checkpoint whose channel "sends", at version 1, is `big` long.
checkpoint_config put_big_list(const std::string& dir, checkpoint_builder& b) {
  auto saver = rocksdb_saver::open(dir, unsynced());
  return put_all(*saver, "t", "", "", b.make({{"sends", value(numbers(big))}}, {{"sends", 1}}),
                 loop_metadata(0));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_big_list_is_stored_in_parts_and_every_reader_sees_it_whole) {
  test::temp_dir dir("superstep-big-values");
  checkpoint_builder b;
  const value first = value(numbers(big));
  list longer_items = first.as_list();
  for (int i = 0; i < 10; ++i) longer_items.push_back(object{{"n", -i}});
  const value longer(longer_items);
  checkpoint_config s1, s2, s3;
  {
    auto saver = rocksdb_saver::open(dir.str(), unsynced());
    s1 = put_all(*saver, "t", "", "",
                 b.make({{"sends", first}, {"n", 1}}, {{"sends", 1}, {"n", 1}}), loop_metadata(0));
    // Extended: a list delta whose base is the list in parts.
    s2 = saver->put(s1, b.make({{"sends", longer}, {"n", 2}}, {{"sends", 2}, {"n", 2}}),
                    loop_metadata(1), {{"sends", 2}, {"n", 2}});
    s3 = saver->put(s2, b.make({{"sends", longer}, {"n", 3}}, {{"sends", 2}, {"n", 3}}),
                    loop_metadata(2), {{"n", 3}});
    BOOST_TEST(values_of(saver->get_tuple(s1)).get("sends") == first);
    BOOST_TEST(values_of(saver->get_tuple(s2)).get("sends") == longer);
  }
  BOOST_TEST(table_files(dir.str()) == 0);
  const blob_keys stored = count_blobs(dir.str());
  BOOST_TEST(stored.headers == 1);
  BOOST_TEST(stored.parts == 5);  // 70,000 elements, 16,384 a part
  BOOST_TEST(stored.big_values == 0);
  // A file a crash left before it was added goes when the database is opened.
  std::ofstream(dir.path / "superstep-table-1-0.tmp") << "half a table";
  auto saver = rocksdb_saver::open(dir.str(), unsynced());
  BOOST_TEST(table_files(dir.str()) == 0);
  BOOST_TEST(values_of(saver->get_tuple(s1)).get("sends") == first);
  BOOST_TEST(values_of(saver->get_tuple(s3)).get("sends") == longer);

  saver->copy_thread("t", "copy");
  BOOST_TEST(values_of(saver->get_tuple({"copy", "", s1.checkpoint_id})).get("sends") == first);
  BOOST_TEST(values_of(saver->get_tuple({"copy", "", ""})).get("sends") == longer);
  // The latest checkpoint reads the delta, and through it the list in parts: both stay.
  saver->prune({"t"}, 1);
  BOOST_TEST(values_of(saver->get_tuple({"t", "", ""})).get("sends") == longer);
  // Written whole again (shorter than the list in parts): nothing reads the parts any more.
  const value shorter(numbers(3));
  auto s4 = saver->put(s3, b.make({{"sends", shorter}, {"n", 4}}, {{"sends", 3}, {"n", 4}}),
                       loop_metadata(3), {{"sends", 3}, {"n", 4}});
  saver->prune({"t", "copy"}, 1);
  BOOST_TEST(values_of(saver->get_tuple(s4)).get("sends") == shorter);
  saver.reset();
  const blob_keys left = count_blobs(dir.str());
  BOOST_TEST(left.headers == 1);  // the copy's latest checkpoint still reads its own
  BOOST_TEST(left.parts == 5);
}

BOOST_AUTO_TEST_CASE(a_damaged_or_missing_part_is_an_error_naming_the_channel) {
  test::temp_dir dir("superstep-big-values");
  checkpoint_builder b;
  const checkpoint_config s1 = put_big_list(dir.str(), b);
  {
    raw_db db(dir.str());
    for (const auto& [key, bytes] : db.entries("blobs"))
      if (key.size() > 5 && key[key.size() - 5] == 'p' && key.back() == '\x02') {
        db.erase("blobs", key);
      }
  }
  auto saver = rocksdb_saver::open(dir.str(), unsynced());
  expect_error([&] { (void)saver->get_tuple(s1); }, error_code::storage_error,
               "channel 'sends' at version 1");
  expect_error([&] { (void)saver->get_tuple(s1); }, error_code::storage_error,
               "part 2 of 5 of a list in parts is missing");
  saver.reset();
  {
    // A header claiming billions of parts is refused before anything is sized from it.
    raw_db db(dir.str());
    for (const auto& [key, bytes] : db.entries("blobs"))
      if (key.back() == 'p') {
        const std::string u32_max = std::string(4, '\0') + std::string(4, '\xff');  // as a u64
        db.put("blobs", key, u32_max + u32_max);  // its length, and its number of parts
      }
  }
  saver = rocksdb_saver::open(dir.str(), unsynced());
  expect_error([&] { (void)saver->get_tuple(s1); }, error_code::storage_error,
               "part 4294967294 of 4294967295 of a list in parts is missing");
}

BOOST_AUTO_TEST_CASE(parts_a_crash_left_before_their_checkpoint_are_never_read) {
  test::temp_dir dir("superstep-big-values");
  checkpoint_builder b;
  const checkpoint_config s1 = put_big_list(dir.str(), b);
  {
    // The parts of version 1, again as those of version 2, without a header: what a crash
    // after the table file was added and before the checkpoint was written leaves.
    raw_db db(dir.str());
    int copied = 0;
    for (const auto& [key, bytes] : db.entries("blobs")) {
      if (key.size() < 13 || key[key.size() - 5] != 'p') continue;
      std::string at_2 = key;
      at_2[key.size() - 6] = '\x02';  // the version's last byte
      db.put("blobs", at_2, bytes);
      ++copied;
    }
    BOOST_TEST(copied == 5);
  }
  auto saver = rocksdb_saver::open(dir.str(), unsynced());
  // The step run again clears the channel at version 2, then writes a short list at 3.
  auto s2 = saver->put(s1, b.make({}, {{"sends", 2}}), loop_metadata(1), {{"sends", 2}});
  BOOST_TEST(values_of(saver->get_tuple(s2)) == value(object{}));
  auto s3 = saver->put(s2, b.make({{"sends", value(numbers(3))}}, {{"sends", 3}}), loop_metadata(2),
                       {{"sends", 3}});
  BOOST_TEST(values_of(saver->get_tuple(s3)).get("sends") == value(numbers(3)));
  BOOST_TEST(values_of(saver->get_tuple(s1)).get("sends") == value(numbers(big)));
  // A prune keeping every checkpoint takes the parts nothing reads: version 2 has no header.
  saver->prune({"t"}, 10);
  BOOST_TEST(values_of(saver->get_tuple(s1)).get("sends") == value(numbers(big)));
  saver.reset();
  BOOST_TEST(count_blobs(dir.str()).parts == 5);
}

BOOST_AUTO_TEST_CASE(a_prune_beside_a_put_of_a_list_in_parts_leaves_every_checkpoint_whole) {
  // The parts are in the database before the checkpoint that reads them: a prune, delete or
  // copy in between (another thread's, on any saver of the database) must not take them for
  // unused.
  test::temp_dir dir("superstep-big-values");
  checkpoint_builder b;
  auto saver = rocksdb_saver::open(dir.str(), unsynced());
  list sends = numbers(big);
  const value filler(std::string(std::size_t{4} << 20, 'x'));  // a longer write after the parts
  checkpoint_config last =
      put_all(*saver, "t", "", "", b.make({{"n", 0}}, {{"n", 1}}), loop_metadata(0));
  std::atomic<bool> done{false};
  std::atomic<int> prunes{0};
  std::thread pruner([&] {
    while (!done) {
      saver->prune({"t"}, 1);
      ++prunes;
    }
  });
  int unreadable = 0;
  for (int k = 1; k <= 8; ++k) {
    sends[0] = object{{"n", -k}};
    const auto v = static_cast<channel_version>(k + 1);
    last =
        saver->put(last, b.make({{"sends", value(sends)}, {"f", filler}}, {{"sends", v}, {"f", v}}),
                   loop_metadata(k), {{"sends", v}, {"f", v}});
    try {
      if (values_of(saver->get_tuple(last)).get("sends") != value(sends)) ++unreadable;
    } catch (const error& e) {
      if (++unreadable == 1) BOOST_TEST_MESSAGE("checkpoint " << k << ": " << e.what());
    }
  }
  done = true;
  pruner.join();
  BOOST_TEST(prunes > 0);
  BOOST_TEST(unreadable == 0);
}

BOOST_AUTO_TEST_CASE(a_task_with_many_writes_saves_them_through_a_table_and_reads_them_back) {
  test::temp_dir dir("superstep-big-values");
  checkpoint_builder b;
  std::vector<std::pair<std::string, value>> writes;
  for (int i = 0; i < big; ++i) writes.emplace_back(i % 2 ? "a" : "b", object{{"n", i}});
  checkpoint_config s1;
  {
    auto saver = rocksdb_saver::open(dir.str(), unsynced());
    s1 = put_all(*saver, "t", "", "", b.make({{"n", 1}}, {{"n", 1}}), loop_metadata(0));
    saver->put_writes(s1, writes, "sender", "p");
    saver->put_writes(s1, {{"n", 2}}, "other", "p");
    // Saved again (a retried task): the first copy stays, nothing is added.
    saver->put_writes(s1, writes, "sender", "p");
    // Two tasks' writes, bundled through a write batch, for the keys' shape below.
    saver->put_writes_many(s1, {{"aaaaaa", "p", {{"n", 3}}}, {"bbbbbb", "p", {{"n", 4}}}});
  }
  {
    // A bundle saved through a table file has a record number after its time and sequence:
    // the sender's 5 records (70,000 writes, 16,384 a record), 4 bytes longer than the
    // batch's bundle of two tasks whose first id is as long as the sender's.
    raw_db db(dir.str());
    std::map<std::size_t, int> lengths;
    for (const auto& [key, bytes] : db.entries("writes")) ++lengths[key.size()];
    BOOST_REQUIRE_EQUAL(lengths.size(), 3u);  // the other task's own record, and the bundles
    auto longest = std::prev(lengths.end());
    BOOST_TEST(longest->second == 5);
    BOOST_TEST(lengths.count(longest->first - 4) == 1);
    BOOST_TEST(lengths[longest->first - 4] == 1);
  }
  BOOST_TEST(table_files(dir.str()) == 0);
  auto saver = rocksdb_saver::open(dir.str(), unsynced());
  auto tuple = saver->get_tuple(s1);
  BOOST_REQUIRE(tuple);
  BOOST_REQUIRE_EQUAL(tuple->pending_writes.size(), writes.size() + 3);
  BOOST_TEST(tuple->pending_writes[2].task_id == "other");
  for (std::size_t i = 0; i < writes.size(); ++i) {
    const pending_write& w = tuple->pending_writes[i + 3];
    if (w.task_id != "sender" || w.channel != writes[i].first || w.v != writes[i].second) {
      BOOST_ERROR("pending write " << i << " of the sender reads back as " << w.task_id << " "
                                   << w.channel << " " << w.v.to_json());
      break;
    }
  }
}

BOOST_AUTO_TEST_CASE(a_fan_out_stopped_after_its_sends_resumes_from_them_after_reopening) {
  // The input node sends 70,000 Sends: its pending writes and then the tasks topic in the
  // checkpoint go through table files; the run stops before the Sends' tasks, and a new
  // saver on the folder resumes it from what it reads back.
  test::temp_dir dir("superstep-big-values");
  const auto compiled = [](std::shared_ptr<rocksdb_saver> saver) {
    state_graph b;
    b.add_key("total", "add");
    b.add_node("work", [](const value& in, node_context&) {
      return value(object{{"total", in.get("i")}});
    });
    b.add_conditional_edges("__start__", [](const value&, node_context&) {
      list sends;
      for (int i = 0; i < big; ++i) sends.push_back(make_send("work", object{{"i", i}}));
      return value(std::move(sends));
    });
    b.add_edge("work", "__end__");
    compile_options o;
    o.checkpointer = std::move(saver);
    o.interrupt_before = {"work"};
    return b.compile(o);
  };
  const value config = object{{"configurable", object{{"thread_id", "t"}}}};
  {
    auto graph = compiled(rocksdb_saver::open(dir.str(), unsynced()));
    (void)graph->invoke(object{{"total", 0}}, config);
    const state_snapshot stopped = graph->get_state(config);
    BOOST_TEST(stopped.next.size() == static_cast<std::size_t>(big));
    BOOST_TEST(stopped.tasks.size() == static_cast<std::size_t>(big));
  }
  BOOST_TEST(count_blobs(dir.str()).parts == 5);
  auto graph = compiled(rocksdb_saver::open(dir.str(), unsynced()));
  const value out = graph->invoke(value(), config);
  const std::int64_t n = big;
  BOOST_TEST(out.get("total").as_int() == n * (n - 1) / 2);
}
