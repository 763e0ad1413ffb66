// `superstep run|state|history --saver redis://...`: the seed's example flow (a checkpointed
// agent-style graph, then its latest checkpoint and its list) with the checkpoints on a
// redis-server the test starts; bad saver URLs and an unreachable server.
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "cluster/cli_support.hpp"
#include "superstep/storage/redis_client.hpp"
#include "support/redis_server.hpp"

using namespace superstep;
using superstep::test::cli_result;
using superstep::test::example;
using superstep::test::quote;
using superstep::test::scratch;

namespace {

struct on_redis {
  test::redis_server server;
  scratch s;
  std::string dir = s.path("data");

  cli_result operator()(const std::string& args, bool with_saver = true) const {
    return test::run_cli(args + " --data " + quote(dir) +
                         (with_saver ? " --saver " + quote(server.url()) : ""));
  }
};

const std::string question =
    R"( --input '{"messages": [{"type": "human", "content": "what'\''s the weather in nyc"}]}')";

std::string checkpoint_id(const value& snapshot_or_config) {
  const value& config =
      snapshot_or_config.find("config") ? snapshot_or_config.get("config") : snapshot_or_config;
  return config.get("configurable").get("checkpoint_id").as_string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_seed_example_runs_with_its_checkpoints_in_redis) {
  on_redis redis;
  cli_result r = redis("run " + example("weather_agent") + question + " --thread 2");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const std::string answer =
      R"({"messages":[{"type":"human","content":"what's the weather in nyc"},)"
      R"({"type":"tool","name":"get_weather","content":"It might be cloudy in nyc"},)"
      R"({"type":"ai","content":"The weather in NYC might be cloudy."}],"turns":2})";
  BOOST_TEST(r.last().get("data").to_json() == answer);

  // list: every checkpoint, newest first, each the child of the next.
  r = redis("history --thread 2");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  const std::vector<value> history = r.lines();
  BOOST_TEST_REQUIRE(history.size() == 6u);
  const char* next[] = {"", "answer", "agent", "tools", "agent", "__start__"};
  for (std::size_t i = 0; i < history.size(); ++i) {
    BOOST_TEST_CONTEXT("checkpoint " << i) {
      BOOST_TEST(history[i].get("metadata").get("step").as_int() == 4 - std::int64_t(i));
      const value& n = history[i].get("next");
      BOOST_TEST((n.as_list().empty() ? std::string() : n.as_list()[0].as_string()) == next[i]);
      if (i + 1 < history.size())
        BOOST_TEST(checkpoint_id(history[i].get("parent_config")) == checkpoint_id(history[i + 1]));
    }
  }
  BOOST_TEST(history[0].get("values").to_json() == answer);
  BOOST_TEST(r.lines().back().get("metadata").get("source").as_string() == "input");

  // get_tuple: the latest, and one by id.
  r = redis("state --thread 2");
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().to_json() == history[0].to_json());
  BOOST_TEST(redis("history --thread 2 --limit 2").lines().size() == 2u);
  const auto older = redis("history --thread 2 --before " + checkpoint_id(history[3])).lines();
  BOOST_REQUIRE(older.size() == 2u);
  BOOST_TEST(checkpoint_id(older[0]) == checkpoint_id(history[4]));

  // They are in Redis, not in the folder: without --saver the thread has none.
  storage::redis_connection raw({storage::redis_url::parse(redis.server.url())});
  BOOST_TEST(raw.command({"ZRANGE", "superstep:threads", "0", "-1"}).elements.at(0).str == "2");
  BOOST_TEST(raw.command({"ZCARD", "superstep:t:2::ids"}).integer == 6);
  r = redis("state --thread 2", /*with_saver=*/false);
  BOOST_TEST(r.status == 1);

  // Run on: the thread goes on from its latest checkpoint in Redis (turns is 3: no tool call;
  // the input, its __start__ step, agent and answer make four more checkpoints).
  r = redis("run --thread 2" + question);
  BOOST_TEST_REQUIRE(r.status == 0, r.err);
  BOOST_TEST(r.last().get("data").get("messages").as_list().size() == 5u);
  BOOST_TEST(r.last().get("data").get("turns").as_int() == 3);
  BOOST_TEST(redis("history --thread 2").lines().size() == 10u);
}

BOOST_AUTO_TEST_CASE(bad_saver_urls_and_an_unreachable_server_say_what_is_wrong) {
  scratch s;
  const std::string data = " --data " + quote(s.path("data"));
  cli_result r = test::run_cli("run " + example("loop") + " --saver rediss://h:6379" + data);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("no TLS") != std::string::npos, r.err);
  r = test::run_cli("history --thread t --saver postgres://h" + data);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--saver: bad Redis URL") != std::string::npos, r.err);
  r = test::run_cli("run " + example("loop") +
                    " --input '{}' --saver redis://u:sekrit@127.0.0.1:1" + data);
  BOOST_TEST(r.status == 1);
  BOOST_TEST(r.err.find("redis at 127.0.0.1:1): connect failed") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("sekrit") == std::string::npos, r.err);
  r = test::run_cli("head --listen 127.0.0.1:0 --saver rediss://h" + data);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("no TLS") != std::string::npos, r.err);
  r = test::run_cli("state --thread t --head 127.0.0.1:1 --saver redis://h" + data);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.err.find("--saver is the head's option") != std::string::npos, r.err);
}
