#pragma once

// The database of a closed saver, opened directly with all its column families: for tests
// that count or damage what a rocksdb_saver wrote.

#include <rocksdb/db.h>

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace superstep::test {

class raw_db {
 public:
  explicit raw_db(const std::string& dir) {
    rocksdb::DBOptions options;
    std::vector<std::string> names;
    BOOST_REQUIRE(rocksdb::DB::ListColumnFamilies(options, dir, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    BOOST_REQUIRE(rocksdb::DB::Open(options, dir, families, &handles_, &db_).ok());
    names_ = names;
  }
  ~raw_db() {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    delete db_;
  }
  const std::vector<std::string>& names() const { return names_; }
  rocksdb::ColumnFamilyHandle* family(const std::string& name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return handles_[i];
    BOOST_FAIL("no column family " << name);
    return nullptr;
  }
  std::vector<std::pair<std::string, std::string>> entries(const std::string& family) const {
    std::vector<std::pair<std::string, std::string>> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator({}, this->family(family)));
    for (it->SeekToFirst(); it->Valid(); it->Next())
      out.emplace_back(it->key().ToString(), it->value().ToString());
    BOOST_REQUIRE(it->status().ok());
    return out;
  }
  void put(const std::string& family, const std::string& key, const std::string& v) {
    BOOST_REQUIRE(db_->Put({}, this->family(family), key, v).ok());
  }
  void erase(const std::string& family, const std::string& key) {
    BOOST_REQUIRE(db_->Delete({}, this->family(family), key).ok());
  }

 private:
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::vector<std::string> names_;
};

// The files a table write (RocksDB's SstFileWriter, before the table is added) left in the
// database's folder.
inline int table_files(const std::string& dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    n += entry.path().filename().string().rfind("superstep-table-", 0) == 0;
  return n;
}

}  // namespace superstep::test
