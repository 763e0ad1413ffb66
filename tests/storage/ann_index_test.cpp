// ann_index, the HNSW index behind both stores (storage/src, private): its distance kernels.
#include "ann_distance.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <random>

using namespace superstep;

namespace {

std::vector<float> random_vector(std::mt19937_64& gen, std::size_t dims) {
  std::normal_distribution<float> normal;
  std::vector<float> v(dims);
  for (float& x : v) x = normal(gen);
  return v;
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
