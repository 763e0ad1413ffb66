#include "superstep/storage/rocksdb_check.hpp"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <filesystem>
#include <set>
#include <tuple>

#include "rocksdb_clean_close.hpp"
#include "rocksdb_database.hpp"
#include "rocksdb_info_log.hpp"
#include "rocksdb_keys.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/rocksdb_saver.hpp"
#include "superstep/storage/store_rocksdb.hpp"

namespace superstep::storage {

namespace fs = std::filesystem;

namespace {

using checkpoint_key = std::tuple<std::string, std::string, std::string>;  // thread, ns, id

std::string describe(const checkpoint_key& k) {
  const auto& [thread, ns, id] = k;
  return "checkpoint " + id + " of thread '" + thread + "'" +
         (ns.empty() ? std::string() : " in namespace '" + ns + "'");
}

// Every checkpoint key of the database, or a problem when they cannot all be read.
std::vector<checkpoint_key> checkpoint_keys(rocksdb_database& db,
                                            std::vector<std::string>& problems) {
  std::vector<checkpoint_key> out;
  std::unique_ptr<rocksdb::Iterator> it(
      db.db().NewIterator(rocksdb::ReadOptions(), db.checkpoints));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    std::size_t pos = 0;
    auto thread = keys::read_string(key, pos);
    auto ns = thread ? keys::read_string(key, pos) : std::nullopt;
    if (!ns || pos >= key.size()) {
      problems.push_back("a checkpoint record with a damaged key");
      continue;
    }
    out.emplace_back(*thread, *ns, std::string(key.substr(pos)));
  }
  if (!it->status().ok()) problems.push_back("listing the checkpoints: " + it->status().ToString());
  return out;
}

// The checkpoints of `keys` that do not read whole through `saver`, each with why.
std::vector<std::pair<checkpoint_key, std::string>> unreadable(
    rocksdb_saver& saver, const std::vector<checkpoint_key>& keys, database_check* counts) {
  std::vector<std::pair<checkpoint_key, std::string>> out;
  const std::set<checkpoint_key> present(keys.begin(), keys.end());
  for (const auto& k : keys) {
    const auto& [thread, ns, id] = k;
    try {
      auto tuple = saver.get_tuple({thread, ns, id});
      if (!tuple) {
        out.emplace_back(k, describe(k) + ": its record cannot be found again");
        continue;
      }
      if (counts) counts->pending_writes += tuple->pending_writes.size();
      if (tuple->parent_config &&
          !present.count({tuple->parent_config->thread_id, tuple->parent_config->checkpoint_ns,
                          tuple->parent_config->checkpoint_id}))
        out.emplace_back(
            k, describe(k) + ": its parent " + tuple->parent_config->checkpoint_id + " is missing");
    } catch (const std::exception& e) {
      out.emplace_back(k, e.what());
    }
  }
  return out;
}

}  // namespace

database_check check_rocksdb_database(const std::string& dir,
                                      std::shared_ptr<const serializer> serde) {
  database_check out;
  std::shared_ptr<rocksdb_database> db;
  try {
    db = rocksdb_database::shared(dir, {true, nullptr});
  } catch (const std::exception& e) {
    out.problems.push_back(e.what());
    return out;
  }
  rocksdb::Status checksums = db->db().VerifyChecksum();
  if (!checksums.ok()) out.problems.push_back("RocksDB's checksums: " + checksums.ToString());

  rocksdb_saver_options options;
  options.read_only = true;
  options.serde = serde;
  auto saver = rocksdb_saver::open(dir, options);  // on `db`, shared
  const auto keys = checkpoint_keys(*db, out.problems);
  out.checkpoints = keys.size();
  std::set<std::string> threads;
  for (const auto& k : keys) threads.insert(std::get<0>(k));
  out.threads = threads.size();
  for (auto& [key, why] : unreadable(*saver, keys, &out)) out.problems.push_back(why);

  if (db->store) {
    try {
      rocksdb_store_options store_options;
      store_options.read_only = true;
      store_options.serde = serde;
      auto store = rocksdb_store::open(dir, store_options);
      search_options all;
      all.limit = 1000;
      for (;; all.offset += all.limit) {
        const auto items = store->search(all);
        out.store_items += items.size();
        if (items.size() < all.limit) break;
      }
    } catch (const std::exception& e) {
      out.problems.push_back(std::string("the store: ") + e.what());
    }
  }
  return out;
}

database_repair repair_rocksdb_database(const std::string& dir,
                                        std::shared_ptr<const serializer> serde) {
  if (const int holder = rocksdb_lock_holder(dir))
    throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                               " is in use by another process (pid " +
                                               std::to_string(holder) + "), which writes to it");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw error(error_code::storage_error, "rocksdb_saver: " + dir + " is not a folder");
  database_repair out;
  out.before = check_rocksdb_database(dir, serde);

  std::set<std::string> set_aside_before;
  const fs::path lost_dir = fs::path(dir) / "lost";
  for (fs::directory_iterator it(lost_dir, ec), end; !ec && it != end; it.increment(ec))
    set_aside_before.insert(it->path().filename().string());

  if (!out.before.ok()) {
    // Opening it as it is, then skipping the write-ahead log's damaged records; RocksDB's
    // RepairDB only when neither opens (it cannot keep the blob files, so every value stored
    // in one is lost with it).
    // A database that opens but whose tables fail their checksums needs RepairDB too.
    const auto open = [&](database_options o) -> std::shared_ptr<rocksdb_database> {
      try {
        auto db = rocksdb_database::shared(dir, o);
        if (db->db().VerifyChecksum().ok()) return db;
      } catch (const error&) {
      }
      return nullptr;
    };
    std::shared_ptr<rocksdb_database> db = open({});
    if (!db) {
      db = open({false, nullptr, true});
      if (db)
        out.lost.push_back(
            "the damaged records of the write-ahead log, and any write they held (the records "
            "after them were kept)");
    }
    if (!db) {
      forget_clean_close(dir);  // RepairDB makes a new MANIFEST
      rocksdb::Options options;
      options.info_log = make_info_log(dir);
      std::vector<rocksdb::ColumnFamilyDescriptor> families;
      families.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
      for (const char* name : {"checkpoints", "writes", "blobs", "store", "runs"})
        families.emplace_back(name, rocksdb::ColumnFamilyOptions());
      rocksdb::Status repaired = rocksdb::RepairDB(dir, rocksdb::DBOptions(options), families,
                                                   rocksdb::ColumnFamilyOptions());
      if (!repaired.ok())
        throw error(error_code::storage_error,
                    "rocksdb_saver: cannot repair " + dir + ": " + repaired.ToString());
      for (fs::directory_iterator it(lost_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (set_aside_before.count(name)) continue;
        out.lost.push_back(
            it->path().extension() == ".log"
                ? "the write-ahead log " + name +
                      ": its records were moved into a table as far as they could be read (the "
                      "file is set aside in " +
                      lost_dir.string() + ")"
            : name.rfind("MANIFEST-", 0) == 0
                ? name + ": replaced by one rebuilt from the tables (set aside in " +
                      lost_dir.string() + ")"
                : "the file " + name + ", which could not be read (set aside in " +
                      lost_dir.string() + ")");
      }
      db = rocksdb_database::shared(dir, {false, nullptr, true});
    }

    // Drop the checkpoints that still do not read whole, until all that remain do: a dropped
    // one may be the parent or delta base of others.
    rocksdb_saver_options options_rw;
    options_rw.sync = true;
    options_rw.serde = serde;
    auto saver = rocksdb_saver::open(dir, options_rw);  // on `db`, shared
    for (;;) {
      std::vector<std::string> listing;
      const auto bad = unreadable(*saver, checkpoint_keys(*db, listing), nullptr);
      if (bad.empty()) break;
      rocksdb::WriteBatch batch;
      for (const auto& [key, why] : bad) {
        const auto& [thread, ns, id] = key;
        const std::string prefix = keys::prefix(thread, ns);
        check(batch.Delete(db->checkpoints, prefix + id), "batching a deletion");
        const std::string writes = keys::prefix(thread, ns, id);
        check(batch.DeleteRange(db->writes, writes, keys::successor(writes)),
              "batching a range deletion");
        out.lost.push_back(describe(key) + ", with its pending writes (" + why + ")");
      }
      rocksdb::WriteOptions sync;
      sync.sync = true;
      db->write(sync, batch, "dropping unreadable checkpoints");
    }
  }
  out.after = check_rocksdb_database(dir, serde);
  return out;
}

}  // namespace superstep::storage
