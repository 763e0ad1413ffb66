// memory_store: the store conformance suite (plain, semantic, TTL and batch), then the hashing
// embedder and concurrent use.
#include "superstep/storage/store_memory.hpp"

#include <memory>
#include <thread>

#include "store_conformance_ann.hpp"
#include "store_conformance_batch.hpp"
#include "store_conformance_semantic.hpp"
#include "store_conformance_ttl.hpp"
#include "superstep/storage/embedder.hpp"
#include "superstep/storage/store_support.hpp"

using namespace superstep;
using superstep::storage::memory_store;

namespace {

std::unique_ptr<memory_store> make_memory_store() { return std::make_unique<memory_store>(); }

std::unique_ptr<memory_store> make_indexed_memory_store(storage::index_config index) {
  return std::make_unique<memory_store>(std::move(index));
}

std::unique_ptr<memory_store> make_memory_store_with_ttl(storage::ttl_config ttl) {
  return std::make_unique<memory_store>(std::move(ttl));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(store_conformance)
SUPERSTEP_STORE_CONFORMANCE(make_memory_store)
SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make_indexed_memory_store)
SUPERSTEP_STORE_ANN_CONFORMANCE(make_indexed_memory_store)
SUPERSTEP_STORE_TTL_CONFORMANCE(make_memory_store_with_ttl)
SUPERSTEP_STORE_BATCH_CONFORMANCE(make_memory_store)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(hashing_embedder_is_deterministic_normalized_and_case_blind) {
  auto embed = storage::make_hashing_embedder(64);
  const auto v = embed({"I like Pizza", "i LIKE pizza!", "", "chess"});
  BOOST_REQUIRE(v.size() == 4u);
  BOOST_TEST(v[0].size() == 64u);
  BOOST_TEST((v[0] == v[1]));
  BOOST_TEST((v[0] == storage::make_hashing_embedder(64)({"I like Pizza"})[0]));
  double norm = 0;
  for (float x : v[0]) norm += double(x) * x;
  BOOST_TEST(norm == 1.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST((v[2] == std::vector<float>(64, 0.0f)));
  BOOST_TEST(storage::store_support::cosine(v[0], v[2]) == 0.0);
  BOOST_TEST(storage::store_support::cosine(v[0], v[3]) < 0.5);
  const auto code = [] {
    try {
      (void)storage::make_hashing_embedder(0);
    } catch (const error& e) {
      return e.code();
    }
    return error_code::none;
  }();
  BOOST_TEST(code == error_code::invalid_argument);
}

BOOST_AUTO_TEST_CASE(timestamps_are_iso_8601_utc_with_microseconds) {
  BOOST_TEST(storage::store_support::format_timestamp(0) == "1970-01-01T00:00:00.000000+00:00");
  BOOST_TEST(storage::store_support::format_timestamp(1700000000123456) ==
             "2023-11-14T22:13:20.123456+00:00");
}

BOOST_AUTO_TEST_CASE(a_query_without_an_index_is_ignored) {
  memory_store s;
  s.put({"a"}, "k", object{{"x", 1}});
  storage::search_options o;
  o.query = "anything";
  const auto found = s.search(o);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(!found[0].score.has_value());
}

BOOST_AUTO_TEST_CASE(concurrent_puts_and_searches_keep_every_item) {
  memory_store s(superstep::store_conformance::hashing_index());
  constexpr int threads = 4, per_thread = 50;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&s, t] {
      for (int i = 0; i < per_thread; ++i) {
        s.put({"t" + std::to_string(t)}, "k" + std::to_string(i), object{{"text", "item"}});
        storage::search_options o;
        o.query = "item";
        (void)s.search(o);
      }
    });
  for (auto& w : workers) w.join();
  storage::search_options o;
  o.limit = 1000;
  BOOST_TEST(s.search(o).size() == std::size_t(threads * per_thread));
  BOOST_TEST(s.list_namespaces({}).size() == std::size_t(threads));
}

BOOST_AUTO_TEST_CASE(concurrent_refreshing_reads_puts_and_sweeps_keep_live_items) {
  superstep::store_conformance::test_clock clock;
  memory_store s(clock.config({}, /*refresh_on_read=*/true));
  constexpr int per_thread = 200;
  for (int i = 0; i < per_thread; ++i) s.put({"live"}, "k" + std::to_string(i), object{}, {}, 10.0);
  std::vector<std::thread> workers;
  workers.emplace_back([&] {
    for (int i = 0; i < per_thread; ++i) (void)s.get({"live"}, "k" + std::to_string(i));
  });
  workers.emplace_back([&] {
    for (int i = 0; i < per_thread; ++i) (void)s.search({});
  });
  workers.emplace_back([&] {
    for (int i = 0; i < per_thread; ++i) {
      s.put({"dying"}, "k" + std::to_string(i), object{}, {}, 0.0);
      (void)s.sweep();
    }
  });
  for (auto& w : workers) w.join();
  (void)s.sweep();
  storage::search_options o;
  o.limit = 1000;
  BOOST_TEST(s.search(o).size() == std::size_t(per_thread));
  BOOST_TEST((s.list_namespaces({}) == std::vector<storage::namespace_path>{{"live"}}));
}
