// The datasets of superstep_store_bench's semantic search (see store_datasets.hpp).
#include "store_datasets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <unordered_set>

namespace superstep::bench {

namespace {

// A dataset whose texts are "v<i>" and "q<j>", embedded by looking the vectors up.
dataset lookup_dataset(std::string name, std::string description, vectors items, vectors queries) {
  dataset d;
  d.name = std::move(name);
  d.description = std::move(description);
  for (std::size_t i = 0; i < items.size(); ++i) d.item_texts.push_back("v" + std::to_string(i));
  for (std::size_t j = 0; j < queries.size(); ++j) d.query_texts.push_back("q" + std::to_string(j));
  d.item_vectors = std::make_shared<const vectors>(std::move(items));
  d.query_vectors = std::make_shared<const vectors>(std::move(queries));
  d.embed = [items = d.item_vectors,
             queries = d.query_vectors](const std::vector<std::string>& ts) {
    vectors out;
    for (const auto& t : ts) {
      const std::size_t i = std::stoul(t.substr(1));
      out.push_back(t[0] == 'v' ? items->at(i) : queries->at(i));
    }
    return out;
  };
  return d;
}

// `k` random orthonormal vectors of `dims` components (Gram-Schmidt on normal vectors): the
// columns of a `dims` x `k` basis, one per row.
vectors orthonormal_basis(std::size_t k, std::size_t dims, std::mt19937_64& gen) {
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> basis;
  while (basis.size() < k) {
    std::vector<double> v(dims);
    for (double& x : v) x = normal(gen);
    for (const auto& b : basis) {
      double dot = 0;
      for (std::size_t d = 0; d < dims; ++d) dot += v[d] * b[d];
      for (std::size_t d = 0; d < dims; ++d) v[d] -= dot * b[d];
    }
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm < 1e-6) continue;
    for (double& x : v) x /= norm;
    basis.push_back(std::move(v));
  }
  vectors out;
  for (const auto& b : basis) out.emplace_back(b.begin(), b.end());
  return out;
}

// Draws from a Zipf distribution over ranks 0..n-1 (weight 1 / (rank + 1)^s).
class zipf {
 public:
  zipf(std::size_t n, double s) {
    double total = 0;
    for (std::size_t r = 0; r < n; ++r) cdf_.push_back(total += 1 / std::pow(double(r + 1), s));
    for (double& c : cdf_) c /= total;
  }
  std::size_t operator()(std::mt19937_64& gen) {
    const double u = std::uniform_real_distribution<double>(0, 1)(gen);
    const auto at = std::lower_bound(cdf_.begin(), cdf_.end(), u);
    return std::min<std::size_t>(at - cdf_.begin(), cdf_.size() - 1);
  }

 private:
  std::vector<double> cdf_;
};

// `n` distinct pronounceable made-up words of 1 to 3 syllables.
std::vector<std::string> vocabulary(std::size_t n, std::mt19937_64& gen) {
  static const std::string consonants = "bcdfghjklmnprstvwz", vowels = "aeiou";
  std::uniform_int_distribution<std::size_t> c(0, consonants.size() - 1), v(0, vowels.size() - 1),
      syllables(1, 3), coin(0, 3);
  std::unordered_set<std::string> seen;
  std::vector<std::string> words;
  while (words.size() < n) {
    std::string w;
    for (std::size_t s = syllables(gen); s > 0; --s) {
      w += consonants[c(gen)];
      w += vowels[v(gen)];
      if (coin(gen) == 0) w += consonants[c(gen)];
    }
    if (seen.insert(w).second) words.push_back(std::move(w));
  }
  return words;
}

}  // namespace

dataset uniform_dataset(const dataset_options& o) {
  std::mt19937_64 gen(7);
  std::normal_distribution<float> normal;
  const auto make = [&](std::size_t n) {
    vectors out(n, std::vector<float>(o.dims));
    for (auto& v : out)
      for (float& x : v) x = normal(gen);
    return out;
  };
  auto items = make(o.items);
  auto queries = make(o.queries);
  return lookup_dataset("uniform", "i.i.d. normal components (directions uniform on the sphere)",
                        std::move(items), std::move(queries));
}

dataset clustered_dataset(const dataset_options& o) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal;
  const std::size_t r = std::min(o.latent_dims, o.dims);
  const vectors basis = orthonormal_basis(r, o.dims, gen);
  std::vector<std::vector<double>> centres(o.clusters, std::vector<double>(r));
  for (auto& c : centres)
    for (double& x : c) x = normal(gen);
  std::uniform_int_distribution<std::size_t> pick(0, o.clusters - 1);
  const auto make = [&](std::size_t n) {
    vectors out(n, std::vector<float>(o.dims));
    std::vector<double> latent(r), point(o.dims);
    for (auto& v : out) {
      const auto& c = centres[pick(gen)];
      for (std::size_t k = 0; k < r; ++k) latent[k] = c[k] + o.spread * normal(gen);
      for (std::size_t d = 0; d < o.dims; ++d) point[d] = o.noise * normal(gen);
      for (std::size_t k = 0; k < r; ++k)
        for (std::size_t d = 0; d < o.dims; ++d) point[d] += latent[k] * basis[k][d];
      std::copy(point.begin(), point.end(), v.begin());
    }
    return out;
  };
  auto items = make(o.items);
  auto queries = make(o.queries);
  char description[160];
  std::snprintf(description, sizeof description,
                "%zu Gaussian clusters in a %zu-d subspace rotated into %zu-d, spread %.2f, "
                "noise %.3f",
                o.clusters, r, o.dims, o.spread, o.noise);
  return lookup_dataset("clustered", description, std::move(items), std::move(queries));
}

dataset text_dataset(const dataset_options& o) {
  std::mt19937_64 gen(13);
  const auto words = vocabulary(20000, gen);
  constexpr std::size_t topic_words = 40;
  std::vector<std::vector<std::size_t>> topics(o.topics);
  std::uniform_int_distribution<std::size_t> any_word(0, words.size() - 1),
      any_topic(0, o.topics - 1), length(8, 24), in_topic(0, topic_words - 1);
  for (auto& t : topics)
    for (std::size_t i = 0; i < topic_words; ++i) t.push_back(any_word(gen));
  zipf background(words.size(), 1.07);
  std::bernoulli_distribution topical(0.4);
  const auto sentence = [&] {
    const auto& topic = topics[any_topic(gen)];
    std::string s;
    for (std::size_t n = length(gen); n > 0; --n) {
      if (!s.empty()) s += ' ';
      s += words[topical(gen) ? topic[in_topic(gen)] : background(gen)];
    }
    return s;
  };
  dataset d;
  d.name = "text";
  d.description = std::to_string(o.topics) +
                  " topics of generated sentences, the hashing embedder (words + 3-grams)";
  std::unordered_set<std::string> stored;
  while (d.item_texts.size() < o.items) {
    d.item_texts.push_back(sentence());
    stored.insert(d.item_texts.back());
  }
  while (d.query_texts.size() < o.queries)
    if (auto q = sentence(); !stored.count(q)) d.query_texts.push_back(std::move(q));
  d.embed = storage::make_hashing_embedder(o.dims);
  d.item_vectors = std::make_shared<const vectors>(d.embed(d.item_texts));
  d.query_vectors = std::make_shared<const vectors>(d.embed(d.query_texts));
  return d;
}

dataset make_dataset(const std::string& name, const dataset_options& o) {
  if (name == "uniform") return uniform_dataset(o);
  if (name == "clustered") return clustered_dataset(o);
  if (name == "text") return text_dataset(o);
  throw std::invalid_argument("unknown dataset " + name + " (uniform, clustered or text)");
}

}  // namespace superstep::bench
