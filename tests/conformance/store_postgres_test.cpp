// libs/checkpoint-postgres/tests/test_store.py (PostgresStore), ported where it tests BaseStore
// semantics and asserts more than the SQLite tests of store_sqlite*_test.cpp: the basic
// operations, namespace scoping and TTLs. Semantic search is in
// store_postgres_vector_test.cpp. LangGraph's fixture store has a TTL of 6 s (0.1 minutes),
// refreshed on reads; here on a clock the test moves instead of sleeps.

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;
using ns_set = std::set<namespace_path>;

namespace {

constexpr double ttl_seconds = 6;
constexpr double ttl_minutes = ttl_seconds / 60;

}  // namespace

// libs/checkpoint-postgres/tests/test_store.py::test_basic_store_ops
BOOST_AUTO_TEST_CASE(test_basic_store_ops) {
  auto s = store();
  const namespace_path ns{"test", "documents"};
  const object doc{{"title", "Test Document"}, {"content", "Hello, World!"}};
  s->put(ns, "doc1", doc);
  const auto it = s->get(ns, "doc1");
  BOOST_REQUIRE(it.has_value());
  BOOST_TEST(it->ns == ns);
  BOOST_TEST(it->key == "doc1");
  BOOST_TEST(it->v == value(doc));

  const object updated{{"title", "Updated Document"}, {"content", "Hello, Updated!"}};
  s->put(ns, "doc1", updated);
  const auto after = s->get(ns, "doc1");
  BOOST_REQUIRE(after.has_value());
  BOOST_TEST(after->v == value(updated));
  BOOST_TEST(after->updated_at > it->updated_at);
  BOOST_TEST(!s->get({"test", "other_documents"}, "doc1").has_value());

  s->remove(ns, "doc1");
  BOOST_TEST(!s->get(ns, "doc1").has_value());
}

// libs/checkpoint-postgres/tests/test_store.py::test_search_namespace_segment_boundary
BOOST_AUTO_TEST_CASE(test_search_namespace_segment_boundary) {
  auto s = store();
  for (const namespace_path& ns : std::vector<namespace_path>{{"foo"},
                                                              {"foo", "child"},
                                                              {"foo", "child", "deep"},
                                                              {"foobar"},
                                                              {"foobar", "baz"},
                                                              {"foo2"}})
    s->put(ns, "k", object{{"v", 1}});
  const auto searched = [&](namespace_path prefix) {
    return namespaces_of(search(*s, {.prefix = std::move(prefix), .limit = 100}));
  };
  BOOST_TEST(searched({"foo"}) == (ns_set{{"foo"}, {"foo", "child"}, {"foo", "child", "deep"}}));
  BOOST_TEST(searched({"foobar"}) == (ns_set{{"foobar"}, {"foobar", "baz"}}));
  BOOST_TEST(searched({"foo", "child"}) == (ns_set{{"foo", "child"}, {"foo", "child", "deep"}}));
  BOOST_TEST(searched({"foo2"}) == (ns_set{{"foo2"}}));
  BOOST_TEST(searched({"fo"}).empty());
}

// libs/checkpoint-postgres/tests/test_store.py::test_store_ttl
BOOST_AUTO_TEST_CASE(test_store_ttl) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, ttl_minutes, true));
  const namespace_path ns{"foo"};
  s->put(ns, "item1", object{{"foo", "bar"}}, {}, ttl_minutes);  // expires at t=6
  clock.advance_seconds(ttl_seconds - 2);
  BOOST_TEST(s->get(ns, "item1", true).has_value());  // t=4: now expires at t=10
  clock.advance_seconds(ttl_seconds - 2);
  // t=8: the query is ignored without an index; the search restarts the TTL (t=14).
  BOOST_TEST(search(*s, {.prefix = ns, .query = "foo", .refresh_ttl = true}).size() == 1u);
  clock.advance_seconds(ttl_seconds - 2);
  BOOST_TEST(s->get(ns, "item1", false).has_value());  // t=12
  clock.advance_seconds(ttl_seconds - 1);
  BOOST_TEST(search(*s, {.prefix = ns, .query = "bar", .refresh_ttl = false}).empty());  // t=17
}

// libs/checkpoint-postgres/tests/test_store.py::test_omit_expired_filters_read_paths. Our
// stores always omit expired items (LangGraph's omit_expired=True); the clock moving past
// the TTL stands for LangGraph's backdating of expires_at, and no sweep runs.
BOOST_AUTO_TEST_CASE(test_omit_expired_filters_read_paths) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, ttl_minutes, true));
  const namespace_path expired_ns{"omit", "expired"}, control_ns{"omit", "control"};
  s->put(expired_ns, "e", object{{"data", "gone"}}, {}, ttl_minutes);
  s->put(control_ns, "c", object{{"data", "keep"}}, {}, std::nullopt);
  clock.advance_seconds(ttl_seconds + 60);

  BOOST_TEST(!s->get(expired_ns, "e").has_value());
  BOOST_TEST(s->get(control_ns, "c").has_value());
  BOOST_TEST(search(*s, {.prefix = expired_ns}).empty());
  BOOST_TEST(keys_of(search(*s, {.prefix = control_ns})) == (std::vector<std::string>{"c"}));
  const auto namespaces = as_set(list_namespaces(*s, {.prefix = {"omit"}}));
  BOOST_TEST(!namespaces.count(expired_ns));
  BOOST_TEST(namespaces.count(control_ns) == 1u);
  // The expired item was still stored (unswept) through all those reads.
  BOOST_TEST(s->sweep() == 1u);
}

// libs/checkpoint-postgres/tests/test_store.py::test_omit_expired_disabled_preserves_expired_rows
// (the "explicit-false" parameter; with none given, our stores omit expired items, where
// Postgres's default keeps them: NOT_PORTED.store.md)
BOOST_AUTO_TEST_CASE(test_omit_expired_disabled_preserves_expired_rows) {
  manual_clock clock;
  auto config = ttl_on(clock, ttl_minutes, true);
  config.omit_expired = false;
  auto s = store({}, config);
  const namespace_path ns{"keep"};
  s->put(ns, "k", object{{"data", "still-here"}}, {}, ttl_minutes);
  clock.advance_seconds(ttl_seconds + 60);

  BOOST_TEST(s->get(ns, "k", false).has_value());
  BOOST_TEST(keys_of(search(*s, {.prefix = ns, .refresh_ttl = false})) ==
             (std::vector<std::string>{"k"}));
  BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {"keep"}})).count(ns) == 1u);
  // Until a sweep deletes it.
  BOOST_TEST(s->sweep() == 1u);
  BOOST_TEST(!s->get(ns, "k", false).has_value());
  BOOST_TEST(list_namespaces(*s, {.prefix = {"keep"}}).empty());
}

// libs/checkpoint-postgres/tests/test_store.py::test_omit_expired_refresh_ttl_only_refreshes_live_rows
BOOST_AUTO_TEST_CASE(test_omit_expired_refresh_ttl_only_refreshes_live_rows) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, ttl_minutes, true));
  const namespace_path ns{"refresh"};
  // "expired" expires at t=6; the live ones, put at t=7, at t=13.
  s->put(ns, "expired", object{{"n", 0}}, {}, ttl_minutes);
  clock.advance_seconds(ttl_seconds + 1);
  s->put(ns, "live_get", object{{"n", 1}}, {}, ttl_minutes);
  s->put(ns, "live_search", object{{"n", 2}}, {}, ttl_minutes);

  // t=10: refreshing reads do not bring the expired item back...
  clock.advance_seconds(3);
  BOOST_TEST(!s->get(ns, "expired", true).has_value());
  const auto keys = keys_of(search(*s, {.prefix = ns, .refresh_ttl = true}));
  BOOST_TEST((std::find(keys.begin(), keys.end(), "expired") == keys.end()));
  BOOST_TEST(keys.size() == 2u);
  // ...nor move its expiry: a sweep deletes it, and only it.
  BOOST_TEST(s->sweep() == 1u);

  // ...but they restart the live items' TTLs (now t=16): at t=14 both are there.
  BOOST_TEST(s->get(ns, "live_get", true).has_value());
  clock.advance_seconds(4);
  BOOST_TEST(s->get(ns, "live_get", false).has_value());
  BOOST_TEST(s->get(ns, "live_search", false).has_value());
  BOOST_TEST(s->sweep() == 0u);
}

// libs/checkpoint-postgres/tests/test_store.py::test_omit_expired_search_pagination. LangGraph
// sets updated_at to a, expired, b, c from newest; here they are put in the other order, a
// second apart, and "expired" with a shorter TTL.
BOOST_AUTO_TEST_CASE(test_omit_expired_search_pagination) {
  manual_clock clock;
  auto s = store({}, ttl_on(clock, ttl_minutes, false));
  const namespace_path ns{"page"};
  s->put(ns, "c", object{{"k", "c"}}, {}, ttl_minutes);  // t=0, expires t=6
  clock.advance_seconds(1);
  s->put(ns, "b", object{{"k", "b"}}, {}, ttl_minutes);
  clock.advance_seconds(1);
  s->put(ns, "expired", object{{"k", "x"}}, {}, 2.0 / 60);  // t=2, expires t=4
  clock.advance_seconds(1);
  s->put(ns, "a", object{{"k", "a"}}, {}, ttl_minutes);
  clock.advance_seconds(2);  // t=5: "expired" sits inside the first page of the order

  BOOST_TEST(keys_of(search(*s, {.prefix = ns, .limit = 2, .offset = 0})) ==
             (std::vector<std::string>{"a", "b"}));
  BOOST_TEST(keys_of(search(*s, {.prefix = ns, .limit = 2, .offset = 2})) ==
             (std::vector<std::string>{"c"}));
}
