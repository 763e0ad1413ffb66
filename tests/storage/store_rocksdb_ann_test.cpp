// rocksdb_store's HNSW index across processes: the copy saved in the database is loaded instead
// of building the index again, writes since it was saved (by any store on the database) are
// applied to it, and it is not used when the index configuration changed; the build on
// several threads answers as one on a single thread.
#include <algorithm>
#include <cstring>

#include "raw_store_family.hpp"
#include "store_conformance_ann.hpp"
#include "superstep/storage/store_rocksdb.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using superstep::storage::rocksdb_store;
namespace conformance = superstep::store_conformance;

namespace {

struct temp_dir : test::temp_dir {
  temp_dir() : test::temp_dir("superstep-store-ann-test") {}
};

// random_vector_embedder, except that "neg:<text>" embeds to the opposite of <text>'s vector.
storage::embed_fn negating_embedder(std::size_t dims) {
  return [base = conformance::random_vector_embedder(dims)](const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out;
    for (const auto& text : texts) {
      const bool negated = text.starts_with("neg:");
      auto v = base({negated ? text.substr(4) : text}).front();
      if (negated)
        for (float& x : v) x = -x;
      out.push_back(std::move(v));
    }
    return out;
  };
}

storage::rocksdb_store_options indexed(std::size_t m = 16) {
  storage::rocksdb_store_options options;
  options.index = storage::index_config{32, negating_embedder(32), {"t"}};
  options.index->ann_m = m;
  options.sync = false;
  return options;
}

bool has_key(const std::vector<storage::item>& items, const std::string& key) {
  return std::any_of(items.begin(), items.end(), [&](const auto& i) { return i.key == key; });
}

// Turns the stored vector of item "k5" (namespace "b") around behind the store's back, so no
// change is logged: a store that builds its index finds k5 by "neg:t5", one that loads the
// index saved before cannot (k5 is there the farthest point from that query).
void negate_k5_behind_the_store(const std::string& dir) {
  test::raw_store_family raw(dir);
  const std::string suffix("\0\0k5\0\x01", 6);  // ns end, S("k5")
  const auto keys = raw.keys('e');
  const auto k5 = std::find_if(keys.begin(), keys.end(),
                               [&](const std::string& k) { return k.ends_with(suffix); });
  BOOST_REQUIRE(k5 != keys.end());
  const auto v = negating_embedder(32)({"neg:t5"}).front();
  std::string record("\x01\0\0\0", 4);  // one vector
  record.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  raw.put_bytes(*k5, record);
}

storage::search_options query(const std::string& text) {
  storage::search_options o;
  o.query = text;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reopening_loads_the_saved_index_and_applies_the_writes_since) {
  temp_dir dir;
  {
    auto s = rocksdb_store::open(dir.str(), indexed());
    conformance::put_random_items(*s, 1000);
    BOOST_TEST(s->ann_items() == 1000u);  // built, then saved
  }
  {
    test::raw_store_family raw(dir.str());
    BOOST_TEST(raw.keys('a').size() == 1u);
    BOOST_TEST(!raw.keys('x').empty());
    BOOST_TEST(raw.keys('c').empty());
  }
  negate_k5_behind_the_store(dir.str());
  {
    auto s = rocksdb_store::open(dir.str(), indexed());
    BOOST_TEST(!has_key(s->search(query("neg:t5")), "k5"));  // loaded, not built
  }
  // Writes are logged whether or not the writing store has an index, and applied on loading.
  {
    auto s = rocksdb_store::open(dir.str(), indexed());
    s->put({"b"}, "k5", object{{"t", "neg:t5"}});
    s->remove({"b"}, "k7");
    s->put({"a"}, "k1000", object{{"t", "t1000"}});
  }
  {
    storage::rocksdb_store_options plain;
    plain.sync = false;
    rocksdb_store::open(dir.str(), plain)->put({"b"}, "k9", object{{"t", "t9"}});  // no vectors
  }
  BOOST_TEST(test::raw_store_family(dir.str()).keys('c').size() == 4u);
  auto s = rocksdb_store::open(dir.str(), indexed());
  const auto found = s->search(query("neg:t5"));
  BOOST_REQUIRE(!found.empty());
  BOOST_TEST(found[0].key == "k5");
  BOOST_TEST(*found[0].score > 0.999);
  BOOST_TEST(s->search(query("t1000")).front().key == "k1000");
  BOOST_TEST(!has_key(s->search(query("t7")), "k7"));
  BOOST_TEST(s->ann_items() == 1000u - 2u + 1u);  // k7 removed, k9 without vectors, k1000 new
}

BOOST_AUTO_TEST_CASE(a_saved_index_of_other_hnsw_parameters_is_built_again) {
  temp_dir dir;
  {
    auto s = rocksdb_store::open(dir.str(), indexed(16));
    conformance::put_random_items(*s, 1000);
    BOOST_TEST(s->ann_items() == 1000u);
  }
  negate_k5_behind_the_store(dir.str());
  auto s = rocksdb_store::open(dir.str(), indexed(8));
  const auto found = s->search(query("neg:t5"));
  BOOST_REQUIRE(!found.empty());
  BOOST_TEST(found[0].key == "k5");  // built from the stored vectors
}

BOOST_AUTO_TEST_CASE(closing_saves_the_index_again_once_many_items_changed) {
  temp_dir dir;
  {
    auto s = rocksdb_store::open(dir.str(), indexed());
    conformance::put_random_items(*s, 300);
    BOOST_TEST(s->ann_items() == 300u);
    for (int i = 0; i < 10; ++i) s->put({"c"}, "few" + std::to_string(i), object{{"t", "x"}});
  }
  BOOST_TEST(test::raw_store_family(dir.str()).keys('c').size() == 10u);  // kept for next time
  {
    auto s = rocksdb_store::open(dir.str(), indexed());
    BOOST_TEST(s->ann_items() == 310u);
    for (int i = 0; i < 1000; ++i)
      s->put({"c"}, "many" + std::to_string(i), object{{"t", "y" + std::to_string(i)}});
  }
  BOOST_TEST(test::raw_store_family(dir.str()).keys('c').empty());  // saved again
  auto s = rocksdb_store::open(dir.str(), indexed());
  BOOST_TEST(s->ann_items() == 1310u);
  BOOST_TEST(s->search(query("y123")).front().key == "many123");
}

BOOST_AUTO_TEST_CASE(a_build_on_several_threads_finds_what_one_thread_finds) {
  // A search that keeps more candidates than there are items is exact on either graph.
  constexpr int items = 800;
  const auto make = [](const temp_dir& dir, std::size_t threads, bool ann) {
    auto options = indexed();
    options.index->ann = ann;
    options.index->ann_build_threads = threads;
    options.index->ann_ef_search = items;
    auto s = rocksdb_store::open(dir.str(), options);
    conformance::put_random_items(*s, items);
    return s;
  };
  temp_dir one_dir, four_dir, exact_dir;
  auto one = make(one_dir, 1, true), four = make(four_dir, 4, true),
       exact = make(exact_dir, 1, false);
  BOOST_TEST(four->ann_items() == std::size_t(items));
  for (int q = 0; q < 40; ++q) {
    const auto o = query("query " + std::to_string(q));
    const auto truth = conformance::keys_of(exact->search(o));
    BOOST_TEST(conformance::keys_of(one->search(o)) == truth);
    BOOST_TEST(conformance::keys_of(four->search(o)) == truth);
  }
}
