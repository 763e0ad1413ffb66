// A checkpointed run whose redis-server (AOF on, every write fsynced) is killed under it, in
// the middle of a step: restarted at once, the saver reconnects and the run ends as if nothing
// happened; left down, the run fails with an error naming the server and the command, and
// resuming the thread once the server is back gives the result of an uninterrupted run.
#include <boost/test/unit_test.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "superstep/core/error.hpp"
#include "superstep/graph/state_graph.hpp"
#include "superstep/storage/memory_saver.hpp"
#include "superstep/storage/redis_client.hpp"
#include "superstep/storage/redis_saver.hpp"
#include "support/expect_error.hpp"
#include "support/redis_server.hpp"

using namespace superstep;

namespace {

value thread(const char* id) { return object{{"configurable", object{{"thread_id", id}}}}; }

// n0 -> n1 -> ... -> n4, each appending its name to `trace` and adding 1 to `count`; `hook`
// runs inside n2 the first time it runs (with `hook_ran` set).
struct chain {
  std::function<void()> hook;
  bool hook_ran = false;

  std::shared_ptr<pregel> compile(std::shared_ptr<checkpoint_saver> saver) {
    state_graph g;
    g.add_key("trace", "append").add_key("count", "add");
    for (int i = 0; i < 5; ++i) {
      const std::string name = "n" + std::to_string(i);
      g.add_node(name, [this, name](const value&, node_context&) -> value {
        if (name == "n2" && hook && !hook_ran) {
          hook_ran = true;
          hook();
        }
        return object{{"trace", value::array({name})}, {"count", 1}};
      });
      g.add_edge(i == 0 ? std::string("__start__") : "n" + std::to_string(i - 1), name);
    }
    g.add_edge("n4", "__end__");
    compile_options o;
    o.checkpointer = std::move(saver);
    return g.compile(o);
  }
};

const value input = object{{"trace", value::array({"in"})}, {"count", 0}};

// What the run gives, and the (step, values) of its history, with nothing in the way.
std::pair<value, std::vector<std::string>> uninterrupted() {
  chain c;
  auto saver = std::make_shared<storage::memory_saver>();
  auto g = c.compile(saver);
  value out = g->invoke(input, thread("t"));
  std::vector<std::string> history;
  for (const auto& t : saver->list({"t", "", ""}, {}))
    history.push_back(std::to_string(t.metadata.step) + " " + t.metadata.source);
  return {out, history};
}

std::vector<std::string> history_of(checkpoint_saver& saver) {
  std::vector<std::string> out;
  for (const auto& t : saver.list({"t", "", ""}, {}))
    out.push_back(std::to_string(t.metadata.step) + " " + t.metadata.source);
  return out;
}

std::shared_ptr<checkpoint_saver> saver_on(const test::redis_server& server) {
  storage::redis_saver_options o;
  o.prefix = test::fresh_redis_prefix("failure");
  o.command_timeout = std::chrono::milliseconds(5000);
  return storage::redis_saver::open(server.url(), o);
}

// A thread run to its end on a server of its own, and a raw connection to that server to take
// keys away as an eviction, a TTL or an operator would.
struct finished_thread {
  test::redis_server server{/*aof=*/false};
  std::string prefix = test::fresh_redis_prefix("lost");
  std::shared_ptr<checkpoint_saver> saver;
  chain c;
  std::shared_ptr<pregel> g;
  std::unique_ptr<storage::redis_connection> raw;

  finished_thread() {
    storage::redis_saver_options o;
    o.prefix = prefix;
    saver = storage::redis_saver::open(server.url(), o);
    g = c.compile(saver);
    g->invoke(input, thread("t"));
    raw = std::make_unique<storage::redis_connection>(
        storage::redis_options{storage::redis_url::parse(server.url())});
  }
  // Deletes thread t's key ending in `suffix` (":blobs", ":ids", ...).
  void lose(const std::string& suffix) {
    BOOST_TEST(raw->command({"DEL", prefix + ":t:t:" + suffix}).integer == 1);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_server_restarted_during_a_run_is_reconnected_to_and_the_run_ends_well) {
  const auto [expected, expected_history] = uninterrupted();
  test::redis_server server(/*aof=*/true);
  auto saver = saver_on(server);
  chain c;
  c.hook = [&] { server.restart(); };  // killed (SIGKILL), then up again on its port
  auto g = c.compile(saver);
  BOOST_TEST(g->invoke(input, thread("t")) == expected);
  BOOST_TEST(c.hook_ran);
  // Every checkpoint from before the kill is still there (the AOF), and the ones after it.
  BOOST_TEST(history_of(*saver) == expected_history);
}

BOOST_AUTO_TEST_CASE(a_server_down_fails_the_run_clearly_and_resuming_gives_the_same_result) {
  const auto [expected, expected_history] = uninterrupted();
  test::redis_server server(/*aof=*/true);
  auto saver = saver_on(server);
  chain c;
  c.hook = [&] { server.kill(); };
  auto g = c.compile(saver);
  const std::string where = "redis at 127.0.0.1:" + std::to_string(server.port());
  test::expect_error([&] { g->invoke(input, thread("t")); }, error_code::storage_error, where);
  try {
    g->invoke(value(), thread("t"));  // still down: the same clear error, nothing hangs
    BOOST_FAIL("no error with the server down");
  } catch (const error& e) {
    const std::string said = e.what();
    BOOST_TEST(said.find("redis_saver (" + where + "): ") != std::string::npos, said);
    BOOST_TEST(said.find("failed: ") != std::string::npos, said);
  }
  server.restart();
  // The steps before the kill are in the AOF; resuming runs the rest.
  const auto before = history_of(*saver);
  BOOST_TEST(!before.empty());
  BOOST_TEST(before.size() < expected_history.size());
  BOOST_TEST(g->invoke(value(), thread("t")) == expected);
  BOOST_TEST(history_of(*saver) == expected_history);
}

// Keys a shared server lost (an eviction policy, a TTL, a DEL, a FLUSHALL) are an error naming
// what is missing, never a state without it.
BOOST_AUTO_TEST_CASE(a_deleted_blob_hash_is_an_error_naming_thread_checkpoint_and_channel) {
  finished_thread f;
  auto& g = f.g;
  auto& saver = f.saver;
  const std::string latest = saver->get_tuple({"t", "", ""})->config.checkpoint_id;
  f.lose(":blobs");
  for (const auto& read :
       std::vector<std::function<void()>>{[&] { g->get_state(thread("t")); },
                                          [&] {
                                            saver->get_tuple({"t", "", ""});
                                          },
                                          [&] {
                                            saver->list({"t", "", ""}, {});
                                          },
                                          [&] { g->invoke(value(), thread("t")); }}) {
    try {
      read();
      BOOST_FAIL("a checkpoint whose blobs are gone was read without an error");
    } catch (const error& e) {
      const std::string said = e.what();
      BOOST_TEST((e.code() == error_code::storage_error), said);
      BOOST_TEST(said.find("thread 't'") != std::string::npos, said);
      BOOST_TEST(said.find("channel '") != std::string::npos, said);
      BOOST_TEST(said.find("is missing") != std::string::npos, said);
    }
  }
  try {
    g->get_state(thread("t"));
  } catch (const error& e) {
    BOOST_TEST(std::string(e.what()).find(latest) != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(a_flushall_during_a_run_fails_the_run_and_every_later_read) {
  test::redis_server server(/*aof=*/false);
  auto saver = saver_on(server);
  storage::redis_connection raw({storage::redis_url::parse(server.url())});
  chain c;
  c.hook = [&] { raw.command({"FLUSHALL"}); };
  auto g = c.compile(saver);
  test::expect_error([&] { g->invoke(input, thread("t")); }, error_code::storage_error,
                     "is missing (the server lost");
  // The thread is not read as a new one either: what the run registered after the flush names
  // a namespace whose checkpoints are gone.
  test::expect_error(
      [&] {
        saver->get_tuple({"t", "", ""});
      },
      error_code::storage_error, "(the server lost");
}

BOOST_AUTO_TEST_CASE(a_thread_whose_ids_records_or_top_version_are_gone_is_an_error_not_new) {
  for (const std::string key : {":ids", ":cp", ":top"}) {
    BOOST_TEST_CONTEXT(key) {
      finished_thread f;
      auto& g = f.g;
      f.lose(key);
      // Neither read as a new thread, nor run again from nothing (nor, without the highest
      // version, run on with versions that overwrite older checkpoints' blobs).
      test::expect_error([&] { g->invoke(input, thread("t")); }, error_code::storage_error,
                         "(the server lost");
      if (key != ":top")
        test::expect_error([&] { g->get_state(thread("t")); }, error_code::storage_error,
                           "(the server lost");
    }
  }
}
