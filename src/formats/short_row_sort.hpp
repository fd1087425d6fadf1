#pragma once
// Sorting one CSR row by column (stably) and summing its duplicates: the inner step of the row-bucket
// sort (src/formats/row_buckets.cpp). Kept in a header so that it inlines into the bucket sort's loop.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

namespace spkit::formats_detail {

// Internal linkage, as when these lived in src/formats/csr.cpp: the bucket sort calls them directly (an
// inline function with external linkage is called through the PLT in a shared library wherever it is
// not inlined) and the inliner weighs them as local functions.
namespace {

// Sorts a row of 2..16 entries by column, stably, without data-dependent branches: each entry's place
// is the number of entries whose (column, position) key is smaller. The fixed-size compares vectorise;
// insertion sort mispredicts about once per entry on rows in random order (pass B of a 1-thread
// COO->CSR of 9 M shuffled entries: 139-143 ms with insertion sort, 105-116 ms with this). Key is
// int32_t when every column is below 2^27 (16 keys per vector compare: 4.7 against 6.4 ns per entry in
// a micro-benchmark), else int64_t.
// Returns whether the row has repeated columns.
template <class Key, class T>
bool rank_sort_short_row(std::int32_t* cols, T* vals, std::int64_t n) {
  constexpr int W = 16;
  Key key[W];
  T v[W];
  for (int i = 0; i < W; ++i) {
    // (column << 4 | position) stays below the padding key, Key's maximum.
    key[i] = i < n ? static_cast<Key>((static_cast<Key>(cols[i]) << 4) | i) : std::numeric_limits<Key>::max();
    v[i] = i < n ? vals[i] : T{};
  }
  std::int32_t sorted_cols[W];
  T sorted_vals[W];
  for (int i = 0; i < W; ++i) {
    int rank = 0;  // padding entries all rank n (ties among them count as not smaller): slots >= n
    for (int j = 0; j < W; ++j) rank += key[j] < key[i];
    sorted_cols[rank] = static_cast<std::int32_t>(key[i] >> 4);
    sorted_vals[rank] = v[i];
  }
  bool dup = false;
  cols[0] = sorted_cols[0];
  vals[0] = sorted_vals[0];
  for (std::int64_t k = 1; k < n; ++k) {
    cols[k] = sorted_cols[k];
    vals[k] = sorted_vals[k];
    dup = dup || sorted_cols[k] == sorted_cols[k - 1];
  }
  return dup;
}

#ifdef __AVX512F__
// rank_sort_short_row for fp64 values and columns below 2^27, in registers: the 16 keys (column << 4 |
// position, padding INT32_MAX) go through a bitonic network (10 stages of permute, min, max, blend), and
// the values follow their positions through two two-source permutes. The rank sort's scatter became
// vscatterdpd, which is microcoded on AMD Zen 4 (pass B's row sorts of 9 M shuffled entries: 60 ms).
// GCC 12 warns inside its own AVX-512 headers (the undefined upper halves of the casts and masked
// loads) about values that are never read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
inline bool network_sort_short_row(std::int32_t* cols, double* vals, std::int64_t n) {
  const __mmask16 live = static_cast<__mmask16>((1u << n) - 1);
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m512i key = _mm512_mask_or_epi32(_mm512_set1_epi32(std::numeric_limits<std::int32_t>::max()), live,
                                     _mm512_slli_epi32(_mm512_maskz_loadu_epi32(live, cols), 4), lane);
  // Stage (k, j): lane i meets lane i ^ j and keeps the smaller key when the pair's order (ascending
  // where i & k == 0) puts it first.
  auto stage = [&](int k, int j) {
    const __m512i partner = _mm512_permutexvar_epi32(_mm512_xor_si512(lane, _mm512_set1_epi32(j)), key);
    const __m512i lo = _mm512_min_epi32(key, partner), hi = _mm512_max_epi32(key, partner);
    const __mmask16 upper = _mm512_test_epi32_mask(lane, _mm512_set1_epi32(j));        // i & j != 0
    const __mmask16 descending = _mm512_test_epi32_mask(lane, _mm512_set1_epi32(k));   // i & k != 0
    key = _mm512_mask_blend_epi32(static_cast<__mmask16>(upper ^ descending), lo, hi);
  };
  for (int k = 2; k <= 16; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2) stage(k, j);
  const __m512i col = _mm512_srai_epi32(key, 4);
  const __m512i pos = _mm512_and_si512(key, _mm512_set1_epi32(15));
  const __m512d v_lo = _mm512_maskz_loadu_pd(static_cast<__mmask8>(live), vals);
  const __m512d v_hi = _mm512_maskz_loadu_pd(static_cast<__mmask8>(live >> 8), vals + 8);
  const __m512d out_lo = _mm512_permutex2var_pd(v_lo, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(pos)), v_hi);
  const __m512d out_hi = _mm512_permutex2var_pd(v_lo, _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(pos, 1)), v_hi);
  _mm512_mask_storeu_epi32(cols, live, col);
  _mm512_mask_storeu_pd(vals, static_cast<__mmask8>(live), out_lo);
  _mm512_mask_storeu_pd(vals + 8, static_cast<__mmask8>(live >> 8), out_hi);
  // A repeated column: lane i (1 <= i < n) equal to lane i - 1.
  const __m512i previous = _mm512_alignr_epi32(col, _mm512_setzero_si512(), 15);
  return _mm512_mask_cmpeq_epi32_mask(static_cast<__mmask16>(live & ~1u), col, previous) != 0;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

// Columns below this fit rank_sort_short_row's 32-bit keys.
constexpr std::int64_t kNarrowKeyColumns = std::int64_t{1} << 27;

// Sorts row [b, e) of (cols, vals) by column, stably (rank sort up to 16 entries, insertion sort up to
// 32, stable_sort on pairs beyond), then sums duplicates in input order when asked. Returns the new
// row length.
template <class T>
std::int64_t sort_and_merge_row(std::int32_t* cols, T* vals, std::int64_t b, std::int64_t e, bool sum_duplicates,
                                bool narrow_keys, std::vector<std::pair<std::int32_t, T>>& tmp) {
  const std::int64_t n = e - b;
  if (n <= 1) return n;
  bool dup = false;
  if (n <= 16) {
#ifdef __AVX512F__
    if constexpr (std::is_same_v<T, double>) {
      dup = narrow_keys ? network_sort_short_row(cols + b, vals + b, n) : rank_sort_short_row<std::int64_t>(cols + b, vals + b, n);
    } else
#endif
    dup = narrow_keys ? rank_sort_short_row<std::int32_t>(cols + b, vals + b, n)
                      : rank_sort_short_row<std::int64_t>(cols + b, vals + b, n);
  } else {
    bool sorted = true;
    for (std::int64_t k = b + 1; k < e; ++k) sorted = sorted && cols[k] >= cols[k - 1];
    if (!sorted && n <= 32) {
      for (std::int64_t k = b + 1; k < e; ++k) {
        const std::int32_t c = cols[k];
        const T v = vals[k];
        std::int64_t j = k;
        for (; j > b && cols[j - 1] > c; --j) {
          cols[j] = cols[j - 1];
          vals[j] = vals[j - 1];
        }
        cols[j] = c;
        vals[j] = v;
      }
    } else if (!sorted) {
      tmp.clear();
      for (std::int64_t k = b; k < e; ++k) tmp.emplace_back(cols[k], vals[k]);
      std::stable_sort(tmp.begin(), tmp.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
      for (std::int64_t k = b; k < e; ++k) {
        cols[k] = tmp[k - b].first;
        vals[k] = tmp[k - b].second;
      }
    }
    for (std::int64_t k = b + 1; k < e; ++k) dup = dup || cols[k] == cols[k - 1];
  }
  if (!dup || !sum_duplicates) return n;
  std::int64_t out = b;
  for (std::int64_t k = b + 1; k < e; ++k) {
    if (cols[k] == cols[out]) {
      vals[out] += vals[k];
    } else {
      ++out;
      cols[out] = cols[k];
      vals[out] = vals[k];
    }
  }
  return out - b + 1;
}

}  // namespace

}  // namespace spkit::formats_detail
