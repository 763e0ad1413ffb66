// A RocksDB saver's big lists in parts: a fan-out's 10^6 Sends in the tasks topic are about
// 100 MB encoded. Written whole, the encoding, the write batch holding a copy of it and then
// the memtable holding another were all in memory at once. In parts, each part is encoded
// (two at a time) and written to a table file, which is added to the database before the
// checkpoint that reads it (rocksdb_saver::impl::put). The header, which says how many parts
// there are, is written with the checkpoint: parts a crash left before it are never read, and
// parts written again at the same version (the step run again) replace them.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rocksdb_keys.hpp"
#include "rocksdb_saver_impl.hpp"
#include "superstep/core/error.hpp"
#include "superstep/core/two_threads.hpp"

namespace superstep::storage {

namespace {

// The header: the list's length, then its number of parts, as big-endian u64s.
std::string encode_header(std::uint64_t items, std::uint64_t parts) {
  std::string out;
  keys::append_u64(out, items);
  keys::append_u64(out, parts);
  return out;
}

}  // namespace

std::optional<rocksdb_saver::impl::parts_header> rocksdb_saver::impl::decode_parts_header(
    std::string_view bytes) {
  std::size_t pos = 0;
  const auto length = keys::read_u64(bytes, pos);
  const auto parts = length ? keys::read_u64(bytes, pos) : std::nullopt;
  if (!parts || pos != bytes.size()) return std::nullopt;
  return parts_header{*length, *parts};
}

namespace {

std::string part_key(const std::string& header_key, std::size_t k) {
  std::string key = header_key;
  keys::append_u32(key, static_cast<std::uint32_t>(k));
  return key;
}

}  // namespace

std::string rocksdb_saver::impl::write_parts(table_write& table, const std::string& key,
                                             const superstep::list& items,
                                             std::size_t& bytes) const {
  const std::size_t parts = (items.size() + part_items - 1) / part_items;
  const std::string header_key = key + keys::parts_suffix;
  bytes = 0;
  superstep::detail::make_in_order_on_two_threads(
      parts,
      [&](std::size_t k) {
        const auto first = items.begin() + static_cast<std::ptrdiff_t>(k * part_items);
        const auto last = k + 1 == parts ? items.end() : first + part_items;
        return serde->dumps(value(superstep::list(first, last)));
      },
      [&](std::size_t k, std::string part) {
        table.put(part_key(header_key, k), part);
        bytes += part.size();
      });
  return encode_header(items.size(), parts);
}

std::optional<value> rocksdb_saver::impl::read_parts(const rocksdb::ReadOptions& read,
                                                     const std::string& key) const {
  const std::string header_key = key + keys::parts_suffix;
  rocksdb::PinnableSlice header;
  auto s = db.db().Get(read, db.blobs, header_key, &header);
  if (s.IsNotFound()) return std::nullopt;
  check(s, "reading the header of a list in parts");
  const auto decoded = decode_parts_header(header.ToStringView());
  if (!decoded || decoded->parts > decoded->length || decoded->parts > UINT32_MAX ||
      (decoded->length > 0 && decoded->parts == 0))
    throw error(error_code::storage_error, "the header of a list in parts is damaged");
  const std::uint64_t length = decoded->length, parts = decoded->parts;
  // Its last part must be there before anything is sized from the header: a damaged one
  // may claim billions.
  if (parts > 0) {
    rocksdb::PinnableSlice last;
    auto found = db.db().Get(read, db.blobs, part_key(header_key, parts - 1), &last);
    if (found.IsNotFound())
      throw error(error_code::storage_error, "part " + std::to_string(parts - 1) + " of " +
                                                 std::to_string(parts) +
                                                 " of a list in parts is missing");
    check(found, "reading a part of a list in parts");
  }
  std::vector<std::string> keys_of(parts);
  for (std::size_t k = 0; k < parts; ++k) keys_of[k] = part_key(header_key, k);
  std::vector<rocksdb::Slice> slices(keys_of.begin(), keys_of.end());
  std::vector<rocksdb::PinnableSlice> bytes(slices.size());
  std::vector<rocksdb::Status> statuses(slices.size());
  if (!slices.empty())
    db.db().MultiGet(read, db.blobs, slices.size(), slices.data(), bytes.data(), statuses.data());
  superstep::list out;
  out.reserve(std::min<std::uint64_t>(length, parts * part_items));
  superstep::detail::make_in_order_on_two_threads(
      slices.size(),
      [&](std::size_t k) {
        if (statuses[k].IsNotFound())
          throw error(error_code::storage_error, "part " + std::to_string(k) + " of " +
                                                     std::to_string(parts) +
                                                     " of a list in parts is missing");
        check(statuses[k], "reading part " + std::to_string(k) + " of a list in parts");
        return serde->loads(bytes[k].ToStringView());
      },
      [&](std::size_t k, value part) {
        if (!part.is_list())
          throw error(error_code::storage_error,
                      "part " + std::to_string(k) + " of a list in parts is not a list");
        const superstep::list& l = part.as_list();
        if (out.size() + l.size() > length)
          throw error(error_code::storage_error,
                      "a list in parts holds more elements than its header says");
        out.insert(out.end(), l.begin(), l.end());
      });
  if (out.size() != length)
    throw error(error_code::storage_error, "a list in parts holds " + std::to_string(out.size()) +
                                               " of the " + std::to_string(length) +
                                               " elements its header says");
  return value(std::move(out));
}

}  // namespace superstep::storage
