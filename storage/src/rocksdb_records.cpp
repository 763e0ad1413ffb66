// Tables of records in the `records` column family (superstep/storage/rocksdb_records.hpp).
// A record's key is its table's name, a NUL, then its own key: a table is one key range.
#include "superstep/storage/rocksdb_records.hpp"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "rocksdb_database.hpp"
#include "superstep/core/error.hpp"

namespace superstep::storage {

struct rocksdb_records::impl {
  std::shared_ptr<rocksdb_database> db;
  rocksdb::WriteOptions write_options;

  rocksdb::ColumnFamilyHandle* family() const {
    if (!db->records)
      throw error(error_code::storage_error,
                  "rocksdb_records: " + db->dir() + " has no column family 'records'");
    return db->records;
  }
};

namespace {

std::string table_prefix(std::string_view table) {
  if (table.empty() || table.find('\0') != std::string_view::npos)
    throw error(error_code::invalid_argument,
                "rocksdb_records: a table's name is not empty and has no NUL");
  std::string prefix(table);
  prefix.push_back('\0');
  return prefix;
}

}  // namespace

std::unique_ptr<rocksdb_records> rocksdb_records::open(const std::string& dir, bool sync) {
  if (dir.empty())
    throw error(error_code::invalid_argument, "rocksdb_records: the directory is empty");
  auto i = std::make_unique<impl>();
  i->db = rocksdb_database::shared(dir);
  i->write_options.sync = sync;
  return std::unique_ptr<rocksdb_records>(new rocksdb_records(std::move(i)));
}

rocksdb_records::rocksdb_records(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
rocksdb_records::~rocksdb_records() = default;

void rocksdb_records::put(std::string_view table, std::string_view key, std::string_view bytes) {
  rocksdb::WriteBatch batch;
  check(batch.Put(impl_->family(), table_prefix(table) + std::string(key), bytes), "records: put");
  impl_->db->write(impl_->write_options, batch, "records: put");
}

void rocksdb_records::put_all(const std::vector<record_put>& puts) {
  rocksdb::WriteBatch batch;
  for (const record_put& p : puts)
    check(batch.Put(impl_->family(), table_prefix(p.table) + std::string(p.key), p.bytes),
          "records: put");
  impl_->db->write(impl_->write_options, batch, "records: put");
}

bool rocksdb_records::erase(std::string_view table, std::string_view key) {
  const std::string k = table_prefix(table) + std::string(key);
  std::string found;
  const rocksdb::Status s = impl_->db->db().Get(rocksdb::ReadOptions(), impl_->family(), k, &found);
  if (s.IsNotFound()) return false;
  check(s, "records: read");
  rocksdb::WriteBatch batch;
  check(batch.Delete(impl_->family(), k), "records: delete");
  impl_->db->write(impl_->write_options, batch, "records: delete");
  return true;
}

std::vector<std::pair<std::string, std::string>> rocksdb_records::all(
    std::string_view table) const {
  const std::string prefix = table_prefix(table);
  std::vector<std::pair<std::string, std::string>> out;
  rocksdb::ReadOptions read;
  read.verify_checksums = true;
  std::unique_ptr<rocksdb::Iterator> it(impl_->db->db().NewIterator(read, impl_->family()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next())
    out.emplace_back(it->key().ToString().substr(prefix.size()), it->value().ToString());
  check(it->status(), "records: scan");
  return out;
}

void rocksdb_records::clear(std::string_view table) {
  std::string end = table_prefix(table);
  const std::string begin = end;
  end.back() = '\1';
  rocksdb::WriteBatch batch;
  check(batch.DeleteRange(impl_->family(), begin, end), "records: clear");
  impl_->db->write(impl_->write_options, batch, "records: clear");
}

}  // namespace superstep::storage
