#pragma once

// The `store` column family of a closed store's database, opened directly: for tests that
// look at or damage what a rocksdb_store wrote.

#include <rocksdb/db.h>

#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "superstep/core/value.hpp"
#include "superstep/storage/serializer.hpp"

namespace superstep::test {

class raw_store_family {
 public:
  explicit raw_store_family(const std::string& dir) {
    std::vector<std::string> names;
    BOOST_REQUIRE(rocksdb::DB::ListColumnFamilies({}, dir, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    BOOST_REQUIRE(rocksdb::DB::Open({}, dir, families, &handles_, &db_).ok());
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == "store") store_ = handles_[i];
    BOOST_REQUIRE(store_ != nullptr);
  }
  ~raw_store_family() {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    delete db_;
  }
  raw_store_family(const raw_store_family&) = delete;
  raw_store_family& operator=(const raw_store_family&) = delete;

  // The keys that start with `family` ('i' item records, 'e' vectors, ...).
  std::vector<std::string> keys(char family) const {
    std::vector<std::string> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, store_));
    for (it->SeekToFirst(); it->Valid(); it->Next())
      if (it->key()[0] == family) out.push_back(it->key().ToString());
    BOOST_REQUIRE(it->status().ok());
    return out;
  }
  std::vector<std::string> item_keys() const { return keys('i'); }
  // Writes `record` as the capnp serializer would.
  void put(const std::string& key, const value& record) {
    put_bytes(key, storage::make_capnp_serializer()->dumps(record));
  }
  void put_bytes(const std::string& key, const std::string& bytes) {
    BOOST_REQUIRE(db_->Put({}, store_, key, bytes).ok());
  }
  void remove(const std::string& key) { BOOST_REQUIRE(db_->Delete({}, store_, key).ok()); }
  bool has(const std::string& key) const {
    std::string bytes;
    return db_->Get({}, store_, key, &bytes).ok();
  }

 private:
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyHandle* store_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
};

}  // namespace superstep::test
