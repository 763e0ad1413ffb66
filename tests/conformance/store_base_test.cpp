// libs/checkpoint/tests/test_store.py (BaseStore and InMemoryStore), ported: namespaces,
// listing, text paths and batches. The vector tests are in store_base_vector_test.cpp.

#include <thread>

#include "store_fixtures.hpp"
#include "superstep/storage/store_support.hpp"

using namespace superstep;
using namespace superstep::conformance;
using nss = std::vector<namespace_path>;

namespace {

std::set<std::string> texts_at(const value& v, const std::string& path) {
  const auto texts = storage::store_support::texts_to_embed(v, {path});
  return {texts.begin(), texts.end()};
}

std::vector<std::string> text_list_at(const value& v, const std::string& path) {
  return storage::store_support::texts_to_embed(v, {path});
}

void put_each(storage::store& s, const nss& namespaces) {
  for (std::size_t i = 0; i < namespaces.size(); ++i) {
    char data[40];
    std::snprintf(data, sizeof data, "value_%02zu", i);
    s.put(namespaces[i], "id_" + std::to_string(i), object{{"data", data}});
  }
}

// Forwards to a store, counting the calls each method gets (LangGraph's test spies on
// InMemoryStore.batch to see which operations reach it after deduplication).
class counting_store final : public storage::store {
 public:
  explicit counting_store(std::shared_ptr<storage::store> inner) : inner_(std::move(inner)) {}
  std::vector<std::string> calls;

  void put(const namespace_path& ns, const std::string& key, value v, storage::put_index index,
           storage::put_ttl ttl) override {
    calls.push_back("put " + key + " " + v.to_json());
    inner_->put(ns, key, std::move(v), std::move(index), ttl);
  }
  std::optional<item> get(const namespace_path& ns, const std::string& key,
                          std::optional<bool> refresh_ttl) override {
    calls.push_back("get " + key);
    return inner_->get(ns, key, refresh_ttl);
  }
  void remove(const namespace_path& ns, const std::string& key) override {
    calls.push_back("remove " + key);
    inner_->remove(ns, key);
  }
  std::vector<item> search(const storage::search_options& o) override {
    calls.push_back("search");
    return inner_->search(o);
  }
  std::vector<namespace_path> list_namespaces(const storage::list_namespaces_options& o) override {
    calls.push_back("list_namespaces");
    return inner_->list_namespaces(o);
  }
  std::size_t sweep() override { return inner_->sweep(); }

 private:
  std::shared_ptr<storage::store> inner_;
};

}  // namespace

// libs/checkpoint/tests/test_store.py::test_get_text_at_path
BOOST_AUTO_TEST_CASE(test_get_text_at_path) {
  const value nested = value::parse_json(R"({
    "name": "test",
    "info": {"age": 25, "tags": ["a", "b", "c"],
             "metadata": {"created": "2024-01-01", "updated": "2024-01-02"}},
    "items": [{"id": 1, "value": "first", "tags": ["x", "y"]},
              {"id": 2, "value": "second", "tags": ["y", "z"]},
              {"id": 3, "value": "third", "tags": ["z", "w"]}],
    "empty": null,
    "zeros": [0, 0.0, "0"],
    "empty_list": [],
    "empty_dict": {}
  })");
  using strs = std::vector<std::string>;
  using set = std::set<std::string>;
  // The whole value as JSON (LangGraph's json.dumps; ours is the value's own JSON).
  BOOST_TEST(text_list_at(nested, "$") == (strs{nested.to_json()}));
  BOOST_TEST(text_list_at(nested, "name") == (strs{"test"}));
  BOOST_TEST(text_list_at(nested, "info.age") == (strs{"25"}));
  BOOST_TEST(text_list_at(nested, "info.metadata.created") == (strs{"2024-01-01"}));
  BOOST_TEST(text_list_at(nested, "items[0].value") == (strs{"first"}));
  BOOST_TEST(text_list_at(nested, "items[-1].value") == (strs{"third"}));
  BOOST_TEST(text_list_at(nested, "items[1].tags[0]") == (strs{"y"}));
  BOOST_TEST(texts_at(nested, "items[*].value") == (set{"first", "second", "third"}));
  BOOST_TEST(texts_at(nested, "info.metadata.*") == (set{"2024-01-01", "2024-01-02"}));
  BOOST_TEST(texts_at(nested, "{name,info.age}") == (set{"test", "25"}));
  BOOST_TEST(texts_at(nested, "items[*].{id,value}") ==
             (set{"1", "2", "3", "first", "second", "third"}));
  BOOST_TEST(texts_at(nested, "items[*].tags[*]") == (set{"x", "y", "z", "w"}));

  BOOST_TEST(text_list_at(value(), "any.path").empty());
  BOOST_TEST(text_list_at(value(object{}), "any.path").empty());
  BOOST_TEST(text_list_at(nested, "") == (strs{nested.to_json()}));
  BOOST_TEST(text_list_at(nested, "nonexistent").empty());
  BOOST_TEST(text_list_at(nested, "items[99].value").empty());
  BOOST_TEST(text_list_at(nested, "items[*].nonexistent").empty());

  BOOST_TEST(text_list_at(nested, "empty").empty());
  BOOST_TEST(text_list_at(nested, "empty_list") == (strs{"[]"}));
  BOOST_TEST(text_list_at(nested, "empty_dict") == (strs{"{}"}));
  BOOST_TEST(texts_at(nested, "zeros[*]") == (set{"0", "0.0"}));

  BOOST_TEST(text_list_at(nested, "items[].value").empty());
  BOOST_TEST(text_list_at(nested, "items[abc].value").empty());
  BOOST_TEST(text_list_at(nested, "{unclosed").empty());
  BOOST_TEST(text_list_at(nested, "nested[{invalid}]").empty());
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_basic
BOOST_AUTO_TEST_CASE(test_list_namespaces_basic) {
  auto s = store();
  put_each(*s, {{"a", "b", "c"},
                {"a", "b", "d", "e"},
                {"a", "b", "d", "i"},
                {"a", "b", "f"},
                {"a", "c", "f"},
                {"b", "a", "f"},
                {"users", "123"},
                {"users", "456", "settings"},
                {"admin", "users", "789"}});

  BOOST_TEST(sorted(list_namespaces(*s, {.prefix = {"a", "b"}})) ==
             (nss{{"a", "b", "c"}, {"a", "b", "d", "e"}, {"a", "b", "d", "i"}, {"a", "b", "f"}}));
  BOOST_TEST(sorted(list_namespaces(*s, {.suffix = {"f"}})) ==
             (nss{{"a", "b", "f"}, {"a", "c", "f"}, {"b", "a", "f"}}));
  BOOST_TEST(sorted(list_namespaces(*s, {.prefix = {"a"}, .suffix = {"f"}})) ==
             (nss{{"a", "b", "f"}, {"a", "c", "f"}}));
  BOOST_TEST(sorted(list_namespaces(*s, {.prefix = {"a", "b"}, .max_depth = 3})) ==
             (nss{{"a", "b", "c"}, {"a", "b", "d"}, {"a", "b", "f"}}));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"a", "b"}, .limit = 2}) ==
             (nss{{"a", "b", "c"}, {"a", "b", "d", "e"}}));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"a", "b"}, .offset = 2}) ==
             (nss{{"a", "b", "d", "i"}, {"a", "b", "f"}}));
  BOOST_TEST(sorted(list_namespaces(*s, {.prefix = {"a", "*", "f"}})) ==
             (nss{{"a", "b", "f"}, {"a", "c", "f"}}));
  BOOST_TEST(sorted(list_namespaces(*s, {.suffix = {"*", "f"}})) ==
             (nss{{"a", "b", "f"}, {"a", "c", "f"}, {"b", "a", "f"}}));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"nonexistent"}}).empty());
  BOOST_TEST(list_namespaces(*s, {.prefix = {"users", "123"}}) == (nss{{"users", "123"}}));
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_with_wildcards
BOOST_AUTO_TEST_CASE(test_list_namespaces_with_wildcards) {
  auto s = store();
  put_each(*s, {{"users", "123"},
                {"users", "456"},
                {"users", "789", "settings"},
                {"admin", "users", "789"},
                {"guests", "123"},
                {"guests", "456", "preferences"}});
  BOOST_TEST(sorted(list_namespaces(*s, {.prefix = {"users", "*"}})) ==
             (nss{{"users", "123"}, {"users", "456"}, {"users", "789", "settings"}}));
  BOOST_TEST(list_namespaces(*s, {.suffix = {"*", "preferences"}}) ==
             (nss{{"guests", "456", "preferences"}}));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"*", "users"}, .suffix = {"*", "settings"}}).empty());
  // LangGraph's test ends by putting one more item and building an expectation it never
  // checks; the put must work.
  s->put({"admin", "users", "settings", "789"}, "foo", object{{"data", "some_val"}});
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_pagination
BOOST_AUTO_TEST_CASE(test_list_namespaces_pagination) {
  auto s = store();
  const auto sub = [](int i) {
    char b[16];
    std::snprintf(b, sizeof b, "sub_%02d", i);
    return std::string(b);
  };
  for (int i = 0; i < 20; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "id_%02d", i);
    s->put({"namespace", sub(i)}, id, object{{"data", "value_" + sub(i).substr(4)}});
  }
  const auto expected = [&](int from, int to) {
    nss out;
    for (int i = from; i < to; ++i) out.push_back({"namespace", sub(i)});
    return out;
  };
  BOOST_TEST(list_namespaces(*s, {.prefix = {"namespace"}, .limit = 5, .offset = 0}) ==
             expected(0, 5));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"namespace"}, .limit = 5, .offset = 5}) ==
             expected(5, 10));
  BOOST_TEST(list_namespaces(*s, {.prefix = {"namespace"}, .limit = 5, .offset = 15}) ==
             expected(15, 20));
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_max_depth
BOOST_AUTO_TEST_CASE(test_list_namespaces_max_depth) {
  auto s = store();
  put_each(*s, {{"a", "b", "c", "d"},
                {"a", "b", "c", "e"},
                {"a", "b", "f"},
                {"a", "g"},
                {"h", "i", "j", "k"}});
  BOOST_TEST(sorted(list_namespaces(*s, {.max_depth = 2})) ==
             (nss{{"a", "b"}, {"a", "g"}, {"h", "i"}}));
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_no_conditions
BOOST_AUTO_TEST_CASE(test_list_namespaces_no_conditions) {
  auto s = store();
  const nss namespaces{{"a", "b"}, {"c", "d"}, {"e", "f", "g"}};
  put_each(*s, namespaces);
  BOOST_TEST(sorted(list_namespaces(*s, {})) == sorted(namespaces));
}

// libs/checkpoint/tests/test_store.py::test_list_namespaces_empty_store
BOOST_AUTO_TEST_CASE(test_list_namespaces_empty_store) {
  auto s = store();
  BOOST_TEST(list_namespaces(*s, {}).empty());
}

// libs/checkpoint/tests/test_store.py::test_cannot_put_empty_namespace (the async half runs
// the same calls; our store has one API)
BOOST_AUTO_TEST_CASE(test_cannot_put_empty_namespace) {
  auto s = store();
  const object doc{{"foo", "bar"}};
  const auto inv = error_code::invalid_argument;
  BOOST_TEST(throws_naming([&] { s->put({}, "foo", doc); }, inv, "at least one label"));
  BOOST_TEST(throws_naming(
      [&] {
        s->put({"the", "thing.about"}, "foo", doc);
      },
      inv, "\"thing.about\""));
  BOOST_TEST(throws_naming([&] { s->put({"some", "fun", ""}, "foo", doc); }, inv, "empty label"));
  BOOST_TEST(throws_naming(
      [&] {
        s->put({"langgraph", "foo"}, "bar", doc);
      },
      inv, "cannot be \"langgraph\""));
  BOOST_TEST(list_namespaces(*s, {}).empty());

  // "langgraph" below the root is an ordinary label.
  const namespace_path inner{"foo", "langgraph", "foo"};
  s->put(inner, "bar", doc);
  BOOST_TEST(s->get(inner, "bar")->v == value(doc));
  BOOST_TEST(search(*s, {.prefix = inner, .query = "bar"}).at(0).v == value(doc));
  s->remove(inner, "bar");
  BOOST_TEST(!s->get(inner, "bar").has_value());

  // Past the public put: a batch may write under the reserved root, and the rest reads it.
  const namespace_path reserved{"langgraph", "foo"};
  (void)s->batch({storage::put_op{reserved, "bar", doc, {}, {}}});
  BOOST_TEST(s->get(reserved, "bar")->v == value(doc));
  BOOST_TEST(search(*s, {.prefix = reserved}).at(0).v == value(doc));
  s->remove(reserved, "bar");
  BOOST_TEST(!s->get(reserved, "bar").has_value());

  // A batch still checks the rest of the namespace.
  BOOST_TEST(throws_naming(
      [&] {
        (void)s->batch({storage::put_op{{}, "k", doc, {}, {}}});
      },
      inv, "at least one label"));
  (void)s->batch({storage::put_op{{"valid", "namespace"}, "key", doc, {}, {}}});
  BOOST_TEST(s->get({"valid", "namespace"}, "key")->v == value(doc));
  BOOST_TEST(search(*s, {.prefix = {"valid", "namespace"}}).at(0).v == value(doc));
}

// libs/checkpoint/tests/test_store.py::test_async_batch_store_deduplication: LangGraph gathers
// concurrent calls into one batch; ours takes the batch explicitly, with the same dedup.
BOOST_AUTO_TEST_CASE(test_async_batch_store_deduplication) {
  counting_store s(store());
  const object same_doc{{"value", "same"}}, diff_doc{{"value", "different"}};
  (void)s.batch({storage::put_op{{"test"}, "same", same_doc, {}, {}},
                 storage::put_op{{"test"}, "different", diff_doc, {}, {}}});
  s.calls.clear();

  auto results =
      s.batch({storage::get_op{{"test"}, "same", {}}, storage::get_op{{"test"}, "same", {}},
               storage::get_op{{"test"}, "different", {}}});
  BOOST_REQUIRE(results.size() == 3u);
  const auto item_at = [&](std::size_t i) { return std::get<std::optional<item>>(results[i]); };
  BOOST_REQUIRE((item_at(0) && item_at(1) && item_at(2)));
  BOOST_TEST(item_at(0)->v == item_at(1)->v);
  BOOST_TEST(item_at(0)->updated_at == item_at(1)->updated_at);
  BOOST_TEST(item_at(0)->v != item_at(2)->v);
  BOOST_TEST(item_at(0)->v == value(same_doc));
  BOOST_TEST(item_at(2)->v == value(diff_doc));
  BOOST_TEST(s.calls == (std::vector<std::string>{"get same", "get different"}));
  s.calls.clear();

  const object doc1{{"value", 1}}, doc2{{"value", 2}};
  results = s.batch({storage::put_op{{"test"}, "key", doc1, {}, {}},
                     storage::put_op{{"test"}, "key", doc2, {}, {}}});
  BOOST_TEST(s.calls == (std::vector<std::string>{"put key " + value(doc2).to_json()}));
  BOOST_REQUIRE(results.size() == 2u);
  for (const auto& r : results) BOOST_TEST(std::holds_alternative<std::monostate>(r));
  BOOST_TEST(s.get({"test"}, "key", {})->v == value(doc2));
  s.calls.clear();

  storage::search_options by_value;
  by_value.ns_prefix = {"test"};
  by_value.filter = object{{"value", 2}};
  results = s.batch({by_value, by_value});
  BOOST_TEST(s.calls == (std::vector<std::string>{"search"}));
  BOOST_REQUIRE(results.size() == 2u);
  const auto& first = std::get<std::vector<item>>(results[0]);
  const auto& second = std::get<std::vector<item>>(results[1]);
  BOOST_REQUIRE(first.size() == 1u);
  BOOST_REQUIRE(second.size() == 1u);
  BOOST_TEST(first[0].v == second[0].v);
  BOOST_TEST(first[0].v == value(doc2));
}

// libs/checkpoint/tests/test_store.py::test_async_batched_vector_search_concurrent: the
// gathered puts, deletes and puts are one batch (the last write to a key wins), the gathered
// searches another.
BOOST_AUTO_TEST_CASE(test_async_batched_vector_search_concurrent) {
  auto s = store(character_index());
  const std::vector<std::string> colors{"red", "blue", "green", "yellow", "purple"};
  const std::vector<std::string> things{"apple", "car", "house", "book", "phone"};
  const std::vector<double> scores{3.0, 3.5, 4.0, 4.5, 5.0};
  std::vector<storage::store_op> writes;
  std::vector<std::pair<std::string, object>> docs;
  for (int i = 0; i < 50; ++i) {
    const auto& color = colors[i % 5];
    docs.emplace_back("doc" + std::to_string(i), object{{"text", color + " " + things[i % 5]},
                                                        {"color", color},
                                                        {"score", scores[i % 5]},
                                                        {"index", i}});
  }
  for (const auto& [k, v] : docs) writes.push_back(storage::put_op{{"test"}, k, v, {}, {}});
  for (const auto& [k, v] : docs) writes.push_back(storage::remove_op{{"test"}, k});
  for (const auto& [k, v] : docs) writes.push_back(storage::put_op{{"test"}, k, v, {}, {}});
  BOOST_TEST(s->batch(writes).size() == 150u);

  const std::vector<std::pair<std::string, object>> queries{
      {"apple", {{"color", "red"}}},
      {"car", {{"color", "blue"}}},
      {"house", {{"color", "green"}}},
      {"phone", {{"score", object{{"$gt", 4.99}}}}},
      {"book", {{"score", object{{"$lte", 3.5}}}}},
      {"apple", {{"score", object{{"$gte", 3.0}}}, {"color", "red"}}},
      {"car", {{"score", object{{"$lt", 5.1}}}, {"color", "blue"}}},
      {"house", {{"index", object{{"$gt", 25}}}}},
      {"phone", {{"index", object{{"$lte", 10}}}}},
  };
  std::vector<storage::store_op> searches;
  for (const auto& [q, f] : queries) {
    storage::search_options o;
    o.ns_prefix = {"test"};
    o.query = q;
    o.filter = f;
    searches.push_back(o);
  }
  const auto all_results = s->batch(searches);
  BOOST_REQUIRE(all_results.size() == queries.size());
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto& results = std::get<std::vector<item>>(all_results[q]);
    BOOST_TEST(!results.empty(), "no results for query " << queries[q].first);
    const object& filter = queries[q].second;
    for (const auto& r : results) {
      if (const value* color = filter.find("color")) BOOST_TEST(r.v.get("color") == *color);
      for (const char* field : {"score", "index"}) {
        const value* cond = filter.find(field);
        if (!cond) continue;
        const double got = r.v.get(field).as_double();
        for (const auto& [op, bound] : cond->as_object()) {
          const double b = bound.as_double();
          if (op == "$gt") BOOST_TEST(got > b);
          if (op == "$gte") BOOST_TEST(got >= b);
          if (op == "$lt") BOOST_TEST(got < b);
          if (op == "$lte") BOOST_TEST(got <= b);
        }
      }
    }
  }
}
