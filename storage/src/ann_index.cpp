#include "ann_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "ann_distance.hpp"
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

// Inner product on normalized vectors (cosine distance), with ann_distance.cpp's kernels.
class inner_product_space final : public hnswlib::SpaceInterface<float> {
 public:
  explicit inner_product_space(std::size_t dims)
      : dims_(dims), distance_(inner_product_distance()) {}
  std::size_t get_data_size() override { return dims_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return distance_; }
  void* get_dist_func_param() override { return &dims_; }

 private:
  std::size_t dims_;
  ann_distance_fn distance_;
};

std::vector<float> normalized(const std::vector<float>& v) {
  double norm = 0;
  for (float x : v) norm += double(x) * x;
  std::vector<float> out(v);
  if (norm > 0) {
    const float scale = static_cast<float>(1 / std::sqrt(norm));
    for (float& x : out) x *= scale;
  }
  return out;
}

}  // namespace

struct ann_index::impl {
  std::size_t dims;
  inner_product_space space;
  hnswlib::HierarchicalNSW<float> graph;
  mutable std::shared_mutex mutex;
  // label -> item id ("" for a free label), item id -> its labels, labels to reuse.
  std::vector<std::string> owner;
  std::unordered_map<std::string, std::vector<hnswlib::labeltype>> labels;
  std::vector<hnswlib::labeltype> free;

  explicit impl(const index_config& c)
      : dims(c.dims),
        space(c.dims),
        graph(&space, initial_capacity, c.ann_m, c.ann_ef_construction) {
    graph.setEf(c.ann_ef_search);
  }

  void drop(const std::string& id) {
    const auto found = labels.find(id);
    if (found == labels.end()) return;
    for (const auto label : found->second) {
      graph.markDelete(label);
      owner[label].clear();
      free.push_back(label);
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
      if (owner.size() > graph.max_elements_)
        graph.resizeIndex(std::max({initial_capacity, 2 * graph.max_elements_, owner.size()}));
    }
    owner[label] = id;
    labels[id].push_back(label);
    return label;
  }

  // Gives back `label` when adding its point failed: the graph never had it (a reused label
  // still has its deleted point, which stays deleted), so it becomes free again.
  void release_if_missing(hnswlib::labeltype label) {
    const auto point = graph.label_lookup_.find(label);
    if (point != graph.label_lookup_.end() && !graph.isMarkedDeleted(point->second)) return;
    auto& mine = labels[owner[label]];
    std::erase(mine, label);
    if (mine.empty()) labels.erase(owner[label]);
    owner[label].clear();
    free.push_back(label);
  }

  void add(const std::string& id, const std::vector<float>& v) {
    const auto label = take_label(id);
    try {
      graph.addPoint(normalized(v).data(), label);
    } catch (...) {
      release_if_missing(label);
      throw;
    }
  }

  // Adds points with labels never used before from up to `threads` threads: hnswlib's
  // insertion locks each node it links, so concurrent addPoint calls are its supported way of
  // building in parallel (reused labels are updates, which are not). The graph then depends on
  // how the threads interleave. Rethrows the first failure once every thread has stopped.
  void add_parallel(
      const std::vector<std::pair<hnswlib::labeltype, const std::vector<float>*>>& points,
      std::size_t threads) {
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto work = [&] {
      for (std::size_t i = next++; i < points.size(); i = next++) {
        try {
          graph.addPoint(normalized(*points[i].second).data(), points[i].first);
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
  std::vector<std::pair<hnswlib::labeltype, const std::vector<float>*>> fresh;
  for (const auto& [id, vectors] : items)
    for (const auto& v : vectors) {
      if (impl_->free.empty()) {
        fresh.emplace_back(impl_->take_label(id), &v);
      } else {
        impl_->add(id, v);
      }
    }
  try {
    impl_->add_parallel(fresh, std::max<std::size_t>(threads, 1));
  } catch (...) {
    for (const auto& [label, _] : fresh) impl_->release_if_missing(label);
    throw;
  }
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
  const auto point = normalized(query);
  std::shared_lock lock(impl_->mutex);
  if (impl_->labels.empty() || k == 0) return {};
  auto queue = impl_->graph.searchKnn(point.data(), k);
  // The queue pops farthest first; keep each item's best (last popped) similarity.
  std::vector<std::pair<std::string, float>> out;
  std::unordered_map<std::string, std::size_t> seen;
  std::vector<std::pair<float, hnswlib::labeltype>> hits;
  while (!queue.empty()) {
    hits.emplace_back(1.0f - queue.top().first, queue.top().second);
    queue.pop();
  }
  for (auto h = hits.rbegin(); h != hits.rend(); ++h) {
    const auto& id = impl_->owner[h->second];
    if (id.empty() || seen.count(id)) continue;
    seen.emplace(id, out.size());
    out.emplace_back(id, h->first);
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
  impl_->graph.setEf(ef);
}

}  // namespace superstep::storage
