#include "ann_distance.hpp"

// GCC 12's AVX-512 intrinsics start some results from a deliberately undefined register, which
// its -Wuninitialized (-Wmaybe-uninitialized in sanitizer builds) reports when they are inlined
// here (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace superstep::storage {

namespace {

// Eight running sums, so the compiler may keep them in two SSE registers.
float dot_plain(const float* a, const float* b, std::size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t l = 0; l < 8; ++l) acc[l] += a[i + l] * b[i + l];
  float sum = 0;
  for (; i < n; ++i) sum += a[i] * b[i];
  for (float x : acc) sum += x;
  return sum;
}

// The sum of the eight lanes.
__attribute__((target("avx2"))) float sum_lanes(__m256 s) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  h = _mm_add_ss(h, _mm_movehdup_ps(h));
  return _mm_cvtss_f32(h);
}

__attribute__((target("avx2,fma"))) float dot_avx2(const float* a, const float* b, std::size_t n) {
  // Four independent sums hide the latency of the fused multiply-adds.
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(b + i + 16), s2);
    s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(b + i + 24), s3);
  }
  for (; i + 8 <= n; i += 8)
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  float sum = sum_lanes(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((target("avx512f"))) float dot_avx512(const float* a, const float* b, std::size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  if (i + 16 <= n) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    i += 16;
  }
  if (i < n) {
    // The last 1-15 components, without reading past the vectors.
    const __mmask16 rest = static_cast<__mmask16>((1u << (n - i)) - 1);
    s1 =
        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(rest, a + i), _mm512_maskz_loadu_ps(rest, b + i), s1);
  }
  // Not _mm512_reduce_add_ps: GCC 12 warns inside it (an undefined register it starts from).
  const __m512 s = _mm512_add_ps(s0, s1);
  const __m512 halves = _mm512_add_ps(s, _mm512_shuffle_f32x4(s, s, 0x4e));  // 256-bit swap
  return sum_lanes(_mm512_castps512_ps256(halves));
}

// The same loops as the dot products above, over squared differences.
float l2_plain(const float* a, const float* b, std::size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t l = 0; l < 8; ++l) {
      const float d = a[i + l] - b[i + l];
      acc[l] += d * d;
    }
  float sum = 0;
  for (; i < n; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  for (float x : acc) sum += x;
  return sum;
}

// acc + (a - b)² over eight lanes.
__attribute__((target("avx2,fma"))) __m256 add_squared_difference(const float* a, const float* b,
                                                                  __m256 acc) {
  const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(a), _mm256_loadu_ps(b));
  return _mm256_fmadd_ps(d, d, acc);
}

__attribute__((target("avx2,fma"))) float l2_avx2(const float* a, const float* b, std::size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
         s3 = _mm256_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = add_squared_difference(a + i, b + i, s0);
    s1 = add_squared_difference(a + i + 8, b + i + 8, s1);
    s2 = add_squared_difference(a + i + 16, b + i + 16, s2);
    s3 = add_squared_difference(a + i + 24, b + i + 24, s3);
  }
  for (; i + 8 <= n; i += 8) s0 = add_squared_difference(a + i, b + i, s0);
  float sum = sum_lanes(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

__attribute__((target("avx512f"))) float l2_avx512(const float* a, const float* b, std::size_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16));
    s0 = _mm512_fmadd_ps(d0, d0, s0);
    s1 = _mm512_fmadd_ps(d1, d1, s1);
  }
  if (i + 16 <= n) {
    const __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i));
    s0 = _mm512_fmadd_ps(d, d, s0);
    i += 16;
  }
  if (i < n) {
    const __mmask16 rest = static_cast<__mmask16>((1u << (n - i)) - 1);
    const __m512 d =
        _mm512_sub_ps(_mm512_maskz_loadu_ps(rest, a + i), _mm512_maskz_loadu_ps(rest, b + i));
    s1 = _mm512_fmadd_ps(d, d, s1);
  }
  const __m512 s = _mm512_add_ps(s0, s1);
  const __m512 halves = _mm512_add_ps(s, _mm512_shuffle_f32x4(s, s, 0x4e));
  return sum_lanes(_mm512_castps512_ps256(halves));
}

std::size_t dims_of(const void* dims) { return *static_cast<const std::size_t*>(dims); }

float distance_plain(const void* a, const void* b, const void* dims) {
  return 1.0f -
         dot_plain(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

__attribute__((target("avx2,fma"))) float distance_avx2(const void* a, const void* b,
                                                        const void* dims) {
  return 1.0f - dot_avx2(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

__attribute__((target("avx512f"))) float distance_avx512(const void* a, const void* b,
                                                         const void* dims) {
  return 1.0f -
         dot_avx512(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

float l2_distance_plain(const void* a, const void* b, const void* dims) {
  return l2_plain(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

__attribute__((target("avx2,fma"))) float l2_distance_avx2(const void* a, const void* b,
                                                           const void* dims) {
  return l2_avx2(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

__attribute__((target("avx512f"))) float l2_distance_avx512(const void* a, const void* b,
                                                            const void* dims) {
  return l2_avx512(static_cast<const float*>(a), static_cast<const float*>(b), dims_of(dims));
}

struct kernel {
  ann_distance_fn distance, l2;
  const char* name;
};

kernel best_kernel() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {distance_avx512, l2_distance_avx512, "avx512"};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {distance_avx2, l2_distance_avx2, "avx2"};
  return {distance_plain, l2_distance_plain, "plain"};
}

const kernel& chosen() {
  static const kernel k = best_kernel();
  return k;
}

}  // namespace

ann_distance_fn inner_product_distance() { return chosen().distance; }

const char* inner_product_kernel() { return chosen().name; }

ann_distance_fn l2_squared_distance() { return chosen().l2; }

}  // namespace superstep::storage
