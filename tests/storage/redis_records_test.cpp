// The record tables the server API keeps beside the checkpoints (storage/record_tables.hpp):
// the same cases on RocksDB (a data folder's `records` column family) and on a real
// redis-server (a hash per table): put, replace, all in key order, erase, clear, tables apart,
// bad table names, and what a reopened table finds.
#include <functional>
#include <memory>
#include <string>

#include <boost/test/unit_test.hpp>

#include "superstep/core/error.hpp"
#include "superstep/storage/redis_records.hpp"
#include "superstep/storage/rocksdb_records.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;

namespace {

using opener = std::function<std::unique_ptr<storage::record_tables>()>;

void check_tables(const opener& open) {
  using rows = std::vector<std::pair<std::string, std::string>>;
  {
    auto t = open();
    BOOST_TEST(t->all("runs").empty());
    t->put("runs", "b", "two");
    t->put("runs", "a", "one");
    t->put("runs", "b", "TWO");  // replaced
    t->put("threads", "a", std::string("with\0nul", 8));
    BOOST_TEST((t->all("runs") == rows{{"a", "one"}, {"b", "TWO"}}));
    BOOST_TEST((t->all("threads") == rows{{"a", std::string("with\0nul", 8)}}));
    BOOST_TEST(t->erase("runs", "a"));
    BOOST_TEST(!t->erase("runs", "a"));
    BOOST_TEST(!t->erase("crons", "a"));
    BOOST_CHECK_EXCEPTION(t->put("", "k", "v"), error,
                          [](const error& e) { return e.code() == error_code::invalid_argument; });
    BOOST_CHECK_EXCEPTION(t->all(std::string("a\0b", 3)), error,
                          [](const error& e) { return e.code() == error_code::invalid_argument; });
    // Several tables' records at once; all or none.
    t->put_all({{"crons", "c", "three"}, {"threads", "b", "four"}, {"crons", "d", "five"}});
    BOOST_TEST((t->all("crons") == rows{{"c", "three"}, {"d", "five"}}));
    BOOST_CHECK_EXCEPTION(t->put_all({{"crons", "e", "six"}, {"", "k", "v"}}), error,
                          [](const error& e) { return e.code() == error_code::invalid_argument; });
    BOOST_TEST(t->all("crons").size() == 2u);
    BOOST_TEST(t->erase("threads", "b"));
  }
  auto again = open();  // what was written before is there
  BOOST_TEST((again->all("runs") == rows{{"b", "TWO"}}));
  again->clear("runs");
  BOOST_TEST(again->all("runs").empty());
  BOOST_TEST(again->all("threads").size() == 1u);  // another table is left alone
}

}  // namespace

BOOST_AUTO_TEST_CASE(rocksdb_record_tables) {
  test::temp_dir dir("superstep-records");
  check_tables([&] { return storage::rocksdb_records::open(dir.path.string()); });
}

BOOST_AUTO_TEST_CASE(redis_record_tables) {
  const std::string prefix = test::fresh_redis_prefix("records");
  check_tables([&] { return storage::redis_records::open(test::shared_redis_server().url(), prefix); });
  // Another prefix is another set of tables.
  auto other = storage::redis_records::open(test::shared_redis_server().url(),
                                            test::fresh_redis_prefix("records"));
  BOOST_TEST(other->all("threads").empty());
  BOOST_CHECK_EXCEPTION(storage::redis_records::open(test::shared_redis_server().url(), ""), error,
                        [](const error& e) { return e.code() == error_code::invalid_argument; });
}

BOOST_AUTO_TEST_CASE(an_unreachable_redis_server_is_named) {
  // A port nothing listens on: the test's server, stopped.
  std::string url;
  {
    test::redis_server gone;
    url = gone.url();
  }
  try {
    auto t = storage::redis_records::open(url);
    t->all("runs");
    BOOST_FAIL("a records table on a stopped server answered");
  } catch (const error& e) {
    BOOST_TEST(e.code() == error_code::storage_error);
    BOOST_TEST(std::string(e.what()).find("127.0.0.1") != std::string::npos, e.what());
  }
}
