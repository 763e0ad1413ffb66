// rocksdb_store's HNSW index built from the stored vectors: the build on several threads
// answers as one on a single thread.
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

storage::rocksdb_store_options indexed() {
  storage::rocksdb_store_options options;
  options.index = conformance::random_index(true, 32);
  options.sync = false;
  return options;
}

storage::search_options query(const std::string& text) {
  storage::search_options o;
  o.query = text;
  return o;
}

}  // namespace

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
