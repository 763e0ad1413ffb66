// ann_index, the HNSW index behind both stores (storage/src, private): its distance kernels,
// building from several threads, and saving and loading.
#include "ann_index.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "ann_distance.hpp"
#include "superstep/storage/store_support.hpp"

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

BOOST_AUTO_TEST_CASE(the_l2_kernel_matches_a_plain_squared_distance) {
  std::mt19937_64 gen(11);
  const auto distance = storage::l2_squared_distance();
  for (std::size_t dims : {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 47, 64, 100, 384, 385}) {
    const auto a = random_vector(gen, dims), b = random_vector(gen, dims);
    double sum = 0;
    for (std::size_t i = 0; i < dims; ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    const float d = distance(a.data(), b.data(), &dims);
    BOOST_TEST(std::abs(double(d) - sum) <= 1e-5 * (1 + sum), "dims " << dims);
    BOOST_TEST(distance(a.data(), a.data(), &dims) == 0.0f);
  }
}

// With more candidates than points, a search is exact: every distance type ranks and scores
// the points as store_support::similarity does (vectors not normalized, so they differ).
BOOST_AUTO_TEST_CASE(each_distance_type_ranks_and_scores_as_exact_search) {
  constexpr std::size_t n = 300;
  const auto all = random_items(n, 16, 12);
  std::mt19937_64 gen(13);
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < 10; ++q) queries.push_back(random_vector(gen, 16));
  std::map<std::string, std::vector<std::string>> firsts;
  for (const auto distance : {storage::distance_type::cosine, storage::distance_type::inner_product,
                              storage::distance_type::l2}) {
    BOOST_TEST_CONTEXT(storage::distance_type_name(distance)) {
      auto c = config();
      c.distance = distance;
      c.ann_ef_search = n;
      ann_index index(c);
      index.set_many(all, 2);
      for (const auto& query : queries) {
        std::vector<std::pair<double, std::string>> exact;
        for (const auto& [id, vectors] : all)
          exact.emplace_back(storage::store_support::similarity(distance, query, vectors[0]), id);
        std::sort(exact.begin(), exact.end(), std::greater<>());
        const auto hits = index.search(query, 10);
        BOOST_REQUIRE(hits.size() == 10u);
        for (std::size_t i = 0; i < hits.size(); ++i) {
          BOOST_TEST(hits[i].first == exact[i].second);
          BOOST_TEST(std::abs(hits[i].second - exact[i].first) <=
                     1e-4 * (1 + std::abs(exact[i].first)));
        }
        firsts[storage::distance_type_name(distance)].push_back(hits[0].first);
      }
    }
  }
  // The three really differ on these vectors.
  BOOST_TEST(firsts["cosine"] != firsts["inner_product"]);
  BOOST_TEST(firsts["cosine"] != firsts["l2"]);
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

BOOST_AUTO_TEST_CASE(a_loaded_index_answers_as_the_saved_one) {
  const auto c = config();
  ann_index saved(c);
  saved.set_many(random_items(400, c.dims, 4), 2);
  saved.remove("item3");
  saved.set("item4", {});
  std::mt19937_64 gen(5);
  saved.set("item5", {random_vector(gen, c.dims), random_vector(gen, c.dims)});
  const std::string bytes = saved.save();

  ann_index loaded(c);
  loaded.set("stale", {random_vector(gen, c.dims)});
  BOOST_REQUIRE(loaded.load(bytes));
  BOOST_TEST(loaded.items() == saved.items());
  for (int q = 0; q < 30; ++q) {
    const auto query = random_vector(gen, c.dims);
    BOOST_TEST(loaded.search(query, 10) == saved.search(query, 10));
  }
  // It goes on changing: a removed item comes back, a replaced one moves.
  const auto back = random_vector(gen, c.dims), moved = random_vector(gen, c.dims);
  loaded.set("item3", {back});
  loaded.set("item6", {moved});
  BOOST_TEST(loaded.items() == saved.items() + 1);
  BOOST_TEST(loaded.search(back, 1).front().first == "item3");
  BOOST_TEST(loaded.search(moved, 1).front().first == "item6");
}

BOOST_AUTO_TEST_CASE(load_refuses_other_parameters_and_damaged_bytes) {
  const auto c = config();
  ann_index saved(c);
  saved.set_many(random_items(200, c.dims, 6), 1);
  const std::string bytes = saved.save();
  auto other_m = c, other_ef = c, other_distance = c;
  other_m.ann_m = 12;
  other_ef.ann_ef_construction = 100;
  other_distance.distance = storage::distance_type::l2;
  for (const auto& other : {config(8), other_m, other_ef, other_distance})
    BOOST_TEST(!ann_index(other).load(bytes));
  // A copy saved before distance types (format 2: no distance after the format) is cosine.
  std::string format2 = bytes.substr(0, 8) + bytes.substr(16);
  format2[0] = 2;
  BOOST_TEST(ann_index(c).load(format2));
  BOOST_TEST(!ann_index(other_distance).load(format2));

  ann_index target(c);
  std::mt19937_64 gen(7);
  const auto kept = random_vector(gen, c.dims);
  target.set("kept", {kept});
  std::set<std::size_t> cuts{0, 7, 40, 100, bytes.size() / 2, bytes.size() - 1};
  for (std::size_t cut : cuts) BOOST_TEST(!target.load(bytes.substr(0, cut)), "cut at " << cut);
  BOOST_TEST(!target.load(bytes + "x"));
  std::string wrong_count = bytes;
  wrong_count[40] = static_cast<char>(wrong_count[40] + 1);  // the number of labels
  BOOST_TEST(!target.load(wrong_count));
  // The refused loads left the index as it was.
  BOOST_TEST(target.items() == 1u);
  BOOST_TEST(target.search(kept, 1).front().first == "kept");
}

// Items with equal vectors share one point: 200 copies of one vector do not crowd out the
// one item near them (each copy would fill the others' link lists), and the copies stay
// found as the items holding the shared point come and go, through saving and loading.
BOOST_AUTO_TEST_CASE(equal_vectors_share_one_point) {
  for (const std::size_t threads : {1, 4}) {
    BOOST_TEST_CONTEXT("threads " << threads) {
      std::mt19937_64 gen(7);
      const auto copy = random_vector(gen, 16);
      auto near = copy;
      near[0] += 0.5f;
      items all{{"near", {near}}};
      for (int i = 0; i < 200; ++i) all.push_back({"copy" + std::to_string(i), {copy}});
      ann_index index(config());
      index.set_many(all, threads);
      BOOST_TEST(index.items() == 201u);
      // The query is the near item itself: it comes first, then every copy.
      auto hits = index.search(near, 10);
      BOOST_REQUIRE(!hits.empty());
      BOOST_TEST(hits[0].first == "near");
      BOOST_TEST(hits.size() == 201u);

      // Remove the copies one by one (whichever holds the point): the rest stay found.
      for (int i = 0; i < 199; ++i) index.remove("copy" + std::to_string(i));
      index.set("copy199b", {copy, copy});  // an item with the vector twice
      hits = index.search(copy, 10);
      std::set<std::string> found;
      for (const auto& [id, similarity] : hits) {
        found.insert(id);
        if (id != "near") BOOST_TEST(similarity > 0.999f);
      }
      BOOST_TEST(found == (std::set<std::string>{"near", "copy199", "copy199b"}));

      ann_index loaded(config());
      BOOST_REQUIRE(loaded.load(index.save()));
      BOOST_TEST(ids(loaded.search(copy, 10)) == ids(index.search(copy, 10)));
      loaded.remove("copy199");
      loaded.set("near", {copy});  // now a third copy
      BOOST_TEST(loaded.items() == 2u);
      found.clear();
      for (const auto& [id, _] : loaded.search(copy, 10)) found.insert(id);
      BOOST_TEST(found == (std::set<std::string>{"near", "copy199b"}));
      loaded.remove("near");
      loaded.remove("copy199b");
      BOOST_TEST(loaded.items() == 0u);
      BOOST_TEST(loaded.search(copy, 10).empty());
    }
  }
}
