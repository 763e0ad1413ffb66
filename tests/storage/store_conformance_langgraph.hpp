#pragma once

// LangGraph's store tests, ported: one check per LangGraph test, named after it, with the
// LangGraph file and test in a comment. The plain checks take a fresh `store&` without an
// index; the semantic ones a factory `make(index_config)`, as store_conformance_semantic.hpp.
// SUPERSTEP_STORE_LANGGRAPH_CONFORMANCE(make, make_indexed) defines one Boost test case each.
// The embedder is the hashing one, not LangGraph's CharacterEmbeddings: the assertions on
// orders and on scores against each other hold for both.

#include "store_conformance_semantic.hpp"

namespace superstep::store_conformance {

// libs/checkpoint/tests/test_store.py::test_cannot_put_empty_namespace
inline void test_cannot_put_empty_namespace(store& s) {
  const object doc{{"foo", "bar"}};
  const auto inv = error_code::invalid_argument;
  BOOST_TEST(throws_naming([&] { s.put({}, "foo", doc); }, inv, "at least one label"));
  BOOST_TEST(throws_naming(
      [&] {
        s.put({"the", "thing.about"}, "foo", doc);
      },
      inv, "\"thing.about\""));
  BOOST_TEST(throws_naming([&] { s.put({"some", "fun", ""}, "foo", doc); }, inv, "empty label"));
  BOOST_TEST(throws_naming(
      [&] {
        s.put({"langgraph", "foo"}, "bar", doc);
      },
      inv, "cannot be \"langgraph\""));
  BOOST_TEST(s.list_namespaces({}).empty());

  // "langgraph" below the root is an ordinary label.
  const namespace_path inner{"foo", "langgraph", "foo"};
  s.put(inner, "bar", doc);
  BOOST_TEST(s.get(inner, "bar")->v == value(doc));
  storage::search_options o;
  o.ns_prefix = inner;
  o.query = "bar";
  BOOST_TEST(s.search(o).at(0).v == value(doc));
  s.remove(inner, "bar");
  BOOST_TEST(!s.get(inner, "bar").has_value());

  // Past the public put: a batch may write under the reserved root, and the rest reads it.
  const namespace_path reserved{"langgraph", "foo"};
  (void)s.batch({storage::put_op{reserved, "bar", doc, {}, {}}});
  BOOST_TEST(s.get(reserved, "bar")->v == value(doc));
  o.ns_prefix = reserved;
  o.query.reset();
  BOOST_TEST(s.search(o).at(0).v == value(doc));
  s.remove(reserved, "bar");
  BOOST_TEST(!s.get(reserved, "bar").has_value());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_filter_keys_with_hyphens_and_digits
inline void test_filter_keys_with_hyphens_and_digits(store& s) {
  s.put({"docs"}, "hyphen",
        object{{"access-level", "public"}, {"user", object{{"access-level", "nested"}}}});
  s.put({"docs"}, "digit", object{{"123abc", "ok"}, {"user", object{{"123abc", "ok2"}}}});
  const auto keys = [&](object filter) {
    storage::search_options o;
    o.ns_prefix = {"docs"};
    o.filter = std::move(filter);
    return keys_of(s.search(o));
  };
  using v = std::vector<std::string>;
  BOOST_TEST(keys({{"access-level", "public"}}) == (v{"hyphen"}));
  // Nested keys through dotted paths.
  BOOST_TEST(keys({{"user.access-level", "nested"}}) == (v{"hyphen"}));
  BOOST_TEST(keys({{"123abc", "ok"}}) == (v{"digit"}));
  BOOST_TEST(keys({{"user.123abc", "ok2"}}) == (v{"digit"}));
  // Operators apply on dotted paths too; a path through a non-object matches nothing.
  BOOST_TEST(keys({{"user.123abc", object{{"$ne", "ok2"}}}}) == (v{"hyphen"}));
  BOOST_TEST(keys({{"access-level.x", "public"}}).empty());
}

// libs/checkpoint/tests/test_store.py::test_vector_update_with_embedding
template <class Make>
void test_vector_update_with_embedding(Make make) {
  auto s = make(hashing_index());
  const namespace_path ns{"test"};
  s->put(ns, "doc1", object{{"text", "zany zebra Xerxes"}});
  s->put(ns, "doc2", object{{"text", "something about dogs"}});
  s->put(ns, "doc3", object{{"text", "text about birds"}});
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "Zany Xerxes";
  const auto initial = s->search(o);
  BOOST_REQUIRE(!initial.empty());
  BOOST_TEST(initial[0].key == "doc1");
  BOOST_REQUIRE(initial[0].score.has_value());
  const double initial_score = *initial[0].score;

  s->put(ns, "doc1", object{{"text", "new text about dogs"}});
  double after_score = 0;
  for (const auto& r : s->search(o))
    if (r.key == "doc1") after_score = r.score.value();
  BOOST_TEST(after_score < initial_score);

  o.query = "new text about dogs";
  for (const auto& r : s->search(o))
    if (r.key == "doc1") BOOST_TEST(r.score.value() > after_score);

  // Not indexed: the three embedded items fill a page of three.
  s->put(ns, "doc4", object{{"text", "new text about dogs"}}, {false, {}});
  o.limit = 3;
  const auto page = keys_of(s->search(o));
  BOOST_TEST(page.size() == 3u);
  BOOST_TEST((std::find(page.begin(), page.end(), "doc4") == page.end()));
}

// libs/checkpoint/tests/test_store.py::test_embed_with_path
template <class Make>
void test_embed_with_path(Make make) {
  // Store-level fields: key2 is not embedded.
  auto s = make(hashing_index({"key0", "key1", "key3"}));
  const namespace_path ns{"test"};
  s->put(ns, "doc1", object{{"key1", "xxx"}, {"key2", "yyy"}, {"key3", "zzz"}});
  s->put(ns, "doc2", object{{"key0", "uuu"}, {"key1", "vvv"}, {"key2", "www"}, {"key3", "xxx"}});
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "xxx";
  auto results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_REQUIRE((results[0].score && results[1].score));
  const double ascore = *results[0].score, bscore = *results[1].score;
  BOOST_TEST(ascore == bscore, boost::test_tools::tolerance(1e-5));

  o.query = "uuu";
  results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc2");
  BOOST_TEST(*results[0].score > *results[1].score);
  BOOST_TEST(ascore == *results[0].score, boost::test_tools::tolerance(1e-5));

  o.query = "www";  // not embedded: lower for both
  results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(*results[0].score < ascore);
  BOOST_TEST(*results[1].score < ascore);

  // Operation-level fields.
  auto t = make(hashing_index({"key17"}));
  t->put(ns, "doc3", object{{"key0", "aaa"}, {"key1", "bbb"}, {"key2", "ccc"}, {"key3", "ddd"}},
         {true, {{"key0", "key1"}}});
  t->put(ns, "doc4", object{{"key0", "eee"}, {"key1", "bbb"}, {"key2", "fff"}, {"key3", "ggg"}},
         {true, {{"key1", "key3"}}});
  o.query = "aaa";
  results = t->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc3");
  BOOST_TEST(*results[0].score > *results[1].score);
  o.query = "ggg";
  results = t->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc4");
  BOOST_TEST(*results[0].score > *results[1].score);
  o.query = "bbb";
  results = t->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key != results[1].key);
  BOOST_TEST(*results[0].score == *results[1].score);
  o.query = "ccc";
  results = t->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  for (const auto& r : results) BOOST_TEST(*r.score < ascore);

  // Put with index=false: a query still returns it, with no score.
  t->put(ns, "doc5", object{{"key0", "hhh"}, {"key1", "iii"}}, {false, {}});
  o.query = "hhh";
  results = t->search(o);
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(results[2].key == "doc5");
  BOOST_TEST(!results[2].score.has_value());
  BOOST_TEST((results[0].score && results[1].score));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_embed_with_path_operation_config (the
// Postgres test of that name asserts the same)
template <class Make>
void test_embed_with_path_operation_config(Make make) {
  auto s = make(hashing_index({"key17"}));
  const namespace_path ns{"test"};
  s->put(ns, "doc3", object{{"key0", "aaa"}, {"key1", "bbb"}, {"key2", "ccc"}, {"key3", "ddd"}},
         {true, {{"key0", "key1"}}});
  s->put(ns, "doc4", object{{"key0", "eee"}, {"key1", "bbb"}, {"key2", "fff"}, {"key3", "ggg"}},
         {true, {{"key1", "key3"}}});
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "aaa";
  auto results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc3");
  BOOST_TEST(*results[0].score > *results[1].score);
  o.query = "ggg";
  results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(results[0].key == "doc4");
  o.query = "bbb";
  results = s->search(o);
  BOOST_REQUIRE(results.size() == 2u);
  BOOST_TEST(*results[0].score == *results[1].score, boost::test_tools::tolerance(1e-3));
  o.query = "ccc";
  for (const auto& r : s->search(o)) BOOST_TEST(*r.score < 0.9);

  s->put(ns, "doc5", object{{"key0", "hhh"}, {"key1", "iii"}}, {false, {}});
  o.query.reset();
  results = s->search(o);
  BOOST_REQUIRE(results.size() == 3u);
  for (const auto& r : results) BOOST_TEST(!r.score.has_value());
  BOOST_TEST(keys_of(results)[0] == "doc5");
}

}  // namespace superstep::store_conformance

#define SUPERSTEP_STORE_LANGGRAPH_CONFORMANCE(make, make_indexed)                  \
  SUPERSTEP_STORE_CONFORMANCE_CASE(test_cannot_put_empty_namespace, make)          \
  SUPERSTEP_STORE_CONFORMANCE_CASE(test_filter_keys_with_hyphens_and_digits, make) \
  SUPERSTEP_STORE_SEMANTIC_CASE(test_vector_update_with_embedding, make_indexed)   \
  SUPERSTEP_STORE_SEMANTIC_CASE(test_embed_with_path, make_indexed)                \
  SUPERSTEP_STORE_SEMANTIC_CASE(test_embed_with_path_operation_config, make_indexed)
