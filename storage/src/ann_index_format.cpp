#include "ann_index_format.hpp"

#include <algorithm>

namespace superstep::storage::ann_format {

void put_u64(std::string& out, std::uint64_t x) {
  out.append(reinterpret_cast<const char*>(&x), sizeof x);
}

bool plausible_graph(std::string_view blob, std::size_t dims, std::size_t m,
                     std::size_t ef_construction, std::size_t labels) {
  reader r{blob};
  const auto offset_level0 = r.next<std::size_t>();
  r.next<std::size_t>();  // the saved capacity, replaced when loading
  const auto count = r.next<std::size_t>();
  const auto per_element = r.next<std::size_t>();
  const auto label_offset = r.next<std::size_t>();
  const auto data_offset = r.next<std::size_t>();
  const auto max_level = r.next<int>();
  const auto entry_point = r.next<ann_format::tableint>();
  const auto max_m = r.next<std::size_t>();
  const auto max_m0 = r.next<std::size_t>();
  const auto saved_m = r.next<std::size_t>();
  r.next<double>();  // the level multiplier
  const auto saved_ef = r.next<std::size_t>();
  const std::size_t links0 =
      max_m0 * sizeof(ann_format::tableint) + sizeof(ann_format::linklistsizeint);
  const std::size_t links =
      max_m * sizeof(ann_format::tableint) + sizeof(ann_format::linklistsizeint);
  if (!r.ok || offset_level0 != 0 || saved_m != m || max_m != m || max_m0 != 2 * m ||
      saved_ef != std::max(ef_construction, m) || data_offset != links0 ||
      label_offset != links0 + dims * sizeof(float) ||
      per_element != label_offset + sizeof(ann_format::labeltype) || count > labels ||
      max_level < -1 || max_level > 64 || (count > 0 && entry_point >= count) ||
      r.bytes.size() / per_element < count)
    return false;
  r.take(count * per_element);
  for (std::size_t i = 0; i < count && r.ok; ++i) {
    const auto size = r.next<unsigned int>();
    if (size % links != 0 || size / links > std::size_t(std::max(max_level, 0))) return false;
    r.take(size);
  }
  return r.ok && r.bytes.empty();
}

}  // namespace superstep::storage::ann_format
