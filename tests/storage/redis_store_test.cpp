// redis_store against a real redis-server (started by the test on a free loopback port): the
// store conformance suites (plain, semantic, TTL, batch), Redis expiry of items on the system
// clock, and an index of another embedder refused.
#include "superstep/storage/redis_store.hpp"

#include <memory>

#include "store_conformance_batch.hpp"
#include "store_conformance_semantic.hpp"
#include "store_conformance_ttl.hpp"
#include "superstep/storage/embedder.hpp"
#include "support/redis_server.hpp"

using namespace superstep;
using superstep::storage::redis_store;

namespace {

std::unique_ptr<redis_store> open_store(storage::redis_store_options o) {
  o.prefix = test::fresh_redis_prefix("store");
  return redis_store::open(test::shared_redis_server().url(), std::move(o));
}

std::unique_ptr<redis_store> make_redis_store() { return open_store({}); }

std::unique_ptr<redis_store> make_indexed_redis_store(storage::index_config index) {
  storage::redis_store_options o;
  o.index = std::move(index);
  return open_store(std::move(o));
}

std::unique_ptr<redis_store> make_redis_store_with_ttl(storage::ttl_config ttl) {
  storage::redis_store_options o;
  o.ttl = std::move(ttl);
  return open_store(std::move(o));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(store_conformance)
SUPERSTEP_STORE_CONFORMANCE(make_redis_store)
SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make_indexed_redis_store)
SUPERSTEP_STORE_TTL_CONFORMANCE(make_redis_store_with_ttl)
SUPERSTEP_STORE_BATCH_CONFORMANCE(make_redis_store)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(items_with_a_ttl_get_a_redis_expiry_on_the_system_clock) {
  storage::redis_store_options o;
  o.prefix = test::fresh_redis_prefix("expiry");
  auto s = redis_store::open(test::shared_redis_server().url(), o);
  storage::redis_connection raw({storage::redis_url::parse(test::shared_redis_server().url())});
  const std::string key = o.prefix + ":item:users.u%3A1:k";
  s->put({"users", "u:1"}, "k", object{{"a", 1}}, {}, 10.0);  // 10 minutes
  const long long ms = raw.command({"PTTL", key}).integer;
  BOOST_TEST(ms > 9 * 60 * 1000);
  BOOST_TEST(ms <= 10 * 60 * 1000 + 1);
  // Put again without a TTL: the key no longer expires.
  s->put({"users", "u:1"}, "k", object{{"a", 2}}, {}, std::nullopt);
  BOOST_TEST(raw.command({"PTTL", key}).integer == -1);
  // An item Redis expired by itself (here: at once) is gone for reads and lists, and a sweep
  // clears its index entry.
  s->put({"users", "u:1"}, "k", object{{"a", 3}}, {}, 10.0);
  raw.command({"PEXPIRE", key, "1"});
  raw.command({"DEL", key});  // as Redis does on expiry
  BOOST_TEST(!s->get({"users", "u:1"}, "k").has_value());
  BOOST_TEST(s->search({}).empty());
  BOOST_TEST(s->list_namespaces({}).size() == 1u);  // its index entry is live until it expires
  s->remove({"users", "u:1"}, "k");
  BOOST_TEST(s->list_namespaces({}).empty());
  BOOST_TEST(
      raw.command({"EXISTS", o.prefix + ":ns:users.u%3A1", o.prefix + ":namespaces"}).integer == 0);
}

BOOST_AUTO_TEST_CASE(an_index_of_another_embedder_is_refused) {
  storage::redis_store_options o;
  o.prefix = test::fresh_redis_prefix("index");
  storage::index_config index;
  index.dims = 8;
  index.embed = storage::make_hashing_embedder(8);
  index.embedder_id = "hashing";
  o.index = index;
  redis_store::open(test::shared_redis_server().url(), o)->put({"a"}, "k", object{{"t", "x"}});
  o.index->embedder_id = "other";
  auto other = redis_store::open(test::shared_redis_server().url(), o);
  try {
    other->put({"a"}, "k2", object{{"t", "y"}});
    BOOST_FAIL("no error");
  } catch (const error& e) {
    BOOST_TEST((e.code() == error_code::invalid_argument));
    BOOST_TEST(std::string(e.what()).find("\"other\"") != std::string::npos, e.what());
  }
  BOOST_TEST(other->get({"a"}, "k").has_value());  // reads still work
}
