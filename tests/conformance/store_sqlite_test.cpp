// libs/checkpoint-sqlite/tests/test_store.py (SqliteStore), ported: batches, the basic
// operations and filters. Namespace matching is in store_sqlite_namespace_test.cpp, semantic
// search in store_sqlite_vector_test.cpp.

#include <cmath>
#include <limits>

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;
using nss = std::vector<namespace_path>;

namespace {

const std::optional<item>& item_result(const storage::store_op_result& r) {
  return std::get<std::optional<item>>(r);
}
const std::vector<item>& items_result(const storage::store_op_result& r) {
  return std::get<std::vector<item>>(r);
}
const nss& namespaces_result(const storage::store_op_result& r) { return std::get<nss>(r); }
bool none_result(const storage::store_op_result& r) {
  return std::holds_alternative<std::monostate>(r);
}

storage::search_op search_op(namespace_path prefix, object filter, std::size_t limit,
                             std::size_t offset) {
  storage::search_op o;
  o.ns_prefix = std::move(prefix);
  o.filter = std::move(filter);
  o.limit = limit;
  o.offset = offset;
  return o;
}

storage::list_namespaces_op list_op(std::optional<std::size_t> max_depth, std::size_t limit,
                                    std::size_t offset, namespace_path suffix = {}) {
  storage::list_namespaces_op o;
  o.suffix = std::move(suffix);
  o.max_depth = max_depth;
  o.limit = limit;
  o.offset = offset;
  return o;
}

bool contains(const nss& v, const namespace_path& ns) {
  return std::find(v.begin(), v.end(), ns) != v.end();
}

}  // namespace

// libs/checkpoint-sqlite/tests/test_store.py::test_batch_order
BOOST_AUTO_TEST_CASE(test_batch_order) {
  auto s = store();
  s->put({"test", "foo"}, "key1", object{{"data", "value1"}});
  s->put({"test", "bar"}, "key2", object{{"data", "value2"}});

  auto results = s->batch({
      storage::get_op{{"test", "foo"}, "key1", {}},
      storage::put_op{{"test", "bar"}, "key2", object{{"data", "value2"}}, {}, {}},
      search_op({"test"}, {{"data", "value1"}}, 10, 0),
      list_op({}, 10, 0),
      storage::get_op{{"test"}, "key3", {}},
  });
  BOOST_REQUIRE(results.size() == 5u);
  BOOST_REQUIRE(item_result(results[0]).has_value());
  BOOST_TEST(item_result(results[0])->v == value(object{{"data", "value1"}}));
  BOOST_TEST(item_result(results[0])->key == "key1");
  BOOST_TEST(item_result(results[0])->ns == (namespace_path{"test", "foo"}));
  BOOST_TEST(none_result(results[1]));
  BOOST_REQUIRE(items_result(results[2]).size() == 1u);
  BOOST_TEST(items_result(results[2])[0].key == "key1");
  BOOST_TEST(items_result(results[2])[0].v == value(object{{"data", "value1"}}));
  BOOST_TEST(!namespaces_result(results[3]).empty());
  BOOST_TEST(contains(namespaces_result(results[3]), {"test", "foo"}));
  BOOST_TEST(contains(namespaces_result(results[3]), {"test", "bar"}));
  BOOST_TEST(!item_result(results[4]).has_value());

  results = s->batch({
      search_op({"test"}, {}, 5, 0),
      storage::get_op{{"test", "bar"}, "key2", {}},
      list_op({}, 5, 0),
      storage::put_op{{"test"}, "key3", object{{"data", "value3"}}, {}, {}},
      storage::get_op{{"test", "foo"}, "key1", {}},
  });
  BOOST_REQUIRE(results.size() == 5u);
  BOOST_TEST(items_result(results[0]).size() >= 2u);
  BOOST_REQUIRE(item_result(results[1]).has_value());
  BOOST_TEST(item_result(results[1])->v == value(object{{"data", "value2"}}));
  BOOST_TEST(item_result(results[1])->key == "key2");
  BOOST_TEST(item_result(results[1])->ns == (namespace_path{"test", "bar"}));
  BOOST_TEST(!namespaces_result(results[2]).empty());
  BOOST_TEST(none_result(results[3]));
  BOOST_REQUIRE(item_result(results[4]).has_value());
  BOOST_TEST(item_result(results[4])->v == value(object{{"data", "value1"}}));
  BOOST_TEST(item_result(results[4])->key == "key1");
  BOOST_TEST(item_result(results[4])->ns == (namespace_path{"test", "foo"}));

  const auto item3 = s->get({"test"}, "key3");
  BOOST_REQUIRE(item3.has_value());
  BOOST_TEST(item3->v == value(object{{"data", "value3"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_batch_get_ops
BOOST_AUTO_TEST_CASE(test_batch_get_ops) {
  auto s = store();
  s->put({"test"}, "key1", object{{"data", "value1"}});
  s->put({"test"}, "key2", object{{"data", "value2"}});
  const auto results =
      s->batch({storage::get_op{{"test"}, "key1", {}}, storage::get_op{{"test"}, "key2", {}},
                storage::get_op{{"test"}, "key3", {}}});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_REQUIRE(item_result(results[0]).has_value());
  BOOST_REQUIRE(item_result(results[1]).has_value());
  BOOST_TEST(!item_result(results[2]).has_value());
  BOOST_TEST(item_result(results[0])->key == "key1");
  BOOST_TEST(item_result(results[1])->key == "key2");
}

// libs/checkpoint-sqlite/tests/test_store.py::test_batch_put_ops (PutOp with value None is
// our remove_op)
BOOST_AUTO_TEST_CASE(test_batch_put_ops) {
  auto s = store();
  const auto results =
      s->batch({storage::put_op{{"test"}, "key1", object{{"data", "value1"}}, {}, {}},
                storage::put_op{{"test"}, "key2", object{{"data", "value2"}}, {}, {}},
                storage::remove_op{{"test"}, "key3"}});
  BOOST_REQUIRE(results.size() == 3u);
  for (const auto& r : results) BOOST_TEST(none_result(r));
  BOOST_TEST(s->get({"test"}, "key1")->v == value(object{{"data", "value1"}}));
  BOOST_TEST(s->get({"test"}, "key2")->v == value(object{{"data", "value2"}}));
  BOOST_TEST(!s->get({"test"}, "key3").has_value());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_batch_search_ops
BOOST_AUTO_TEST_CASE(test_batch_search_ops) {
  auto s = store();
  s->put({"test", "foo"}, "key1", object{{"data", "value1"}, {"tag", "a"}});
  s->put({"test", "bar"}, "key2", object{{"data", "value2"}, {"tag", "a"}});
  s->put({"test", "baz"}, "key3", object{{"data", "value3"}, {"tag", "b"}});
  const auto results =
      s->batch({search_op({"test"}, {{"tag", "a"}}, 10, 0), search_op({"test"}, {}, 2, 0),
                search_op({"test", "foo"}, {}, 10, 0)});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(items_result(results[0]).size() == 2u);
  for (const auto& i : items_result(results[0])) BOOST_TEST(i.v.get("tag") == value("a"));
  BOOST_TEST(items_result(results[1]).size() == 2u);
  BOOST_REQUIRE(items_result(results[2]).size() == 1u);
  BOOST_TEST(items_result(results[2])[0].ns == (namespace_path{"test", "foo"}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_batch_list_namespaces_ops
BOOST_AUTO_TEST_CASE(test_batch_list_namespaces_ops) {
  auto s = store();
  s->put({"test", "documents", "public"}, "doc1", object{{"content", "public doc"}});
  s->put({"test", "documents", "private"}, "doc2", object{{"content", "private doc"}});
  s->put({"test", "images", "public"}, "img1", object{{"content", "public image"}});
  s->put({"prod", "documents", "public"}, "doc3", object{{"content", "prod doc"}});
  const auto results =
      s->batch({list_op({}, 10, 0), list_op(2, 10, 0), list_op({}, 10, 0, {"public"})});
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(namespaces_result(results[0]).size() == 4u);
  for (const auto& ns : namespaces_result(results[1])) BOOST_TEST(ns.size() <= 2u);
  BOOST_TEST(!namespaces_result(results[2]).empty());
  for (const auto& ns : namespaces_result(results[2])) BOOST_TEST(ns.back() == "public");
}

// libs/checkpoint-sqlite/tests/test_store.py::TestSqliteStore::test_basic_store_ops
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
  BOOST_TEST(s->get(ns, "doc1")->v == value(updated));
  BOOST_TEST(!s->get({"test", "other_documents"}, "doc1").has_value());

  s->remove(ns, "doc1");
  BOOST_TEST(!s->get(ns, "doc1").has_value());
}

// libs/checkpoint-sqlite/tests/test_store.py::TestSqliteStore::test_list_namespaces
BOOST_AUTO_TEST_CASE(test_list_namespaces) {
  auto s = store();
  const nss namespaces{{"test", "documents", "public"}, {"test", "documents", "private"},
                       {"test", "images", "public"},    {"test", "images", "private"},
                       {"prod", "documents", "public"}, {"prod", "documents", "private"}};
  for (const auto& ns : namespaces) s->put(ns, "dummy", object{{"content", "dummy"}});

  BOOST_TEST(list_namespaces(*s, {}).size() == namespaces.size());
  const auto test_prefixed = list_namespaces(*s, {.prefix = {"test"}});
  BOOST_TEST(test_prefixed.size() == 4u);
  for (const auto& ns : test_prefixed) BOOST_TEST(ns[0] == "test");
  const auto public_ones = list_namespaces(*s, {.suffix = {"public"}});
  BOOST_TEST(public_ones.size() == 3u);
  for (const auto& ns : public_ones) BOOST_TEST(ns.back() == "public");
  for (const auto& ns : list_namespaces(*s, {.max_depth = 2})) BOOST_TEST(ns.size() <= 2u);
  BOOST_TEST(list_namespaces(*s, {.limit = 3}).size() == 3u);

  for (const auto& ns : namespaces) s->remove(ns, "dummy");
  BOOST_TEST(list_namespaces(*s, {}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::TestSqliteStore::test_search
BOOST_AUTO_TEST_CASE(test_search) {
  auto s = store();
  s->put(
      {"test", "docs"}, "doc1",
      object{{"title", "First Doc"}, {"author", "Alice"}, {"tags", value::array({"important"})}});
  s->put({"test", "docs"}, "doc2",
         object{{"title", "Second Doc"}, {"author", "Bob"}, {"tags", value::array({"draft"})}});
  s->put({"test", "images"}, "img1",
         object{{"title", "Image 1"}, {"author", "Alice"}, {"tags", value::array({"final"})}});

  BOOST_TEST(search(*s, {.prefix = {"test"}}).size() == 3u);
  const auto docs = search(*s, {.prefix = {"test", "docs"}});
  BOOST_TEST(docs.size() == 2u);
  for (const auto& i : docs) BOOST_TEST(i.ns == (namespace_path{"test", "docs"}));
  const auto alice = search(*s, {.prefix = {"test"}, .filter = {{"author", "Alice"}}});
  BOOST_TEST(alice.size() == 2u);
  for (const auto& i : alice) BOOST_TEST(i.v.get("author") == value("Alice"));
  BOOST_TEST(search(*s, {.prefix = {"test"}, .limit = 2}).size() == 2u);
  BOOST_TEST(search(*s, {.prefix = {"test"}, .offset = 2}).size() == 1u);

  s->remove({"test", "docs"}, "doc1");
  s->remove({"test", "docs"}, "doc2");
  s->remove({"test", "images"}, "img1");
  BOOST_TEST(search(*s, {.prefix = {"test"}}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_sql_injection_vulnerability. SQLite
// rejects filter keys outside [A-Za-z0-9_.-] with ValueError because it splices them into
// SQL; our stores (as LangGraph's Postgres and in-memory ones) read any key as a field path,
// so the malicious key reaches no field and matches nothing, and the private item stays out.
BOOST_AUTO_TEST_CASE(test_sql_injection_vulnerability) {
  auto s = store();
  s->put({"docs"}, "public", object{{"access", "public"}, {"data", "public info"}});
  s->put({"docs"}, "private",
         object{{"access", "private"}, {"data", "secret"}, {"password", "123"}});
  const auto normal = search(*s, {.prefix = {"docs"}, .filter = {{"access", "public"}}});
  BOOST_REQUIRE(normal.size() == 1u);
  BOOST_TEST(normal[0].v.get("access") == value("public"));
  const std::string malicious = "access') = 'public' OR '1'='1' OR json_extract(value, '$.";
  BOOST_TEST(search(*s, {.prefix = {"docs"}, .filter = {{malicious, "dummy"}}}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_sql_injection_filter_values
BOOST_AUTO_TEST_CASE(test_sql_injection_filter_values) {
  auto s = store();
  s->put({"docs"}, "doc1", object{{"access", "public"}, {"title", "Public Document"}});
  s->put({"docs"}, "doc2", object{{"access", "private"}, {"title", "Private Document"}});
  s->put({"docs"}, "doc3", object{{"access", "secret"}, {"title", "Secret Document"}});
  const auto by_access = [&](const std::string& v) {
    return search(*s, {.prefix = {"docs"}, .filter = {{"access", v}}});
  };
  BOOST_TEST(by_access("public' OR '1'='1").empty());
  BOOST_TEST(by_access("public'; --").empty());
  BOOST_TEST(by_access("public' UNION SELECT * FROM store --").empty());
  BOOST_TEST(by_access(std::string("public\0' OR '1'='1", 18)).empty());
  BOOST_TEST(by_access("''''").empty());

  s->put({"docs"}, "doc4", object{{"title", "O'Brien's Document"}, {"access", "public"}});
  const auto quoted = search(*s, {.prefix = {"docs"}, .filter = {{"title", "O'Brien's Document"}}});
  BOOST_REQUIRE(quoted.size() == 1u);
  BOOST_TEST(quoted[0].v.get("title") == value("O'Brien's Document"));
  BOOST_TEST(by_access("public' OR 'א'='א").empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_numeric_filter_safety
BOOST_AUTO_TEST_CASE(test_numeric_filter_safety) {
  auto s = store();
  s->put({"items"}, "item1", object{{"price", 10}, {"quantity", 5}});
  s->put({"items"}, "item2", object{{"price", 20}, {"quantity", 3}});
  s->put({"items"}, "item3", object{{"price", 30}, {"quantity", 1}});
  const auto by_price = [&](const char* op, value bound) {
    return search(*s, {.prefix = {"items"}, .filter = {{"price", object{{op, std::move(bound)}}}}});
  };
  const auto gt15 = by_price("$gt", 15);
  BOOST_TEST(gt15.size() == 2u);
  for (const auto& r : gt15) BOOST_TEST(r.v.get("price").as_double() > 15);
  const double inf = std::numeric_limits<double>::infinity();
  BOOST_TEST(by_price("$lt", inf).size() == 3u);
  BOOST_TEST(by_price("$gt", -inf).size() == 3u);
  BOOST_TEST(by_price("$eq", std::numeric_limits<double>::quiet_NaN()).empty());
  BOOST_TEST(by_price("$lt", 1e100).size() == 3u);
  s->put({"items"}, "item4", object{{"price", -10}, {"quantity", 0}});
  const auto negative = by_price("$lt", 0);
  BOOST_REQUIRE(negative.size() == 1u);
  BOOST_TEST(negative[0].key == "item4");
}

// libs/checkpoint-sqlite/tests/test_store.py::test_boolean_filter_safety
BOOST_AUTO_TEST_CASE(test_boolean_filter_safety) {
  auto s = store();
  s->put({"flags"}, "flag1", object{{"active", true}, {"name", "Feature A"}});
  s->put({"flags"}, "flag2", object{{"active", false}, {"name", "Feature B"}});
  s->put({"flags"}, "flag3", object{{"active", true}, {"name", "Feature C"}});
  const auto active = search(*s, {.prefix = {"flags"}, .filter = {{"active", true}}});
  BOOST_TEST(active.size() == 2u);
  for (const auto& r : active) BOOST_TEST(r.v.get("active") == value(true));
  const auto inactive = search(*s, {.prefix = {"flags"}, .filter = {{"active", false}}});
  BOOST_REQUIRE(inactive.size() == 1u);
  BOOST_TEST(inactive[0].v.get("active") == value(false));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_filter_keys_with_hyphens_and_digits
BOOST_AUTO_TEST_CASE(test_filter_keys_with_hyphens_and_digits) {
  auto s = store();
  s->put({"docs"}, "hyphen",
         object{{"access-level", "public"}, {"user", object{{"access-level", "nested"}}}});
  s->put({"docs"}, "digit", object{{"123abc", "ok"}, {"user", object{{"123abc", "ok2"}}}});
  const auto keys = [&](object filter) {
    return keys_of(search(*s, {.prefix = {"docs"}, .filter = std::move(filter)}));
  };
  using v = std::vector<std::string>;
  BOOST_TEST(keys({{"access-level", "public"}}) == (v{"hyphen"}));
  BOOST_TEST(keys({{"user.access-level", "nested"}}) == (v{"hyphen"}));
  BOOST_TEST(keys({{"123abc", "ok"}}) == (v{"digit"}));
  BOOST_TEST(keys({{"user.123abc", "ok2"}}) == (v{"digit"}));
  // Beyond LangGraph's assertions: operators apply on dotted paths too, and a path through a
  // non-object matches nothing.
  BOOST_TEST(keys({{"user.123abc", object{{"$ne", "ok2"}}}}) == (v{"hyphen"}));
  BOOST_TEST(keys({{"access-level.x", "public"}}).empty());
}
