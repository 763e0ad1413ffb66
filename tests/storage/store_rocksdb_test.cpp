// rocksdb_store: the store conformance suite (plain, semantic, TTL and batch), then what only a
// database does: items, timestamps, vectors and expiry survive reopening, next to a saver's
// column families, and records written before TTLs still read.
#include "superstep/storage/store_rocksdb.hpp"

#include <rocksdb/db.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

#include "raw_store_family.hpp"
#include "store_conformance_ann.hpp"
#include "store_conformance_batch.hpp"
#include "store_conformance_semantic.hpp"
#include "store_conformance_ttl.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/serializer.hpp"
#include "superstep/storage/store_support.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using superstep::storage::rocksdb_store;
using superstep::test::raw_store_family;

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

std::shared_ptr<rocksdb_store> make_rocksdb_store_with_ttl(storage::ttl_config ttl) {
  storage::rocksdb_store_options options;
  options.ttl = std::move(ttl);
  return open_in_temp_dir(std::move(options));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(store_conformance)
SUPERSTEP_STORE_CONFORMANCE(make_rocksdb_store)
SUPERSTEP_STORE_SEMANTIC_CONFORMANCE(make_indexed_rocksdb_store)
SUPERSTEP_STORE_ANN_CONFORMANCE(make_indexed_rocksdb_store)
SUPERSTEP_STORE_TTL_CONFORMANCE(make_rocksdb_store_with_ttl)
SUPERSTEP_STORE_BATCH_CONFORMANCE(make_rocksdb_store)
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

BOOST_AUTO_TEST_CASE(the_ann_index_comes_back_on_reopening) {
  namespace conformance = superstep::store_conformance;
  temp_dir dir;
  storage::rocksdb_store_options options;
  options.index = conformance::random_index(true);
  options.sync = false;
  std::vector<storage::item> before;
  storage::search_options o;
  o.query = "t123";
  {
    auto s = rocksdb_store::open(dir.str(), options);
    conformance::put_random_items(*s, 300);
    s->remove({"a"}, "k0");
    s->put({"a"}, "k2", object{{"t", "changed"}});
    s->put({"a"}, "k4", object{{"t", "hidden"}}, {false, {}});
    BOOST_TEST(s->ann_items() == 298u);
    before = s->search(o);
  }
  auto s = rocksdb_store::open(dir.str(), options);
  BOOST_TEST(s->ann_items() == 298u);
  const auto after = s->search(o);
  BOOST_TEST(conformance::keys_of(after) == conformance::keys_of(before));
  BOOST_REQUIRE(!after.empty());
  BOOST_TEST(after[0].key == "k123");
  o.query = "changed";
  BOOST_TEST(s->search(o).front().key == "k2");
  o.query = "t2";
  BOOST_TEST(s->search(o).front().key != "k2");
  // Without `ann` the same database opens without an index and searches exactly.
  s.reset();
  options.index->ann = false;
  s = rocksdb_store::open(dir.str(), options);
  BOOST_TEST(s->ann_items() == 0u);
  o.query = "t123";
  BOOST_TEST(conformance::keys_of(s->search(o)) == conformance::keys_of(before));
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

BOOST_AUTO_TEST_CASE(expiry_and_refreshes_survive_reopening) {
  temp_dir dir;
  superstep::store_conformance::test_clock clock;
  storage::rocksdb_store_options options;
  options.sync = false;
  options.ttl = clock.config({}, /*refresh_on_read=*/false);
  {
    auto s = rocksdb_store::open(dir.str(), options);
    s->put({"t"}, "plain", object{{"n", 1}}, {}, 10.0);
    s->put({"t"}, "refreshed", object{{"n", 2}}, {}, 10.0);
    s->put({"t"}, "forever", object{{"n", 3}});
  }
  clock.advance_minutes(8);
  {
    auto s = rocksdb_store::open(dir.str(), options);
    BOOST_TEST(s->get({"t"}, "plain").has_value());
    BOOST_TEST(s->get({"t"}, "refreshed", true).has_value());  // now expires at minute 18
  }
  clock.advance_minutes(4);
  auto s = rocksdb_store::open(dir.str(), options);
  BOOST_TEST(!s->get({"t"}, "plain").has_value());
  BOOST_TEST(s->get({"t"}, "refreshed").has_value());
  BOOST_TEST(s->get({"t"}, "forever").has_value());
  BOOST_TEST(s->sweep() == 1u);
  clock.advance_minutes(10);
  BOOST_TEST(s->sweep() == 1u);
  BOOST_TEST(superstep::store_conformance::live_keys(*s) == (std::vector<std::string>{"forever"}));
}

BOOST_AUTO_TEST_CASE(records_from_before_ttls_never_expire) {
  temp_dir dir;
  {
    auto s = rocksdb_store::open(dir.str());
    s->put({"old"}, "k", object{{"n", 1}}, {}, 1.0);
  }
  {
    // The record as builds without TTLs wrote it: no format, ttl or exp.
    raw_store_family raw(dir.str());
    const auto keys = raw.item_keys();
    BOOST_REQUIRE(keys.size() == 1u);
    raw.put(keys[0], object{{"v", object{{"n", 1}}},
                            {"created_at", "2025-01-01T00:00:00.000000+00:00"},
                            {"updated_at", "2025-01-01T00:00:00.000000+00:00"},
                            {"us", 1735689600000000LL}});
  }
  superstep::store_conformance::test_clock clock;
  clock.advance_minutes(1e6);
  storage::rocksdb_store_options options;
  options.ttl = clock.config(1.0);  // a default TTL applies to new puts only
  auto s = rocksdb_store::open(dir.str(), options);
  const auto found = s->get({"old"}, "k");
  BOOST_REQUIRE(found.has_value());
  BOOST_TEST(found->created_at == "2025-01-01T00:00:00.000000+00:00");
  BOOST_TEST(s->sweep() == 0u);
  BOOST_TEST(s->list_namespaces({}).size() == 1u);
  // Overwritten, it takes the TTL of the new put and keeps its created_at.
  s->put({"old"}, "k", object{{"n", 2}});
  BOOST_TEST(s->get({"old"}, "k")->created_at == "2025-01-01T00:00:00.000000+00:00");
  clock.advance_minutes(2);
  BOOST_TEST(s->sweep() == 1u);
}

BOOST_AUTO_TEST_CASE(a_record_of_a_newer_format_is_named_not_misread) {
  temp_dir dir;
  {
    auto s = rocksdb_store::open(dir.str());
    s->put({"new"}, "k", object{{"n", 1}});
  }
  {
    raw_store_family raw(dir.str());
    const auto keys = raw.item_keys();
    BOOST_REQUIRE(keys.size() == 1u);
    raw.put(keys[0], object{{"v", object{{"n", 1}}},
                            {"created_at", "2025-01-01T00:00:00.000000+00:00"},
                            {"updated_at", "2025-01-01T00:00:00.000000+00:00"},
                            {"us", 1735689600000000LL},
                            {"format", 3}});
  }
  auto s = rocksdb_store::open(dir.str());
  BOOST_TEST(superstep::store_conformance::throws_naming([&] { (void)s->get({"new"}, "k"); },
                                                         error_code::storage_error, "format 3"));
}

namespace {

storage::rocksdb_store_options hashing_options(std::size_t dims, std::string id) {
  storage::rocksdb_store_options options;
  options.sync = false;
  options.index = storage::index_config{dims, storage::make_hashing_embedder(dims), {"$"}};
  options.index->embedder_id = std::move(id);
  return options;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_database_refuses_to_embed_with_another_embedder_or_dims) {
  using superstep::store_conformance::throws_naming;
  temp_dir dir;
  const storage::namespace_path ns{"u"};
  storage::search_options query;
  query.query = "pizza";
  {
    auto s = rocksdb_store::open(dir.str(), hashing_options(32, "hashing"));
    s->put(ns, "plain", object{{"t", "no vectors"}}, {false, {}});  // records nothing yet
  }
  {
    // The first vector records its index.
    auto s = rocksdb_store::open(dir.str(), hashing_options(48, "hashing"));
    s->put(ns, "food", object{{"t", "I like pizza"}});
  }
  const std::string recorded = "embedder \"hashing\" with 48 dimensions";
  for (const auto& [dims, id] : {std::pair<std::size_t, std::string>{32, "hashing"},
                                 {48, "openai/text-embedding-3-small"}}) {
    auto s = rocksdb_store::open(dir.str(), hashing_options(dims, id));
    BOOST_TEST(throws_naming(
        [&] {
          s->put(ns, "x", object{{"t", "sushi"}});
        },
        error_code::invalid_argument, recorded));
    BOOST_TEST(throws_naming([&] { (void)s->search(query); }, error_code::invalid_argument,
                             "not embedder \"" + id + "\" with " + std::to_string(dims)));
    // Reading, listing, searching without a query and puts without vectors still work.
    BOOST_TEST(!s->get(ns, "x").has_value());
    BOOST_TEST(s->get(ns, "food").has_value());
    BOOST_TEST(s->search({}).size() == 2u);
    s->put(ns, "note", object{{"t", "unindexed"}}, {false, {}});
    s->remove(ns, "note");
  }
  // The same index, or one without an id and the same dims, embeds as before.
  for (const std::string id : {"hashing", ""}) {
    auto s = rocksdb_store::open(dir.str(), hashing_options(48, id));
    const auto found = s->search(query);
    BOOST_REQUIRE_EQUAL(found.size(), 2u);
    BOOST_TEST(found[0].key == "food");
    BOOST_TEST(found[1].key == "plain");  // put without an index: last, with no score
    BOOST_TEST(!found[1].score.has_value());
    s->put(ns, "food", object{{"t", "I like pizza a lot"}});
  }
}

BOOST_AUTO_TEST_CASE(a_database_keeps_its_distance_type_and_refuses_another) {
  using superstep::store_conformance::throws_naming;
  temp_dir dir;
  const storage::namespace_path ns{"u"};
  storage::search_options query;
  query.query = "pizza";
  auto l2 = hashing_options(32, "hashing");
  l2.index->distance = storage::distance_type::l2;
  l2.index->fields = {"t"};
  {
    auto s = rocksdb_store::open(dir.str(), l2);
    s->put(ns, "food", object{{"t", "I like pizza"}});
    s->put(ns, "hobby", object{{"t", "I play chess"}});
    BOOST_TEST(s->search(query).front().key == "food");  // builds and saves the ANN index
  }
  {
    // Reopened as it was made: l2 scores (negated distances), from the saved ANN index.
    auto s = rocksdb_store::open(dir.str(), l2);
    BOOST_TEST((s->index()->distance == storage::distance_type::l2));
    const auto found = s->search(query);
    BOOST_REQUIRE_EQUAL(found.size(), 2u);
    BOOST_TEST(found[0].key == "food");
    const auto embed = storage::make_hashing_embedder(32);
    const auto vectors = embed({"pizza", "I like pizza", "I play chess"});
    BOOST_TEST(*found[0].score == storage::store_support::similarity(storage::distance_type::l2,
                                                                     vectors[0], vectors[1]),
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*found[1].score == storage::store_support::similarity(storage::distance_type::l2,
                                                                     vectors[0], vectors[2]),
               boost::test_tools::tolerance(1e-9));
    BOOST_TEST(*found[0].score < 0);
  }
  // Under another distance type: an error naming both when it would embed; reads still work.
  for (const auto other : {storage::distance_type::cosine, storage::distance_type::inner_product}) {
    auto options = hashing_options(32, "hashing");
    options.index->distance = other;
    auto s = rocksdb_store::open(dir.str(), options);
    const std::string configured = "not embedder \"hashing\" with 32 dimensions and " +
                                   std::string(storage::distance_type_name(other)) + " distance";
    BOOST_TEST(throws_naming(
        [&] {
          s->put(ns, "x", object{{"t", "sushi"}});
        },
        error_code::invalid_argument, "with 32 dimensions and l2 distance"));
    BOOST_TEST(
        throws_naming([&] { (void)s->search(query); }, error_code::invalid_argument, configured));
    BOOST_TEST(!s->get(ns, "x").has_value());
    BOOST_TEST(s->search({}).size() == 2u);
  }
}

BOOST_AUTO_TEST_CASE(an_index_record_from_before_distance_types_is_cosine) {
  using superstep::store_conformance::throws_naming;
  temp_dir dir;
  rocksdb_store::open(dir.str(), hashing_options(32, "hashing"))
      ->put({"u"}, "a", object{{"t", "pizza"}});
  raw_store_family(dir.str()).put("mindex", object{{"embedder", "hashing"}, {"dims", 32}});
  auto l2 = hashing_options(32, "hashing");
  l2.index->distance = storage::distance_type::l2;
  BOOST_TEST(throws_naming([&] { rocksdb_store::open(dir.str(), l2)->put({"u"}, "b", object{}); },
                           error_code::invalid_argument, "32 dimensions and cosine distance"));
  auto s = rocksdb_store::open(dir.str(), hashing_options(32, "hashing"));
  s->put({"u"}, "b", object{{"t", "sushi"}});
  storage::search_options query;
  query.query = "pizza";
  BOOST_TEST(s->search(query).front().key == "a");
}

BOOST_AUTO_TEST_CASE(vectors_stored_before_the_index_record_must_have_its_dims) {
  using superstep::store_conformance::throws_naming;
  temp_dir dir;
  { rocksdb_store::open(dir.str(), hashing_options(32, "hashing"))->put({"u"}, "a", object{}); }
  {
    raw_store_family raw(dir.str());
    BOOST_REQUIRE(raw.has("mindex"));
    raw.remove("mindex");  // as a database from before index records
  }
  {
    auto s = rocksdb_store::open(dir.str(), hashing_options(64, "hashing"));
    BOOST_TEST(throws_naming([&] { s->put({"u"}, "b", object{}); }, error_code::invalid_argument,
                             "holds vectors of 32 dimensions, not 64"));
    BOOST_TEST(!s->get({"u"}, "b").has_value());
  }
  BOOST_TEST(!raw_store_family(dir.str()).has("mindex"));
  // Opened as it was written, it records its index with the next vector.
  rocksdb_store::open(dir.str(), hashing_options(32, "hashing"))->put({"u"}, "b", object{});
  BOOST_TEST(raw_store_family(dir.str()).has("mindex"));
}
