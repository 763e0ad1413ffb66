// libs/checkpoint-sqlite/tests/test_store.py (SqliteStore with an index), ported: semantic
// search with LangGraph's fake character embedder (store_fixtures.hpp). SQLite's distance is
// cosine, as ours; its "memory"/"file" connection parameter is our backend run.

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

std::optional<double> score_of(const std::vector<item>& results, const std::string& key) {
  for (const auto& r : results)
    if (r.key == key) return r.score;
  return std::nullopt;
}

bool has_key(const std::vector<item>& results, const std::string& key) {
  const auto keys = keys_of(results);
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

const object doc3{{"key0", "aaa"}, {"key1", "bbb"}, {"key2", "ccc"}, {"key3", "ddd"}};
const object doc4{{"key0", "eee"}, {"key1", "bbb"}, {"key2", "fff"}, {"key3", "ggg"}};

}  // namespace

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_store_initialization (its last part
// checks that SQLite made its vector tables, which have no counterpart here)
BOOST_AUTO_TEST_CASE(test_vector_store_initialization) {
  const character_embeddings fake(500);
  storage::index_config index;
  index.dims = fake.dims();
  index.embed = fake.fn();
  {
    // No text fields given: the whole value is embedded (LangGraph's None, our "$").
    auto s = store(index);
    BOOST_REQUIRE(s->index().has_value());
    BOOST_TEST(indexes_with(*s->index(), fake));
    BOOST_TEST(s->index()->dims == fake.dims());
    BOOST_TEST(s->index()->fields == std::vector<std::string>{"$"});
  }
  {
    const std::vector<std::string> text_fields{"content", "title"};
    index.fields = text_fields;
    auto s = store(index);
    BOOST_REQUIRE(s->index().has_value());
    BOOST_TEST(indexes_with(*s->index(), fake));
    BOOST_TEST(s->index()->dims == fake.dims());
    BOOST_TEST(s->index()->fields == text_fields);
  }
}

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_insert_with_auto_embedding
BOOST_AUTO_TEST_CASE(test_vector_insert_with_auto_embedding) {
  auto s = store(character_index());
  s->put({"test"}, "doc1", object{{"text", "short text"}});
  s->put({"test"}, "doc2", object{{"text", "longer text document"}});
  s->put({"test"}, "doc3", object{{"text", "longest text document here"}});
  s->put({"test"}, "doc4", object{{"description", "text in description field"}});
  s->put({"test"}, "doc5", object{{"content", "text in content field"}});
  s->put({"test"}, "doc6", object{{"body", "text in body field"}});
  const auto results = search(*s, {.prefix = {"test"}, .query = "long text"});
  BOOST_TEST(!results.empty());
  BOOST_TEST(has_key(results, "doc2"));
  BOOST_TEST(has_key(results, "doc3"));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_update_with_embedding
BOOST_AUTO_TEST_CASE(test_vector_update_with_embedding) {
  auto s = store(character_index());
  s->put({"test"}, "doc1", object{{"text", "zany zebra Xerxes"}});
  s->put({"test"}, "doc2", object{{"text", "something about dogs"}});
  s->put({"test"}, "doc3", object{{"text", "text about birds"}});
  const auto initial = search(*s, {.prefix = {"test"}, .query = "Zany Xerxes"});
  BOOST_REQUIRE(!initial.empty());
  BOOST_TEST(initial[0].key == "doc1");
  const double initial_score = initial[0].score.value();

  s->put({"test"}, "doc1", object{{"text", "new text about dogs"}});
  const double after_score =
      score_of(search(*s, {.prefix = {"test"}, .query = "Zany Xerxes"}), "doc1").value_or(0.0);
  BOOST_TEST(after_score < initial_score);
  for (const auto& r : search(*s, {.prefix = {"test"}, .query = "new text about dogs"}))
    if (r.key == "doc1") BOOST_TEST(r.score.value() > after_score);

  s->put({"test"}, "doc4", object{{"text", "new text about dogs"}}, {false, {}});
  BOOST_TEST(!has_key(search(*s, {.prefix = {"test"}, .query = "new text about dogs", .limit = 3}),
                      "doc4"));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_search_with_filters
BOOST_AUTO_TEST_CASE(test_vector_search_with_filters) {
  auto s = store(character_index());
  s->put({"test"}, "doc1", object{{"text", "red apple"}, {"color", "red"}, {"score", 4.5}});
  s->put({"test"}, "doc2", object{{"text", "red car"}, {"color", "red"}, {"score", 3.0}});
  s->put({"test"}, "doc3", object{{"text", "green apple"}, {"color", "green"}, {"score", 4.0}});
  s->put({"test"}, "doc4", object{{"text", "blue car"}, {"color", "blue"}, {"score", 3.5}});

  auto results = search(*s, {.prefix = {"test"}, .query = "apple", .filter = {{"color", "red"}}});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc1");

  results = search(*s, {.prefix = {"test"}, .query = "car", .filter = {{"color", "red"}}});
  BOOST_REQUIRE(!results.empty());
  BOOST_TEST(results[0].key == "doc2");

  results = search(
      *s, {.prefix = {"test"}, .query = "bbbbluuu", .filter = {{"score", object{{"$gt", 3.2}}}}});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(results[0].key == "doc4");
  BOOST_TEST(has_key(results, "doc1"));
  BOOST_TEST(has_key(results, "doc3"));

  results = search(*s, {.prefix = {"test"},
                        .query = "apple",
                        .filter = {{"score", object{{"$gte", 4.0}}}, {"color", "green"}}});
  BOOST_REQUIRE(!results.empty());
  BOOST_TEST(results[0].key == "doc3");
}

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_search_pagination
BOOST_AUTO_TEST_CASE(test_vector_search_pagination) {
  auto s = store(character_index());
  for (int i = 0; i < 5; ++i)
    s->put({"test"}, "doc" + std::to_string(i),
           object{{"text", "test document number " + std::to_string(i)}});
  const auto page1 = search(*s, {.prefix = {"test"}, .query = "test", .limit = 2});
  const auto page2 = search(*s, {.prefix = {"test"}, .query = "test", .limit = 2, .offset = 2});
  BOOST_REQUIRE(page1.size() == 2u);
  BOOST_REQUIRE(page2.size() == 2u);
  for (const auto& a : page1)
    for (const auto& b : page2) BOOST_TEST(a.key != b.key);
  BOOST_TEST(*page1[0].score >= *page1[1].score);
  BOOST_TEST(*page2[0].score >= *page2[1].score);
  const auto all = search(*s, {.prefix = {"test"}, .query = "test", .limit = 10});
  BOOST_REQUIRE(all.size() == 5u);
  BOOST_TEST(*all[0].score >= *all[2].score);
}

// libs/checkpoint-sqlite/tests/test_store.py::test_vector_search_edge_cases
BOOST_AUTO_TEST_CASE(test_vector_search_edge_cases) {
  auto s = store(character_index());
  s->put({"test"}, "doc1", object{{"text", "test document"}});
  const auto empty_query = search(*s, {.prefix = {"test"}, .query = ""});
  BOOST_REQUIRE(empty_query.size() == 1u);
  // Beyond LangGraph's assertion: its stores test the query for truth, so "" is no query
  // and the item comes without a score.
  BOOST_TEST(!empty_query[0].score.has_value());
  BOOST_TEST(search(*s, {.prefix = {"test"}}).size() == 1u);
  std::string long_query;
  for (int i = 0; i < 100; ++i) long_query += "test ";
  BOOST_TEST(search(*s, {.prefix = {"test"}, .query = long_query}).size() == 1u);
  BOOST_TEST(search(*s, {.prefix = {"test"}, .query = "test!@#$%^&*()"}).size() == 1u);
}

// libs/checkpoint-sqlite/tests/test_store.py::test_embed_with_path
BOOST_AUTO_TEST_CASE(test_embed_with_path) {
  auto s = store(character_index({"key0", "key1", "key3"}));
  s->put({"test"}, "doc1", object{{"key1", "xxx"}, {"key2", "yyy"}, {"key3", "zzz"}});
  s->put({"test"}, "doc2",
         object{{"key0", "uuu"}, {"key1", "vvv"}, {"key2", "www"}, {"key3", "xxx"}});

  auto results = search(*s, {.prefix = {"test"}, .query = "xxx"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(*results[0].score > 0.9);
  BOOST_TEST(*results[1].score > 0.9);

  results = search(*s, {.prefix = {"test"}, .query = "uuu"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(results[0].key == "doc2");
  BOOST_TEST(*results[0].score > *results[1].score);

  results = search(*s, {.prefix = {"test"}, .query = "zzz"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(results[0].key == "doc1");
  BOOST_TEST(*results[0].score > *results[1].score);

  // key2 is not embedded: low for both.
  results = search(*s, {.prefix = {"test"}, .query = "www"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(*results[0].score < 0.9);
  BOOST_TEST(*results[1].score < 0.9);
}

// libs/checkpoint-sqlite/tests/test_store.py::test_embed_with_path_operation_config
BOOST_AUTO_TEST_CASE(test_embed_with_path_operation_config) {
  auto s = store(character_index({"key17"}));
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
  BOOST_TEST(std::abs(*results[0].score - *results[1].score) < 0.1);

  results = search(*s, {.prefix = {"test"}, .query = "ccc"});
  BOOST_REQUIRE(results.size() == 2u);
  for (const auto& r : results) BOOST_TEST(*r.score < 0.9);

  s->put({"test"}, "doc5", object{{"key0", "hhh"}, {"key1", "iii"}}, {false, {}});
  results = search(*s, {.prefix = {"test"}});
  BOOST_TEST(results.size() == 3u);
  BOOST_TEST(has_key(results, "doc5"));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_scores (each query; "memory"/"file" is our
// backend run)
BOOST_AUTO_TEST_CASE(test_scores) {
  const character_embeddings embeddings(500);
  for (const std::string query : {"aaa", "bbb", "ccc", "abcd", "poisson"}) {
    BOOST_TEST_CONTEXT("query " << query) {
      auto s = store(character_index({"key0"}));
      s->put({"test"}, "doc", object{{"key0", "aaa"}}, {true, {{"key0", "key1"}}});
      const auto results = search(*s, {.prefix = {}, .query = query});
      const double expected =
          cosine_similarity(embeddings.embed_one(query), embeddings.embed_one("aaa"));
      BOOST_REQUIRE(results.size() == 1u);
      BOOST_TEST(std::abs(results[0].score.value() - expected) <= 1e-3);
    }
  }
}

// libs/checkpoint-sqlite/tests/test_store.py::test_non_ascii
BOOST_AUTO_TEST_CASE(test_non_ascii) {
  auto s = store(character_index());
  const namespace_path ns{"user_123", "memories"};
  const std::vector<std::string> texts{"这是中文", "これは日本語です", "이건 한국어야",
                                       "Это русский", "यह रूसी है"};
  for (std::size_t i = 0; i < texts.size(); ++i)
    s->put(ns, std::to_string(i + 1), object{{"text", texts[i]}});
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto results = search(*s, {.prefix = ns, .query = texts[i]});
    BOOST_REQUIRE(!results.empty());
    BOOST_TEST(results[0].key == std::to_string(i + 1));
  }
}
