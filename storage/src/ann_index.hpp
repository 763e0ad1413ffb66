#pragma once

// The approximate-nearest-neighbour index behind both stores' semantic search: an HNSW graph
// (hnswlib) over the items' vectors under the index's distance type (normalized for cosine,
// so inner product is cosine similarity). Private to the storage library; hnswlib stays in
// ann_index.cpp.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "superstep/checkpoint/store.hpp"

namespace superstep::storage {

/// Item identities → vectors, searchable by similarity. An item has one label per embedded
/// field; equal vectors share one point of the graph (many copies of one vector would
/// otherwise fill each other's links and cut off the points near them), and a search returns
/// every item of a point it finds. Replacing an item's vectors marks its old points deleted
/// (or hands a shared point to another of its items) and reuses their labels (and those of
/// removed items) for new points, so the graph does not grow with rewrites. The capacity
/// doubles as needed.
///
/// Thread-safe: searches share a lock, updates take it alone.
class ann_index {
 public:
  /// Throws invalid_argument unless `config` has dims and sane HNSW parameters.
  explicit ann_index(const index_config& config);
  ~ann_index();
  ann_index(const ann_index&) = delete;
  ann_index& operator=(const ann_index&) = delete;

  /// Makes `vectors` (each of the index's dims) the points of item `id`; empty removes it.
  void set(const std::string& id, const std::vector<std::vector<float>>& vectors);
  /// `set` for each of `items` (distinct ids), adding the new points from up to `threads`
  /// threads: how the stores build an index from many stored items. The graph depends on the
  /// threads' interleaving, so approximate answers may differ from a build by `set` (or with
  /// another number of threads), within the index's recall.
  void set_many(const std::vector<std::pair<std::string, std::vector<std::vector<float>>>>& items,
                std::size_t threads);
  /// Removes item `id`'s points; an unknown id is not an error.
  void remove(const std::string& id);
  /// Removes every item.
  void clear();

  /// The distinct items of the `k` points nearest to `query`, each with its best approximate
  /// score (the similarity of `index_config::distance`), best first: fewer than `k` when items have
  /// several points, more when points are shared by items with equal vectors.
  [[nodiscard]] std::vector<std::pair<std::string, float>> search(const std::vector<float>& query,
                                                                  std::size_t k) const;

  /// Items with at least one point.
  [[nodiscard]] std::size_t items() const;

  /// The index as bytes for `load`: its parameters, the item of every point and the graph.
  /// Takes the shared lock; throws storage_error when the graph cannot be written out.
  [[nodiscard]] std::string save() const;
  /// Replaces this index with one `save` wrote, if `bytes` are such an index with this one's
  /// distance, dims, ann_m and ann_ef_construction (this one's ef_search stays); false
  /// otherwise, and
  /// the index is unchanged. Throws storage_error when the system fails (memory, memfd).
  [[nodiscard]] bool load(std::string_view bytes);

  /// Makes later searches keep `ef` candidates (`index_config::ann_ef_search`); throws
  /// invalid_argument when `ef` is 0.
  void set_ef_search(std::size_t ef);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Whether semantic search under `config` uses an ann_index.
inline bool uses_ann(const std::optional<index_config>& config) { return config && config->ann; }

/// How far the index's scores may be from exact scores (float rounding), with margin,
/// relative to the larger of 1 and the score's magnitude (inner products and l2 distances of
/// unnormalized vectors are not bounded by 1).
inline constexpr double ann_score_slack = 1e-4;

/// `ann_score_slack` for scores near `score`.
inline double ann_slack_at(double score) {
  return ann_score_slack * std::max(1.0, score < 0 ? -score : score);
}

/// The page of a semantic search found through `index`, or nullopt when the caller should
/// score every item exactly instead.
///
/// Asks the index for a few pages' worth of candidates (offset + limit, times 4, at least
/// 64); `accept(id)` returns the candidate's exact result (with `.score` and the tie order
/// `before(a, b)`) or nullopt when the prefix, filter or expiry rejects it or it is gone. When
/// too few pass, asks again for as many more as the rejection rate suggests, twice at most.
/// Gives up (nullopt) when a pass would ask for half the index or more: exact search is then
/// about as cheap and never misses.
///
/// Candidates are accepted best first, and only while they can still enter the page: the
/// index's score of a candidate is its exact score but for float rounding, so once
/// offset + limit are accepted, a candidate more than `ann_slack_at` below the last of them
/// cannot displace it. (An item scores as the best of its vectors; when the index missed that
/// one, the item may be left out, as if the index had missed it altogether.) Accepting reads
/// an item and scores its vectors, which costs more than the graph search in a database.
template <class Result, class Accept, class Before>
std::optional<std::vector<Result>> ann_page(const ann_index& index, const std::vector<float>& query,
                                            const search_options& o, Accept accept, Before before) {
  std::vector<Result> page;
  const std::size_t want = o.offset + o.limit;
  if (want == 0 || o.limit == 0) return page;
  const std::size_t items = index.items();
  std::size_t k = std::max<std::size_t>(want * 4, 64);
  for (int pass = 0; pass < 3; ++pass) {
    if (2 * k >= items) return std::nullopt;
    const auto hits = index.search(query, k);
    std::vector<Result> accepted;
    // The best `want` exact scores so far, lowest on top.
    std::priority_queue<double, std::vector<double>, std::greater<>> best;
    for (const auto& [id, approximate] : hits) {
      if (best.size() == want && approximate < best.top() - ann_slack_at(best.top())) break;
      auto r = accept(id);
      if (!r) continue;
      best.push(r->score);
      if (best.size() > want) best.pop();
      accepted.push_back(std::move(*r));
    }
    if (accepted.size() >= want) {
      std::sort(accepted.begin(), accepted.end(), before);
      for (std::size_t i = o.offset; i < accepted.size() && page.size() < o.limit; ++i)
        page.push_back(std::move(accepted[i]));
      return page;
    }
    // Scale k by how many more are needed at this pass's rate of acceptance, with margin.
    const std::size_t rate_k = accepted.empty() ? 16 * k : (2 * k * want) / accepted.size();
    k = std::max(2 * k, rate_k);
  }
  return std::nullopt;
}

}  // namespace superstep::storage
