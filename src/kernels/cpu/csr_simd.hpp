#pragma once
// Explicit AVX-512 row dot products for spkit's CSR kernel: a full-width gather per step and one
// masked step for the row's tail, so short rows (7, 27 entries) never fall into a scalar remainder
// loop (the compiler's `omp simd` version runs 16 elements per iteration, then up to 15 scalar ones).
// Column indices are 32-bit absolute or 16-bit relative to `base` (the row index).
// GCC 12's AVX-512 intrinsics start from an undefined vector and trip -Wmaybe-uninitialized in
// every caller (a known false positive); silence it for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "tuning.hpp"

namespace spkit::cpu {

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define SPKIT_CSR_AVX512 1

inline __m256i load_idx8(const std::int16_t* c) {
  return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(c)));
}
inline __m256i load_idx8(const std::int32_t* c) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c)); }
inline __m256i load_idx8(const std::int16_t* c, __mmask8 m) { return _mm256_cvtepi16_epi32(_mm_maskz_loadu_epi16(m, c)); }
inline __m256i load_idx8(const std::int32_t* c, __mmask8 m) { return _mm256_maskz_loadu_epi32(m, c); }
inline __m512i load_idx16(const std::int16_t* c) {
  return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(c)));
}
inline __m512i load_idx16(const std::int32_t* c) { return _mm512_loadu_si512(c); }
inline __m512i load_idx16(const std::int16_t* c, __mmask16 m) { return _mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m, c)); }
inline __m512i load_idx16(const std::int32_t* c, __mmask16 m) { return _mm512_maskz_loadu_epi32(m, c); }

// Rows of at most tuning::kCsrSpkitScalarRowMax entries run as this scalar loop.
template <class T, class Col>
inline T scalar_row_dot(const T* val, const Col* col, std::int64_t b, std::int64_t e, std::int32_t base, const T* x) {
  T sum = 0;
  for (std::int64_t k = b; k < e; ++k) sum += val[k] * x[base + col[k]];
  return sum;
}

template <class Col>
inline double simd_row_dot(const double* val, const Col* col, std::int64_t b, std::int64_t e, std::int32_t base,
                           const double* x) {
  if (e - b <= tuning::kCsrSpkitScalarRowMax) return scalar_row_dot(val, col, b, e, base, x);
  __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
  const __m256i vbase = _mm256_set1_epi32(base);
  std::int64_t k = b;
  for (; k + 16 <= e; k += 16) {  // two independent chains for long rows
    const __m256i i0 = _mm256_add_epi32(load_idx8(col + k), vbase);
    const __m256i i1 = _mm256_add_epi32(load_idx8(col + k + 8), vbase);
    acc0 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k), _mm512_i32gather_pd(i0, x, 8), acc0);
    acc1 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k + 8), _mm512_i32gather_pd(i1, x, 8), acc1);
  }
  if (k + 8 <= e) {
    const __m256i i0 = _mm256_add_epi32(load_idx8(col + k), vbase);
    acc0 = _mm512_fmadd_pd(_mm512_loadu_pd(val + k), _mm512_i32gather_pd(i0, x, 8), acc0);
    k += 8;
  }
  if (k < e) {
    const __mmask8 m = static_cast<__mmask8>((1u << (e - k)) - 1);
    const __m256i i0 = _mm256_add_epi32(load_idx8(col + k, m), vbase);
    const __m512d xv = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, i0, x, 8);
    acc1 = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, val + k), xv, acc1);
  }
  return _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1));
}

template <class Col>
inline float simd_row_dot(const float* val, const Col* col, std::int64_t b, std::int64_t e, std::int32_t base,
                          const float* x) {
  if (e - b <= tuning::kCsrSpkitScalarRowMax) return scalar_row_dot(val, col, b, e, base, x);
  __m512 acc0 = _mm512_setzero_ps();
  const __m512i vbase = _mm512_set1_epi32(base);
  std::int64_t k = b;
  for (; k + 16 <= e; k += 16) {
    const __m512i i0 = _mm512_add_epi32(load_idx16(col + k), vbase);
    acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(val + k), _mm512_i32gather_ps(i0, x, 4), acc0);
  }
  if (k < e) {
    const __mmask16 m = static_cast<__mmask16>((1u << (e - k)) - 1);
    const __m512i i0 = _mm512_add_epi32(load_idx16(col + k, m), vbase);
    const __m512 xv = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, i0, x, 4);
    acc0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, val + k), xv, acc0);
  }
  return _mm512_reduce_add_ps(acc0);
}
#endif

}  // namespace spkit::cpu
