#pragma once
// cuda.csr.binned, the dense window accumulator for rows too wide for a shared hash table (the hub rows
// of R-MAT and power-law graphs) and for rows whose columns fit one window (banded, stencil-like):
// row i's column range [first, last] is cut into windows of kWindowColumns columns, one warp per
// window, a presence bitmap and (numeric) a dense array of values in shared memory. Many warps share
// one long row, each owning its columns: no atomic adds, and every entry of C sums its products in the
// order of A's row, as in the hash bins.
//
// The warp walks A's row 32 entries at a time: each lane finds where its row of B enters and leaves
// the window (binary search on the sorted columns), then the warp takes the entries that hit the
// window in order, lanes striding over the hit segment.
#include <cstdint>

#include "spgemm/cuda/csr_binned_rows.cuh"

namespace spkit::cuda::binned {

constexpr int kWindowWarps = 2;
constexpr int kWindowWords = kWindowColumns / 32;

// First position in col[lo, hi) holding a column >= c (hi when none).
__device__ __forceinline__ std::int64_t lower_bound_col(const std::int32_t* col, std::int64_t lo, std::int64_t hi,
                                                        std::int64_t c) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (col[mid] < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Work item w is window w - window_offsets[r] of windowed row r.
// Symbolic: window_count[w] = the window's columns. Numeric: the window's entries written in column
// order at c_row_ptr[i] + (window_scan[w] - window_scan[first window of the row]).
template <class T, bool kNumeric>
__global__ void __launch_bounds__(kWindowWarps * 32)
    window_rows_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* window_offsets,
                       const std::int32_t* first_col, CsrDeviceView<T> a, CsrDeviceView<T> b,
                       std::int64_t* window_count, const std::int64_t* window_scan, const std::int64_t* c_row_ptr,
                       std::int32_t* c_col, T* c_val) {
  __shared__ unsigned sbits[kWindowWarps][kWindowWords];
  __shared__ T sacc[kNumeric ? kWindowWarps : 1][kNumeric ? kWindowColumns : 1];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned* bits = sbits[warp];
  T* acc = kNumeric ? sacc[warp] : nullptr;
  const std::int64_t items = window_offsets[n];
  for (std::int64_t w = blockIdx.x * static_cast<std::int64_t>(kWindowWarps) + warp; w < items;
       w += static_cast<std::int64_t>(gridDim.x) * kWindowWarps) {
    const std::int64_t r = segment_of(window_offsets, n, w);
    const std::int64_t i = rows[r];
    const std::int64_t c0 = first_col[i] + (w - window_offsets[r]) * kWindowColumns, c1 = c0 + kWindowColumns;
    for (int k = lane; k < kWindowWords; k += 32) bits[k] = 0;
    if constexpr (kNumeric)
      for (int k = lane; k < kWindowColumns; k += 32) acc[k] = T(0);
    __syncwarp();
    const std::int64_t ab = a.row_ptr[i], ae = a.row_ptr[i + 1];
    for (std::int64_t base = ab; base < ae; base += 32) {
      std::int64_t s = 0, e = 0;
      T av{};
      if (base + lane < ae) {
        const std::int32_t j = a.col_idx[base + lane];
        const std::int64_t bs = b.row_ptr[j], be = b.row_ptr[j + 1];
        if (be > bs && b.col_idx[bs] < c1 && b.col_idx[be - 1] >= c0) {
          s = b.col_idx[bs] >= c0 ? bs : lower_bound_col(b.col_idx, bs, be, c0);
          e = b.col_idx[be - 1] < c1 ? be : lower_bound_col(b.col_idx, s, be, c1);
          if constexpr (kNumeric) av = a.values[base + lane];
        }
      }
      unsigned hits = __ballot_sync(0xffffffffu, e > s);
      while (hits) {
        const int src = __ffs(hits) - 1;  // entries in the order of A's row
        hits &= hits - 1;
        const long long qs = __shfl_sync(0xffffffffu, static_cast<long long>(s), src);
        const long long qe = __shfl_sync(0xffffffffu, static_cast<long long>(e), src);
        const T v = __shfl_sync(0xffffffffu, av, src);
        for (long long q = qs + lane; q < qe; q += 32) {
          const int c = static_cast<int>(b.col_idx[q] - c0);
          atomicOr(&bits[c >> 5], 1u << (c & 31));
          if constexpr (kNumeric) acc[c] += v * b.values[q];
        }
        if constexpr (kNumeric) __syncwarp();  // this segment's adds land before the next one's
      }
    }
    __syncwarp();
    // Lane l owns words [l * kWordsPerLane, (l + 1) * kWordsPerLane): column order is lane order.
    constexpr int kWordsPerLane = kWindowWords / 32;
    int mine = 0;
    for (int k = 0; k < kWordsPerLane; ++k) mine += __popc(bits[lane * kWordsPerLane + k]);
    if constexpr (!kNumeric) {
      int total = mine;
      for (int o = 16; o > 0; o /= 2) total += __shfl_xor_sync(0xffffffffu, total, o);
      if (lane == 0) window_count[w] = total;
    } else {
      int before = mine;  // inclusive scan over lanes, then exclusive
      for (int o = 1; o < 32; o *= 2) {
        const int x = __shfl_up_sync(0xffffffffu, before, o);
        if (lane >= o) before += x;
      }
      before -= mine;
      std::int64_t out = c_row_ptr[i] + (window_scan[w] - window_scan[window_offsets[r]]) + before;
      for (int k = 0; k < kWordsPerLane; ++k) {
        const int word = lane * kWordsPerLane + k;
        for (unsigned m = bits[word]; m != 0; m &= m - 1) {
          const int c = word * 32 + __ffs(m) - 1;
          c_col[out] = static_cast<std::int32_t>(c0 + c);
          c_val[out] = acc[c];
          ++out;
        }
      }
    }
    __syncwarp();
  }
}

}  // namespace spkit::cuda::binned
