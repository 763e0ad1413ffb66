#pragma once

// Embedding functions for the store's semantic search (LangGraph's `embed` in an index
// configuration).

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "superstep/checkpoint/store.hpp"

namespace superstep::storage {

/// A deterministic, offline embedder for tests and for use without a model.
///
/// Each text is split into lowercase words (runs of ASCII letters and digits; other bytes
/// separate words). Each word and each character 3-gram of the word padded as "<word>" is
/// hashed (FNV-1a, 64 bits) into one of `dims` buckets, adding +1 or -1 by a bit of the hash.
/// The vector is then L2-normalized (a text without words gives the zero vector). Texts that
/// share words or word pieces get a high cosine similarity; the result is the same on every
/// platform and run. Throws `superstep::error` (invalid_argument) when `dims` is 0.
embed_fn make_hashing_embedder(std::size_t dims);

}  // namespace superstep::storage
