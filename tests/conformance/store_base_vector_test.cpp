// libs/checkpoint/tests/test_store.py (InMemoryStore with an index), ported: semantic search
// with LangGraph's fake character embedder (store_fixtures.hpp). The async twins
// (test_async_vector_*) run the same calls through the async API and are listed in
// NOT_PORTED.store.md.

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

}  // namespace

// libs/checkpoint/tests/test_store.py::test_vector_store_initialization
BOOST_AUTO_TEST_CASE(test_vector_store_initialization) {
  const character_embeddings fake(500);
  storage::index_config index;
  index.dims = fake.dims();
  index.embed = fake.fn();
  auto s = store(index);
  BOOST_REQUIRE(s->index().has_value());
  BOOST_TEST(s->index()->dims == fake.dims());
  BOOST_TEST(indexes_with(*s->index(), fake));
  BOOST_TEST(!indexes_with(*s->index(), character_embeddings(500)));  // another embedder
}

// libs/checkpoint/tests/test_store.py::test_vector_insert_with_auto_embedding
BOOST_AUTO_TEST_CASE(test_vector_insert_with_auto_embedding) {
  auto s = store(character_index());
  const std::vector<std::pair<std::string, object>> docs{
      {"doc1", {{"text", "short text"}}},
      {"doc2", {{"text", "longer text document"}}},
      {"doc3", {{"text", "longest text document here"}}},
      {"doc4", {{"description", "text in description field"}}},
      {"doc5", {{"content", "text in content field"}}},
      {"doc6", {{"body", "text in body field"}}},
  };
  for (const auto& [k, v] : docs) s->put({"test"}, k, v);
  const auto results = search(*s, {.prefix = {"test"}, .query = "long text"});
  BOOST_TEST(!results.empty());
  BOOST_TEST(has_key(results, "doc2"));
  BOOST_TEST(has_key(results, "doc3"));
}

// libs/checkpoint/tests/test_store.py::test_vector_update_with_embedding
BOOST_AUTO_TEST_CASE(test_vector_update_with_embedding) {
  auto s = store(character_index());
  s->put({"test"}, "doc1", object{{"text", "zany zebra Xerxes"}});
  s->put({"test"}, "doc2", object{{"text", "something about dogs"}});
  s->put({"test"}, "doc3", object{{"text", "text about birds"}});

  const auto initial = search(*s, {.prefix = {"test"}, .query = "Zany Xerxes"});
  BOOST_REQUIRE(!initial.empty());
  BOOST_TEST(initial[0].key == "doc1");
  BOOST_REQUIRE(initial[0].score.has_value());
  const double initial_score = *initial[0].score;

  s->put({"test"}, "doc1", object{{"text", "new text about dogs"}});
  const auto after = search(*s, {.prefix = {"test"}, .query = "Zany Xerxes"});
  const double after_score = score_of(after, "doc1").value_or(0.0);
  BOOST_TEST(after_score < initial_score);

  for (const auto& r : search(*s, {.prefix = {"test"}, .query = "new text about dogs"}))
    if (r.key == "doc1") BOOST_TEST(r.score.value() > after_score);

  // Not indexed: the page of three is filled by the embedded items.
  s->put({"test"}, "doc4", object{{"text", "new text about dogs"}}, {false, {}});
  const auto page = search(*s, {.prefix = {"test"}, .query = "new text about dogs", .limit = 3});
  BOOST_TEST(!has_key(page, "doc4"));
}

// libs/checkpoint/tests/test_store.py::test_vector_search_with_filters
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
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc2");

  results = search(
      *s, {.prefix = {"test"}, .query = "bbbbluuu", .filter = {{"score", object{{"$gt", 3.2}}}}});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(results[0].key == "doc4");

  results = search(*s, {.prefix = {"test"},
                        .query = "apple",
                        .filter = {{"score", object{{"$gte", 4.0}}}, {"color", "green"}}});
  BOOST_REQUIRE(results.size() == 1u);
  BOOST_TEST(results[0].key == "doc3");
}

// libs/checkpoint/tests/test_store.py::test_vector_search_pagination
BOOST_AUTO_TEST_CASE(test_vector_search_pagination) {
  auto s = store(character_index());
  for (int i = 0; i < 5; ++i)
    s->put({"test"}, "doc" + std::to_string(i),
           object{{"text", "test document number " + std::to_string(i)}});
  const auto page1 = search(*s, {.prefix = {"test"}, .query = "test", .limit = 2});
  const auto page2 = search(*s, {.prefix = {"test"}, .query = "test", .limit = 2, .offset = 2});
  BOOST_REQUIRE(page1.size() == 2u);
  BOOST_REQUIRE(page2.size() == 2u);
  BOOST_TEST(page1[0].key != page2[0].key);
  BOOST_TEST(search(*s, {.prefix = {"test"}, .query = "test", .limit = 10}).size() == 5u);
}

// libs/checkpoint/tests/test_store.py::test_embed_with_path
BOOST_AUTO_TEST_CASE(test_embed_with_path) {
  // Store-level fields: key2 is not embedded.
  auto s = store(character_index({"key0", "key1", "key3"}));
  // doc1 has two vectors (no key0: not an error), doc2 three.
  s->put({"test"}, "doc1", object{{"key1", "xxx"}, {"key2", "yyy"}, {"key3", "zzz"}});
  s->put({"test"}, "doc2",
         object{{"key0", "uuu"}, {"key1", "vvv"}, {"key2", "www"}, {"key3", "xxx"}});

  // doc2.key3 and doc1.key1 both score highest.
  auto results = search(*s, {.prefix = {"test"}, .query = "xxx"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_REQUIRE((results[0].score && results[1].score));
  const double ascore = *results[0].score, bscore = *results[1].score;
  BOOST_TEST(std::abs(ascore - bscore) <= 1e-5);

  results = search(*s, {.prefix = {"test"}, .query = "uuu"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(results[0].key == "doc2");
  BOOST_TEST(*results[0].score > *results[1].score);
  BOOST_TEST(std::abs(ascore - *results[0].score) <= 1e-5);

  // Not embedded: lower for both (not zero: the projections overlap).
  results = search(*s, {.prefix = {"test"}, .query = "www"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(*results[0].score < ascore);
  BOOST_TEST(*results[1].score < ascore);

  // Operation-level fields.
  auto t = store(character_index({"key17"}));
  t->put({"test"}, "doc3",
         object{{"key0", "aaa"}, {"key1", "bbb"}, {"key2", "ccc"}, {"key3", "ddd"}},
         {true, {{"key0", "key1"}}});
  t->put({"test"}, "doc4",
         object{{"key0", "eee"}, {"key1", "bbb"}, {"key2", "fff"}, {"key3", "ggg"}},
         {true, {{"key1", "key3"}}});
  results = search(*t, {.prefix = {"test"}, .query = "aaa"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc3");
  BOOST_TEST(*results[0].score > *results[1].score);

  results = search(*t, {.prefix = {"test"}, .query = "ggg"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc4");
  BOOST_TEST(*results[0].score > *results[1].score);

  results = search(*t, {.prefix = {"test"}, .query = "bbb"});
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(*results[0].score == *results[1].score);

  results = search(*t, {.prefix = {"test"}, .query = "ccc"});
  BOOST_REQUIRE(results.size() == 2u);
  for (const auto& r : results) BOOST_TEST(*r.score < ascore);

  t->put({"test"}, "doc5", object{{"key0", "hhh"}, {"key1", "iii"}}, {false, {}});
  results = search(*t, {.prefix = {"test"}, .query = "hhh"});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(has_key(results, "doc5"));
  BOOST_TEST(!score_of(results, "doc5").has_value());
}

// libs/checkpoint/tests/test_store.py::test_non_ascii
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
