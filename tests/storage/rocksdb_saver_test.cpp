// rocksdb_saver: the saver conformance suite; what survives closing and reopening; blobs written
// once per channel version (counted in the database itself); damaged records as errors naming
// the thread and checkpoint; copy_thread, prune and input checks; the seed example's four
// checkpoints through a graph.
#include "superstep/storage/rocksdb_saver.hpp"

#include <rocksdb/db.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "raw_db.hpp"
#include "saver_conformance.hpp"
#include "superstep/graph/state_graph.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::rocksdb_saver;
using superstep::test::raw_db;

namespace {

namespace fs = std::filesystem;

struct temp_dir : test::temp_dir {
  temp_dir() : test::temp_dir("superstep-rocksdb-test") {}
};

// A saver in a fresh directory, which goes with it.
std::shared_ptr<rocksdb_saver> make_rocksdb_saver() {
  auto dir = std::make_shared<temp_dir>();
  rocksdb_saver* saver = rocksdb_saver::open(dir->str()).release();
  return std::shared_ptr<rocksdb_saver>(saver, [dir](rocksdb_saver* s) { delete s; });
}

// The key of `id`'s record among the checkpoints of a database: the one that ends with it.
std::string checkpoint_key(const raw_db& db, const std::string& id) {
  for (const auto& [key, v] : db.entries("checkpoints"))
    if (key.size() >= id.size() && key.compare(key.size() - id.size(), id.size(), id) == 0)
      return key;
  BOOST_FAIL("no record of checkpoint " << id);
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(saver_conformance)
SUPERSTEP_SAVER_CONFORMANCE(make_rocksdb_saver)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(checkpoints_values_and_writes_survive_closing_and_reopening) {
  temp_dir dir;
  checkpoint_builder b;
  auto c1 = b.make({{"a", 1}, {"b", bytes{std::string("\0z", 2)}}}, {{"a", 1}, {"b", 1}});
  auto c2 = b.make({{"a", 2}, {"b", bytes{std::string("\0z", 2)}}}, {{"a", 2}, {"b", 1}});
  auto sub = b.make({{"x", object{{"deep", value::array({1.5, "s"})}}}}, {{"x", 1}});
  c2.versions_seen = {{"node", {{"a", 1}}}};
  c2.updated_channels = {"a"};
  value root, child;
  {
    storage::rocksdb_saver_options options;
    options.sync = false;  // a clean close keeps unsynced writes too
    auto saver = rocksdb_saver::open(dir.str(), options);
    auto s1 = put_all(*saver, "t", "", "", c1, loop_metadata(-1, object{{"a", 1}}));
    auto meta = loop_metadata(0, object{{"node", object{{"a", 2}}}});
    meta.extra = object{{"user", "u"}};
    meta.parents = {{"", s1.checkpoint_id}};
    auto s2 = saver->put(s1, c2, meta, {{"a", 2}});
    auto ssub = put_all(*saver, "t", "sub:1", "", sub, loop_metadata(0));
    saver->put_writes(s2, {{"a", 3}, {std::string(ERROR), "boom"}}, "task-1", "p");
    saver->put_writes(ssub, {{"x", "w"}}, "task-2", "p");
    root = history_without_thread(*saver, "t", "");
    child = history_without_thread(*saver, "t", "sub:1");
  }
  auto saver = rocksdb_saver::open(dir.str());
  BOOST_TEST(saver->directory() == dir.str());
  BOOST_TEST(root.as_list().size() == 2u);
  BOOST_TEST(history_without_thread(*saver, "t", "") == root);
  BOOST_TEST(history_without_thread(*saver, "t", "sub:1") == child);
  auto latest = saver->get_tuple({"t", "", ""});
  BOOST_REQUIRE(latest);
  BOOST_TEST(latest->checkpoint.id == c2.id);
  BOOST_TEST(latest->pending_writes.size() == 2u);
  BOOST_TEST(values_of(latest) == value(object{{"a", 2}, {"b", bytes{std::string("\0z", 2)}}}));
}

BOOST_AUTO_TEST_CASE(an_unchanged_channel_is_stored_once_in_the_blobs) {
  temp_dir dir;
  checkpoint_builder b;
  const value big = value(std::string(4096, 'x'));
  {
    auto saver = rocksdb_saver::open(dir.str());
    auto c1 = b.make({{"a", 1}, {"big", big}}, {{"a", 1}, {"big", 1}});
    auto s = put_all(*saver, "t", "", "", c1, loop_metadata(0));
    for (int i = 2; i <= 5; ++i) {
      auto c = b.make({{"a", i}, {"big", big}}, {{"a", i}, {"big", 1}});
      s = saver->put(s, c, loop_metadata(i - 1), {{"a", static_cast<channel_version>(i)}});
    }
    // a cleared at version 6: no value for it, an empty marker that the version is taken.
    auto c6 = b.make({{"big", big}}, {{"a", 6}, {"big", 1}});
    s = saver->put(s, c6, loop_metadata(5), {{"a", 6}});
    BOOST_TEST(values_of(saver->get_tuple(s)) == value(object{{"big", big}}));
  }
  raw_db db(dir.str());
  for (const char* family : {"checkpoints", "writes", "blobs", "store"})
    BOOST_TEST((std::find(db.names().begin(), db.names().end(), family) != db.names().end()),
               family);
  BOOST_TEST(db.entries("checkpoints").size() == 6u);
  const auto blobs = db.entries("blobs");
  BOOST_TEST(blobs.size() == 7u);  // a at versions 1..5, big once, a's cleared marker
  std::size_t empty_blobs = 0;
  for (const auto& [key, bytes] : blobs) empty_blobs += bytes.empty();
  BOOST_TEST(empty_blobs == 1u);
  std::size_t big_blobs = 0;
  for (const auto& [key, bytes] : blobs) big_blobs += bytes.size() > 4096;
  BOOST_TEST(big_blobs == 1u);
  // The checkpoint records hold no values: each is far smaller than `big`.
  for (const auto& [key, record] : db.entries("checkpoints")) BOOST_TEST(record.size() < 1024u);
  BOOST_TEST(db.entries("store").empty());
}

// A list that grows by an element a step (an append reducer's channel) is written as what it
// added, not whole: every version reads back, after reopening, after pruning, and next to a
// fork whose list is not an extension of the last one written.
BOOST_AUTO_TEST_CASE(a_growing_list_is_written_as_deltas_and_every_version_reads_back) {
  temp_dir dir;
  checkpoint_builder b;
  const std::string text(200, 'm');
  std::vector<value> lists;  // the list of each checkpoint, each sharing the last one's elements
  std::vector<checkpoint_config> stored;
  constexpr int steps = 40;
  {
    auto saver = rocksdb_saver::open(dir.str());
    list now;
    for (int i = 0; i < 8; ++i) now.push_back(object{{"n", i}, {"text", text}});
    checkpoint_config at{"t", "", ""};
    for (int v = 1; v <= steps; ++v) {
      now.push_back(object{{"n", v + 100}, {"text", text}});
      lists.emplace_back(now);
      auto cp = b.make(
          {{"messages", lists.back()}, {"n", v}},
          {{"messages", static_cast<channel_version>(v)}, {"n", static_cast<channel_version>(v)}});
      at = put_all(*saver, "t", "", at.checkpoint_id, cp, loop_metadata(v));
      stored.push_back(at);
    }
    for (int v = 1; v <= steps; ++v)
      BOOST_TEST(values_of(saver->get_tuple(stored[v - 1])).get("messages") == lists[v - 1]);
    // A fork from version 10 with a list of its own: not an extension of the last list.
    list fork = lists[9].as_list();
    fork.push_back("forked");
    auto cp = b.make({{"messages", value(fork)}}, {{"messages", steps + 1}});
    auto forked = saver->put(stored[9], cp, loop_metadata(11), {{"messages", steps + 1}});
    BOOST_TEST(values_of(saver->get_tuple(forked)).get("messages") == value(fork));
    BOOST_TEST(values_of(saver->get_tuple(stored.back())).get("messages") == lists.back());
  }
  std::size_t deltas = 0, blob_bytes = 0;
  {
    raw_db db(dir.str());
    for (const auto& [key, bytes] : db.entries("blobs")) {
      deltas += key.back() == 'd';
      blob_bytes += bytes.size();
    }
  }
  // Whole, the lists would take ~ (8+1 + 8+40) / 2 * 40 elements of ~200 bytes: ~230 KB.
  BOOST_TEST(deltas >= 30u);
  BOOST_TEST(blob_bytes < 60'000u);
  // A reopened saver (nothing remembered) reads every version, then writes on.
  auto saver = rocksdb_saver::open(dir.str());
  for (int v = 1; v <= steps; ++v)
    BOOST_TEST(values_of(saver->get_tuple(stored[v - 1])).get("messages") == lists[v - 1]);
  saver->prune({"t"}, 3);
  const auto kept = saver->list({"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(kept.size(), 3u);
  BOOST_TEST(values_of(kept[1]).get("messages") == lists[steps - 1]);
  BOOST_TEST(values_of(kept[2]).get("messages") == lists[steps - 2]);
}

// What a list is written as a delta against stays in memory until the channel's next write.
// A list the run says will not be extended (a topic that starts afresh each step: the tasks
// topic, whose 10^6 Sends the fan-out step lets go of as it plans their tasks) is not kept.
BOOST_AUTO_TEST_CASE(a_list_the_run_will_not_extend_is_not_kept_for_deltas) {
  temp_dir dir;
  checkpoint_builder b;
  auto saver = rocksdb_saver::open(dir.str());
  value sends, log;
  {
    list s, l;
    for (int i = 0; i < 8; ++i) {
      s.push_back(object{{"n", i}});
      l.push_back(object{{"n", i}});
    }
    sends = value(std::move(s));
    log = value(std::move(l));
  }
  checkpoint_config at;
  {
    auto cp = b.make({{"sends", sends}, {"log", log}}, {{"sends", 1}, {"log", 1}});
    checkpoint_changes changes;
    changes.versions = {{"sends", 1}, {"log", 1}};
    changes.not_extended = {"sends"};
    at = saver->put_changes({"t", "", ""}, cp, loop_metadata(1), changes);
  }
  BOOST_TEST(sends.sole_list() != nullptr);  // only this test holds it
  BOOST_TEST(log.sole_list() == nullptr);    // the saver keeps it: its next write may extend it
  const value saved = values_of(saver->get_tuple(at));
  BOOST_TEST(saved.get("sends") == sends);
  BOOST_TEST(saved.get("log") == log);
}

BOOST_AUTO_TEST_CASE(a_damaged_list_delta_or_a_missing_base_is_an_error_naming_the_channel) {
  temp_dir dir;
  checkpoint_builder b;
  checkpoint_config at{"t", "", ""};
  std::vector<checkpoint_config> stored;
  {
    auto saver = rocksdb_saver::open(dir.str());
    list now{1, 2, 3, 4};
    for (channel_version v = 1; v <= 4; ++v) {
      now.push_back(static_cast<int>(v) * 10);
      auto cp = b.make({{"l", value(now)}}, {{"l", v}});
      at = put_all(*saver, "t", "", at.checkpoint_id, cp, loop_metadata(static_cast<int>(v)));
      stored.push_back(at);
    }
  }
  {
    raw_db db(dir.str());
    const auto blobs = db.entries("blobs");
    BOOST_REQUIRE_EQUAL(blobs.size(), 4u);  // whole at 1, deltas at 2..4
    BOOST_TEST(blobs[0].first.back() != 'd');
    BOOST_TEST(blobs[3].first.back() == 'd');
    db.put("blobs", blobs[3].first, "garbage");
    // Version 2's delta names version 1, whose whole blob goes.
    BOOST_REQUIRE(blobs[1].first.back() == 'd');
    db.erase("blobs", blobs[0].first);
  }
  auto saver = rocksdb_saver::open(dir.str());
  expect_error([&] { (void)saver->get_tuple(stored[3]); }, error_code::storage_error,
               "channel 'l' at version 4");
  expect_error([&] { (void)saver->get_tuple(stored[1]); }, error_code::storage_error,
               "channel 'l' at version 2: base version 1 of a list delta has no value");
}

BOOST_AUTO_TEST_CASE(version_maps_are_stored_as_what_changed_and_read_back_after_reopening) {
  temp_dir dir;
  std::vector<checkpoint_config> line;
  std::map<std::string, checkpoint> expected;
  {
    auto saver = rocksdb_saver::open(dir.str());
    changing_graph g(*saver);
    line.push_back(g.start());
    for (int i = 1; i <= 64; ++i) line.push_back(g.step(line.back(), i));
    expected = g.expected();
  }
  {
    // The first record holds 60 channels and 40 nodes; a step's holds what changed since its
    // base: a few entries, so a fraction of the bytes.
    raw_db db(dir.str());
    const auto first = db.entries("checkpoints").front().second.size();
    const auto step_3 = db.entries("checkpoints").at(3).second.size();
    BOOST_TEST(step_3 * 4 < first, "step 3: " << step_3 << " bytes, first: " << first);
  }
  auto saver = rocksdb_saver::open(dir.str());
  for (const auto& at : line) {
    auto t = saver->get_tuple(at);
    BOOST_REQUIRE(t);
    BOOST_TEST(checkpoint_value(t->checkpoint) == checkpoint_value(expected.at(at.checkpoint_id)));
  }
  // A new process's first put is whole; its next ones go on as deltas.
  changing_graph more(*saver, "t2");
  auto at = more.start();
  for (int i = 1; i <= 10; ++i) at = more.step(at, i);
  expect_all_read_back(*saver, more, "t2");
}

BOOST_AUTO_TEST_CASE(a_checkpoint_whose_versions_base_is_missing_is_an_error_naming_both) {
  temp_dir dir;
  std::vector<checkpoint_config> line;
  {
    auto saver = rocksdb_saver::open(dir.str());
    changing_graph g(*saver);
    line.push_back(g.start());
    for (int i = 1; i <= 4; ++i) line.push_back(g.step(line.back(), i));
  }
  {
    raw_db db(dir.str());
    db.erase("checkpoints", checkpoint_key(db, line[0].checkpoint_id));  // the base of 1..4
  }
  auto saver = rocksdb_saver::open(dir.str());
  expect_error([&] { (void)saver->get_tuple(line[3]); }, error_code::storage_error,
               "checkpoint " + line[3].checkpoint_id +
                   " of thread 't': its versions are stored against checkpoint " +
                   line[0].checkpoint_id + ", which is missing");
}

BOOST_AUTO_TEST_CASE(a_damaged_record_is_an_error_naming_its_thread_and_checkpoint) {
  temp_dir dir;
  checkpoint_builder b;
  auto c1 = b.make({{"a", "fine"}}, {{"a", 1}});
  auto c2 = b.make({{"a", "damaged blob"}}, {{"a", 2}});
  auto c3 = b.make({{"a", "fine"}}, {{"a", 1}});
  {
    auto saver = rocksdb_saver::open(dir.str());
    auto s1 = put_all(*saver, "thread-x", "", "", c1, loop_metadata(0));
    auto s2 = saver->put(s1, c2, loop_metadata(1), {{"a", 2}});
    saver->put(s2, c3, loop_metadata(2), {});
    saver->put_writes(s1, {{"w", 1}}, "task-w", "p");
  }
  std::string good_record;
  {
    raw_db db(dir.str());
    const std::string key = checkpoint_key(db, c3.id);
    for (const auto& [k, v] : db.entries("checkpoints"))
      if (k == key) good_record = v;
    db.put("checkpoints", key, "garbage!garbage!");
    // c2's blob: the blob of a at version 2, the second of the thread's two blobs.
    db.put("blobs", db.entries("blobs").at(1).first, "not a value");
    db.put("writes", db.entries("writes").at(0).first, std::string(16, '\0'));
  }
  auto saver = rocksdb_saver::open(dir.str());
  expect_error(
      [&] {
        (void)saver->get_tuple({"thread-x", "", ""});
      },
      error_code::storage_error, "checkpoint " + c3.id + " of thread 'thread-x'");
  expect_error(
      [&] {
        (void)saver->list({"thread-x", "", ""}, {});
      },
      error_code::storage_error, "thread 'thread-x'");
  expect_error(
      [&] {
        (void)saver->get_tuple({"thread-x", "", c2.id});
      },
      error_code::storage_error, "channel 'a' at version 2");
  expect_error(
      [&] {
        (void)saver->get_tuple({"thread-x", "", c1.id});
      },
      error_code::storage_error, "pending write 0 of task 'task-w'");
  expect_error([&] { saver->prune({"thread-x"}, 1); }, error_code::storage_error, c3.id);
  // A truncated record is as clear; the good bytes put back read again.
  const auto rewrite = [&](const std::string& record) {
    saver.reset();
    raw_db db(dir.str());
    db.put("checkpoints", checkpoint_key(db, c3.id), record);
  };
  rewrite(good_record.substr(0, good_record.size() - 8));
  saver = rocksdb_saver::open(dir.str());
  expect_error(
      [&] {
        (void)saver->get_tuple({"thread-x", "", c3.id});
      },
      error_code::storage_error, "thread 'thread-x'");
  rewrite(good_record);
  saver = rocksdb_saver::open(dir.str());
  BOOST_TEST(values_of(saver->get_tuple({"thread-x", "", ""})) == value(object{{"a", "fine"}}));
}

// In one process, savers (and a store) on one folder share its database; another process
// holding it is an error naming the folder.
BOOST_AUTO_TEST_CASE(a_database_is_shared_in_a_process_and_another_process_holding_it_is_named) {
  temp_dir dir;
  auto first = rocksdb_saver::open(dir.str());
  checkpoint_builder b;
  auto s = put_all(*first, "t", "", "", b.make({{"a", 1}}, {{"a", 1}}), loop_metadata(0));
  auto second = rocksdb_saver::open(dir.str());
  BOOST_TEST(second->get_tuple(s).has_value());
  expect_error([&] { (void)rocksdb_saver::open(""); }, error_code::invalid_argument, "directory");

#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer cannot run a forked child that starts threads (RocksDB's): the part
  // with another process holding the database runs in the other builds.
  return;
#endif
  temp_dir held;
  int ready[2];
  BOOST_REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    auto saver = rocksdb_saver::open(held.str());
    (void)!::write(ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);  // a child that dies before holding the database ends the read
  char c = 0;
  const bool held_by_child = ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  if (held_by_child)
    expect_error([&] { (void)rocksdb_saver::open(held.str()); }, error_code::storage_error,
                 held.str());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  BOOST_REQUIRE_MESSAGE(held_by_child, "the child process died before opening the database");
}

BOOST_AUTO_TEST_CASE(copy_thread_copies_every_namespace_with_values_and_writes) {
  auto saver = make_rocksdb_saver();
  checkpoint_builder b;
  auto stale = b.make({{"a", "stale"}}, {{"a", 1}});
  put_all(*saver, "copy", "", "", stale, loop_metadata(0));
  put_all(*saver, "copy", "stale-ns", "", stale, loop_metadata(0));
  auto c1 = b.make({{"a", 1}, {"b", "shared"}}, {{"a", 1}, {"b", 1}});
  auto c2 = b.make({{"a", 2}, {"b", "shared"}}, {{"a", 2}, {"b", 1}});
  auto sub = b.make({{"x", "sub"}}, {{"x", 1}});
  auto s1 = put_all(*saver, "src", "", "", c1, loop_metadata(0));
  auto s2 = saver->put(s1, c2, loop_metadata(1), {{"a", 2}});
  auto ssub = put_all(*saver, "src", "sub:1", "", sub, loop_metadata(0));
  saver->put_writes(s2, {{std::string(ERROR), "boom"}}, "task-2", "p");
  saver->put_writes(ssub, {{"x", "w"}}, "task-3", "p");
  const value root = history_without_thread(*saver, "src", "");
  const value child = history_without_thread(*saver, "src", "sub:1");

  saver->copy_thread("src", "copy");
  BOOST_TEST(history_without_thread(*saver, "copy", "") == root);
  BOOST_TEST(history_without_thread(*saver, "copy", "sub:1") == child);
  BOOST_TEST(!saver->get_tuple({"copy", "", stale.id}));
  BOOST_TEST(!saver->get_tuple({"copy", "stale-ns", ""}));
  saver->copy_thread("src", "src");
  BOOST_TEST(history_without_thread(*saver, "src", "") == root);
  saver->delete_thread("src");
  BOOST_TEST(history_without_thread(*saver, "copy", "sub:1") == child);
  BOOST_TEST(values_of(saver->get_tuple({"copy", "", c1.id})) ==
             value(object{{"a", 1}, {"b", "shared"}}));
  expect_error([&] { saver->copy_thread("src", "elsewhere"); }, error_code::not_found, "'src'");
  expect_error([&] { saver->copy_thread("", "x"); }, error_code::invalid_argument, "thread");
}

BOOST_AUTO_TEST_CASE(prune_keeps_the_latest_checkpoints_and_the_blobs_they_read) {
  auto saver = make_rocksdb_saver();
  checkpoint_builder b;
  auto c1 = b.make({{"a", 1}, {"b", "from c1"}}, {{"a", 1}, {"b", 1}});
  auto c2 = b.make({{"a", 2}}, {{"a", 2}, {"b", 1}});
  auto c3 = b.make({{"a", 3}}, {{"a", 3}, {"b", 1}});
  auto d1 = b.make({{"x", 1}}, {{"x", 1}});
  auto d2 = b.make({{"x", 2}}, {{"x", 2}});
  auto s1 = put_all(*saver, "t", "", "", c1, loop_metadata(0));
  auto s2 = saver->put(s1, c2, loop_metadata(1), {{"a", 2}});
  auto s3 = saver->put(s2, c3, loop_metadata(2), {{"a", 3}});
  auto sd1 = put_all(*saver, "t", "sub:1", "", d1, loop_metadata(0));
  auto sd2 = put_all(*saver, "t", "sub:1", sd1.checkpoint_id, d2, loop_metadata(1));
  put_all(*saver, "keep", "", "", d1, loop_metadata(0));
  for (const auto& s : {s1, s2, s3, sd1, sd2}) saver->put_writes(s, {{"w", 1}}, "task", "p");

  saver->prune({"t", "never-existed"}, 1);
  auto root = saver->list({"t", "", ""}, {});
  BOOST_REQUIRE_EQUAL(root.size(), 1u);
  BOOST_TEST(values_of(root[0]) == value(object{{"a", 3}, {"b", "from c1"}}));
  BOOST_TEST(root[0].pending_writes.size() == 1u);
  BOOST_TEST(optional_config_value(root[0].parent_config) == config_value(s2));
  BOOST_TEST(ids_of(saver->list({"t", "sub:1", ""}, {})) == std::vector{d2.id});
  // c1's writes and its blob of a are gone; b, still read by c3, is not.
  auto again = saver->put({"t", "", ""}, c1, loop_metadata(0), {});
  BOOST_TEST(values_of(saver->get_tuple(again)) == value(object{{"b", "from c1"}}));
  BOOST_TEST(saver->get_tuple(again)->pending_writes.empty());
  saver->prune({"keep"}, 0);
  BOOST_TEST(!saver->get_tuple({"keep", "", ""}));
  BOOST_TEST(saver->list({"t", "", ""}, {}).size() == 2u);
}

BOOST_AUTO_TEST_CASE(rejects_an_empty_thread_or_checkpoint_id) {
  auto saver = make_rocksdb_saver();
  checkpoint_builder b;
  auto cp = b.make({}, {});
  expect_error(
      [&] {
        saver->put({"", "", ""}, cp, loop_metadata(0), {});
      },
      error_code::invalid_argument, "thread_id");
  checkpoint no_id = cp;
  no_id.id.clear();
  expect_error(
      [&] {
        saver->put({"t", "", ""}, no_id, loop_metadata(0), {});
      },
      error_code::invalid_argument, "checkpoint_id");
  expect_error(
      [&] {
        saver->put_writes({"t", "", ""}, {{"a", 1}}, "task", "p");
      },
      error_code::invalid_argument, "checkpoint_id");
  expect_error(
      [&] {
        (void)saver->get_tuple({"", "", ""});
      },
      error_code::invalid_argument, "thread_id");
}

BOOST_AUTO_TEST_CASE(thread_ids_with_nul_bytes_and_shared_prefixes_stay_apart) {
  auto saver = make_rocksdb_saver();
  checkpoint_builder b;
  const std::vector<std::string> threads{"a", std::string("a\0", 2), "ab", std::string("a\0b", 3),
                                         std::string("a\x01", 2)};
  for (const auto& t : threads) put_all(*saver, t, "", "", b.make({{"t", t}}, {{"t", 1}}), {});
  for (const auto& t : threads) {
    BOOST_TEST(values_of(saver->get_tuple({t, "", ""})) == value(object{{"t", t}}));
    BOOST_TEST(saver->list({t, "", ""}, {}).size() == 1u);
  }
  std::vector<std::string> listed;
  for (const auto& t : saver->list({"", "", ""}, {})) listed.push_back(t.config.thread_id);
  auto sorted = threads;
  std::sort(sorted.begin(), sorted.end());
  BOOST_TEST(listed == sorted);
  saver->delete_thread("a");
  BOOST_TEST(saver->list({"", "", ""}, {}).size() == threads.size() - 1);
}

BOOST_AUTO_TEST_CASE(the_seed_example_saves_its_four_checkpoints_in_rocksdb) {
  temp_dir dir;
  const auto returns = [](value update) {
    return [update](const value&, node_context&) { return update; };
  };
  state_graph g;
  g.add_key("foo").add_key("bar", "append");
  g.add_node("node_a", returns(object{{"foo", "a"}, {"bar", value::array({"a"})}}));
  g.add_node("node_b", returns(object{{"foo", "b"}, {"bar", value::array({"b"})}}));
  g.add_edge(std::string(START), "node_a").add_edge("node_a", "node_b");
  g.add_edge("node_b", std::string(END));
  const value thread_1 = object{{"configurable", object{{"thread_id", "1"}}}};
  {
    compile_options options;
    options.checkpointer = std::shared_ptr<rocksdb_saver>(rocksdb_saver::open(dir.str()));
    BOOST_TEST(g.compile(options)->invoke(object{{"foo", ""}}, thread_1) ==
               value(object{{"foo", "b"}, {"bar", value::array({"a", "b"})}}));
  }
  // Read back after reopening: what the run saved is on disk.
  auto saver = rocksdb_saver::open(dir.str());
  auto history = saver->list({"1", "", ""}, {});
  BOOST_REQUIRE_EQUAL(history.size(), 4u);
  std::vector<std::int64_t> steps;
  std::vector<std::string> sources;
  for (const auto& t : history) {
    steps.push_back(t.metadata.step);
    sources.push_back(t.metadata.source);
  }
  BOOST_TEST(steps == (std::vector<std::int64_t>{2, 1, 0, -1}));
  BOOST_TEST(sources == (std::vector<std::string>{"loop", "loop", "loop", "input"}));
  BOOST_TEST(!history[3].parent_config);
  for (std::size_t i = 0; i + 1 < history.size(); ++i) {
    BOOST_REQUIRE(history[i].parent_config);
    BOOST_TEST(config_value(*history[i].parent_config) == config_value(history[i + 1].config));
  }
  BOOST_TEST(history[0].checkpoint.channel_values.at("foo") == value("b"));
  BOOST_TEST(history[0].checkpoint.channel_values.at("bar") == value::array({"a", "b"}));
  BOOST_TEST(history[2].pending_writes.size() >= 2u);  // node_a's foo and bar
}

BOOST_AUTO_TEST_CASE(a_list_written_below_the_last_version_of_its_channel_is_written_whole) {
  // Two runs on one thread at once (what one run per thread now prevents) each issue versions
  // from the checkpoint they started at: one writes the list at version 4, the other then
  // extends the same list at version 3. A delta of version 3 against version 4 could never be
  // read ("names base version 4, not an earlier one"): it is written whole instead.
  temp_dir dir;
  checkpoint_builder b;
  auto saver = rocksdb_saver::open(dir.str());
  list base;
  for (int i = 0; i < 8; ++i) base.push_back(object{{"n", i}, {"text", std::string(100, 'm')}});
  auto at4 = b.make({{"log", value(base)}}, {{"log", 4}});
  auto first = put_all(*saver, "t", "", "", at4, loop_metadata(1));
  list more = base;
  more.push_back("later");
  auto at3 = b.make({{"log", value(more)}}, {{"log", 3}});
  auto second = put_all(*saver, "t", "", "", at3, loop_metadata(1));
  BOOST_TEST(values_of(saver->get_tuple(second)).get("log") == value(more));
  BOOST_TEST(values_of(saver->get_tuple(first)).get("log") == value(base));
}

BOOST_AUTO_TEST_CASE(savers_on_one_database_share_its_runs) {
  // One run per thread holds across every saver of the database in this process.
  temp_dir dir;
  auto first = rocksdb_saver::open(dir.str());
  auto second = rocksdb_saver::open(dir.str());
  BOOST_TEST(&first->runs() == &second->runs());
  thread_runs::slot held = first->runs().begin("t", "run-1", multitask_strategy::reject);
  expect_error([&] { (void)second->runs().begin("t", "run-2", multitask_strategy::reject); },
               error_code::thread_busy, "thread 't' is busy with run run-1");
  BOOST_TEST(second->runs().status("t").running == "run-1");
  // Another database has runs of its own.
  temp_dir other;
  auto third = rocksdb_saver::open(other.str());
  thread_runs::slot elsewhere = third->runs().begin("t", "run-3", multitask_strategy::reject);
  BOOST_TEST(third->runs().status("t").running == "run-3");
}
