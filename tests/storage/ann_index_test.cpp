// ann_index, the HNSW index behind both stores (storage/src, private): its distance kernels and
// building from several threads.
#include "ann_index.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>
#include <set>

#include "ann_distance.hpp"

using namespace superstep;
using storage::ann_index;

namespace {

std::vector<float> random_vector(std::mt19937_64& gen, std::size_t dims) {
  std::normal_distribution<float> normal;
  std::vector<float> v(dims);
  for (float& x : v) x = normal(gen);
  return v;
}

storage::index_config config(std::size_t dims = 16) {
  storage::index_config c;
  c.dims = dims;
  return c;
}

using items = std::vector<std::pair<std::string, std::vector<std::vector<float>>>>;

items random_items(std::size_t n, std::size_t dims, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  items out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back({"item" + std::to_string(i), {random_vector(gen, dims)}});
  return out;
}

std::vector<std::string> ids(const std::vector<std::pair<std::string, float>>& hits) {
  std::vector<std::string> out;
  for (const auto& [id, _] : hits) out.push_back(id);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_distance_kernel_matches_a_plain_inner_product) {
  BOOST_TEST_MESSAGE("kernel: " << storage::inner_product_kernel());
  std::mt19937_64 gen(1);
  const auto distance = storage::inner_product_distance();
  for (std::size_t dims : {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 384, 385}) {
    const auto a = random_vector(gen, dims), b = random_vector(gen, dims);
    double dot = 0, scale = 0;
    for (std::size_t i = 0; i < dims; ++i) {
      dot += double(a[i]) * b[i];
      scale += std::abs(double(a[i]) * b[i]);
    }
    const float d = distance(a.data(), b.data(), &dims);
    BOOST_TEST(std::abs(double(d) - (1 - dot)) <= 1e-5 * (1 + scale), "dims " << dims);
  }
}

BOOST_AUTO_TEST_CASE(a_build_on_several_threads_finds_what_one_thread_finds) {
  // Keeping more candidates than there are points makes either graph's answers exact.
  constexpr std::size_t n = 500;
  auto c = config();
  c.ann_ef_search = n;
  ann_index serial(c), parallel(c);
  const auto all = random_items(n, c.dims, 2);
  for (const auto& [id, vectors] : all) serial.set(id, vectors);
  parallel.set_many(all, 4);
  BOOST_TEST(parallel.items() == n);
  std::mt19937_64 gen(3);
  for (int q = 0; q < 30; ++q) {
    const auto query = random_vector(gen, c.dims);
    BOOST_TEST(ids(parallel.search(query, 10)) == ids(serial.search(query, 10)));
  }
  // Replacing items reuses the labels of their old points (one thread) and adds new points.
  items changed;
  for (std::size_t i = 0; i < 100; ++i)
    changed.push_back({"item" + std::to_string(i), {random_vector(gen, c.dims)}});
  for (std::size_t i = 0; i < 100; ++i)
    changed.push_back({"new" + std::to_string(i), {random_vector(gen, c.dims)}});
  parallel.set_many(changed, 4);
  BOOST_TEST(parallel.items() == n + 100);
  for (const auto& [id, vectors] : changed) {
    const auto hits = parallel.search(vectors.front(), 1);
    BOOST_REQUIRE(hits.size() == 1u);
    BOOST_TEST(hits.front().first == id);
  }
}
