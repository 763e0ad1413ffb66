// The deterministic hashing embedder (see embedder.hpp).
#include <cmath>
#include <cstdint>
#include <string_view>

#include "superstep/core/error.hpp"
#include "superstep/storage/embedder.hpp"

namespace superstep::storage {

namespace {

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void add(std::vector<float>& vec, std::string_view feature) {
  const std::uint64_t h = fnv1a(feature);
  vec[h % vec.size()] += (h >> 63) ? -1.0f : 1.0f;
}

std::vector<float> embed_one(const std::string& text, std::size_t dims) {
  std::vector<float> vec(dims, 0.0f);
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    add(vec, word);
    const std::string padded = "<" + word + ">";
    for (std::size_t i = 0; i + 3 <= padded.size(); ++i)
      add(vec, std::string_view(padded).substr(i, 3));
    word.clear();
  };
  for (char c : text) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      word.push_back(c);
    } else if (c >= 'A' && c <= 'Z') {
      word.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      flush();
    }
  }
  flush();
  double norm = 0;
  for (float x : vec) norm += double(x) * x;
  if (norm > 0) {
    const double scale = 1.0 / std::sqrt(norm);
    for (float& x : vec) x = static_cast<float>(x * scale);
  }
  return vec;
}

}  // namespace

embed_fn make_hashing_embedder(std::size_t dims) {
  if (dims == 0)
    throw error(error_code::invalid_argument, "make_hashing_embedder: dims must be positive");
  return [dims](const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out;
    out.reserve(texts.size());
    for (const auto& text : texts) out.push_back(embed_one(text, dims));
    return out;
  };
}

}  // namespace superstep::storage
