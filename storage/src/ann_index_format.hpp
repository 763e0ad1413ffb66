// The byte layout of a saved ann_index (ann_index::save): plain values written and read in
// native byte order, and the check of hnswlib's own saved graph before hnswlib reads it. Free of
// hnswlib's headers, which only ann_index.cpp may include (they define functions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace superstep::storage::ann_format {

// hnswlib 0.6's types in its saved form (ann_index.cpp checks that they are hnswlib's).
using tableint = unsigned int;
using linklistsizeint = unsigned int;
using labeltype = std::size_t;

/// Appends `x` in native byte order.
void put_u64(std::string& out, std::uint64_t x);

/// Reads plain values off the front of `bytes`; any read past the end makes `ok` false.
struct reader {
  std::string_view bytes;
  bool ok = true;

  template <class T>
  T next() {
    T x{};
    if (bytes.size() < sizeof x) {
      ok = false;
      return x;
    }
    std::memcpy(&x, bytes.data(), sizeof x);
    bytes.remove_prefix(sizeof x);
    return x;
  }
  std::string_view take(std::size_t n) {
    if (bytes.size() < n) {
      ok = false;
      return {};
    }
    const auto out = bytes.substr(0, n);
    bytes.remove_prefix(n);
    return out;
  }
};

/// Whether `blob` is hnswlib 0.6's saved form of a graph over `labels` labels with these
/// parameters and a consistent layout: checked before hnswlib reads it, since hnswlib trusts it
/// (a wrong size or offset would make it read out of bounds).
bool plausible_graph(std::string_view blob, std::size_t dims, std::size_t m,
                     std::size_t ef_construction, std::size_t labels);

}  // namespace superstep::storage::ann_format
