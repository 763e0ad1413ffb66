#include "superstep/storage/rocksdb_check.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_reader.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

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

std::optional<checkpoint_key> parse_checkpoint_key(std::string_view key) {
  std::size_t pos = 0;
  auto thread = keys::read_string(key, pos);
  auto ns = thread ? keys::read_string(key, pos) : std::nullopt;
  if (!ns || pos >= key.size()) return std::nullopt;
  return checkpoint_key{*thread, *ns, std::string(key.substr(pos))};
}

// Where a repair records a checkpoint it dropped, or found gone, in the default column family
// (which the saver does not use): its children, which still read, keep naming it as their
// parent, and that is then no problem.
std::string dropped_key(const checkpoint_key& k) {
  const auto& [thread, ns, id] = k;
  return keys::prefix(std::string_view("dropped"), thread, ns) + id;
}

bool was_dropped(rocksdb_database& db, const checkpoint_key& k) {
  std::string ignored;
  return db.db()
      .Get(rocksdb::ReadOptions(), db.db().DefaultColumnFamily(), dropped_key(k), &ignored)
      .ok();
}

// Every checkpoint key of the database, or a problem when they cannot all be read.
std::vector<checkpoint_key> checkpoint_keys(rocksdb_database& db,
                                            std::vector<std::string>& problems) {
  std::vector<checkpoint_key> out;
  std::unique_ptr<rocksdb::Iterator> it(
      db.db().NewIterator(rocksdb::ReadOptions(), db.checkpoints));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (auto k = parse_checkpoint_key(it->key().ToStringView()))
      out.push_back(std::move(*k));
    else
      problems.push_back("a checkpoint record with a damaged key");
  }
  if (!it->status().ok()) problems.push_back("listing the checkpoints: " + it->status().ToString());
  return out;
}

// A checkpoint that does not read whole (`why`), or that reads but names a parent that is
// neither there nor recorded as dropped (`missing_parent`).
struct unreadable_checkpoint {
  checkpoint_key key;
  std::string why;
  std::optional<checkpoint_key> missing_parent;
};

// The checkpoints of `keys` that do not read whole through `saver`, or whose parent is missing.
std::vector<unreadable_checkpoint> unreadable(rocksdb_database& db, rocksdb_saver& saver,
                                              const std::vector<checkpoint_key>& keys,
                                              database_check* counts) {
  std::vector<unreadable_checkpoint> out;
  const std::set<checkpoint_key> present(keys.begin(), keys.end());
  for (const auto& k : keys) {
    const auto& [thread, ns, id] = k;
    try {
      auto tuple = saver.get_tuple({thread, ns, id});
      if (!tuple) {
        out.push_back({k, describe(k) + ": its record cannot be found again", std::nullopt});
        continue;
      }
      if (counts) counts->pending_writes += tuple->pending_writes.size();
      if (tuple->parent_config) {
        checkpoint_key parent{tuple->parent_config->thread_id, tuple->parent_config->checkpoint_ns,
                              tuple->parent_config->checkpoint_id};
        if (!present.count(parent) && !was_dropped(db, parent))
          out.push_back({k, describe(k) + ": its parent " + std::get<2>(parent) + " is missing",
                         std::move(parent)});
      }
    } catch (const std::exception& e) {
      out.push_back({k, e.what(), std::nullopt});
    }
  }
  return out;
}

// SHA-256 of a sequence of byte strings, each with its length (so ("ab", "c") and ("a", "bc")
// differ).
class digest {
 public:
  digest() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
      throw error(error_code::internal, "rocksdb_saver: cannot start a SHA-256 digest");
  }
  ~digest() { EVP_MD_CTX_free(ctx_); }
  digest(const digest&) = delete;
  digest& operator=(const digest&) = delete;
  digest& add(std::string_view bytes) {
    const std::uint64_t n = bytes.size();
    EVP_DigestUpdate(ctx_, &n, sizeof n);
    EVP_DigestUpdate(ctx_, bytes.data(), bytes.size());
    return *this;
  }
  std::string done() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_, md, &n);
    return std::string(reinterpret_cast<const char*>(md), n);
  }

 private:
  EVP_MD_CTX* ctx_;
};

// What a checkpoint reads as (everything `get_tuple` gives), as a digest. Values are
// encoded with the plain Cap'n Proto serializer, which encodes a value always alike (an
// encrypting one does not).
std::string fingerprint(const checkpoint_tuple& t) {
  static const auto plain = make_capnp_serializer();
  const checkpoint& cp = t.checkpoint;
  digest d;
  d.add(std::to_string(cp.v)).add(cp.id).add(cp.ts);
  const std::map<std::string, value> values(cp.channel_values.begin(), cp.channel_values.end());
  d.add(std::to_string(values.size()));
  for (const auto& [channel, v] : values) d.add(channel).add(plain->dumps(v));
  const std::map<std::string, channel_version> versions(cp.channel_versions.begin(),
                                                        cp.channel_versions.end());
  d.add(std::to_string(versions.size()));
  for (const auto& [channel, v] : versions) d.add(channel).add(std::to_string(v));
  const std::map<std::string, std::unordered_map<std::string, channel_version>> seen(
      cp.versions_seen.begin(), cp.versions_seen.end());
  d.add(std::to_string(seen.size()));
  for (const auto& [node, of_node] : seen) {
    const std::map<std::string, channel_version> sorted(of_node.begin(), of_node.end());
    d.add(node).add(std::to_string(sorted.size()));
    for (const auto& [channel, v] : sorted) d.add(channel).add(std::to_string(v));
  }
  d.add(std::to_string(cp.updated_channels.size()));
  for (const auto& channel : cp.updated_channels) d.add(channel);
  d.add(plain->dumps(metadata_to_value(t.metadata)));
  d.add(t.parent_config ? t.parent_config->thread_id + '\0' + t.parent_config->checkpoint_ns +
                              '\0' + t.parent_config->checkpoint_id
                        : std::string());
  d.add(std::to_string(t.pending_writes.size()));
  for (const auto& w : t.pending_writes) d.add(w.task_id).add(w.channel).add(plain->dumps(w.v));
  return d.done();
}

// A key for a message: its printable bytes, the others as \xNN, cut after 120 characters.
std::string printable(std::string_view key) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : key) {
    if (out.size() >= 120) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return "\"" + out + "\"";
}

std::string describe_record(const std::string& family, std::string_view key) {
  if (family == "checkpoints")
    if (auto k = parse_checkpoint_key(key)) return "the record of " + describe(*k);
  return "a record of the column family '" + family + "' (key " + printable(key) + ")";
}

// (a + b) / 2, a and b byte strings of one length read as numbers in base 256.
std::string midpoint(const std::string& a, const std::string& b) {
  std::vector<unsigned> sum(a.size());
  unsigned carry = 0;
  for (std::size_t i = a.size(); i-- > 0;) {
    const unsigned s = static_cast<unsigned char>(a[i]) + static_cast<unsigned char>(b[i]) + carry;
    sum[i] = s & 0xff;
    carry = s >> 8;
  }
  std::string out(a.size(), '\0');
  unsigned rest = carry;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const unsigned cur = (rest << 8) | sum[i];
    out[i] = static_cast<char>(cur >> 1);
    rest = cur & 1;
  }
  return out;
}

// Where reading a table goes on after a damaged block that stopped `it` after key `lo`: the
// least key (of keys of `width` bytes) at which `it` seeks without an error. A seek reads only
// the table's index and the block it lands in, so it fails exactly for the keys up to the
// damaged block's index key; found by bisection. Exact when that index key is shorter than
// `width` (save a next key that is it followed by NULs only); nullopt when the block runs to
// `hi`, the table's last key.
std::optional<std::string> first_readable_after(rocksdb::Iterator& it, const std::string& lo,
                                                const std::string& hi, std::size_t width) {
  const auto seeks = [&](const std::string& key) {
    it.Seek(key);
    return it.status().ok();
  };
  if (hi <= lo || !seeks(hi)) return std::nullopt;
  width = std::max({width, lo.size() + 1, hi.size()});
  std::string bad = lo, good = hi;  // seeking fails at `bad` and works at `good`
  bad.resize(width, '\0');
  good.resize(width, '\0');
  if (seeks(bad)) return bad;
  for (;;) {
    std::string mid = midpoint(bad, good);
    if (mid == bad) return good;
    if (seeks(mid))
      good = std::move(mid);
    else
      bad = std::move(mid);
  }
}

// Calls `each` with every key of family `cf` of `db` that may hold a value: the keys of its
// memtables, then those of each of its tables, read with their checksums. A damaged block
// stops a RocksDB iterator, and a database iterator for good: so each table is read on its
// own, going on after a damaged block (first_readable_after), and the block is told to
// `damaged` with the keys it lies between. A key may come more than once.
void each_key(rocksdb_database& db, rocksdb::ColumnFamilyHandle* cf, const std::string& family,
              const std::function<void(const std::string&)>& each,
              const std::function<void(const std::string&)>& damaged) {
  {
    rocksdb::ReadOptions memtables;
    memtables.read_tier = rocksdb::kMemtableTier;
    std::unique_ptr<rocksdb::Iterator> it(db.db().NewIterator(memtables, cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) each(it->key().ToString());
    if (!it->status().ok())
      damaged("the records in memory of the column family '" + family +
              "': " + it->status().ToString());
  }
  std::vector<rocksdb::LiveFileMetaData> files;
  db.db().GetLiveFilesMetaData(&files);
  const rocksdb::Options options = db.db().GetOptions(cf);  // with the database's
  for (const auto& f : files) {
    if (f.column_family_name != family) continue;
    const std::string& table = f.relative_filename;  // "NNNNNN.sst"
    const std::string path = f.directory + "/" + table;
    rocksdb::SstFileReader reader(options);
    if (rocksdb::Status opened = reader.Open(path); !opened.ok()) {
      damaged("the table " + table + " (column family '" + family +
              "'), which does not open: " + opened.ToString());
      continue;
    }
    rocksdb::ReadOptions read;
    read.verify_checksums = true;
    read.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(reader.NewIterator(read));
    std::string lo;  // the last key read, or where reading went on
    bool read_any = false;
    std::size_t longest = f.largestkey.size();
    for (it->SeekToFirst();;) {
      for (; it->Valid(); it->Next()) {
        lo = it->key().ToString();
        read_any = true;
        longest = std::max(longest, lo.size());
        each(lo);
      }
      if (it->status().ok()) break;
      const std::string why = it->status().ToString();
      // Twice the longest key around, as the damaged block's keys are not known.
      const auto resume = first_readable_after(*it, lo, f.largestkey, 2 * longest + 16);
      damaged("a damaged block of the table " + table + " (column family '" + family + "'), " +
              (read_any ? "after the key " + printable(lo) : std::string("at its start")) +
              (resume ? ", before the key " + printable(*resume) : std::string(", to its end")) +
              ": the records in it are lost (" + why + ")");
      if (!resume || *resume <= lo) break;
      lo = *resume;
      it->Seek(*resume);
    }
  }
}

// The column families a salvage copies, by name, with their handles in `db` (null: it has
// none).
std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>> families_of(
    rocksdb_database& db) {
  return {{rocksdb::kDefaultColumnFamilyName, db.db().DefaultColumnFamily()},
          {"checkpoints", db.checkpoints},
          {"writes", db.writes},
          {"blobs", db.blobs},
          {"store", db.store},
          {"runs", db.run_index},
          {"records", db.records}};
}

// Calls `take(family, key, value)` with every record of `db` that reads (checksums verified,
// blob values fetched: RocksDB's own reading, which a deletion hides and a damaged block
// fails); each record that does not read, and each damaged block, goes to `lost`.
void each_readable(
    rocksdb_database& db,
    const std::function<void(std::size_t, const std::string&, const std::string&)>& take,
    std::vector<std::string>& lost) {
  const auto families = families_of(db);
  for (std::size_t f = 0; f < families.size(); ++f) {
    const std::string& family = families[f].first;
    rocksdb::ColumnFamilyHandle* const cf = families[f].second;
    if (!cf) continue;
    std::set<std::string> failed;
    std::string v;
    each_key(
        db, cf, family,
        [&](const std::string& key) {
          rocksdb::Status s = db.db().Get(rocksdb::ReadOptions(), cf, key, &v);
          if (s.ok())
            take(f, key, v);
          else if (!s.IsNotFound() && failed.insert(key).second)
            lost.push_back(describe_record(family, key) + " does not read: " + s.ToString());
        },
        [&](const std::string& block) { lost.push_back(block); });
  }
}

std::string record_digest(std::size_t family, std::string_view key, std::string_view v) {
  return digest().add(std::to_string(family)).add(key).add(v).done();
}

// What read in the database a salvage was made from.
struct inventory {
  /// A digest of every record (family, key, value) that read.
  std::set<std::string> records;
  /// Every checkpoint that read whole through the saver, with a digest of what it read as.
  std::map<checkpoint_key, std::string> checkpoints;
};

[[noreturn]] void refuse(const fs::path& folder, const std::string& why) {
  throw error(error_code::storage_error, "rocksdb_saver: not repairing " + folder.string() + ": " +
                                             why + ". Nothing was changed.");
}

// The folders and files of a data folder that are not the database's.
bool database_file(const fs::path& p) {
  const std::string name = p.filename().string();
  const std::string ext = p.extension().string();
  for (const char* prefix : {"MANIFEST-", "OPTIONS-", "LOG", "superstep-table-"})
    if (name.rfind(prefix, 0) == 0) return true;
  return name == "CURRENT" || name == "IDENTITY" || name == "LOCK" || name == "CLEAN-CLOSE" ||
         name == "CLEAN-CLOSE.tmp" || ext == ".sst" || ext == ".blob" || ext == ".log" ||
         ext == ".dbtmp";
}

// `from` copied as `to` (which must not exist): the tables and blob files, which RocksDB never
// changes, as hard links where the file system allows; RocksDB's lock is left out.
void copy_folder(const fs::path& from, const fs::path& to) {
  fs::create_directory(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    const fs::path target = to / entry.path().filename();
    if (entry.path().filename() == "LOCK") continue;
    if (entry.is_directory()) {
      fs::copy(entry.path(), target, fs::copy_options::recursive);
      continue;
    }
    const std::string ext = entry.path().extension().string();
    std::error_code linked;
    if (ext == ".sst" || ext == ".blob") {
      fs::create_hard_link(entry.path(), target, linked);
      if (!linked) continue;
    }
    fs::copy_file(entry.path(), target);
  }
}

// Makes a rename in `dir` durable.
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  static_cast<void>(::fsync(fd));
  ::close(fd);
}

// A new database at `to` holding every record of `from` (the database in `from_dir`, opened as
// `read_only`) that reads, byte for byte; `inv` says what read: the records, and each
// checkpoint as the saver reads it. Reads the copy back, refusing unless it holds exactly
// those records.
void rebuild(rocksdb_database& from, const std::string& from_dir, bool read_only,
             const fs::path& to, const fs::path& folder,
             const std::shared_ptr<const serializer>& serde, inventory& inv,
             std::vector<std::string>& lost) {
  {
    std::vector<std::string> names;
    check(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), from_dir, &names),
          "listing the column families");
    for (const auto& name : names)
      if (name != rocksdb::kDefaultColumnFamilyName && name != "checkpoints" && name != "writes" &&
          name != "blobs" && name != "store" && name != "runs" && name != "records")
        refuse(folder, "it has a column family this build does not know ('" + name + "')");
  }
  std::vector<checkpoint_key> checkpoints;
  {
    auto target = rocksdb_database::shared(to.string(), {});
    const auto into = families_of(*target);
    rocksdb::WriteBatch batch;
    const rocksdb::WriteOptions unsynced;  // synced once, at the end
    const auto write_batch = [&] {
      if (batch.Count() == 0) return;
      target->write(unsynced, batch, "rebuilding the database");
      batch.Clear();
    };
    each_readable(
        from,
        [&](std::size_t family, const std::string& key, const std::string& v) {
          // A key found in several tables reads the same each time: copied once.
          if (!inv.records.insert(record_digest(family, key, v)).second) return;
          check(batch.Put(into[family].second, key, v), "batching a record");
          if (into[family].second == target->checkpoints)
            if (auto k = parse_checkpoint_key(key)) checkpoints.push_back(std::move(*k));
          if (batch.GetDataSize() >= (std::size_t{8} << 20)) write_batch();
        },
        lost);
    write_batch();
    check(target->db().FlushWAL(true), "syncing the rebuilt database");
  }
  {
    rocksdb_saver_options options;
    options.read_only = read_only;
    options.sync = false;
    options.serde = serde;
    auto saver = rocksdb_saver::open(from_dir, options);  // on `from`, shared
    for (const auto& k : checkpoints) {
      const auto& [thread, ns, id] = k;
      try {
        if (auto tuple = saver->get_tuple({thread, ns, id}))
          inv.checkpoints.emplace(k, fingerprint(*tuple));
      } catch (const std::exception&) {
        // It did not read: dropped from the copy, and said so, later.
      }
    }
  }
  std::set<std::string> copied;
  std::vector<std::string> unread;
  {
    auto target = rocksdb_database::shared(to.string(), {});
    each_readable(
        *target,
        [&](std::size_t family, const std::string& key, const std::string& v) {
          copied.insert(record_digest(family, key, v));
        },
        unread);
  }
  if (copied != inv.records || !unread.empty())
    refuse(folder, "the new database does not read back as it was written (" +
                       std::to_string(copied.size()) + " records of " +
                       std::to_string(inv.records.size()) + ")");
}

// RocksDB's RepairDB on the copy `copy` of `folder` (set aside files are told to `lost`).
void rebuild_from_tables(const fs::path& copy, const fs::path& folder,
                         std::vector<std::string>& lost) {
  std::error_code ec;
  const fs::path lost_dir = copy / "lost";
  std::set<std::string> set_aside_before;
  for (fs::directory_iterator it(lost_dir, ec), end; !ec && it != end; it.increment(ec))
    set_aside_before.insert(it->path().filename().string());
  std::vector<fs::path> blob_files;
  for (const auto& entry : fs::directory_iterator(copy))
    if (entry.path().extension() == ".blob") blob_files.push_back(entry.path());

  forget_clean_close(copy.string());  // RepairDB makes a new MANIFEST
  rocksdb::Options options;
  options.info_log = make_info_log(copy.string());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  families.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
  for (const char* name : {"checkpoints", "writes", "blobs", "store", "runs", "records"})
    families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  // RepairDB puts every table in level 0, ordered by its sequence numbers. Tables whose
  // numbers overlap (a log converted again although some families had flushed part of it, a
  // compaction's output) fail the check of that order (force_consistency_checks, always on in
  // a RocksDB built with assertions, as Debian's is): which of two versions of a record is the
  // newer would then be a guess, so it is refused rather than the check turned off.
  rocksdb::Status repaired = rocksdb::RepairDB(copy.string(), rocksdb::DBOptions(options), families,
                                               rocksdb::ColumnFamilyOptions());
  if (!repaired.ok())
    refuse(folder, "RocksDB's repair cannot rebuild it from its tables: " + repaired.ToString() +
                       (repaired.ToString().find("force_consistency_checks") != std::string::npos
                            ? " (the sequence numbers of its tables overlap, so which version of a "
                              "record is the newer cannot be told)"
                            : ""));
  for (fs::directory_iterator it(lost_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (set_aside_before.count(name)) continue;
    lost.push_back(it->path().extension() == ".log"
                       ? "the write-ahead log " + name +
                             ": its records were moved into a table as far as they could be "
                             "read, except those of column families none of whose tables could "
                             "be read (the file is kept in the backup)"
                   : name.rfind("MANIFEST-", 0) == 0
                       ? name + ": replaced by one rebuilt from the tables"
                       : "the table " + name +
                             ", which has a damaged block: every record in it is lost, and a "
                             "deletion it held too (the file is kept in the backup)");
  }
  fs::create_directories(lost_dir, ec);
  for (const auto& blob : blob_files) {
    // Not in the new MANIFEST: RocksDB would delete it on the next open.
    fs::rename(blob, lost_dir / blob.filename(), ec);
    lost.push_back("the blob file " + blob.filename().string() +
                   ": RocksDB's repair keeps no blob file, so every value stored in it is lost "
                   "(the file is kept in the backup)");
  }
}

// Drops each checkpoint of the database in `at` that does not read whole, with its pending
// writes, until every one left does, recording each as dropped; a parent that is gone although
// a child reads is recorded too (the child is kept). Each goes to `lost`.
void drop_unreadable(const fs::path& at, const fs::path& folder,
                     const std::shared_ptr<const serializer>& serde,
                     std::vector<std::string>& lost) {
  auto db = rocksdb_database::shared(at.string(), {false, nullptr, true});
  rocksdb_saver_options options;
  options.sync = true;
  options.serde = serde;
  auto saver = rocksdb_saver::open(at.string(), options);  // on `db`, shared
  for (;;) {
    std::vector<std::string> listing;
    const auto bad = unreadable(*db, *saver, checkpoint_keys(*db, listing), nullptr);
    if (!listing.empty()) refuse(folder, "the salvage cannot be read whole: " + listing.front());
    if (bad.empty()) break;
    rocksdb::WriteBatch batch;
    std::set<checkpoint_key> marked;
    for (const auto& b : bad) {
      const auto& [thread, ns, id] = b.key;
      if (b.missing_parent) {
        if (marked.insert(*b.missing_parent).second) {
          check(batch.Put(db->db().DefaultColumnFamily(), dropped_key(*b.missing_parent),
                          "gone before the repair"),
                "batching a mark");
          lost.push_back(describe(*b.missing_parent) + ": its record was already gone; its child " +
                         id + ", which reads, is kept and still names it as its parent");
        }
        continue;
      }
      check(batch.Delete(db->checkpoints, keys::prefix(thread, ns) + id), "batching a deletion");
      const std::string writes = keys::prefix(thread, ns, id);
      check(batch.DeleteRange(db->writes, writes, keys::successor(writes)),
            "batching a range deletion");
      check(batch.Put(db->db().DefaultColumnFamily(), dropped_key(b.key), b.why),
            "batching a mark");
      lost.push_back(describe(b.key) + ", with its pending writes (" + b.why + ")");
    }
    rocksdb::WriteOptions sync;
    sync.sync = true;
    db->write(sync, batch, "dropping unreadable checkpoints");
  }
}

// Refuses unless every checkpoint that read before reads in the salvage at `at` as it did.
void verify_checkpoints(const fs::path& at, const fs::path& folder,
                        const std::shared_ptr<const serializer>& serde, const inventory& inv) {
  rocksdb_saver_options options;
  options.read_only = true;
  options.serde = serde;
  auto saver = rocksdb_saver::open(at.string(), options);
  for (const auto& [k, read_as] : inv.checkpoints) {
    const auto& [thread, ns, id] = k;
    std::string why;
    try {
      auto tuple = saver->get_tuple({thread, ns, id});
      why = !tuple                           ? "it is not there"
            : fingerprint(*tuple) != read_as ? "it reads differently"
                                             : "";
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty())
      refuse(folder, describe(k) + " reads now, but would not after the repair: " + why);
  }
}

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  gmtime_r(&now, &t);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &t);
  return text;
}

// Puts `salvage` in the place of `folder`, which stays beside it as the backup (returned).
std::string swap_in(const fs::path& folder, const fs::path& salvage) {
  if (const int holder = rocksdb_lock_holder(folder.string()))
    refuse(folder, "another process (pid " + std::to_string(holder) + ") opened it meanwhile");
  fs::path backup;
  for (int n = 0;; ++n) {
    backup = folder.parent_path() / (folder.filename().string() + ".before-repair-" + timestamp() +
                                     (n ? "-" + std::to_string(n) : ""));
    if (!fs::exists(backup)) break;
  }
  std::error_code ec;
  fs::rename(folder, backup, ec);
  if (ec) refuse(folder, "it cannot be moved aside to " + backup.string() + ": " + ec.message());
  fs::rename(salvage, folder, ec);
  if (ec) {
    std::error_code back;
    fs::rename(backup, folder, back);
    if (!back) refuse(folder, "the salvage cannot be moved in: " + ec.message());
    throw error(error_code::storage_error, "rocksdb_saver: repairing " + folder.string() +
                                               ": the salvage cannot be moved in (" + ec.message() +
                                               "), nor the folder back: it is in " +
                                               backup.string());
  }
  sync_folder(folder.parent_path());
  return backup.string();
}

// Removes the folder a repair works in, unless the repair got through.
struct scratch_folder {
  fs::path path;
  ~scratch_folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

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
  for (auto& bad : unreadable(*db, *saver, keys, &out)) out.problems.push_back(bad.why);

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
                                        std::shared_ptr<const serializer> serde,
                                        repair_options options) {
  if (const int holder = rocksdb_lock_holder(dir))
    throw error(error_code::storage_error, "rocksdb_saver: " + dir +
                                               " is in use by another process (pid " +
                                               std::to_string(holder) + "), which writes to it");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw error(error_code::storage_error, "rocksdb_saver: " + dir + " is not a folder");
  database_repair out;
  out.before = check_rocksdb_database(dir, serde);
  if (out.before.ok()) {
    out.after = out.before;  // a sound database is left as it is
    return out;
  }

  fs::path folder = fs::absolute(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();
  // Beside the folder, on its file system: for hard links, and for the renames that swap.
  scratch_folder scratch{folder.parent_path() /
                         (folder.filename().string() + ".repairing-" + std::to_string(::getpid()))};
  fs::remove_all(scratch.path, ec);
  const fs::path rebuilt = scratch.path / "db", copy = scratch.path / "copy";
  fs::path salvage;
  inventory inv;
  try {
    fs::create_directory(scratch.path);
    std::shared_ptr<rocksdb_database> source;
    try {
      source = rocksdb_database::shared(dir, {true, nullptr});
    } catch (const error&) {
    }
    if (source) {
      // It opens as `state` and `history` open it: a new database holds every record that
      // reads, and nothing that reads is lost.
      rebuild(*source, dir, true, rebuilt, folder, serde, inv, out.lost);
      source.reset();
      salvage = rebuilt;
    } else {
      // Nothing of it reads as it is. A copy is opened as it is (a writer's open may get
      // further than a reader's), then skipping the damaged records of its write-ahead log,
      // then, if asked for, rebuilt by RocksDB's repair.
      copy_folder(folder, copy);
      const auto open_copy = [&](database_options o) -> std::shared_ptr<rocksdb_database> {
        try {
          return rocksdb_database::shared(copy.string(), o);
        } catch (const error&) {
          return nullptr;
        }
      };
      std::shared_ptr<rocksdb_database> db = open_copy({});
      if (!db) {
        db = open_copy({false, nullptr, true});
        if (db)
          out.lost.push_back(
              "the damaged records of the write-ahead log, and any write they held (the "
              "records after them were kept)");
      }
      if (!db) {
        if (!options.from_tables)
          refuse(folder, "it does not open (" + out.before.problems.front() +
                             "). RocksDB's repair can rebuild it from the tables it can read, "
                             "but every table with a damaged block is then lost whole, every "
                             "value stored in a blob file too, and a record a lost table had "
                             "deleted may be back: 'superstep repair --from-tables' does that");
        rebuild_from_tables(copy, folder, out.lost);
        db = open_copy({false, nullptr, true});
        if (!db) refuse(folder, "it does not open even after RocksDB's repair");
      }
      if (db->db().VerifyChecksum().ok()) {
        db.reset();
        salvage = copy;
      } else {
        rebuild(*db, copy.string(), false, rebuilt, folder, serde, inv, out.lost);
        db.reset();
        salvage = rebuilt;
      }
    }
    drop_unreadable(salvage, folder, serde, out.lost);
    verify_checkpoints(salvage, folder, serde, inv);
    out.after = check_rocksdb_database(salvage.string(), serde);
    if (!out.after.ok()) {
      std::string problems;
      for (const auto& p : out.after.problems) problems += (problems.empty() ? "" : "; ") + p;
      refuse(folder, "the salvage would still have problems: " + problems);
    }
    if (salvage == rebuilt)  // the spec files and whatever else the folder holds come along
      for (const auto& entry : fs::directory_iterator(folder))
        if (!database_file(entry.path()))
          fs::copy(entry.path(), rebuilt / entry.path().filename(), fs::copy_options::recursive);
  } catch (const fs::filesystem_error& e) {
    refuse(folder, std::string("the salvage cannot be written beside it: ") + e.what());
  }
  out.backup = swap_in(folder, salvage);
  return out;
}

}  // namespace superstep::storage
