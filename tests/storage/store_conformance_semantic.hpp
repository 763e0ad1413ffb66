#pragma once

// The semantic-search checks of the store conformance suite. Each takes a factory
// `make(index_config)` returning a pointer to a new, empty store with that index.
// SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make) defines one Boost test case per check.

#include <atomic>
#include <memory>

#include "store_conformance.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::store_conformance {

inline storage::index_config hashing_index(std::vector<std::string> fields = {"$"}) {
  return {256, storage::make_hashing_embedder(256), std::move(fields)};
}

template <class Make>
void semantic_search_ranks_the_food_preference_first(Make make) {
  auto s = make(hashing_index());
  const namespace_path ns{"1", "memories"};
  s->put(ns, "hobby", object{{"hobby", "I play chess"}});
  s->put(ns, "food", object{{"food_preference", "I like pizza"}});
  s->put(ns, "job", object{{"job", "engineer"}});
  s->put({"2", "memories"}, "other", object{{"food_preference", "I like pasta"}});
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "What does the user like to eat?";
  const auto found = s->search(o);
  BOOST_REQUIRE(found.size() == 3u);
  BOOST_TEST(found[0].key == "food");
  BOOST_TEST(found[0].v == value(object{{"food_preference", "I like pizza"}}));
  for (const auto& i : found) BOOST_REQUIRE(i.score.has_value());
  BOOST_TEST(*found[0].score > *found[1].score);
  BOOST_TEST(*found[1].score >= *found[2].score);
  o.limit = 1;
  o.offset = 1;
  const auto second = s->search(o);
  BOOST_REQUIRE(second.size() == 1u);
  BOOST_TEST(second[0].key == found[1].key);
  // Filters apply before ranking.
  o.limit = 10;
  o.offset = 0;
  o.filter = object{{"job", "engineer"}};
  BOOST_TEST(keys_of(s->search(o)) == (std::vector<std::string>{"job"}));
}

template <class Make>
void put_with_fields_or_without_index(Make make) {
  auto s = make(hashing_index({"text"}));
  const namespace_path ns{"docs"};
  s->put(ns, "pizza", object{{"text", "pizza with cheese"}, {"note", "chess"}});
  // Only `note` is embedded for this one.
  s->put(ns, "chess", object{{"text", "pizza"}, {"note", "chess openings"}}, {true, {{"note"}}});
  // Stored, readable, filterable; a query finds it after the embedded items, with no score.
  s->put(ns, "hidden", object{{"text", "pizza pizza"}}, {false, {}});
  BOOST_TEST(s->get(ns, "hidden").has_value());
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "pizza";
  const auto found = s->search(o);
  BOOST_TEST(keys_of(found) == (std::vector<std::string>{"pizza", "chess", "hidden"}));
  BOOST_TEST(!found.back().score.has_value());
  o.query = "chess openings";
  BOOST_TEST(keys_of(s->search(o)).front() == "chess");
  o.query.reset();
  BOOST_TEST(s->search(o).size() == 3u);
}

template <class Make>
void nested_field_paths_are_embedded(Make make) {
  auto s = make(hashing_index({"profile.likes[*]", "missing.path"}));
  const namespace_path ns{"u"};
  s->put(ns, "a", object{{"profile", object{{"likes", value::array({"chess", "go"})}}}});
  s->put(ns, "b", object{{"profile", object{{"likes", value::array({"pizza", "sushi"})}}}});
  s->put(ns, "c", object{{"other", "pizza"}});  // no text at the paths: nothing to embed
  storage::search_options o;
  o.ns_prefix = ns;
  o.query = "sushi";
  const auto found = s->search(o);
  BOOST_REQUIRE(found.size() == 3u);
  BOOST_TEST(found[0].key == "b");
  BOOST_TEST(*found[0].score > 0.99);  // max over fields: "sushi" itself
  BOOST_TEST(found[2].key == "c");     // nothing embedded: last, with no score
  BOOST_TEST(!found[2].score.has_value());
}

template <class Make>
void wrong_dimension_from_the_embedder_stores_nothing(Make make) {
  auto dims = std::make_shared<std::atomic<std::size_t>>(8);
  storage::index_config index{8,
                              [dims](const std::vector<std::string>& texts) {
                                return std::vector<std::vector<float>>(
                                    texts.size(), std::vector<float>(dims->load(), 0.5f));
                              },
                              {"$"}};
  auto s = make(index);
  const namespace_path ns{"n"};
  s->put(ns, "k", object{{"v", 1}});
  dims->store(7);
  BOOST_TEST(throws_naming(
      [&] {
        s->put(ns, "k", object{{"v", 2}});
      },
      error_code::invalid_argument, "dimension 7"));
  BOOST_TEST(throws_naming(
      [&] {
        s->put(ns, "new", object{{"v", 3}});
      },
      error_code::invalid_argument, "expects 8"));
  BOOST_TEST(s->get(ns, "k")->v == value(object{{"v", 1}}));
  BOOST_TEST(!s->get(ns, "new").has_value());
  storage::search_options o;
  o.query = "anything";
  BOOST_TEST(
      throws_naming([&] { (void)s->search(o); }, error_code::invalid_argument, "dimension 7"));
  dims->store(8);
  BOOST_TEST(s->search(o).size() == 1u);
}

}  // namespace superstep::store_conformance

#define SUPERSTEP_STORE_SEMANTIC_CASE(check, make) \
  BOOST_AUTO_TEST_CASE(check) { superstep::store_conformance::check(make); }

#define SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make)                                     \
  SUPERSTEP_STORE_SEMANTIC_CASE(semantic_search_ranks_the_food_preference_first, make) \
  SUPERSTEP_STORE_SEMANTIC_CASE(put_with_fields_or_without_index, make)                \
  SUPERSTEP_STORE_SEMANTIC_CASE(nested_field_paths_are_embedded, make)                 \
  SUPERSTEP_STORE_SEMANTIC_CASE(wrong_dimension_from_the_embedder_stores_nothing, make)
