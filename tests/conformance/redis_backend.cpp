// The Redis backend of the conformance suites (--backend=redis): savers and stores on a
// redis-server this process starts on a free loopback port (tests/support/redis_server.hpp),
// each with its own key prefix.
#include "conformance.hpp"
#include "superstep/storage/redis_saver.hpp"
#include "superstep/storage/redis_store.hpp"
#include "support/redis_server.hpp"

namespace superstep::conformance {

std::shared_ptr<checkpoint_saver> redis_saver() {
  storage::redis_saver_options o;
  o.prefix = test::fresh_redis_prefix("saver");
  return storage::redis_saver::open(test::shared_redis_server().url(), std::move(o));
}

std::shared_ptr<storage::store> redis_store(std::optional<storage::index_config> index,
                                            storage::ttl_config ttl) {
  storage::redis_store_options o;
  o.prefix = test::fresh_redis_prefix("store");
  o.index = std::move(index);
  o.ttl = std::move(ttl);
  return storage::redis_store::open(test::shared_redis_server().url(), std::move(o));
}

}  // namespace superstep::conformance
