#pragma once

// Keys of the RocksDB saver's column families, built so that RocksDB's bytewise order is the
// order the saver lists things in and every (thread), (thread, namespace) and (thread,
// namespace, checkpoint) is one contiguous key range:
//
//   checkpoints  S(thread) S(ns) checkpoint_id
//   writes       S(thread) S(ns) S(checkpoint_id) S(task_id) I(index)
//   blobs        S(thread) S(ns) S(channel) U(version) [d|c|p|p U32(part)]
//   runs         'r' S(run_id) S(thread) S(ns) checkpoint_id   a checkpoint of the run
//                't' S(thread) S(run_id)                       the thread has one of the run
//
// S(x) is x with each NUL written as 00 FF, then the terminator 00 01: any bytes are allowed,
// no S(x) is a prefix of another, and S(a) < S(b) exactly when a < b. U is a big-endian u64
// and I a big-endian i32 with its sign bit flipped, so negative (special) write indices sort
// first, as in memory_saver. The checkpoint id comes last and raw in `checkpoints`, so a range
// ends at "prefix + id" for an exclusive `before`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace superstep::storage::keys {

/// Ends the key of a blob that holds a list delta (checkpoint.capnp, ListDelta) rather than a
/// whole value; a version has one or the other.
inline constexpr char delta_suffix = 'd';

/// Ends the key of an empty blob that marks a version at which the channel was cleared: the
/// version is taken (no branch may store a value under it), though it has no value.
inline constexpr char cleared_suffix = 'c';

/// Ends the key of the header of a list stored in parts (a list too big to write as one
/// value): its length and number of parts. Part k's key is the header's key and a big-endian
/// u32 k; each part is a list of consecutive elements, as the serializer writes a value.
inline constexpr char parts_suffix = 'p';

inline void append_string(std::string& key, std::string_view part) {
  for (char c : part) {
    key.push_back(c);
    if (c == '\0') key.push_back('\xff');
  }
  key.push_back('\0');
  key.push_back('\x01');
}

/// Appends an unsigned integer of type T, big-endian.
template <class T>
void append_big_endian(std::string& key, T v) {
  for (int shift = 8 * (static_cast<int>(sizeof(T)) - 1); shift >= 0; shift -= 8)
    key.push_back(static_cast<char>(v >> shift));
}

inline void append_u64(std::string& key, std::uint64_t v) { append_big_endian(key, v); }

inline void append_u32(std::string& key, std::uint32_t v) { append_big_endian(key, v); }

inline void append_i32(std::string& key, std::int32_t v) {
  append_u32(key, static_cast<std::uint32_t>(v) ^ 0x80000000u);
}

/// S(a) S(b) ...
template <class... Parts>
std::string prefix(const Parts&... parts) {
  std::string key;
  (append_string(key, parts), ...);
  return key;
}

/// The first key after every key that starts with `p`, a prefix made by `prefix` (so ending
/// with the terminator 00 01).
inline std::string successor(std::string p) {
  p.back() = '\x02';
  return p;
}

/// Reads S(x) at `pos` of `key`, moving `pos` past it; nullopt when `key` has no well-formed
/// S(x) there.
inline std::optional<std::string> read_string(std::string_view key, std::size_t& pos) {
  std::string out;
  for (std::size_t i = pos; i < key.size(); ++i) {
    if (key[i] != '\0') {
      out.push_back(key[i]);
      continue;
    }
    if (i + 1 >= key.size()) return std::nullopt;
    if (key[i + 1] == '\x01') {
      pos = i + 2;
      return out;
    }
    if (key[i + 1] != '\xff') return std::nullopt;
    out.push_back('\0');
    ++i;
  }
  return std::nullopt;
}

/// Reads a big-endian unsigned integer of type T at `pos` of `key`, moving `pos` past it.
template <class T>
std::optional<T> read_big_endian(std::string_view key, std::size_t& pos) {
  if (key.size() < pos + sizeof(T)) return std::nullopt;
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v = (v << 8) | static_cast<unsigned char>(key[pos + i]);
  pos += sizeof(T);
  return v;
}

inline std::optional<std::uint32_t> read_u32(std::string_view key, std::size_t& pos) {
  return read_big_endian<std::uint32_t>(key, pos);
}

/// Reads U(v) at `pos`, moving `pos` past it.
inline std::optional<std::uint64_t> read_u64(std::string_view key, std::size_t& pos) {
  return read_big_endian<std::uint64_t>(key, pos);
}

/// Reads I(v) at `pos`, moving `pos` past it.
inline std::optional<std::int32_t> read_i32(std::string_view key, std::size_t& pos) {
  const auto u = read_big_endian<std::uint32_t>(key, pos);
  if (!u) return std::nullopt;
  return static_cast<std::int32_t>(*u ^ 0x80000000u);
}

/// 'r' S(run_id) S(thread): the run index entries of one run's checkpoints in one thread.
inline std::string run_in_thread(const std::string& run_id, const std::string& thread_id) {
  std::string key(1, 'r');
  append_string(key, run_id);
  append_string(key, thread_id);
  return key;
}

/// The run index entry of checkpoint (thread, ns, id) of run `run_id`.
inline std::string run_checkpoint(const std::string& run_id, const std::string& thread_id,
                                  const std::string& ns, const std::string& id) {
  std::string key = run_in_thread(run_id, thread_id);
  append_string(key, ns);
  key += id;
  return key;
}

/// 't' S(thread): the runs that have checkpoints in the thread.
inline std::string thread_runs(const std::string& thread_id) {
  std::string key(1, 't');
  append_string(key, thread_id);
  return key;
}

}  // namespace superstep::storage::keys
