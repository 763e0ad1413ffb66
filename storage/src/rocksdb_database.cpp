#include "rocksdb_database.hpp"

#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

#include "superstep/core/error.hpp"

namespace superstep::storage {

void check(const rocksdb::Status& s, std::string_view what) {
  if (!s.ok())
    throw error(error_code::storage_error,
                "rocksdb_saver: " + std::string(what) + ": " + s.ToString());
}

rocksdb_database::rocksdb_database(const std::string& dir) : dir_(dir) {
  // RocksDB creates only the last level of the path.
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw error(error_code::storage_error,
                "rocksdb_saver: cannot create the directory " + dir + ": " + ec.message());

  rocksdb::DBOptions options;
  options.create_if_missing = true;
  // Every open rotates RocksDB's info log; the command line opens the database per command.
  options.keep_log_file_num = 4;
  options.create_missing_column_families = true;
  // Open every column family the database has (a newer build may have added some) plus ours.
  std::vector<std::string> names;
  if (!rocksdb::DB::ListColumnFamilies(options, dir, &names).ok())
    names = {rocksdb::kDefaultColumnFamilyName};  // a new database
  for (const char* ours : {"checkpoints", "writes", "blobs", "store"})
    if (std::find(names.begin(), names.end(), ours) == names.end()) names.emplace_back(ours);

  // Saving a pending write first looks for an earlier copy (a retried task keeps its first
  // writes): nearly always a miss, which bloom filters answer without searching the memtable
  // (whole keys) or the tables. Without them a fan-out of 10^6 Sends spends most of its time
  // in those lookups, growing with the database.
  // The memtable's filter costs every insert, so only the column family probed for misses
  // has one; every table has a filter.
  rocksdb::ColumnFamilyOptions cf_options;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // Values of 64 KiB and more (a fan-out's pending Sends, a big channel) go to blob files
  // when their memtable is flushed, streamed, rather than into a table block: a block holding a
  // 200 MB value is built, then compressed, in two more buffers of its size.
  rocksdb::ColumnFamilyOptions large = cf_options;
  large.enable_blob_files = true;
  large.min_blob_size = 64 << 10;
  large.enable_blob_garbage_collection = true;
  rocksdb::ColumnFamilyOptions probed = large;
  probed.memtable_whole_key_filtering = true;
  probed.memtable_prefix_bloom_size_ratio = 0.05;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names)
    families.emplace_back(name, name == "writes" ? probed : name == "blobs" ? large : cf_options);
  check(rocksdb::DB::Open(options, dir, families, &handles_, &db_), "cannot open " + dir);

  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "checkpoints") checkpoints = handles_[i];
    if (names[i] == "writes") writes = handles_[i];
    if (names[i] == "blobs") blobs = handles_[i];
    if (names[i] == "store") store = handles_[i];
  }
}

std::shared_ptr<rocksdb_database> rocksdb_database::shared(const std::string& dir) {
  static std::mutex m;
  static std::map<std::string, std::weak_ptr<rocksdb_database>> open;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // for canonical(); the constructor reports
  auto canonical = std::filesystem::weakly_canonical(dir, ec);
  const std::string name = ec ? dir : canonical.string();
  std::lock_guard lock(m);
  if (auto db = open[name].lock()) return db;
  auto db = std::make_shared<rocksdb_database>(dir);
  open[name] = db;
  return db;
}

rocksdb_database::~rocksdb_database() {
  for (auto* handle : handles_) db_->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  // Close flushes nothing we need (every write is in the WAL); its status only reports that.
  db_->Close().PermitUncheckedError();
  delete db_;
}

range_scan::range_scan(const rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf,
                       const rocksdb::ReadOptions& base, std::string lower, std::string upper)
    : lower_(std::move(lower)),
      upper_(std::move(upper)),
      lower_slice_(lower_),
      upper_slice_(upper_) {
  rocksdb::ReadOptions options = base;
  options.iterate_lower_bound = &lower_slice_;
  options.iterate_upper_bound = &upper_slice_;
  it_.reset(db.db().NewIterator(options, cf));
}

void range_scan::check_status(std::string_view what) const { check(it_->status(), what); }

}  // namespace superstep::storage
