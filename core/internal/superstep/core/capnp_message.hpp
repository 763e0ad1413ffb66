#pragma once

// Cap'n Proto messages to and from byte strings (RocksDB records, serialized values, frames
// between processes). Include only where Cap'n Proto is used.

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <kj/io.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "superstep/core/error.hpp"

namespace superstep::capnp_io {

/// A message builder whose slack stays small for big messages. Cap'n Proto's default makes
/// each new segment as large as the message so far, zeroed: a 200 MB message may hold 200 MB
/// more that it never uses but that was touched (resident). Here segments double from
/// `first_words` up to 8 MB, then grow by an eighth of the message so far: at most ~12 % (or 8
/// MB) unused, in a few dozen segments even for gigabytes.
class bounded_message_builder final : public capnp::MessageBuilder {
 public:
  explicit bounded_message_builder(unsigned first_words = 1024) : next_(first_words) {}
  /// A builder whose first segment is `scratch`: zeroed words the caller lends (and reuses for
  /// the next message), which it zeroes again, as far as it used them, when destroyed. A small
  /// message then costs no allocation.
  explicit bounded_message_builder(kj::ArrayPtr<capnp::word> scratch)
      : next_(static_cast<unsigned>(scratch.size())), scratch_(scratch) {}
  bounded_message_builder(const bounded_message_builder&) = delete;
  bounded_message_builder& operator=(const bounded_message_builder&) = delete;
  ~bounded_message_builder() noexcept(false) override {
    if (scratch_used_) {
      auto segments = getSegmentsForOutput();
      if (segments.size() > 0)
        std::fill(scratch_.begin(), scratch_.begin() + segments[0].size(), capnp::word{});
    }
    for (void* s : segments_) std::free(s);
  }

  kj::ArrayPtr<capnp::word> allocateSegment(unsigned minimum_size) override {
    constexpr std::size_t doubling_limit = std::size_t{1} << 20;  // words: 8 MB
    if (!scratch_used_ && scratch_.size() >= minimum_size && scratch_.size() > 0) {
      scratch_used_ = true;
      total_ += scratch_.size();
      return scratch_;
    }
    const std::size_t size = std::max<std::size_t>(minimum_size, next_);
    void* memory = std::calloc(size, sizeof(capnp::word));  // builders need zeroed memory
    if (!memory) throw std::bad_alloc();
    segments_.push_back(memory);
    total_ += size;
    next_ = std::min<std::size_t>(
        std::max<std::size_t>(total_ <= doubling_limit ? total_ : total_ / 8, next_),
        std::size_t{1} << 28);
    return kj::ArrayPtr<capnp::word>(static_cast<capnp::word*>(memory), size);
  }

 private:
  std::size_t next_;
  std::size_t total_ = 0;
  std::vector<void*> segments_;
  kj::ArrayPtr<capnp::word> scratch_;
  bool scratch_used_ = false;
};

/// Room for `parts` parts of a whole written a part at a time, from the size of the first:
/// each later part is given an eighth more, so that a buffer reserved once rarely grows (by
/// doubling, which would copy what it holds and hold it twice on the way).
inline std::size_t room_for_parts(std::size_t first_part, std::size_t parts) {
  return parts == 0 ? 0 : first_part + first_part / 8 * 9 * (parts - 1);
}

/// A stream that appends what is written to a string.
class string_output final : public kj::OutputStream {
 public:
  explicit string_output(std::string& out) : out_(out) {}
  void write(const void* buffer, size_t size) override {
    out_.append(static_cast<const char*>(buffer), size);
  }

 private:
  std::string& out_;
};

/// The message of `builder` as bytes (segment table, then segments), written in one pass.
inline std::string message_bytes(capnp::MessageBuilder& builder) {
  auto segments = builder.getSegmentsForOutput();
  std::string out;
  out.reserve(capnp::computeSerializedSizeInWords(segments) * sizeof(capnp::word));
  string_output stream(out);
  capnp::writeMessage(stream, segments);
  return out;
}

/// The first bytes of a packed message (Cap'n Proto's packing: zero bytes, most of a message's
/// pointers and small numbers, squeezed out). As a flat message's segment table they would
/// count 2^32 segments, which no flat message has, so readers tell the two apart.
inline constexpr std::string_view packed_magic{"\xff\xff\xff\xffpack", 8};

/// Messages of this many bytes or more are written packed by `message_bytes_for_size`.
inline constexpr std::size_t pack_from_bytes = 16 << 10;

/// The message of `builder` packed, after `packed_magic`: often a third of the flat size.
inline std::string packed_message_bytes(capnp::MessageBuilder& builder) {
  std::string out(packed_magic);
  string_output stream(out);
  capnp::writePackedMessage(stream, builder);
  return out;
}

/// Flat when small (cheapest to write and read), packed from `pack_from` bytes on.
inline std::string message_bytes_for_size(capnp::MessageBuilder& builder,
                                          std::size_t pack_from = pack_from_bytes) {
  const auto words = capnp::computeSerializedSizeInWords(builder.getSegmentsForOutput());
  return words * sizeof(capnp::word) >= pack_from ? packed_message_bytes(builder)
                                                  : message_bytes(builder);
}

/// Reads one message from bytes of any alignment. FlatArrayMessageReader wants 8-byte aligned
/// words; bytes that are not aligned (a std::string's SSO buffer, a RocksDB PinnableSlice) are
/// copied into a word array first.
///
/// Bytes that are not a message throw: `superstep::error` (`code`, storage_error unless given)
/// for a length that is not a positive number of words or for bytes after the message,
/// `kj::Exception` for a bad segment table and, lazily while the caller walks the message, for bad
/// pointers, bounds or nesting. Callers wrap the whole read-and-walk.
class message_reader {
 public:
  message_reader(std::string_view bytes, capnp::ReaderOptions options,
                 error_code code = error_code::storage_error) {
    if (bytes.substr(0, packed_magic.size()) == packed_magic) {
      bytes.remove_prefix(packed_magic.size());
      // Unpacked, a message may be much larger than its bytes; the traversal limit bounds what
      // a reader allocates for it (16 bytes per packed byte: real data packs to about a third).
      const std::uint64_t limit = 2 * static_cast<std::uint64_t>(bytes.size()) + 64;
      if (options.traversalLimitInWords < limit) options.traversalLimitInWords = limit;
      input_.emplace(kj::arrayPtr(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()));
      packed_.emplace(*input_, options);
      reader_ = &*packed_;
      // Segments after the first are read lazily: read them all now.
      for (unsigned i = 1; i <= 512 && packed_->getSegment(i).begin() != nullptr; ++i) {
      }
      if (input_->tryGetReadBuffer().size() != 0)
        throw error(code, std::to_string(input_->tryGetReadBuffer().size()) +
                              " bytes follow the packed message");
      return;
    }
    if (bytes.empty() || bytes.size() % sizeof(capnp::word) != 0)
      throw error(code,
                  std::to_string(bytes.size()) + " bytes is not a whole number of 8-byte words");
    const std::size_t words = bytes.size() / sizeof(capnp::word);
    const auto* data = reinterpret_cast<const capnp::word*>(bytes.data());
    if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(capnp::word) != 0) {
      copy_ = kj::heapArray<capnp::word>(words);
      std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(copy_.begin()));
      data = copy_.begin();
    }
    // A message is read once; the traversal limit only has to stop amplification.
    const std::uint64_t limit = 2 * static_cast<std::uint64_t>(words);
    if (options.traversalLimitInWords < limit) options.traversalLimitInWords = limit;
    flat_.emplace(kj::arrayPtr(data, words), options);
    reader_ = &*flat_;
    if (flat_->getEnd() != data + words)
      throw error(code, std::to_string((data + words - flat_->getEnd()) * sizeof(capnp::word)) +
                            " bytes follow the message");
  }

  template <class T>
  typename T::Reader root() {
    return reader_->getRoot<T>();
  }

 private:
  kj::Array<capnp::word> copy_;
  std::optional<capnp::FlatArrayMessageReader> flat_;
  std::optional<kj::ArrayInputStream> input_;
  std::optional<capnp::PackedMessageReader> packed_;
  capnp::MessageReader* reader_ = nullptr;
};

/// A std::string as Text; it may hold NULs (Text needs only the NUL after its end, which a
/// std::string has).
inline capnp::Text::Reader text(const std::string& s) { return {s.data(), s.size()}; }

inline std::string text_of(capnp::Text::Reader t) { return std::string(t.begin(), t.size()); }

inline std::string data_of(capnp::Data::Reader d) {
  return std::string(reinterpret_cast<const char*>(d.begin()), d.size());
}

inline std::string_view data_view(capnp::Data::Reader d) {
  return std::string_view(reinterpret_cast<const char*>(d.begin()), d.size());
}

inline kj::ArrayPtr<const kj::byte> data_ptr(std::string_view s) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}

}  // namespace superstep::capnp_io
