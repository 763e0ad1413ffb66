#pragma once

// The approximate-nearest-neighbour checks of the store conformance suite: search through the
// HNSW index finds what exact search finds, and writes keep the index in step. Each takes a
// factory `make(index_config)` returning a pointer to a new, empty store (with `ann_items()`).
// SUPERSTEP_STORE_ANN_CONFORMANCE(make) defines one Boost test case per check.

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>

#include "store_conformance.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::store_conformance {

/// An embedder giving each text a fixed pseudo-random vector of `dims` (normal components,
/// seeded by the text's FNV-1a hash): unrelated texts are near-orthogonal, like real
/// embeddings of unrelated sentences, and the same text always gets the same vector.
inline storage::embed_fn random_vector_embedder(std::size_t dims) {
  return [dims](const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out;
    for (const auto& text : texts) {
      std::uint64_t h = 1469598103934665603ull;
      for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
      std::mt19937_64 gen(h);
      std::normal_distribution<float> normal;
      std::vector<float> v(dims);
      for (float& x : v) x = normal(gen);
      out.push_back(std::move(v));
    }
    return out;
  };
}

/// An index embedding field "t" to a random vector; `ann` switches the HNSW index.
inline storage::index_config random_index(bool ann, std::size_t dims = 32) {
  storage::index_config index{dims, random_vector_embedder(dims), {"t"}};
  index.ann = ann;
  return index;
}

/// Puts `n` items "k<i>" with text "t<i>" into `s`, in namespaces ("a") and ("b") alternately.
template <class Store>
void put_random_items(Store& s, int n) {
  for (int i = 0; i < n; ++i)
    s.put({i % 2 ? "b" : "a"}, "k" + std::to_string(i),
          object{{"t", "t" + std::to_string(i)}, {"i", i}});
}

template <class Make>
void ann_search_finds_what_exact_search_finds(Make make) {
  // Under every distance type: the random vectors are not normalized, so inner product and
  // l2 rank differently from cosine.
  for (const auto distance : {storage::distance_type::cosine, storage::distance_type::inner_product,
                              storage::distance_type::l2}) {
    BOOST_TEST_CONTEXT("distance " << storage::distance_type_name(distance)) {
      auto with_ann = random_index(true), without = random_index(false);
      with_ann.distance = without.distance = distance;
      auto ann = make(with_ann);
      auto exact = make(without);
      constexpr int items = 600, queries = 40;
      put_random_items(*ann, items);
      put_random_items(*exact, items);
      BOOST_TEST(ann->ann_items() == std::size_t(items));
      BOOST_TEST(exact->ann_items() == 0u);
      std::size_t hits = 0, total = 0;
      for (int q = 0; q < queries; ++q) {
        storage::search_options o;
        o.query = "query " + std::to_string(q);
        o.limit = 10;
        const auto a = ann->search(o), e = exact->search(o);
        BOOST_REQUIRE(a.size() == 10u);
        BOOST_REQUIRE(e.size() == 10u);
        std::set<std::string> truth;
        for (const auto& i : e) truth.insert(i.key);
        for (const auto& i : a) hits += truth.count(i.key);
        total += e.size();
        // Scores are the exact similarities of the distance type, best first.
        const auto query = random_vector_embedder(32)({*o.query})[0];
        for (std::size_t i = 0; i < a.size(); ++i) {
          BOOST_REQUIRE(a[i].score.has_value());
          const auto v = random_vector_embedder(32)({a[i].v.get("t").as_string()})[0];
          BOOST_TEST(*a[i].score == storage::store_support::similarity(distance, query, v),
                     boost::test_tools::tolerance(1e-9));
          BOOST_TEST(
              *e[i].score == storage::store_support::similarity(
                                 distance, query,
                                 random_vector_embedder(32)({e[i].v.get("t").as_string()})[0]),
              boost::test_tools::tolerance(1e-9));
          if (i) BOOST_TEST(*a[i - 1].score >= *a[i].score);
        }
        BOOST_TEST(a[0].key == e[0].key);
      }
      const double recall = double(hits) / double(total);
      BOOST_TEST_MESSAGE("recall@10 = " << recall);
      BOOST_TEST(recall >= 0.9);

      // A prefix and a filter that reject most candidates still fill the page, exactly.
      storage::search_options o;
      o.query = "query 1";
      o.ns_prefix = {"b"};
      o.filter = object{{"i", object{{"$lt", 40}}}};
      o.limit = 5;
      const auto a = ann->search(o), e = exact->search(o);
      BOOST_TEST(keys_of(a) == keys_of(e));
      BOOST_TEST(a.size() == 5u);
    }
  }
}

template <class Make>
void removed_and_replaced_items_never_come_back_from_the_index(Make make) {
  auto s = make(random_index(true));
  constexpr int items = 400;
  put_random_items(*s, items);
  // Remove k0..k49; replace k50..k99 with new texts; k100..k119 lose their vectors.
  for (int i = 0; i < 50; ++i) s->remove({i % 2 ? "b" : "a"}, "k" + std::to_string(i));
  for (int i = 50; i < 100; ++i)
    s->put({i % 2 ? "b" : "a"}, "k" + std::to_string(i),
           object{{"t", "new" + std::to_string(i)}, {"i", i}});
  for (int i = 100; i < 120; ++i)
    s->put({i % 2 ? "b" : "a"}, "k" + std::to_string(i), object{{"t", "x"}}, {false, {}});
  BOOST_TEST(s->ann_items() == std::size_t(items - 50 - 20));
  for (int i = 0; i < 120; ++i) {
    // The old text's own vector: the removed or replaced item was its perfect match.
    storage::search_options o;
    o.query = "t" + std::to_string(i);
    o.limit = 10;
    const auto found = s->search(o);
    BOOST_REQUIRE(found.size() == 10u);
    const bool replaced = i >= 50 && i < 100;
    for (const auto& f : found) {
      // A replaced item may rank by its new vector, like any other; the others are gone.
      if (!replaced) BOOST_TEST(f.key != "k" + std::to_string(i));
      BOOST_TEST(*f.score < 0.99);
    }
    if (replaced) {
      // The replacement is found by its new text (its label was reused, not lost).
      o.query = "new" + std::to_string(i);
      const auto renewed = s->search(o);
      BOOST_REQUIRE(!renewed.empty());
      BOOST_TEST(renewed[0].key == "k" + std::to_string(i));
      BOOST_TEST(*renewed[0].score > 0.999);
    }
  }
  // Putting removed items back reuses their labels; the index stays the same size.
  for (int i = 0; i < 50; ++i)
    s->put({i % 2 ? "b" : "a"}, "k" + std::to_string(i), object{{"t", "t" + std::to_string(i)}});
  BOOST_TEST(s->ann_items() == std::size_t(items - 20));
  storage::search_options o;
  o.query = "t7";
  BOOST_TEST(s->search(o).front().key == "k7");
}

template <class Make>
void hnsw_parameters_are_checked(Make make) {
  auto index = random_index(true);
  index.ann_m = 1;
  BOOST_TEST(throws_naming([&] { (void)make(index); }, error_code::invalid_argument, "ann_m"));
  index.ann_m = 8;
  index.ann_ef_search = 0;
  BOOST_TEST(
      throws_naming([&] { (void)make(index); }, error_code::invalid_argument, "ann_ef_search"));
  // ann = false needs no valid parameters: there is no index.
  index.ann = false;
  BOOST_TEST(make(index)->ann_items() == 0u);
}

template <class Make>
void ef_search_can_change_without_rebuilding(Make make) {
  // 128 dimensions and a narrow search (the 64 candidates a page of 10 asks for): misses.
  auto index = random_index(true, 128);
  index.ann_ef_search = 1;
  auto ann = make(index);
  index.ann = false;
  auto exact = make(index);
  constexpr int items = 2000, queries = 40;
  put_random_items(*ann, items);
  put_random_items(*exact, items);
  const auto recall = [&] {
    std::size_t hits = 0;
    for (int q = 0; q < queries; ++q) {
      storage::search_options o;
      o.query = "query " + std::to_string(q);
      const auto truth = keys_of(exact->search(o));
      for (const auto& key : keys_of(ann->search(o)))
        hits += std::count(truth.begin(), truth.end(), key);
    }
    return double(hits) / (10.0 * queries);
  };
  const double narrow = recall();
  BOOST_TEST_MESSAGE("recall@10 with 64 candidates = " << narrow);
  BOOST_TEST(narrow < 1.0);
  // A search that keeps more candidates than there are items visits them all: pages (in
  // order, at any offset) are exact search's.
  ann->set_ann_ef_search(items);
  BOOST_TEST(recall() == 1.0);
  for (int q = 0; q < queries; ++q) {
    storage::search_options o;
    o.query = "query " + std::to_string(q);
    o.offset = std::size_t(q % 3) * 7;
    BOOST_TEST(keys_of(ann->search(o)) == keys_of(exact->search(o)));
  }
  BOOST_TEST(throws_naming([&] { ann->set_ann_ef_search(0); }, error_code::invalid_argument,
                           "ann_ef_search"));
}

}  // namespace superstep::store_conformance

#define SUPERSTEP_STORE_ANN_CASE(check, make) \
  BOOST_AUTO_TEST_CASE(check) { superstep::store_conformance::check(make); }

#define SUPERSTEP_STORE_ANN_CONFORMANCE(make)                                               \
  SUPERSTEP_STORE_ANN_CASE(ann_search_finds_what_exact_search_finds, make)                  \
  SUPERSTEP_STORE_ANN_CASE(removed_and_replaced_items_never_come_back_from_the_index, make) \
  SUPERSTEP_STORE_ANN_CASE(hnsw_parameters_are_checked, make)                               \
  SUPERSTEP_STORE_ANN_CASE(ef_search_can_change_without_rebuilding, make)
