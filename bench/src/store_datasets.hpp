// The vector datasets of superstep_store_bench's semantic search: what the items and queries
// are, the embedder that turns their texts into vectors, and the vectors themselves (for the
// exact ground truth).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "superstep/storage/embedder.hpp"

namespace superstep::bench {

/// How to generate the datasets (the bench's command-line options).
struct dataset_options {
  std::size_t items = 100000, queries = 1000, dims = 384;
  /// clustered: cluster centres, the dimension of the subspace they and their points live
  /// in, the spread of a cluster's points around its centre (relative to the spread of the
  /// centres), and the isotropic noise added in all `dims` dimensions (relative to one
  /// latent coordinate).
  std::size_t clusters = 256, latent_dims = 32;
  double spread = 1.0, noise = 0.05;
  /// text: topics of the generated sentences.
  std::size_t topics = 300;
};

using vectors = std::vector<std::vector<float>>;

/// Items and queries: item i is stored as {"t": item_texts[i]}, a query searches for
/// query_texts[j]; `embed` maps those texts to `(*item_vectors)[i]` and `(*query_vectors)[j]`.
/// Queries are drawn from the items' distribution but are never copies of items.
struct dataset {
  std::string name, description;
  std::vector<std::string> item_texts, query_texts;
  std::shared_ptr<const vectors> item_vectors, query_vectors;
  storage::embed_fn embed;
};

/// "uniform": i.i.d. normal components, so directions uniform on the sphere. The hardest case
/// for any ANN index: every point's neighbours are barely nearer than any other point.
dataset uniform_dataset(const dataset_options& o);

/// "clustered": like sentence embeddings, low intrinsic dimension and clusters. `clusters`
/// centres c ~ N(0, I) in a `latent_dims`-dimensional space; a point picks a centre uniformly
/// and is U (c + spread z) + noise e, with z ~ N(0, I) latent, e ~ N(0, I) in `dims`
/// dimensions and U a random orthonormal `dims` x `latent_dims` basis (the subspace rotated
/// into `dims` dimensions). The index L2-normalizes it.
dataset clustered_dataset(const dataset_options& o);

/// "text": generated sentences embedded by the project's hashing embedder
/// (storage::make_hashing_embedder). `topics` topics of 40 words each over a vocabulary of
/// 20,000 pronounceable made-up words; a sentence of 8 to 24 words picks a topic, then each
/// word is one of the topic's (probability 0.4) or a background word (Zipf, s = 1.07).
dataset text_dataset(const dataset_options& o);

/// The dataset named `name` ("uniform", "clustered" or "text"); throws invalid_argument.
dataset make_dataset(const std::string& name, const dataset_options& o);

}  // namespace superstep::bench
