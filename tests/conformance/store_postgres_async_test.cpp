// libs/checkpoint-postgres/tests/test_async_store.py (AsyncPostgresStore), ported where it
// asserts more than the sync tests: many operations at once, from threads and as one batch.
// test_search_sorting is in store_postgres_vector_test.cpp.

#include <atomic>
#include <thread>

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// The six operations LangGraph issues per (m, i), as store operations.
std::vector<storage::store_op> six_ops(int m, int i) {
  const namespace_path ns{"test", "foo", "bar", "baz", std::to_string(m % 2)};
  const std::string key = "key" + std::to_string(i);
  const object v{{"foo", "bar" + std::to_string(i)}};
  std::vector<storage::store_op> ops;
  ops.emplace_back(std::in_place_type<storage::put_op>, storage::put_op{ns, key, v, {}, {}});
  ops.emplace_back(std::in_place_type<storage::get_op>, storage::get_op{ns, key, {}});
  ops.emplace_back(std::in_place_type<storage::list_namespaces_op>);
  std::get<storage::list_namespaces_op>(ops.back()).max_depth = static_cast<std::size_t>(m + 1);
  ops.emplace_back(std::in_place_type<storage::search_op>);
  std::get<storage::search_op>(ops.back()).ns_prefix = {"test"};
  ops.emplace_back(std::in_place_type<storage::put_op>, storage::put_op{ns, key, v, {}, {}});
  ops.emplace_back(std::in_place_type<storage::remove_op>, storage::remove_op{ns, key});
  return ops;
}

}  // namespace

// libs/checkpoint-postgres/tests/test_async_store.py::test_large_batches: the sync methods
// from a pool of 10 threads.
BOOST_AUTO_TEST_CASE(test_large_batches) {
  auto s = store();
  constexpr int n = 100, m = 10, workers = 10;
  std::vector<storage::store_op> ops;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i)
      for (auto& op : six_ops(j, i)) ops.push_back(std::move(op));

  std::atomic<std::size_t> next{0}, done{0}, failed{0};
  const auto work = [&] {
    for (std::size_t k = next++; k < ops.size(); k = next++) {
      try {
        // One operation through the single-operation methods (a batch of one runs it).
        (void)s->batch({ops[k]});
        ++done;
      } catch (const std::exception& e) {
        BOOST_TEST_MESSAGE(e.what());
        ++failed;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  BOOST_TEST(failed.load() == 0u);
  BOOST_TEST(done.load() == static_cast<std::size_t>(m * n * 6));
}

// libs/checkpoint-postgres/tests/test_async_store.py::test_large_batches_async: the gathered
// coroutines are one batch.
BOOST_AUTO_TEST_CASE(test_large_batches_async) {
  auto s = store();
  constexpr int n = 1000, m = 10;
  std::vector<storage::store_op> ops;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i)
      for (auto& op : six_ops(j, i)) ops.push_back(std::move(op));
  BOOST_TEST(s->batch(ops).size() == static_cast<std::size_t>(m * n * 6));
}

// libs/checkpoint-postgres/tests/test_async_store.py::test_abatch_order (asserts more than
// the SQLite tests: the search before the put of the same batch does not see it)
BOOST_AUTO_TEST_CASE(test_abatch_order) {
  auto s = store();
  s->put({"test", "foo"}, "key1", object{{"data", "value1"}});
  s->put({"test", "bar"}, "key2", object{{"data", "value2"}});
  const auto contains = [](const std::vector<namespace_path>& v, const namespace_path& ns) {
    return std::find(v.begin(), v.end(), ns) != v.end();
  };

  storage::search_op by_data;
  by_data.ns_prefix = {"test"};
  by_data.filter = object{{"data", "value1"}};
  storage::list_namespaces_op listing;
  listing.limit = 10;
  auto results =
      s->batch({storage::get_op{{"test", "foo"}, "key1", {}},
                storage::put_op{{"test", "bar"}, "key2", object{{"data", "value2"}}, {}, {}},
                by_data, listing, storage::get_op{{"test"}, "key3", {}}});
  BOOST_REQUIRE(results.size() == 5u);
  const auto& first = std::get<std::optional<item>>(results[0]);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->v == value(object{{"data", "value1"}}));
  BOOST_TEST(first->key == "key1");
  BOOST_TEST(std::holds_alternative<std::monostate>(results[1]));
  BOOST_TEST(std::get<std::vector<item>>(results[2]).size() == 1u);
  const auto& namespaces = std::get<std::vector<namespace_path>>(results[3]);
  BOOST_TEST((contains(namespaces, {"test", "foo"}) && contains(namespaces, {"test", "bar"})));
  BOOST_TEST(!std::get<std::optional<item>>(results[4]).has_value());

  storage::search_op everything;
  everything.ns_prefix = {"test"};
  everything.limit = 5;
  listing.limit = 5;
  results = s->batch({everything, storage::get_op{{"test", "bar"}, "key2", {}}, listing,
                      storage::put_op{{"test"}, "key3", object{{"data", "value3"}}, {}, {}},
                      storage::get_op{{"test", "foo"}, "key1", {}}});
  BOOST_REQUIRE(results.size() == 5u);
  BOOST_TEST(std::get<std::vector<item>>(results[0]).size() == 2u);
  const auto& second = std::get<std::optional<item>>(results[1]);
  BOOST_REQUIRE(second.has_value());
  BOOST_TEST(second->v == value(object{{"data", "value2"}}));
  BOOST_TEST(second->key == "key2");
  const auto& listed = std::get<std::vector<namespace_path>>(results[2]);
  BOOST_TEST((contains(listed, {"test", "foo"}) && contains(listed, {"test", "bar"})));
  BOOST_TEST(std::holds_alternative<std::monostate>(results[3]));
  const auto& last = std::get<std::optional<item>>(results[4]);
  BOOST_REQUIRE(last.has_value());
  BOOST_TEST(last->v == value(object{{"data", "value1"}}));
  BOOST_TEST(last->key == "key1");
}

// libs/checkpoint-postgres/tests/test_async_store.py::test_batch_search_ops
BOOST_AUTO_TEST_CASE(test_batch_search_ops) {
  auto s = store();
  s->put({"test", "foo"}, "key1", object{{"data", "value1"}});
  s->put({"test", "bar"}, "key2", object{{"data", "value2"}});
  storage::search_op by_data, everything;
  by_data.ns_prefix = everything.ns_prefix = {"test"};
  by_data.filter = object{{"data", "value1"}};
  everything.limit = 5;
  const auto results = s->batch({by_data, everything});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(std::get<std::vector<item>>(results[0]).size() == 1u);
  BOOST_TEST(std::get<std::vector<item>>(results[1]).size() == 2u);
}
