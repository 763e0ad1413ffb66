// redis_saver against a real redis-server (started by the test on a free loopback port): the
// saver conformance suite; the key layout (indexes, no scan); URLs and errors that name the
// server and command but never the password; a server killed and restarted with AOF on.
#include "superstep/storage/redis_saver.hpp"

#include <memory>

#include "saver_conformance.hpp"
#include "support/expect_error.hpp"
#include "support/redis_server.hpp"

using namespace superstep;
using namespace superstep::conformance;
using superstep::storage::redis_saver;

namespace {

std::unique_ptr<redis_saver> make_redis_saver() {
  storage::redis_saver_options o;
  o.prefix = test::fresh_redis_prefix("saver");
  return redis_saver::open(test::shared_redis_server().url(), std::move(o));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(saver_conformance)
SUPERSTEP_SAVER_CONFORMANCE(make_redis_saver)
BOOST_AUTO_TEST_SUITE_END()

namespace {

using test::expect_error;

// What `e` says, for checks that a message leaves something out.
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(urls_parse_and_bad_ones_say_what_is_wrong) {
  auto u = storage::redis_url::parse("redis://alice:p%40ss@db.example:6380/3");
  BOOST_TEST(u.host == "db.example");
  BOOST_TEST(u.port == 6380);
  BOOST_TEST(u.user == "alice");
  BOOST_TEST(u.password == "p@ss");
  BOOST_TEST(u.db == 3);
  BOOST_TEST(u.server() == "db.example:6380/3");
  auto plain = storage::redis_url::parse("redis://localhost");
  BOOST_TEST(plain.port == 6379);
  BOOST_TEST(plain.db == 0);
  BOOST_TEST(plain.password.empty());
  auto v6 = storage::redis_url::parse("redis://:secret@[::1]:7000");
  BOOST_TEST(v6.host == "::1");
  BOOST_TEST(v6.port == 7000);
  BOOST_TEST(v6.password == "secret");

  expect_error([] { storage::redis_url::parse("rediss://h:6379"); }, error_code::invalid_argument,
               "hiredis 0.14 has no TLS");
  expect_error([] { storage::redis_url::parse("http://h"); }, error_code::invalid_argument,
               "must start with redis://");
  expect_error([] { storage::redis_url::parse("redis://h:port"); }, error_code::invalid_argument,
               "the port 'port' is not a number");
  expect_error([] { storage::redis_url::parse("redis://h:6379/x"); }, error_code::invalid_argument,
               "the db 'x'");
  expect_error([] { storage::redis_url::parse("redis://:pw@"); }, error_code::invalid_argument,
               "no host");
  // A bad URL's message never shows its password.
  BOOST_TEST(message_of([] {
               storage::redis_url::parse("redis://u:hunter2@h:x");
             }).find("hunter2") == std::string::npos);
  expect_error([] { redis_saver::open("redis://127.0.0.1:6379", {.serde = {}, .prefix = ""}); },
               error_code::invalid_argument, "prefix is empty");
}

BOOST_AUTO_TEST_CASE(errors_name_the_server_and_command_never_the_password) {
  // Nobody listens on a port just released: connecting fails, naming the server.
  const std::string url = test::shared_redis_server().url();
  storage::redis_connection admin({storage::redis_url::parse(url)});
  admin.command({"ACL", "SETUSER", "alice", "on", ">right-password", "~*", "+@all"});
  const int port = test::shared_redis_server().port();
  const std::string wrong = "redis://alice:wrong-password@127.0.0.1:" + std::to_string(port);
  const std::string said = message_of([&] { redis_saver::open(wrong); });
  BOOST_TEST(said.find("127.0.0.1:" + std::to_string(port)) != std::string::npos, said);
  BOOST_TEST(said.find("AUTH failed") != std::string::npos, said);
  BOOST_TEST(said.find("wrong-password") == std::string::npos, said);
  // The right one logs in, and a command the server refuses is named with its reply.
  auto ok = redis_saver::open("redis://alice:right-password@127.0.0.1:" + std::to_string(port));
  BOOST_TEST(!ok->get_tuple({"nobody", "", ""}).has_value());
  expect_error(
      [&] {
        admin.command({"HSET", "only-a-key"});
      },
      error_code::storage_error, "HSET failed: ERR wrong number of arguments");
  // A server that is not there: the connection is refused, at once.
  expect_error([] { redis_saver::open("redis://127.0.0.1:1"); }, error_code::storage_error,
               "redis at 127.0.0.1:1): connect failed");
}

BOOST_AUTO_TEST_CASE(keys_are_per_thread_and_namespace_indexes_not_a_scan) {
  storage::redis_saver_options o;
  o.prefix = test::fresh_redis_prefix("layout");
  auto saver = redis_saver::open(test::shared_redis_server().url(), o);
  checkpoint_builder b;
  auto c1 = b.make({{"a", "x"}}, {{"a", 1}});
  auto s1 = put_all(*saver, "th:1", "", "", c1, loop_metadata(0));
  saver->put_writes(s1, {{"a", "w"}}, "task", "");
  storage::redis_connection raw({storage::redis_url::parse(test::shared_redis_server().url())});
  // ':' in a thread id is escaped, so keys split on ':' unambiguously.
  const std::string base = o.prefix + ":t:th%3A1:";
  BOOST_TEST(raw.command({"ZRANGE", o.prefix + ":threads", "0", "-1"}).elements.at(0).str ==
             "th:1");
  BOOST_TEST(raw.command({"ZCARD", base + ":ids"}).integer == 1);
  BOOST_TEST(raw.command({"HLEN", base + ":cp"}).integer == 1);
  BOOST_TEST(raw.command({"HGET", base + ":blobs", "1:a"}).str.size() > 0);
  BOOST_TEST(raw.command({"HLEN", base + ":w:" + c1.id}).integer == 1);
  BOOST_TEST(raw.command({"GET", base + ":top"}).str == "1");
  saver->delete_thread("th:1");
  BOOST_TEST(raw.command({"EXISTS", base + ":ids", base + ":cp", base + ":blobs", base + ":top",
                          base + ":w:" + c1.id, o.prefix + ":t:th%3A1:ns"})
                 .integer == 0);
  BOOST_TEST(raw.command({"ZCARD", o.prefix + ":threads"}).integer == 0);
}
