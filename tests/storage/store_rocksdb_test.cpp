// rocksdb_store: the store conformance suite (plain and semantic), then what only a database
// does: items, timestamps and vectors survive reopening, next to a saver's column families.
#include "superstep/storage/store_rocksdb.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "store_conformance_semantic.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using superstep::storage::rocksdb_store;

namespace {

namespace fs = std::filesystem;

struct temp_dir : test::temp_dir {
  temp_dir() : test::temp_dir("superstep-store-test") {}
};

// A store in a fresh directory, which goes with it. No fsync: the tests do not cut power.
std::shared_ptr<rocksdb_store> open_in_temp_dir(storage::rocksdb_store_options options) {
  auto dir = std::make_shared<temp_dir>();
  options.sync = false;
  rocksdb_store* s = rocksdb_store::open(dir->str(), std::move(options)).release();
  return std::shared_ptr<rocksdb_store>(s, [dir](rocksdb_store* p) { delete p; });
}

std::shared_ptr<rocksdb_store> make_rocksdb_store() { return open_in_temp_dir({}); }

std::shared_ptr<rocksdb_store> make_indexed_rocksdb_store(storage::index_config index) {
  storage::rocksdb_store_options options;
  options.index = std::move(index);
  return open_in_temp_dir(std::move(options));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(store_conformance)
SUPERSTEP_STORE_CONFORMANCE(make_rocksdb_store)
SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make_indexed_rocksdb_store)
BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(items_and_vectors_survive_reopening) {
  temp_dir dir;
  storage::rocksdb_store_options options;
  options.index = superstep::store_conformance::hashing_index();
  std::optional<storage::item> before;
  {
    auto s = rocksdb_store::open(dir.str(), options);
    s->put({"1", "memories"}, "food", object{{"food_preference", "I like pizza"}});
    s->put({"1", "memories"}, "hobby", object{{"hobby", "I play chess"}});
    s->put({"1", "memories", "old"}, "gone", object{{"x", 1}});
    s->remove({"1", "memories", "old"}, "gone");
    before = s->get({"1", "memories"}, "food");
  }
  auto s = rocksdb_store::open(dir.str(), options);
  const auto after = s->get({"1", "memories"}, "food");
  BOOST_REQUIRE(after.has_value());
  BOOST_TEST(after->v == before->v);
  BOOST_TEST(after->created_at == before->created_at);
  BOOST_TEST(after->updated_at == before->updated_at);
  BOOST_TEST((s->list_namespaces({}) == std::vector<storage::namespace_path>{{"1", "memories"}}));
  storage::search_options o;
  o.query = "What does the user like to eat?";
  const auto found = s->search(o);
  BOOST_REQUIRE(found.size() == 2u);
  BOOST_TEST(found[0].key == "food");
  // An overwrite after reopening keeps created_at.
  s->put({"1", "memories"}, "food", object{{"food_preference", "I like sushi"}});
  BOOST_TEST(s->get({"1", "memories"}, "food")->created_at == before->created_at);
}

BOOST_AUTO_TEST_CASE(the_store_shares_a_directory_with_the_saver_column_families) {
  temp_dir dir;
  { auto saver = storage::rocksdb_saver::open(dir.str()); }
  {
    auto s = rocksdb_store::open(dir.str());
    s->put({"u"}, "k", object{{"v", 1}});
  }
  auto saver = storage::rocksdb_saver::open(dir.str());  // still opens, store CF untouched
  BOOST_TEST(saver->list({"", "", ""}, {}).empty());
}

BOOST_AUTO_TEST_CASE(labels_with_nul_bytes_and_prefix_lookalikes_stay_apart) {
  auto s = make_rocksdb_store();
  const std::string nul("a\0b", 3);
  s->put({"a"}, "k", object{{"i", 1}});
  s->put({"ab"}, "k", object{{"i", 2}});
  s->put({nul}, "k", object{{"i", 3}});
  s->put({"a", "b"}, "k", object{{"i", 4}});
  storage::search_options o;
  o.ns_prefix = {"a"};
  BOOST_TEST(s->search(o).size() == 2u);  // ("a") and ("a", "b")
  BOOST_TEST(s->get({nul}, "k")->v == value(object{{"i", 3}}));
  BOOST_TEST(s->list_namespaces({}).size() == 4u);
}
