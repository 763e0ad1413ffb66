#pragma once

// What the ported store suites (store_*_test.cpp) share: LangGraph's fake embedder, a clock
// the TTL tests move by hand, and short ways to read results.

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "conformance.hpp"
#include "superstep/checkpoint/store.hpp"
#include "superstep/core/error.hpp"

namespace superstep::conformance {

using storage::item;
using storage::namespace_path;

/// The unicode code points of UTF-8 `text` (a bad byte counts as itself).
inline std::vector<std::uint32_t> code_points(const std::string& text) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t n = b < 0x80         ? 1
                          : (b >> 5) == 6  ? 2
                          : (b >> 4) == 14 ? 3
                          : (b >> 3) == 30 ? 4
                                           : 1;
    std::uint32_t cp = n == 1 ? b : b & (0x7f >> n);
    for (std::size_t k = 1; k < n && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3f);
    out.push_back(cp);
    i += n;
  }
  return out;
}

/// LangGraph's test embedder (`CharacterEmbeddings`, tests/embed_test_utils.py): a text is the
/// frequency-weighted sum of one random gaussian projection per character (mean 0, standard
/// deviation 1/sqrt(dims)), L2-normalized; the empty text is the zero vector. The projections
/// come from a generator seeded by the character (LangGraph draws them from one seeded
/// generator in the order characters first appear), so a vector does not depend on what was
/// embedded before. Deterministic on every platform.
///
/// Copies share an identity (`same_as`), as Python's references to one embedder object do:
/// LangGraph's tests check that a store's `index_config["embed"]` is the embedder it was given.
class character_embeddings {
 public:
  explicit character_embeddings(std::size_t dims = 500) : dims_(dims) {}

  std::size_t dims() const { return dims_; }

  /// Whether `other` is a copy of this embedder (Python's `==` on the object, which is `is`).
  bool same_as(const character_embeddings& other) const { return identity_ == other.identity_; }

  /// Embeds each text (an `embed_fn`).
  std::vector<std::vector<float>> operator()(const std::vector<std::string>& texts) const {
    std::vector<std::vector<float>> out;
    for (const auto& t : texts) out.push_back(embed_one(t));
    return out;
  }

  std::vector<float> embed_one(const std::string& text) const {
    std::map<std::uint32_t, std::size_t> counts;
    std::size_t total = 0;
    for (auto cp : code_points(text)) {
      ++counts[cp];
      ++total;
    }
    std::vector<double> sum(dims_, 0.0);
    if (total == 0) return std::vector<float>(dims_, 0.0f);
    for (const auto& [cp, count] : counts) {
      const double weight = double(count) / double(total);
      const auto proj = projection(cp);
      for (std::size_t i = 0; i < dims_; ++i) sum[i] += weight * proj[i];
    }
    double norm = 0;
    for (double x : sum) norm += x * x;
    norm = std::sqrt(norm);
    std::vector<float> out(dims_);
    for (std::size_t i = 0; i < dims_; ++i)
      out[i] = static_cast<float>(norm > 0 ? sum[i] / norm : sum[i]);
    return out;
  }

  /// The `embed_fn` of an index: a copy of this embedder, so `embed.target<character_embeddings>()`
  /// finds it.
  storage::embed_fn fn() const { return *this; }

 private:
  // splitmix64, then Box-Muller: gaussians from a generator seeded by the character.
  std::vector<double> projection(std::uint32_t cp) const {
    std::uint64_t state = 42u * 0x100000001b3ull + cp;
    const auto next = [&state] {
      std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      return (double(z >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
    };
    const double sd = 1.0 / std::sqrt(double(dims_));
    std::vector<double> out(dims_);
    for (std::size_t i = 0; i < dims_; i += 2) {
      const double r = std::sqrt(-2.0 * std::log(next())), t = 2.0 * M_PI * next();
      out[i] = r * std::cos(t) * sd;
      if (i + 1 < dims_) out[i + 1] = r * std::sin(t) * sd;
    }
    return out;
  }

  std::size_t dims_;
  std::shared_ptr<const int> identity_ = std::make_shared<const int>(0);
};

/// An index of `e` over `fields` (LangGraph's `index={"dims": 500, "embed": fake_embeddings,
/// "fields": fields}`), with `distance` (LangGraph's Postgres `"distance_type"`).
inline storage::index_config character_index(
    std::vector<std::string> fields = {"$"},
    storage::distance_type distance = storage::distance_type::cosine,
    const character_embeddings& e = character_embeddings(500)) {
  storage::index_config index;
  index.dims = e.dims();
  index.embed = e.fn();
  index.fields = std::move(fields);
  index.distance = distance;
  return index;
}

/// The distance types of LangGraph's Postgres vector tests ("l2", "inner_product", "cosine";
/// "hamming" only with "bit" vectors, which its tests do not run).
inline constexpr storage::distance_type postgres_distance_types[] = {
    storage::distance_type::l2, storage::distance_type::inner_product,
    storage::distance_type::cosine};

/// Whether `index` is an index of `e` (its embed function a copy of `e`) with e's dims.
inline bool indexes_with(const storage::index_config& index, const character_embeddings& e) {
  const auto* held = index.embed.target<character_embeddings>();
  return index.dims == e.dims() && held && held->same_as(e);
}

/// Cosine similarity, as LangGraph's tests compute it.
inline double cosine_similarity(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += double(a[i]) * b[i];
    na += double(a[i]) * a[i];
    nb += double(b[i]) * b[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0;
}

/// Inner product, as LangGraph's tests compute it (`_inner_product`).
inline double inner_product(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) dot += double(a[i]) * b[i];
  return dot;
}

/// The Euclidean distance, negated, as LangGraph's tests compute it (`_neg_l2_distance`).
inline double neg_l2_distance(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return -std::sqrt(sum);
}

/// A clock the test moves (`ttl_config::clock`), starting at a fixed time.
struct manual_clock {
  std::shared_ptr<std::atomic<long long>> micros =
      std::make_shared<std::atomic<long long>>(1'767'225'600'000'000LL);  // 2026-01-01

  std::function<std::chrono::system_clock::time_point()> fn() const {
    return [m = micros] {
      return std::chrono::system_clock::time_point(std::chrono::microseconds(m->load()));
    };
  }
  void advance_seconds(double s) const { *micros += static_cast<long long>(s * 1e6); }
};

/// A TTL configuration on `clock` (LangGraph `TTLConfig`; minutes as LangGraph gives them).
inline storage::ttl_config ttl_on(const manual_clock& clock,
                                  std::optional<double> default_ttl_minutes = {},
                                  bool refresh_on_read = true) {
  storage::ttl_config t;
  t.default_ttl_minutes = default_ttl_minutes;
  t.refresh_on_read = refresh_on_read;
  t.clock = clock.fn();
  return t;
}

/// search(ns_prefix, query, filter, limit, offset) as LangGraph's keyword arguments.
struct search_args {
  namespace_path prefix;
  std::optional<std::string> query{};
  object filter{};
  std::size_t limit = 10, offset = 0;
  std::optional<bool> refresh_ttl{};
};

inline std::vector<item> search(storage::store& s, search_args a) {
  storage::search_options o;
  o.ns_prefix = std::move(a.prefix);
  o.query = std::move(a.query);
  o.filter = std::move(a.filter);
  o.limit = a.limit;
  o.offset = a.offset;
  o.refresh_ttl = a.refresh_ttl;
  return s.search(o);
}

/// list_namespaces(prefix, suffix, max_depth, limit, offset) as LangGraph's keyword arguments.
struct list_args {
  namespace_path prefix{}, suffix{};
  std::optional<std::size_t> max_depth{};
  std::size_t limit = 100, offset = 0;
};

inline std::vector<namespace_path> list_namespaces(storage::store& s, list_args a) {
  storage::list_namespaces_options o;
  o.prefix = std::move(a.prefix);
  o.suffix = std::move(a.suffix);
  o.max_depth = a.max_depth;
  o.limit = a.limit;
  o.offset = a.offset;
  return s.list_namespaces(o);
}

/// The keys of `items`, in order.
inline std::vector<std::string> keys_of(const std::vector<item>& items) {
  std::vector<std::string> keys;
  for (const auto& i : items) keys.push_back(i.key);
  return keys;
}

/// The namespaces of `items`, as a set.
inline std::set<namespace_path> namespaces_of(const std::vector<item>& items) {
  std::set<namespace_path> out;
  for (const auto& i : items) out.insert(i.ns);
  return out;
}

inline std::set<namespace_path> as_set(const std::vector<namespace_path>& v) {
  return {v.begin(), v.end()};
}

inline std::vector<namespace_path> sorted(std::vector<namespace_path> v) {
  std::sort(v.begin(), v.end());
  return v;
}

/// Whether `f` throws superstep::error with `code` and a message containing `needle`.
template <class F>
bool throws_naming(F&& f, error_code code, const std::string& needle) {
  try {
    f();
  } catch (const error& e) {
    BOOST_TEST_MESSAGE(e.what());
    return e.code() == code && std::string(e.what()).find(needle) != std::string::npos;
  }
  return false;
}

}  // namespace superstep::conformance
