// The distance types of semantic search: their names and the exact scores both stores give.

#include <cmath>
#include <iterator>
#include <string>

#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"
#include "superstep/storage/store_support.hpp"

namespace superstep::storage {

namespace {

constexpr distance_type all_distance_types[] = {distance_type::cosine, distance_type::inner_product,
                                                distance_type::l2};

}  // namespace

const char* distance_type_name(distance_type d) noexcept {
  switch (d) {
    case distance_type::cosine: return "cosine";
    case distance_type::inner_product: return "inner_product";
    case distance_type::l2: return "l2";
  }
  return "unknown";
}

distance_type parse_distance_type(std::string_view name) {
  for (const auto d : all_distance_types)
    if (name == distance_type_name(d)) return d;
  std::string valid;
  constexpr std::size_t n = std::size(all_distance_types);
  for (std::size_t i = 0; i < n; ++i)
    valid += (i == 0       ? ""
              : i + 1 == n ? " or "
                           : ", ") +
             std::string(distance_type_name(all_distance_types[i]));
  throw error(error_code::invalid_argument,
              "unknown distance type \"" + std::string(name) + "\" (expected " + valid + ")");
}

namespace store_support {

double similarity(distance_type d, const std::vector<float>& a, const std::vector<float>& b) {
  switch (d) {
    case distance_type::cosine: return cosine(a, b);
    case distance_type::inner_product: {
      double dot = 0;
      for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) dot += double(a[i]) * b[i];
      return dot;
    }
    case distance_type::l2: {
      double sum = 0;
      for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double diff = double(a[i]) - b[i];
        sum += diff * diff;
      }
      return -std::sqrt(sum);
    }
  }
  return cosine(a, b);
}

std::optional<double> best_similarity(distance_type d, const std::vector<float>& query,
                                      const std::vector<std::vector<float>>& vectors) {
  std::optional<double> best;
  for (const auto& v : vectors) {
    const double s = similarity(d, query, v);
    if (!best || s > *best) best = s;
  }
  return best;
}

}  // namespace store_support

}  // namespace superstep::storage
