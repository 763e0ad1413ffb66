// The run index of the RocksDB saver (what `delete_for_runs` reads) is built for checkpoints
// written before it existed: a database whose "runs" column family is missing or empty gets
// its entries on the next open, so no run's checkpoints are silently kept.
#include <rocksdb/db.h>

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "saver_conformance_checks.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "support/temp_dir.hpp"

using namespace superstep;
using namespace superstep::conformance;

namespace {

// Drops the run index family, as a database written before it existed has none.
void drop_run_index(const std::string& dir) {
  std::vector<std::string> names;
  BOOST_REQUIRE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  BOOST_REQUIRE(rocksdb::DB::Open(rocksdb::DBOptions(), dir, families, &handles, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  bool dropped = false;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == "runs") dropped = db->DropColumnFamily(handles[i]).ok();
  for (auto* h : handles) BOOST_REQUIRE(db->DestroyColumnFamilyHandle(h).ok());
  BOOST_REQUIRE(dropped);
}

}  // namespace

BOOST_AUTO_TEST_CASE(checkpoints_written_before_the_run_index_are_deleted_by_their_run) {
  test::temp_dir dir("superstep-run-index");
  checkpoint_builder b;
  auto c1 = b.make({{"a", "1"}}, {{"a", 1}});
  auto c2 = b.make({{"a", "2"}}, {{"a", 2}});
  {
    auto saver = storage::rocksdb_saver::open(dir.str());
    auto s1 = put_all(*saver, "t", "", "", c1, loop_metadata(0, {{"run_id", "r1"}}));
    saver->put(s1, c2, loop_metadata(1, {{"run_id", "r2"}}), {{"a", 2}});
  }
  drop_run_index(dir.str());
  {
    auto saver = storage::rocksdb_saver::open(dir.str());
    saver->delete_for_runs({"r1"});
    BOOST_TEST(ids_of(saver->list({"t", "", ""}, {})) == (std::vector{c2.id}));
  }
  // Indexed once: a later open finds the mark and r2's entries still there.
  {
    auto saver = storage::rocksdb_saver::open(dir.str());
    saver->delete_for_runs({"r2"});
    BOOST_TEST(saver->list({"t", "", ""}, {}).empty());
  }
}
