#pragma once

// The conformance suite every store backend passes. The checks each take a fresh, empty
// `store&`; SUPERSTEP_STORE_CONFORMANCE(make) defines one Boost test case per check, `make()`
// returning a std::unique_ptr or std::shared_ptr to a new store without an index.
// The semantic-search checks are in store_conformance_semantic.hpp.

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"

namespace superstep::store_conformance {

using storage::item;
using storage::namespace_path;
using storage::store;

/// The keys of `items`, in order.
inline std::vector<std::string> keys_of(const std::vector<item>& items) {
  std::vector<std::string> keys;
  for (const auto& i : items) keys.push_back(i.key);
  return keys;
}

/// Whether `f` throws superstep::error with `code` and a message containing `needle`.
template <class F>
bool throws_naming(F&& f, error_code code, const std::string& needle) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST_MESSAGE(e.what());
    return e.code() == code && std::string(e.what()).find(needle) != std::string::npos;
  }
  return false;
}

inline void put_get_round_trip_keeps_created_at_and_changes_updated_at(store& s) {
  const namespace_path ns{"1", "memories"};
  BOOST_TEST(!s.get(ns, "m1").has_value());
  s.put(ns, "m1", object{{"food_preference", "I like pizza"}, {"n", 1}});
  const auto first = s.get(ns, "m1");
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->ns == ns);
  BOOST_TEST(first->key == "m1");
  BOOST_TEST(first->v == value(object{{"food_preference", "I like pizza"}, {"n", 1}}));
  BOOST_TEST(!first->created_at.empty());
  BOOST_TEST(first->created_at == first->updated_at);
  BOOST_TEST(!first->score.has_value());

  s.put(ns, "m1", object{{"food_preference", "I like sushi"}});
  const auto second = s.get(ns, "m1");
  BOOST_REQUIRE(second.has_value());
  BOOST_TEST(second->v == value(object{{"food_preference", "I like sushi"}}));
  BOOST_TEST(second->created_at == first->created_at);
  BOOST_TEST(second->updated_at != first->updated_at);
  BOOST_TEST(second->updated_at > first->updated_at);  // ISO 8601 UTC sorts as time
  // The same key in another namespace is another item.
  BOOST_TEST(!s.get({"2", "memories"}, "m1").has_value());
  BOOST_TEST(!s.get({"1"}, "m1").has_value());
}

inline void remove_deletes_only_that_item(store& s) {
  s.put({"a"}, "k1", object{{"x", 1}});
  s.put({"a"}, "k2", object{{"x", 2}});
  s.remove({"a"}, "k1");
  s.remove({"a"}, "missing");  // not an error
  s.remove({"nowhere"}, "k1");
  BOOST_TEST(!s.get({"a"}, "k1").has_value());
  BOOST_TEST(s.get({"a"}, "k2").has_value());
  s.remove({"a"}, "k2");
  // A namespace without items is not listed.
  BOOST_TEST(s.list_namespaces({}).empty());
  BOOST_TEST(s.search({}).empty());
}

inline void search_by_prefix_is_newest_updated_first(store& s) {
  s.put({"users", "1", "memories"}, "a", object{{"i", 1}});
  s.put({"users", "1", "prefs"}, "b", object{{"i", 2}});
  s.put({"users", "2", "memories"}, "c", object{{"i", 3}});
  s.put({"users", "10"}, "d", object{{"i", 4}});
  s.put({"other"}, "e", object{{"i", 5}});
  s.put({"users", "1", "memories"}, "a", object{{"i", 6}});  // now the newest

  storage::search_options o;
  o.ns_prefix = {"users", "1"};
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"a", "b"}));
  o.ns_prefix = {"users"};
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"a", "d", "c", "b"}));
  o.ns_prefix = {};
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"a", "e", "d", "c", "b"}));
  o.ns_prefix = {"users", "1", "memories"};
  const auto found = s.search(o);
  BOOST_REQUIRE(found.size() == 1u);
  BOOST_TEST(found[0].ns == (namespace_path{"users", "1", "memories"}));
  BOOST_TEST(found[0].v == value(object{{"i", 6}}));
  BOOST_TEST(!found[0].created_at.empty());
  BOOST_TEST(!found[0].score.has_value());
  o.ns_prefix = {"use"};  // labels match whole, not as string prefixes
  BOOST_TEST(s.search(o).empty());
}

inline void search_pages_with_limit_and_offset(store& s) {
  for (int i = 0; i < 7; ++i) s.put({"p"}, "k" + std::to_string(i), object{{"i", i}});
  storage::search_options o;
  o.ns_prefix = {"p"};
  o.limit = 3;
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"k6", "k5", "k4"}));
  o.offset = 3;
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"k3", "k2", "k1"}));
  o.offset = 6;
  BOOST_TEST(keys_of(s.search(o)) == (std::vector<std::string>{"k0"}));
  o.offset = 100;
  BOOST_TEST(s.search(o).empty());
  o.offset = 0;
  o.limit = 10;  // the default
  BOOST_TEST(s.search(o).size() == 7u);
}

inline void search_filters_with_every_operator(store& s) {
  const namespace_path ns{"f"};
  s.put(ns, "a", object{{"n", 1}, {"s", "apple"}, {"tag", "x"}, {"o", object{{"k", 1}}}});
  s.put(ns, "b", object{{"n", 2.5}, {"s", "banana"}, {"tag", "y"}});
  s.put(ns, "c", object{{"n", 3}, {"s", "cherry"}, {"tag", "x"}, {"l", value::array({1, 2})}});
  auto keys = [&](object filter) {
    storage::search_options o;
    o.ns_prefix = ns;
    o.filter = std::move(filter);
    auto k = keys_of(s.search(o));
    std::sort(k.begin(), k.end());
    return k;
  };
  using v = std::vector<std::string>;
  BOOST_TEST(keys({{"tag", "x"}}) == (v{"a", "c"}));
  BOOST_TEST(keys({{"tag", "x"}, {"n", 3}}) == (v{"c"}));
  BOOST_TEST(keys({{"n", 1.0}}) == (v{"a"}));  // an integer equals the same double
  BOOST_TEST(keys({{"o", object{{"k", 1}}}}) == (v{"a"}));
  BOOST_TEST(keys({{"l", value::array({1, 2})}}) == (v{"c"}));
  BOOST_TEST(keys({{"missing", "x"}}).empty());
  BOOST_TEST(keys({{"tag", object{{"$eq", "y"}}}}) == (v{"b"}));
  BOOST_TEST(keys({{"tag", object{{"$ne", "y"}}}}) == (v{"a", "c"}));
  BOOST_TEST(keys({{"n", object{{"$gt", 2.5}}}}) == (v{"c"}));
  BOOST_TEST(keys({{"n", object{{"$gte", 2.5}}}}) == (v{"b", "c"}));
  BOOST_TEST(keys({{"n", object{{"$lt", 2.5}}}}) == (v{"a"}));
  BOOST_TEST(keys({{"n", object{{"$lte", 2.5}}}}) == (v{"a", "b"}));
  BOOST_TEST(keys({{"n", object{{"$gt", 1}, {"$lt", 3}}}}) == (v{"b"}));
  BOOST_TEST(keys({{"s", object{{"$gte", "banana"}}}}) == (v{"b", "c"}));
  BOOST_TEST(keys({{"s", object{{"$lt", "b"}}}}) == (v{"a"}));
  // Numbers and strings do not order against each other.
  BOOST_TEST(keys({{"n", object{{"$gt", "0"}}}}).empty());
  BOOST_TEST(keys({{"missing", object{{"$lt", 10}}}}).empty());
}

inline void list_namespaces_with_prefix_suffix_depth_and_paging(store& s) {
  s.put({"a", "b", "c"}, "k", object{});
  s.put({"a", "b", "d"}, "k", object{});
  s.put({"a", "e"}, "k", object{});
  s.put({"x", "b", "c"}, "k", object{});
  s.put({"x"}, "k", object{});
  using nss = std::vector<namespace_path>;
  auto list = [&](namespace_path prefix, namespace_path suffix, std::optional<std::size_t> depth,
                  std::size_t limit = 100, std::size_t offset = 0) {
    storage::list_namespaces_options o;
    o.prefix = std::move(prefix);
    o.suffix = std::move(suffix);
    o.max_depth = depth;
    o.limit = limit;
    o.offset = offset;
    return s.list_namespaces(o);
  };
  BOOST_TEST((list({}, {}, {}) ==
              (nss{{"a", "b", "c"}, {"a", "b", "d"}, {"a", "e"}, {"x"}, {"x", "b", "c"}})));
  BOOST_TEST((list({"a"}, {}, {}) == (nss{{"a", "b", "c"}, {"a", "b", "d"}, {"a", "e"}})));
  BOOST_TEST(
      (list({"*", "b"}, {}, {}) == (nss{{"a", "b", "c"}, {"a", "b", "d"}, {"x", "b", "c"}})));
  BOOST_TEST((list({}, {"c"}, {}) == (nss{{"a", "b", "c"}, {"x", "b", "c"}})));
  BOOST_TEST(
      (list({}, {"b", "*"}, {}) == (nss{{"a", "b", "c"}, {"a", "b", "d"}, {"x", "b", "c"}})));
  BOOST_TEST((list({"a"}, {"d"}, {}) == (nss{{"a", "b", "d"}})));
  BOOST_TEST((list({}, {}, 1) == (nss{{"a"}, {"x"}})));
  BOOST_TEST((list({"a"}, {}, 2) == (nss{{"a", "b"}, {"a", "e"}})));
  BOOST_TEST((list({}, {}, {}, 2) == (nss{{"a", "b", "c"}, {"a", "b", "d"}})));
  BOOST_TEST((list({}, {}, {}, 2, 3) == (nss{{"x"}, {"x", "b", "c"}})));
  BOOST_TEST(list({}, {}, {}, 2, 5).empty());
  BOOST_TEST(list({"a", "b", "c", "d"}, {}, {}).empty());
}

inline void bad_namespaces_are_named_and_store_nothing(store& s) {
  s.put({"ok"}, "k", object{{"v", 1}});
  const auto inv = error_code::invalid_argument;
  BOOST_TEST(throws_naming([&] { s.put({}, "k", object{}); }, inv, "at least one label"));
  BOOST_TEST(throws_naming([&] { s.put({"a", ""}, "k", object{}); }, inv, "empty label"));
  BOOST_TEST(throws_naming([&] { s.put({"a", "b.c"}, "k", object{}); }, inv, "\"b.c\""));
  BOOST_TEST(throws_naming([&] { s.put({"ok"}, "k", value(1)); }, inv, "object"));
  BOOST_TEST(throws_naming([&] { (void)s.get({"x.y"}, "k"); }, inv, "\"x.y\""));
  BOOST_TEST(throws_naming([&] { s.remove({}, "k"); }, inv, "at least one label"));
  // Nothing stored is lost and nothing was added.
  BOOST_TEST(s.get({"ok"}, "k")->v == value(object{{"v", 1}}));
  BOOST_TEST((s.list_namespaces({}) == std::vector<namespace_path>{{"ok"}}));
}

inline void unknown_filter_operator_is_named(store& s) {
  s.put({"f"}, "k", object{{"n", 1}});
  storage::search_options o;
  o.filter = object{{"n", object{{"$gt", 0}, {"$regex", "x"}}}};
  BOOST_TEST(throws_naming([&] { (void)s.search(o); }, error_code::invalid_argument, "$regex"));
  o.filter = object{{"n", object{{"$in", value::array({1})}}}};
  BOOST_TEST(throws_naming([&] { (void)s.search(o); }, error_code::invalid_argument, "$in"));
  BOOST_TEST(s.get({"f"}, "k").has_value());
}

}  // namespace superstep::store_conformance

/// Defines one test case per conformance check, each with a fresh store from `make()`.
#define SUPERSTEP_STORE_CONFORMANCE_CASE(check, make) \
  BOOST_AUTO_TEST_CASE(check) {                       \
    auto s = make();                                  \
    superstep::store_conformance::check(*s);          \
  }

#define SUPERSTEP_STORE_CONFORMANCE(make)                                                      \
  SUPERSTEP_STORE_CONFORMANCE_CASE(put_get_round_trip_keeps_created_at_and_changes_updated_at, \
                                   make)                                                       \
  SUPERSTEP_STORE_CONFORMANCE_CASE(remove_deletes_only_that_item, make)                        \
  SUPERSTEP_STORE_CONFORMANCE_CASE(search_by_prefix_is_newest_updated_first, make)             \
  SUPERSTEP_STORE_CONFORMANCE_CASE(search_pages_with_limit_and_offset, make)                   \
  SUPERSTEP_STORE_CONFORMANCE_CASE(search_filters_with_every_operator, make)                   \
  SUPERSTEP_STORE_CONFORMANCE_CASE(list_namespaces_with_prefix_suffix_depth_and_paging, make)  \
  SUPERSTEP_STORE_CONFORMANCE_CASE(bad_namespaces_are_named_and_store_nothing, make)           \
  SUPERSTEP_STORE_CONFORMANCE_CASE(unknown_filter_operator_is_named, make)
