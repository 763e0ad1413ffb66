#include "ann_index.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "ann_distance.hpp"
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
  std::size_t m, ef_construction, ef_search;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;
  mutable std::shared_mutex mutex;
  // label -> item id ("" for a free label), item id -> its labels, labels to reuse.
  std::vector<std::string> owner;
  std::unordered_map<std::string, std::vector<hnswlib::labeltype>> labels;
  std::vector<hnswlib::labeltype> free;

  explicit impl(const index_config& c)
      : dims(c.dims),
        space(c.dims),
        m(c.ann_m),
        ef_construction(c.ann_ef_construction),
        ef_search(c.ann_ef_search),
        graph(std::make_unique<hnswlib::HierarchicalNSW<float>>(&space, initial_capacity, m,
                                                                ef_construction)) {
    graph->setEf(ef_search);
  }

  void drop(const std::string& id) {
    const auto found = labels.find(id);
    if (found == labels.end()) return;
    for (const auto label : found->second) {
      graph->markDelete(label);
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
      if (owner.size() > graph->max_elements_)
        graph->resizeIndex(std::max({initial_capacity, 2 * graph->max_elements_, owner.size()}));
    }
    owner[label] = id;
    labels[id].push_back(label);
    return label;
  }

  // Gives back `label` when adding its point failed: the graph never had it (a reused label
  // still has its deleted point, which stays deleted), so it becomes free again.
  void release_if_missing(hnswlib::labeltype label) {
    const auto point = graph->label_lookup_.find(label);
    if (point != graph->label_lookup_.end() && !graph->isMarkedDeleted(point->second)) return;
    auto& mine = labels[owner[label]];
    std::erase(mine, label);
    if (mine.empty()) labels.erase(owner[label]);
    owner[label].clear();
    free.push_back(label);
  }

  void add(const std::string& id, const std::vector<float>& v) {
    const auto label = take_label(id);
    try {
      graph->addPoint(normalized(v).data(), label);
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
          graph->addPoint(normalized(*points[i].second).data(), points[i].first);
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
  auto queue = impl_->graph->searchKnn(point.data(), k);
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
  impl_->ef_search = ef;
  impl_->graph->setEf(ef);
}

namespace {

// The saved form: this header, the item of every label, then hnswlib's own format (native
// byte order: the bytes stay on the machine that wrote them).
constexpr std::uint64_t saved_format = 1;

void put_u64(std::string& out, std::uint64_t x) {
  out.append(reinterpret_cast<const char*>(&x), sizeof x);
}

// Reads plain values off the front of `bytes`; any read past the end makes `ok` false.
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

// Whether `blob` is hnswlib 0.6's saved form of a graph over `labels` labels with these
// parameters and a consistent layout: checked before hnswlib reads it, since hnswlib trusts it
// (a wrong size or offset would make it read out of bounds).
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
  const auto entry_point = r.next<hnswlib::tableint>();
  const auto max_m = r.next<std::size_t>();
  const auto max_m0 = r.next<std::size_t>();
  const auto saved_m = r.next<std::size_t>();
  r.next<double>();  // the level multiplier
  const auto saved_ef = r.next<std::size_t>();
  const std::size_t links0 = max_m0 * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  const std::size_t links = max_m * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  if (!r.ok || offset_level0 != 0 || saved_m != m || max_m != m || max_m0 != 2 * m ||
      saved_ef != std::max(ef_construction, m) || data_offset != links0 ||
      label_offset != links0 + dims * sizeof(float) ||
      per_element != label_offset + sizeof(hnswlib::labeltype) || count > labels ||
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

// Whether a loaded graph's links stay inside it and its points are the live labels of `owner`
// (a label with an item has a live point, a free label a deleted one or none).
bool consistent(const hnswlib::HierarchicalNSW<float>& g, const std::vector<std::string>& owner) {
  const std::size_t count = g.cur_element_count;
  if (g.label_lookup_.size() != count) return false;
  std::size_t live = 0;
  for (hnswlib::tableint i = 0; i < count; ++i) {
    const auto label = g.getExternalLabel(i);
    if (label >= owner.size() || owner[label].empty() != g.isMarkedDeleted(i)) return false;
    live += !owner[label].empty();
    for (int level = 0; level <= g.element_levels_[i]; ++level) {
      const auto* list = g.get_linklist_at_level(i, level);
      const std::size_t n = g.getListCount(const_cast<hnswlib::linklistsizeint*>(list));
      if (n > (level ? g.maxM_ : g.maxM0_)) return false;
      const auto* to = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      for (std::size_t j = 0; j < n; ++j)
        if (to[j] >= count) return false;
    }
  }
  return live == std::size_t(std::count_if(owner.begin(), owner.end(),
                                           [](const std::string& id) { return !id.empty(); }));
}

}  // namespace

std::string ann_index::save() const {
  std::shared_lock lock(impl_->mutex);
  std::string out;
  put_u64(out, saved_format);
  put_u64(out, impl_->dims);
  put_u64(out, impl_->m);
  put_u64(out, impl_->ef_construction);
  put_u64(out, impl_->owner.size());
  for (const auto& id : impl_->owner) {
    put_u64(out, id.size());
    out += id;
  }
  memory_file file;
  impl_->graph->saveIndex(file.path());
  const std::string graph = file.read();
  if (graph.empty()) throw error(error_code::storage_error, "ann_index: hnswlib saved nothing");
  return out + graph;
}

bool ann_index::load(std::string_view bytes) {
  reader r{bytes};
  if (r.next<std::uint64_t>() != saved_format || r.next<std::uint64_t>() != impl_->dims ||
      r.next<std::uint64_t>() != impl_->m || r.next<std::uint64_t>() != impl_->ef_construction)
    return false;
  const auto count = r.next<std::uint64_t>();
  if (!r.ok || count > bytes.size() / sizeof(std::uint64_t)) return false;
  std::vector<std::string> owner(count);
  for (auto& id : owner) id = r.take(r.next<std::uint64_t>());
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
  if (!consistent(*graph, owner)) return false;

  std::unordered_map<std::string, std::vector<hnswlib::labeltype>> labels;
  std::vector<hnswlib::labeltype> free;
  for (hnswlib::labeltype label = 0; label < owner.size(); ++label) {
    if (owner[label].empty()) {
      free.push_back(label);
    } else {
      labels[owner[label]].push_back(label);
    }
  }
  std::unique_lock lock(impl_->mutex);
  graph->setEf(impl_->ef_search);
  impl_->graph = std::move(graph);
  impl_->owner = std::move(owner);
  impl_->labels = std::move(labels);
  impl_->free = std::move(free);
  return true;
}

}  // namespace superstep::storage
