// The server's records in the data folder (server/records.hpp).
#include "server/records.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "superstep/core/error.hpp"

namespace superstep::server {

namespace fs = std::filesystem;

namespace {

std::string format_uuid(const unsigned char* b) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(digits[b[i] >> 4]);
    out.push_back(digits[b[i] & 15]);
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

record_set::record_set(storage::record_tables& table,
                       std::shared_ptr<const storage::serializer> serde,
                       const std::string& data_dir, const std::string& kind,
                       const std::function<void(const std::string&)>& warn)
    : table_(table), serde_(std::move(serde)), kind_(kind) {
  for (auto& [id, bytes] : table_.all(kind_)) {
    try {
      records_[id] = serde_->loads(bytes);
    } catch (const std::exception& e) {
      warn("skipping the " + kind_ + " record '" + id + "': " + e.what());
    }
  }
  // The JSON files of DIR/api/KIND that builds before the database held records wrote: moved
  // in, then removed.
  const fs::path dir = fs::path(data_dir) / "api" / kind;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    try {
      value record = value::parse_json(text.str());
      const value& id = record.get("id");
      if (!record.is_object() || !id.is_string())
        throw error(error_code::invalid_argument, "not a record (no \"id\")");
      if (!records_.count(id.as_string())) put(id.as_string(), record.get("record"));
    } catch (const std::exception& e) {
      warn("skipping the record " + entry.path().string() + ": " + e.what());
    }
  }
  fs::remove_all(dir, ec);
  fs::remove(dir.parent_path(), ec);  // when it is empty
}

std::optional<value> record_set::get(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = records_.find(id);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

void record_set::put(const std::string& id, const value& record) {
  const std::string bytes = serde_->dumps(record);
  std::lock_guard lock(mutex_);
  table_.put(kind_, id, bytes);
  records_[id] = record;
}

void record_set::put_in_memory(const std::string& id, value record) {
  std::lock_guard lock(mutex_);
  auto it = records_.find(id);
  if (it != records_.end()) it->second = std::move(record);
}

void record_batch::put(record_set& set, const std::string& id, value record) {
  entries_.push_back({&set, id, std::move(record)});
}

void record_batch::commit() {
  if (entries_.empty()) return;
  std::vector<std::string> bytes;
  bytes.reserve(entries_.size());
  std::vector<storage::record_put> puts;
  std::vector<record_set*> sets;
  for (const entry& e : entries_) {
    if (&e.set->table_ != &entries_.front().set->table_)
      throw error(error_code::invalid_argument, "record_batch: the sets are on different tables");
    bytes.push_back(e.set->serde_->dumps(e.record));
    if (std::find(sets.begin(), sets.end(), e.set) == sets.end()) sets.push_back(e.set);
  }
  for (std::size_t i = 0; i < entries_.size(); ++i)
    puts.push_back({entries_[i].set->kind_, entries_[i].id, bytes[i]});
  // Each set's lock, in one order (by address) wherever batches run, over the write and the
  // change in memory: as record_set::put, the memory changes in the order of the writes.
  std::sort(sets.begin(), sets.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  for (record_set* set : sets) locks.emplace_back(set->mutex_);
  entries_.front().set->table_.put_all(puts);
  for (entry& e : entries_) e.set->records_[e.id] = std::move(e.record);
  entries_.clear();
}

bool record_set::erase(const std::string& id) {
  std::lock_guard lock(mutex_);
  if (!records_.erase(id)) return false;
  table_.erase(kind_, id);
  return true;
}

std::vector<value> record_set::all() const {
  std::lock_guard lock(mutex_);
  std::vector<value> out;
  out.reserve(records_.size());
  for (const auto& [id, record] : records_) out.push_back(record);
  return out;
}

std::vector<value> record_set::where(const std::function<bool(const value&)>& keep) const {
  std::lock_guard lock(mutex_);
  std::vector<value> out;
  for (const auto& [id, record] : records_)
    if (keep(record)) out.push_back(record);
  return out;
}

std::size_t record_set::size() const {
  std::lock_guard lock(mutex_);
  return records_.size();
}

void record_set::clear() {
  std::lock_guard lock(mutex_);
  table_.clear(kind_);
  records_.clear();
}

std::string now_iso() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lld+00:00", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(micros));
  return buf;
}

std::string uuid4() {
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   (std::uint64_t(std::random_device{}()) << 32)};
  unsigned char b[16];
  const std::uint64_t hi = rng(), lo = rng();
  std::memcpy(b, &hi, 8);
  std::memcpy(b + 8, &lo, 8);
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
  return format_uuid(b);
}

bool is_uuid(const std::string& text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return false;
    } else if (hex_digit(text[i]) < 0) {
      return false;
    }
  }
  return true;
}

std::string uuid5(const std::string& ns, const std::string& name) {
  unsigned char input[16];
  for (std::size_t i = 0, j = 0; i < ns.size() && j < 16; ++i) {
    if (ns[i] == '-') continue;
    input[j++] = static_cast<unsigned char>(hex_digit(ns[i]) * 16 + hex_digit(ns[i + 1]));
    ++i;
  }
  std::string data(reinterpret_cast<const char*>(input), 16);
  data += name;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha1(), nullptr);
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0f) | 0x50);
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3f) | 0x80);
  return format_uuid(digest);
}

namespace {

// Postgres's jsonb `have @> want`: an object contains each key of `want` with a value that
// contains its value; an array contains each element of `want` (in any order, as an element
// that contains it); anything else equals.
bool contains(const value& have, const value& want) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (const auto& [key, w] : want.as_object()) {
      const value* h = have.as_object().find(key);
      if (!h || !contains(*h, w)) return false;
    }
    return true;
  }
  if (want.is_list()) {
    if (!have.is_list()) return false;
    for (const value& w : want.as_list())
      if (std::none_of(have.as_list().begin(), have.as_list().end(),
                       [&](const value& h) { return contains(h, w); }))
        return false;
    return true;
  }
  return have == want;
}

}  // namespace

bool metadata_matches(const value& metadata, const value& filter) {
  if (!filter.is_object()) return true;
  return contains(metadata.is_object() ? metadata : value(object{}), filter);
}

}  // namespace superstep::server
