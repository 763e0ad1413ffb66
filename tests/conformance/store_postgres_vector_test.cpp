// libs/checkpoint-postgres/tests/test_store.py and test_async_store.py (PostgresStore with an
// index), ported where they assert more than the SQLite and in-memory vector tests. Each
// case runs its distance types ("l2", "inner_product", "cosine": index_config::distance);
// "vector" and "halfvec" (float and half-float columns) are one parameter here, as our
// vectors are floats either way, and "hamming" (with "bit" vectors only) is not among the
// parameters LangGraph's tests run.

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

const object doc3{{"key0", "aaa"}, {"key1", "bbb"}, {"key2", "ccc"}, {"key3", "ddd"}};
const object doc4{{"key0", "eee"}, {"key1", "bbb"}, {"key2", "fff"}, {"key3", "ggg"}};

// LangGraph's vector_store fixture: TTLs of 2 minutes, refreshed on reads.
storage::ttl_config vector_store_ttl() {
  storage::ttl_config t;
  t.default_ttl_minutes = 2;
  t.refresh_on_read = true;
  return t;
}

// A parameter of LangGraph's vector_store fixture (`_vector_params`): a distance type, and
// whether the store has TTLs.
struct vector_store_param {
  storage::distance_type distance;
  bool ttl;
};

// Each distance type with TTLs, then the last again without (the fixture's parameters, with
// "vector" and "halfvec" as one).
std::vector<vector_store_param> vector_store_params() {
  std::vector<vector_store_param> out;
  for (const auto d : postgres_distance_types) out.push_back({d, true});
  out.push_back({out.back().distance, false});
  return out;
}

// LangGraph's vector_store fixture: an index of `e` over the whole value.
std::shared_ptr<storage::store> vector_store(
    const vector_store_param& p, const character_embeddings& e = character_embeddings(500)) {
  return store(character_index({"$"}, p.distance, e),
               p.ttl ? vector_store_ttl() : storage::ttl_config{});
}

std::ostream& operator<<(std::ostream& out, const vector_store_param& p) {
  return out << storage::distance_type_name(p.distance) << (p.ttl ? "" : ", without TTLs");
}

}  // namespace

// libs/checkpoint-postgres/tests/test_store.py::test_vector_store_initialization (each
// parameter of the vector_store fixture)
BOOST_AUTO_TEST_CASE(test_vector_store_initialization) {
  for (const auto& param : vector_store_params()) {
    BOOST_TEST_CONTEXT(param) {
      const character_embeddings fake(500);
      auto s = vector_store(param, fake);
      BOOST_REQUIRE(s->index().has_value());
      BOOST_TEST(s->index()->dims == fake.dims());
      BOOST_TEST(indexes_with(*s->index(), fake));
      BOOST_TEST(!indexes_with(*s->index(), character_embeddings(500)));  // another embedder
      BOOST_TEST(storage::distance_type_name(s->index()->distance) ==
                 std::string(storage::distance_type_name(param.distance)));
    }
  }
}

// libs/checkpoint-postgres/tests/test_store.py::test_vector_search_with_filters (each
// parameter of the vector_store fixture, refresh_ttl true and false)
BOOST_AUTO_TEST_CASE(test_vector_search_with_filters) {
  for (const auto& param : vector_store_params()) {
    // One store per parameter of the fixture: the searches do not change what it holds.
    auto s = vector_store(param);
    s->put({"test"}, "doc1", object{{"text", "red apple"}, {"color", "red"}, {"score", 4.5}});
    s->put({"test"}, "doc2", object{{"text", "red car"}, {"color", "red"}, {"score", 3.0}});
    s->put({"test"}, "doc3", object{{"text", "green apple"}, {"color", "green"}, {"score", 4.0}});
    s->put({"test"}, "doc4", object{{"text", "blue car"}, {"color", "blue"}, {"score", 3.5}});
    for (const bool refresh_ttl : {true, false}) {
      BOOST_TEST_CONTEXT(param << ", refresh_ttl " << refresh_ttl) {
        auto results = search(*s, {.prefix = {"test"},
                                   .query = "apple",
                                   .filter = {{"color", "red"}},
                                   .refresh_ttl = refresh_ttl});
        BOOST_REQUIRE(results.size() == 2u);
        BOOST_TEST(results[0].key == "doc1");

        results = search(*s, {.prefix = {"test"},
                              .query = "car",
                              .filter = {{"color", "red"}},
                              .refresh_ttl = refresh_ttl});
        BOOST_REQUIRE(results.size() == 2u);
        BOOST_TEST(results[0].key == "doc2");

        results = search(*s, {.prefix = {"test"},
                              .query = "bbbbluuu",
                              .filter = {{"score", object{{"$gt", 3.2}}}},
                              .refresh_ttl = refresh_ttl});
        BOOST_REQUIRE(results.size() == 3u);
        BOOST_TEST(results[0].key == "doc4");

        results = search(*s, {.prefix = {"test"},
                              .query = "apple",
                              .filter = {{"score", object{{"$gte", 4.0}}}, {"color", "green"}}});
        BOOST_REQUIRE(results.size() == 1u);
        BOOST_TEST(results[0].key == "doc3");
      }
    }
  }
}

// libs/checkpoint-postgres/tests/test_store.py::test_embed_with_path_sync (cosine and
// inner_product)
BOOST_AUTO_TEST_CASE(test_embed_with_path_sync) {
  for (const auto distance :
       {storage::distance_type::cosine, storage::distance_type::inner_product})
    BOOST_TEST_CONTEXT("distance " << storage::distance_type_name(distance)) {
      auto s = store(character_index({"key0", "key1", "key3"}, distance), vector_store_ttl());
      s->put({"test"}, "doc1", object{{"key1", "xxx"}, {"key2", "yyy"}, {"key3", "zzz"}});
      s->put({"test"}, "doc2",
             object{{"key0", "uuu"}, {"key1", "vvv"}, {"key2", "www"}, {"key3", "xxx"}});

      auto results = search(*s, {.prefix = {"test"}, .query = "xxx"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key != results[1].key);
      const double ascore = results[0].score.value(), bscore = results[1].score.value();
      BOOST_TEST(std::abs(ascore - bscore) <= 1e-3);

      results = search(*s, {.prefix = {"test"}, .query = "uuu"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key != results[1].key);
      BOOST_TEST(results[0].key == "doc2");
      BOOST_TEST(*results[0].score > *results[1].score);
      BOOST_TEST(std::abs(ascore - *results[0].score) <= 1e-3);

      results = search(*s, {.prefix = {"test"}, .query = "zzz"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key != results[1].key);
      BOOST_TEST(results[0].key == "doc1");
      BOOST_TEST(*results[0].score > *results[1].score);
      BOOST_TEST(std::abs(ascore - *results[0].score) <= 1e-3);

      results = search(*s, {.prefix = {"test"}, .query = "www"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key != results[1].key);
      BOOST_TEST(*results[0].score < ascore);
      BOOST_TEST(*results[1].score < ascore);
    }
}

// libs/checkpoint-postgres/tests/test_store.py::test_embed_with_path_operation_config (cosine
// and inner_product)
BOOST_AUTO_TEST_CASE(test_embed_with_path_operation_config) {
  for (const auto distance :
       {storage::distance_type::cosine, storage::distance_type::inner_product})
    BOOST_TEST_CONTEXT("distance " << storage::distance_type_name(distance)) {
      auto s = store(character_index({"key17"}, distance), vector_store_ttl());
      s->put({"test"}, "doc3", doc3, {true, {{"key0", "key1"}}});
      s->put({"test"}, "doc4", doc4, {true, {{"key1", "key3"}}});

      auto results = search(*s, {.prefix = {"test"}, .query = "aaa"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key == "doc3");
      BOOST_TEST(results[0].key != results[1].key);
      BOOST_TEST(*results[0].score > *results[1].score);

      results = search(*s, {.prefix = {"test"}, .query = "ggg"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key == "doc4");
      BOOST_TEST(*results[0].score > *results[1].score);

      results = search(*s, {.prefix = {"test"}, .query = "bbb"});
      BOOST_REQUIRE(results.size() == 2u);
      BOOST_TEST(results[0].key != results[1].key);
      BOOST_TEST(std::abs(*results[0].score - *results[1].score) <= 1e-3);

      results = search(*s, {.prefix = {"test"}, .query = "ccc"});
      BOOST_REQUIRE(results.size() == 2u);
      for (const auto& r : results) BOOST_TEST(*r.score < 0.9);

      s->put({"test"}, "doc5", object{{"key0", "hhh"}, {"key1", "iii"}}, {false, {}});
      results = search(*s, {.prefix = {"test"}});
      BOOST_REQUIRE(results.size() == 3u);
      for (const auto& r : results) BOOST_TEST(!r.score.has_value());
      const auto keys = keys_of(results);
      BOOST_TEST((std::find(keys.begin(), keys.end(), "doc5") != keys.end()));
      // LangGraph leaves the query "hhh" unchecked (Postgres does not fill a page with items
      // that have no vectors); ours does, as the in-memory store.
      BOOST_TEST(search(*s, {.prefix = {"test"}, .query = "hhh"}).size() == 3u);
    }
}

// libs/checkpoint-postgres/tests/test_store.py::test_scores (cosine, inner_product and l2,
// each query)
BOOST_AUTO_TEST_CASE(test_scores) {
  const character_embeddings embeddings(500);
  for (const auto distance : {storage::distance_type::cosine, storage::distance_type::inner_product,
                              storage::distance_type::l2}) {
    // One store per distance type: LangGraph's store per query holds the same one item.
    auto s = store(character_index({"key0"}, distance), vector_store_ttl());
    s->put({"test"}, "doc", object{{"key0", "aaa"}}, {true, {{"key0", "key1"}}});
    for (const std::string query : {"aaa", "bbb", "ccc", "abcd", "poisson"}) {
      BOOST_TEST_CONTEXT("distance " << storage::distance_type_name(distance) << ", query "
                                     << query) {
        const auto results = search(*s, {.prefix = {}, .query = query});
        const auto vec0 = embeddings.embed_one("aaa"), vec1 = embeddings.embed_one(query);
        const double expected =
            distance == storage::distance_type::cosine          ? cosine_similarity(vec1, vec0)
            : distance == storage::distance_type::inner_product ? inner_product(vec1, vec0)
                                                                : neg_l2_distance(vec1, vec0);
        BOOST_REQUIRE(results.size() == 1u);
        BOOST_TEST(std::abs(results[0].score.value() - expected) <= 1e-3);
      }
    }
  }
}

// libs/checkpoint-postgres/tests/test_async_store.py::test_search_sorting (cosine)
BOOST_AUTO_TEST_CASE(test_search_sorting) {
  auto s = store(character_index({"key1"}), vector_store_ttl());
  s->put({"test", "M"}, "M", object{{"key1", "mmm"}});
  constexpr int n = 100;
  for (int i = 0; i < n; ++i)
    s->put({"test", "A"}, "A" + std::to_string(i), object{{"key1", "no"}});
  for (int i = 0; i < n; ++i)
    s->put({"test", "Z"}, "Z" + std::to_string(i), object{{"key1", "no"}});
  const auto results = search(*s, {.prefix = {"test"}, .query = "mmm", .limit = 10});
  BOOST_REQUIRE(results.size() == 10u);
  const auto keys = keys_of(results);
  BOOST_TEST(std::set<std::string>(keys.begin(), keys.end()).size() == 10u);
  BOOST_TEST(results[0].key == "M");
  BOOST_TEST(*results[0].score > *results[1].score);
}
