// libs/checkpoint-sqlite/tests/test_store.py (SqliteStore), ported: namespace scoping of
// search and list_namespaces, and the operations of a store with an index.

#include "store_fixtures.hpp"

using namespace superstep;
using namespace superstep::conformance;
using nss = std::vector<namespace_path>;
using ns_set = std::set<namespace_path>;

namespace {

void put_all(storage::store& s, const nss& namespaces) {
  for (const auto& ns : namespaces) s.put(ns, "k", object{{"v", 1}});
}

ns_set searched(storage::store& s, namespace_path prefix) {
  return namespaces_of(search(s, {.prefix = std::move(prefix), .limit = 100}));
}

// A fixed stand-in for the uuid LangGraph's tests prefix namespaces with.
const std::string test_pref = "5f0c6a8e-4d2b-4c1e-9a7f-2b3c4d5e6f70";

}  // namespace

// libs/checkpoint-sqlite/tests/test_store.py::test_search_namespace_segment_boundary
BOOST_AUTO_TEST_CASE(test_search_namespace_segment_boundary) {
  auto s = store();
  put_all(*s, {{"foo"},
               {"foo", "child"},
               {"foo", "child", "deep"},
               {"foobar"},
               {"foobar", "baz"},
               {"foo2"}});
  BOOST_TEST(searched(*s, {"foo"}) ==
             (ns_set{{"foo"}, {"foo", "child"}, {"foo", "child", "deep"}}));
  BOOST_TEST(searched(*s, {"foobar"}) == (ns_set{{"foobar"}, {"foobar", "baz"}}));
  BOOST_TEST(searched(*s, {"foo2"}) == (ns_set{{"foo2"}}));
  BOOST_TEST(searched(*s, {"fo"}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_search_namespace_wildcard_chars_are_literal
BOOST_AUTO_TEST_CASE(test_search_namespace_wildcard_chars_are_literal) {
  auto s = store();
  put_all(*s,
          {{"user_1"}, {"user_1", "child"}, {"userX1"}, {"a%b"}, {"axxb"}, {"star*"}, {"starX"}});
  BOOST_TEST(searched(*s, {"user_1"}) == (ns_set{{"user_1"}, {"user_1", "child"}}));
  BOOST_TEST(searched(*s, {"a%b"}) == (ns_set{{"a%b"}}));
  BOOST_TEST(searched(*s, {"star*"}) == (ns_set{{"star*"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_search_namespace_is_case_sensitive
BOOST_AUTO_TEST_CASE(test_search_namespace_is_case_sensitive) {
  auto s = store();
  s->put({"Foo"}, "k", object{{"v", "upper"}});
  s->put({"foo"}, "k", object{{"v", "lower"}});
  BOOST_TEST(searched(*s, {"foo"}) == (ns_set{{"foo"}}));
  BOOST_TEST(searched(*s, {"Foo"}) == (ns_set{{"Foo"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_list_namespaces_segment_boundary
BOOST_AUTO_TEST_CASE(test_list_namespaces_segment_boundary) {
  auto s = store();
  put_all(*s, {{"foo"},
               {"foo", "child"},
               {"foobar"},
               {"foobar", "baz"},
               {"uid", "users", "alice"},
               {"uid", "users", "malice"},
               {"uid", "a", "b", "alice"}});
  BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {"foo"}, .limit = 100})) ==
             (ns_set{{"foo"}, {"foo", "child"}}));
  // A suffix aligns to a label: "malice" does not end with the label "alice".
  BOOST_TEST(as_set(list_namespaces(*s, {.suffix = {"alice"}, .limit = 100})) ==
             (ns_set{{"uid", "users", "alice"}, {"uid", "a", "b", "alice"}}));
  // "*" is exactly one label.
  BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {"uid", "*", "alice"}, .limit = 100})) ==
             (ns_set{{"uid", "users", "alice"}}));
  BOOST_TEST(
      as_set(list_namespaces(*s, {.prefix = {"uid"}, .limit = 100})) ==
      (ns_set{{"uid", "users", "alice"}, {"uid", "users", "malice"}, {"uid", "a", "b", "alice"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_search_empty_prefix_is_unconstrained
BOOST_AUTO_TEST_CASE(test_search_empty_prefix_is_unconstrained) {
  auto s = store();
  put_all(*s, {{"a"}, {"b", "c"}, {"d", "e", "f"}});
  BOOST_TEST(searched(*s, {}) == (ns_set{{"a"}, {"b", "c"}, {"d", "e", "f"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_namespace_labels_with_trailing_newline
BOOST_AUTO_TEST_CASE(test_namespace_labels_with_trailing_newline) {
  auto s = store();
  s->put({"users", "alice"}, "k", object{{"v", 1}});
  s->put({"users", "alice\n"}, "k", object{{"v", 2}});
  BOOST_TEST(as_set(list_namespaces(*s, {.suffix = {"alice"}, .limit = 100})) ==
             (ns_set{{"users", "alice"}}));
  BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {"users", "alice"}, .limit = 100})) ==
             (ns_set{{"users", "alice"}}));
}

// libs/checkpoint-sqlite/tests/test_store.py::test_list_namespaces_metacharacter_labels
BOOST_AUTO_TEST_CASE(test_list_namespaces_metacharacter_labels) {
  auto s = store();
  const std::vector<std::pair<std::string, std::string>> pairs{
      {"star*", "starX"},   {"q?m", "qXm"},  {"br[ack]et", "brXacXket"},
      {"user_1", "userX1"}, {"a%b", "axxb"}, {"plus+", "plusX"}};
  for (const auto& [label, decoy] : pairs) {
    s->put({label}, "k", object{{"v", 1}});
    s->put({decoy}, "k", object{{"v", 1}});
    s->put({label, "child"}, "k", object{{"v", 1}});
  }
  for (const auto& [label, decoy] : pairs) {
    const auto found = as_set(list_namespaces(*s, {.prefix = {label}, .limit = 100}));
    BOOST_TEST(found == (ns_set{{label}, {label, "child"}}));
    BOOST_TEST(!found.count({decoy}));
    BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {label, "child"}, .limit = 100})) ==
               (ns_set{{label, "child"}}));
  }
}

// libs/checkpoint-sqlite/tests/test_store.py::test_basic_store_operations
BOOST_AUTO_TEST_CASE(test_basic_store_operations) {
  auto s = store(character_index({"key0", "key1", "key3"}));
  const std::string uid = "0d6f1c2a9b8e4f3d8c7b6a5e4d3c2b1a";
  const namespace_path ns{uid, "test", "documents"};
  BOOST_TEST(search(*s, {.prefix = {uid}}).empty());

  const object doc{{"title", "Test Document"}, {"content", "Hello, World!"}};
  s->put(ns, "doc1", doc);
  const auto it = s->get(ns, "doc1");
  BOOST_REQUIRE(it.has_value());
  BOOST_TEST(it->ns == ns);
  BOOST_TEST(it->key == "doc1");
  BOOST_TEST(it->v == value(doc));
  BOOST_TEST(!it->created_at.empty());
  BOOST_TEST(!it->updated_at.empty());

  const object updated{{"title", "Updated Test Document"}, {"content", "Hello, LangGraph!"}};
  s->put(ns, "doc1", updated);
  const auto after = s->get(ns, "doc1");
  BOOST_REQUIRE(after.has_value());
  BOOST_TEST(after->v == value(updated));
  BOOST_TEST(after->updated_at >= it->updated_at);
  BOOST_TEST(!s->get({uid, "test", "other_documents"}, "doc1").has_value());

  s->put(ns, "doc2", object{{"title", "Another Document"}, {"content", "Greetings!"}});
  const auto items = search(*s, {.prefix = {uid, "test"}, .limit = 10});
  BOOST_TEST(items.size() == 2u);
  const auto keys = keys_of(items);
  BOOST_TEST((std::find(keys.begin(), keys.end(), "doc1") != keys.end()));
  BOOST_TEST((std::find(keys.begin(), keys.end(), "doc2") != keys.end()));
  BOOST_TEST(as_set(list_namespaces(*s, {.prefix = {uid, "test"}})).count(ns) == 1u);

  s->remove(ns, "doc1");
  s->remove(ns, "doc2");
  BOOST_TEST(!s->get(ns, "doc1").has_value());
  BOOST_TEST(!s->get(ns, "doc2").has_value());
  BOOST_TEST(search(*s, {.prefix = {uid, "test"}, .limit = 10}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_list_namespaces_operations
BOOST_AUTO_TEST_CASE(test_list_namespaces_operations) {
  auto s = store(character_index({"key0", "key1", "key3"}));
  const nss namespaces{{test_pref, "test", "documents", "public", test_pref},
                       {test_pref, "test", "documents", "private", test_pref},
                       {test_pref, "test", "images", "public", test_pref},
                       {test_pref, "test", "images", "private", test_pref},
                       {test_pref, "prod", "documents", "public", test_pref},
                       {test_pref, "prod", "documents", "some", "nesting", "public", test_pref},
                       {test_pref, "prod", "documents", "private", test_pref}};
  for (const auto& ns : namespaces) s->put(ns, "dummy", object{{"content", "dummy"}});

  const auto prefixed = list_namespaces(*s, {.prefix = {test_pref, "test"}});
  BOOST_TEST(prefixed.size() == 4u);
  for (const auto& ns : prefixed) BOOST_TEST(ns[1] == "test");

  const auto specific = list_namespaces(*s, {.prefix = {test_pref, "test", "documents"}});
  BOOST_TEST(specific.size() == 2u);
  for (const auto& ns : specific) BOOST_TEST((ns[1] == "test" && ns[2] == "documents"));

  const auto suffixed = list_namespaces(*s, {.suffix = {"public", test_pref}});
  BOOST_TEST(suffixed.size() == 4u);
  for (const auto& ns : suffixed) BOOST_TEST(ns[ns.size() - 2] == "public");

  const auto both =
      list_namespaces(*s, {.prefix = {test_pref, "test"}, .suffix = {"public", test_pref}});
  BOOST_TEST(both.size() == 2u);
  for (const auto& ns : both) BOOST_TEST((ns[1] == "test" && ns[ns.size() - 2] == "public"));

  const auto wild_prefix = list_namespaces(*s, {.prefix = {test_pref, "*", "documents"}});
  BOOST_TEST(wild_prefix.size() == 5u);
  for (const auto& ns : wild_prefix) BOOST_TEST(ns[2] == "documents");

  const auto wild_suffix = list_namespaces(*s, {.suffix = {"*", "public", test_pref}});
  BOOST_TEST(wild_suffix.size() == 4u);
  for (const auto& ns : wild_suffix) BOOST_TEST(ns[ns.size() - 2] == "public");

  const auto single = list_namespaces(*s, {.suffix = {"some", "*", "public", test_pref}});
  BOOST_REQUIRE(single.size() == 1u);
  BOOST_TEST(single[0] == namespaces[5]);

  for (const auto& ns : list_namespaces(*s, {.max_depth = 3})) BOOST_TEST(ns.size() <= 3u);
  const auto depth4 =
      list_namespaces(*s, {.prefix = {test_pref, "*", "documents"}, .max_depth = 4});
  BOOST_TEST(depth4.size() == 5u);
  BOOST_TEST(as_set(depth4).size() == 5u);

  BOOST_TEST(list_namespaces(*s, {.prefix = {test_pref}, .limit = 3}).size() == 3u);
  BOOST_TEST(list_namespaces(*s, {.prefix = {test_pref}, .offset = 3}).size() ==
             namespaces.size() - 3);
  const auto all = list_namespaces(*s, {.prefix = {test_pref}});
  BOOST_TEST(all.size() == namespaces.size());
  BOOST_TEST(as_set(all) == as_set(namespaces));

  for (const auto& ns : namespaces) s->remove(ns, "dummy");
  BOOST_TEST(list_namespaces(*s, {}).empty());
}

// libs/checkpoint-sqlite/tests/test_store.py::test_search_items
BOOST_AUTO_TEST_CASE(test_search_items) {
  auto s = store(character_index({"key0", "key1", "key3"}));
  const std::string base = "test_search_items";
  const nss namespaces{{base, "documents", "user1"},
                       {base, "documents", "user2"},
                       {base, "reports", "department1"},
                       {base, "reports", "department2"}};
  const std::vector<object> docs{
      {{"title", "Doc 1"}, {"author", "John Doe"}, {"tags", value::array({"important"})}},
      {{"title", "Doc 2"}, {"author", "Jane Smith"}, {"tags", value::array({"draft"})}},
      {{"title", "Report A"}, {"author", "John Doe"}, {"tags", value::array({"final"})}},
      {{"title", "Report B"}, {"author", "Alice Johnson"}, {"tags", value::array({"draft"})}}};
  for (std::size_t i = 0; i < namespaces.size(); ++i)
    s->put(namespaces[i], "item_" + namespaces[i].back(), docs[i]);

  const auto documents = search(*s, {.prefix = {base, "documents"}});
  BOOST_TEST(documents.size() == 2u);
  for (const auto& i : documents) BOOST_TEST(i.ns[1] == "documents");
  const auto reports = search(*s, {.prefix = {base, "reports"}});
  BOOST_TEST(reports.size() == 2u);
  for (const auto& i : reports) BOOST_TEST(i.ns[1] == "reports");

  const auto first = keys_of(search(*s, {.prefix = {base}, .limit = 2, .offset = 0}));
  const auto second = keys_of(search(*s, {.prefix = {base}, .limit = 2, .offset = 2}));
  BOOST_TEST(first.size() == 2u);
  BOOST_TEST(second.size() == 2u);
  for (const auto& k : first)
    BOOST_TEST((std::find(second.begin(), second.end(), k) == second.end()));
  BOOST_TEST(search(*s, {.prefix = {base}}).size() == 4u);

  const auto john = search(*s, {.prefix = {base}, .filter = {{"author", "John Doe"}}});
  BOOST_TEST(john.size() == 2u);
  for (const auto& i : john) BOOST_TEST(i.v.get("author") == value("John Doe"));
  const auto drafts = search(*s, {.prefix = {base}, .filter = {{"tags", value::array({"draft"})}}});
  BOOST_TEST(drafts.size() == 2u);
  for (const auto& i : drafts) BOOST_TEST(i.v.get("tags") == value::array({"draft"}));

  for (std::size_t i = 0; i < namespaces.size(); ++i)
    s->remove(namespaces[i], "item_" + namespaces[i].back());
  BOOST_TEST(search(*s, {.prefix = {base}}).empty());
}
