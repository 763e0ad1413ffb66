#pragma once

// The distances of the ANN index: 1 - a·b (cosine distance over normalized vectors, inner
// product otherwise) and the squared Euclidean distance, with the widest vector instructions
// the CPU has. The build targets plain x86-64, where hnswlib
// itself only uses SSE; the index spends most of its time here. Private to the storage library.

#include <cstddef>

namespace superstep::storage {

/// hnswlib's distance signature: two vectors of floats and a pointer to their dimension
/// (a std::size_t).
using ann_distance_fn = float (*)(const void* a, const void* b, const void* dims);

/// 1 - a·b with AVX-512, AVX2 and FMA, or plain code: the best this CPU supports, chosen
/// once. Any dimension; the vectors need no alignment.
ann_distance_fn inner_product_distance();

/// The instructions `inner_product_distance` and `l2_squared_distance` use here: "avx512",
/// "avx2" or "plain".
const char* inner_product_kernel();

/// |a - b|² with the same instructions as `inner_product_distance`. Any dimension; the
/// vectors need no alignment.
ann_distance_fn l2_squared_distance();

}  // namespace superstep::storage
