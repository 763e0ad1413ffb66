#include "ann_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <type_traits>
#include <unordered_map>

#include "ann_distance.hpp"
#include "ann_index_format.hpp"
#include "memory_file.hpp"
#include "superstep/core/error.hpp"

// hnswlib is header-only and not written for -Wall -Wextra -Wpedantic -Werror.
// hnswlib's SSE search prefetches the neighbour after the last one of a link list, reading 4
// bytes past the list's allocation (harmless, but AddressSanitizer stops on it): sanitizer
// builds use its plain loops instead.
#if defined(__SANITIZE_ADDRESS__) && !defined(NO_MANUAL_VECTORIZATION)
#define NO_MANUAL_VECTORIZATION
#endif
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wcast-function-type"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <hnswlib/hnswlib.h>
#pragma GCC diagnostic pop

namespace superstep::storage {

namespace {

constexpr std::size_t initial_capacity = 1024;

// The distance of an index_config::distance with ann_distance.cpp's kernels: 1 - a·b (on
// normalized vectors for cosine) or |a - b|² for l2.
class distance_space final : public hnswlib::SpaceInterface<float> {
 public:
  distance_space(std::size_t dims, distance_type d)
      : dims_(dims),
        distance_(d == distance_type::l2 ? l2_squared_distance() : inner_product_distance()) {}
  std::size_t get_data_size() override { return dims_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return &dims_; }

 private:
  std::size_t dims_;
  ann_distance_fn distance_;
};

// A vector as the graph holds it: normalized for cosine, so that inner product is cosine
// similarity; as given for the other distances.
std::vector<float> prepared(const std::vector<float>& v, distance_type d) {
  std::vector<float> out(v);
  if (d != distance_type::cosine) return out;
  double norm = 0;
  for (float x : v) norm += double(x) * x;
  if (norm > 0) {
    const float scale = static_cast<float>(1 / std::sqrt(norm));
    for (float& x : out) x *= scale;
  }
  return out;
}

// The score of a point at hnswlib distance `d` (see distance_type).
float score_of(float d, distance_type type) {
  return type == distance_type::l2 ? -std::sqrt(std::max(d, 0.0f)) : 1.0f - d;
}

}  // namespace

struct ann_index::impl {
  std::size_t dims;
  distance_type distance;
  distance_space space;
  std::size_t m, ef_construction, ef_search;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  mutable std::shared_mutex mutex;
  // label -> item id ("" for a free label), item id -> its labels, labels to reuse.
  std::vector<std::string> owner;
  std::unordered_map<std::string, std::vector<hnswlib::labeltype>> labels;
  std::vector<hnswlib::labeltype> free;
  // Equal vectors share one point of the graph: HNSW links a point to its nearest ones, so
  // many copies of one vector (items with the same text) would fill each other's link lists
  // and cut off the points near them, which searches then never reach. The label holding the
  // point is the carrier; the other labels of that vector are its sharers and have no live
  // point. carrier_of[label] is the label itself for a carrier, its carrier for a sharer,
  // no_label for a free label; carriers are found by the hash of their vector.
  static constexpr hnswlib::labeltype no_label = ~hnswlib::labeltype(0);
  std::vector<hnswlib::labeltype> carrier_of;
  std::unordered_map<hnswlib::labeltype, std::vector<hnswlib::labeltype>> sharers;
  std::unordered_multimap<std::uint64_t, hnswlib::labeltype> carriers_by_hash;

  explicit impl(const index_config& c)
      : dims(c.dims),
        distance(c.distance),
        space(c.dims, c.distance),
        m(c.ann_m),
        ef_construction(c.ann_ef_construction),
        ef_search(c.ann_ef_search),
        graph(std::make_unique<hnswlib::HierarchicalNSW<float>>(&space, initial_capacity, m,
                                                                ef_construction)) {
    graph->setEf(ef_search);
  }

  std::uint64_t hash_of(const float* v) const {
    std::uint64_t h = 0xcbf29ce484222325ull;
    const auto* bytes = reinterpret_cast<const unsigned char*>(v);
    for (std::size_t i = 0; i < dims * sizeof(float); ++i) h = (h ^ bytes[i]) * 0x100000001b3ull;
    return h;
  }

  // The vector of carrier `label`'s point, as the graph stores it.
  const float* point_of(hnswlib::labeltype label) const {
    return reinterpret_cast<const float*>(
        graph->getDataByInternalId(graph->label_lookup_.at(label)));
  }

  // The carrier of normalized vector `v` (with hash `h`), if one holds it.
  std::optional<hnswlib::labeltype> find_carrier(const std::vector<float>& v,
                                                 std::uint64_t h) const {
    const auto [begin, end] = carriers_by_hash.equal_range(h);
    for (auto c = begin; c != end; ++c)
      if (std::memcmp(point_of(c->second), v.data(), dims * sizeof(float)) == 0) return c->second;
    return std::nullopt;
  }

  void forget_carrier(std::uint64_t h, hnswlib::labeltype label) {
    const auto [begin, end] = carriers_by_hash.equal_range(h);
    for (auto c = begin; c != end; ++c)
      if (c->second == label) {
        carriers_by_hash.erase(c);
        return;
      }
  }

  // Makes `label` a sharer of `carrier`'s point.
  void share(hnswlib::labeltype label, hnswlib::labeltype carrier) {
    carrier_of[label] = carrier;
    sharers[carrier].push_back(label);
  }

  // Frees `label` (its point, if any, is deleted or never was).
  void release(hnswlib::labeltype label) {
    owner[label].clear();
    carrier_of[label] = no_label;
    free.push_back(label);
  }

  // Takes carrier `label`'s point away: a sharer, if any, carries the vector from now on.
  void retire_carrier(hnswlib::labeltype label) {
    const std::vector<float> v(point_of(label), point_of(label) + dims);
    const std::uint64_t h = hash_of(v.data());
    const auto found = sharers.find(label);
    if (found == sharers.end() || found->second.empty()) {
      if (found != sharers.end()) sharers.erase(found);
      forget_carrier(h, label);
      graph->markDelete(label);
      return;
    }
    std::vector<hnswlib::labeltype> rest = std::move(found->second);
    sharers.erase(found);
    const auto heir = rest.back();
    rest.pop_back();
    // The heir's point first (new, or its deleted one revived), so a failure changes nothing.
    graph->addPoint(v.data(), heir);
    graph->markDelete(label);
    forget_carrier(h, label);
    carriers_by_hash.emplace(h, heir);
    carrier_of[heir] = heir;
    for (const auto s : rest) carrier_of[s] = heir;
    if (!rest.empty()) sharers[heir] = std::move(rest);
  }

  void drop(const std::string& id) {
    const auto found = labels.find(id);
    if (found == labels.end()) return;
    for (const auto label : found->second) {
      const auto carrier = carrier_of[label];
      if (carrier == label) {
        retire_carrier(label);
      } else {
        auto& mine = sharers[carrier];
        std::erase(mine, label);
        if (mine.empty()) sharers.erase(carrier);
      }
      release(label);
    }
    labels.erase(found);
  }

  // A label for a new point of `id`: a deleted point's (addPoint then unmarks it and moves it
  // to the new vector), else the next unused one, for which the graph may have to grow.
  hnswlib::labeltype take_label(const std::string& id) {
    hnswlib::labeltype label;
    if (!free.empty()) {
      label = free.back();
      free.pop_back();
    } else {
      label = owner.size();
      owner.emplace_back();
      carrier_of.push_back(no_label);
      if (owner.size() > graph->max_elements_)
        graph->resizeIndex(std::max({initial_capacity, 2 * graph->max_elements_, owner.size()}));
    }
    owner[label] = id;
    labels[id].push_back(label);
    return label;
  }

  // Gives back `label` when adding its point failed: the graph never had it (a reused label
  // still has its deleted point, which stays deleted), so it becomes free again. Returns
  // whether it did (false: the point is there).
  bool release_if_missing(hnswlib::labeltype label) {
    const auto point = graph->label_lookup_.find(label);
    if (point != graph->label_lookup_.end() && !graph->isMarkedDeleted(point->second)) return false;
    auto& mine = labels[owner[label]];
    std::erase(mine, label);
    if (mine.empty()) labels.erase(owner[label]);
    release(label);
    return true;
  }

  // Gives back a sharer's label taken for a carrier that never got its point.
  void release_sharer(hnswlib::labeltype label) {
    auto& mine = labels[owner[label]];
    std::erase(mine, label);
    if (mine.empty()) labels.erase(owner[label]);
    release(label);
  }

  void add(const std::string& id, const std::vector<float>& v) {
    const auto n = prepared(v, distance);
    const std::uint64_t h = hash_of(n.data());
    const auto label = take_label(id);
    if (const auto carrier = find_carrier(n, h)) return share(label, *carrier);
    try {
      graph->addPoint(n.data(), label);
    } catch (...) {
      release_if_missing(label);
      throw;
    }
    carrier_of[label] = label;
    carriers_by_hash.emplace(h, label);
  }

  // Adds points with labels never used before from up to `threads` threads: hnswlib's
  // insertion locks each node it links, so concurrent addPoint calls are its supported way of
  // building in parallel (reused labels are updates, which are not). The graph then depends on
  // how the threads interleave. Rethrows the first failure once every thread has stopped.
  void add_parallel(const std::vector<std::pair<hnswlib::labeltype, std::vector<float>>>& points,
                    std::size_t threads) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto work = [&] {
      for (std::size_t i = next++; i < points.size(); i = next++) {
        try {
          graph->addPoint(points[i].second.data(), points[i].first);
        } catch (...) {
          std::lock_guard lock(failure_mutex);
          if (!failure) failure = std::current_exception();
          next = points.size();
        }
      }
    };
    std::vector<std::thread> helpers;
    for (std::size_t t = 1; t < threads && t < points.size(); ++t) helpers.emplace_back(work);
    work();
    for (auto& h : helpers) h.join();
    if (failure) std::rethrow_exception(failure);
  }
};

ann_index::ann_index(const index_config& config) {
  if (config.dims == 0) throw error(error_code::invalid_argument, "ann_index: dims is 0");
  if (config.ann_m < 2 || config.ann_ef_construction == 0 || config.ann_ef_search == 0)
    throw error(error_code::invalid_argument,
                "index_config: ann_m must be at least 2, ann_ef_construction and ann_ef_search "
                "positive (have " +
                    std::to_string(config.ann_m) + ", " +
                    std::to_string(config.ann_ef_construction) + ", " +
                    std::to_string(config.ann_ef_search) + ")");
  impl_ = std::make_unique<impl>(config);
}

ann_index::~ann_index() = default;

void ann_index::set(const std::string& id, const std::vector<std::vector<float>>& vectors) {
  std::unique_lock lock(impl_->mutex);
  impl_->drop(id);
  for (const auto& v : vectors) impl_->add(id, v);
}

void ann_index::set_many(
    const std::vector<std::pair<std::string, std::vector<std::vector<float>>>>& items,
    std::size_t threads) {
  std::unique_lock lock(impl_->mutex);
  for (const auto& [id, _] : items) impl_->drop(id);
  // New carriers (normalized vectors) to add in parallel, and the sharers of each.
  std::vector<std::pair<hnswlib::labeltype, std::vector<float>>> fresh;
  std::vector<std::vector<hnswlib::labeltype>> fresh_sharers;
  std::unordered_multimap<std::uint64_t, std::size_t> fresh_by_hash;
  for (const auto& [id, vectors] : items)
    for (const auto& v : vectors) {
      if (!impl_->free.empty()) {
        impl_->add(id, v);
        continue;
      }
      auto n = prepared(v, impl_->distance);
      const std::uint64_t h = impl_->hash_of(n.data());
      if (const auto carrier = impl_->find_carrier(n, h)) {
        impl_->share(impl_->take_label(id), *carrier);
        continue;
      }
      std::optional<std::size_t> pending;
      const auto [begin, end] = fresh_by_hash.equal_range(h);
      for (auto f = begin; f != end && !pending; ++f)
        if (fresh[f->second].second == n) pending = f->second;
      const auto label = impl_->take_label(id);
      if (pending) {
        impl_->carrier_of[label] = fresh[*pending].first;
        fresh_sharers[*pending].push_back(label);
        continue;
      }
      fresh_by_hash.emplace(h, fresh.size());
      fresh.emplace_back(label, std::move(n));
      fresh_sharers.emplace_back();
    }
  std::exception_ptr failure;
  try {
    impl_->add_parallel(fresh, std::max<std::size_t>(threads, 1));
  } catch (...) {
    failure = std::current_exception();
  }
  for (std::size_t f = 0; f < fresh.size(); ++f) {
    const auto label = fresh[f].first;
    if (failure && impl_->release_if_missing(label)) {
      for (const auto s : fresh_sharers[f]) impl_->release_sharer(s);
      continue;
    }
    impl_->carrier_of[label] = label;
    impl_->carriers_by_hash.emplace(impl_->hash_of(fresh[f].second.data()), label);
    if (!fresh_sharers[f].empty()) impl_->sharers[label] = std::move(fresh_sharers[f]);
  }
  if (failure) std::rethrow_exception(failure);
}

void ann_index::remove(const std::string& id) {
  std::unique_lock lock(impl_->mutex);
  impl_->drop(id);
}

void ann_index::clear() {
  std::unique_lock lock(impl_->mutex);
  std::vector<std::string> ids;
  for (const auto& [id, _] : impl_->labels) ids.push_back(id);
  for (const auto& id : ids) impl_->drop(id);
}

std::vector<std::pair<std::string, float>> ann_index::search(const std::vector<float>& query,
                                                             std::size_t k) const {
  const auto point = prepared(query, impl_->distance);
  std::shared_lock lock(impl_->mutex);
  if (impl_->labels.empty() || k == 0) return {};
  auto queue = impl_->graph->searchKnn(point.data(), k);
  // The queue pops farthest first; keep each item's best (last popped) score.
  std::vector<std::pair<std::string, float>> out;
  std::unordered_map<std::string, std::size_t> seen;
  std::vector<std::pair<float, hnswlib::labeltype>> hits;
  while (!queue.empty()) {
    hits.emplace_back(score_of(queue.top().first, impl_->distance), queue.top().second);
    queue.pop();
  }
  const auto emit = [&](hnswlib::labeltype label, float similarity) {
    const auto& id = impl_->owner[label];
    if (id.empty() || seen.count(id)) return;
    seen.emplace(id, out.size());
    out.emplace_back(id, similarity);
  };
  for (auto h = hits.rbegin(); h != hits.rend(); ++h) {
    emit(h->second, h->first);
    // The items whose vector this point carries too.
    const auto shared = impl_->sharers.find(h->second);
    if (shared != impl_->sharers.end())
      for (const auto s : shared->second) emit(s, h->first);
  }
  return out;
}

std::size_t ann_index::items() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->labels.size();
}

void ann_index::set_ef_search(std::size_t ef) {
  if (ef == 0)
    throw error(error_code::invalid_argument, "ann_index: ann_ef_search must be positive");
  std::unique_lock lock(impl_->mutex);
  impl_->ef_search = ef;
  impl_->graph->setEf(ef);
}

namespace {

// The saved form: this header, the item and the carrier of every label, then hnswlib's own
// format (native byte order: the bytes stay on the machine that wrote them). Format 1 had no
// carriers (every label its own point): such a saved index is not loaded, and the store
// builds a new one. Format 3 adds the distance type after the format; format 2, from before
// distance types, is a cosine index.
constexpr std::uint64_t saved_format = 3, cosine_only_format = 2;

using ann_format::plausible_graph;
using ann_format::put_u64;
using ann_format::reader;
static_assert(std::is_same_v<ann_format::tableint, hnswlib::tableint> &&
              std::is_same_v<ann_format::linklistsizeint, hnswlib::linklistsizeint> &&
              std::is_same_v<ann_format::labeltype, hnswlib::labeltype>);

// Whether a loaded graph's links stay inside it and its points are the carriers of
// `carrier_of` (a carrier has a live point; a sharer or a free label a deleted one or none),
// and every sharer's carrier is a carrier.
bool consistent(const hnswlib::HierarchicalNSW<float>& g, const std::vector<std::string>& owner,
                const std::vector<hnswlib::labeltype>& carrier_of, hnswlib::labeltype no_label) {
  const std::size_t count = g.cur_element_count;
  if (g.label_lookup_.size() != count) return false;
  std::size_t carriers = 0;
  for (hnswlib::labeltype label = 0; label < owner.size(); ++label) {
    const auto c = carrier_of[label];
    if (owner[label].empty() != (c == no_label)) return false;
    if (c == no_label) continue;
    if (c >= owner.size() || carrier_of[c] != c) return false;
    carriers += c == label;
  }
  std::size_t live = 0;
  for (hnswlib::tableint i = 0; i < count; ++i) {
    const auto label = g.getExternalLabel(i);
    if (label >= owner.size() || (carrier_of[label] == label) == g.isMarkedDeleted(i)) return false;
    live += !g.isMarkedDeleted(i);
    for (int level = 0; level <= g.element_levels_[i]; ++level) {
      const auto* list = g.get_linklist_at_level(i, level);
      const std::size_t n = g.getListCount(const_cast<hnswlib::linklistsizeint*>(list));
      if (n > (level ? g.maxM_ : g.maxM0_)) return false;
      const auto* to = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      for (std::size_t j = 0; j < n; ++j)
        if (to[j] >= count) return false;
    }
  }
  return live == carriers;
}

}  // namespace

std::string ann_index::save() const {
  std::shared_lock lock(impl_->mutex);
  std::string out;
  put_u64(out, saved_format);
  put_u64(out, static_cast<std::uint64_t>(impl_->distance));
  put_u64(out, impl_->dims);
  put_u64(out, impl_->m);
  put_u64(out, impl_->ef_construction);
  put_u64(out, impl_->owner.size());
  for (std::size_t label = 0; label < impl_->owner.size(); ++label) {
    put_u64(out, impl_->owner[label].size());
    out += impl_->owner[label];
    put_u64(out, impl_->carrier_of[label]);
  }
  memory_file file;
  impl_->graph->saveIndex(file.path());
  const std::string graph = file.read();
  if (graph.empty()) throw error(error_code::storage_error, "ann_index: hnswlib saved nothing");
  return out + graph;
}

bool ann_index::load(std::string_view bytes) {
  reader r{bytes};
  const auto format = r.next<std::uint64_t>();
  const auto distance = format == saved_format         ? r.next<std::uint64_t>()
                        : format == cosine_only_format ? std::uint64_t(distance_type::cosine)
                                                       : ~std::uint64_t(0);
  if (distance != static_cast<std::uint64_t>(impl_->distance) ||
      r.next<std::uint64_t>() != impl_->dims || r.next<std::uint64_t>() != impl_->m ||
      r.next<std::uint64_t>() != impl_->ef_construction)
    return false;
  const auto count = r.next<std::uint64_t>();
  if (!r.ok || count > bytes.size() / sizeof(std::uint64_t)) return false;
  std::vector<std::string> owner(count);
  std::vector<hnswlib::labeltype> carrier_of(count);
  for (std::size_t label = 0; label < count && r.ok; ++label) {
    owner[label] = r.take(r.next<std::uint64_t>());
    carrier_of[label] = r.next<std::uint64_t>();
  }
  if (!r.ok || !plausible_graph(r.bytes, impl_->dims, impl_->m, impl_->ef_construction, count))
    return false;

  memory_file file;
  file.write(r.bytes);
  // The space-only constructor initializes nothing; loadIndex sets all but these.
  auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(&impl_->space);
  graph->num_deleted_ = 0;
  graph->metric_distance_computations = 0;
  graph->metric_hops = 0;
  graph->loadIndex(file.path(), &impl_->space, std::max<std::size_t>(initial_capacity, count));
  if (!consistent(*graph, owner, carrier_of, impl::no_label)) return false;

  std::unordered_map<std::string, std::vector<hnswlib::labeltype>> labels;
  std::vector<hnswlib::labeltype> free;
  std::unordered_map<hnswlib::labeltype, std::vector<hnswlib::labeltype>> sharers;
  for (hnswlib::labeltype label = 0; label < owner.size(); ++label) {
    if (owner[label].empty()) {
      free.push_back(label);
    } else {
      labels[owner[label]].push_back(label);
      if (carrier_of[label] != label) sharers[carrier_of[label]].push_back(label);
    }
  }
  std::unique_lock lock(impl_->mutex);
  graph->setEf(impl_->ef_search);
  impl_->graph = std::move(graph);
  impl_->owner = std::move(owner);
  impl_->labels = std::move(labels);
  impl_->free = std::move(free);
  impl_->carrier_of = std::move(carrier_of);
  impl_->sharers = std::move(sharers);
  impl_->carriers_by_hash.clear();
  for (hnswlib::labeltype label = 0; label < impl_->owner.size(); ++label)
    if (impl_->carrier_of[label] == label)
      impl_->carriers_by_hash.emplace(impl_->hash_of(impl_->point_of(label)), label);
  return true;
}

}  // namespace superstep::storage
