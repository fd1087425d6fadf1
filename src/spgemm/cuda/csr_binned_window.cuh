#pragma once
// cuda.csr.binned, the dense window accumulator for rows too wide for a shared hash table (the hub rows
// of R-MAT and power-law graphs) and for rows whose columns fit one window (banded, stencil-like):
// row i's column range [first, last] is cut into windows of kWindowColumns columns, one warp per
// window, a presence bitmap and (numeric) a dense array of values in shared memory. Many warps share
// one long row, each owning its columns: no atomic adds, and every entry of C sums its products in the
// order of A's row, as in the hash bins.
// The warp walks A's row with walk_products (csr_binned_walk.cuh), each row of B clipped to the
// window by binary search on its sorted columns.
#include <cstdint>

#include "spgemm/cuda/csr_binned_rows.cuh"
#include "spgemm/cuda/csr_binned_walk.cuh"

namespace spkit::cuda::binned {

constexpr int kWindowWarps = 2;
constexpr int kWindowWords = kWindowColumns / 32;

// entries[e] for every entry e of A, one thread each: a row per warp left one warp walking a circuit's
// 117K-entry row alone (1.7 ms of dependent loads).
template <class T>
__global__ void window_entries_kernel(std::int64_t nnz, CsrDeviceView<T> a, CsrDeviceView<T> b,
                                      WindowEntry* entries) {
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < nnz;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int32_t j = a.col_idx[e];
    const std::int64_t bs = b.row_ptr[j], be = b.row_ptr[j + 1];
    WindowEntry en;
    en.start = bs, en.length = static_cast<std::int32_t>(be - bs), en.unused = 0;
    en.first = be > bs ? b.col_idx[bs] : 0;
    en.last = be > bs ? b.col_idx[be - 1] : -1;
    entries[e] = en;
  }
}

// Work item w is window w - window_offsets[r] of windowed row r.
// Symbolic: window_count[w] = the window's columns. Numeric: the window's entries written in column
// order at c_row_ptr[i] + (window_scan[w] - window_scan[first window of the row]).
template <class T, bool kNumeric>
__global__ void __launch_bounds__(kWindowWarps * 32)
    window_rows_kernel(const std::int64_t* rows, std::int64_t n, const std::int64_t* window_offsets,
                       const std::int32_t* first_col, CsrDeviceView<T> a, CsrDeviceView<T> b,
                       const WindowEntry* entries, std::int64_t* window_count,
                       const std::int64_t* window_scan, const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
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
    // Only the bitmap is cleared: a column's first product sets its bit and stores its value, later
    // ones add (a window of a hub row holds ~80 of its 2,048 columns, so clearing the values cost more
    // shared-memory stores than the products).
    for (int k = lane; k < kWindowWords; k += 32) bits[k] = 0;
    __syncwarp();
    walk_products<32, T, kNumeric, kNumeric, true>(
        a.row_ptr[i], a.row_ptr[i + 1], c0, c1, a, b, entries,
        [&](std::int32_t col, T v, auto&&...) {
          const int c = static_cast<int>(col - c0);
          const unsigned bit = 1u << (c & 31);
          // Numeric: lanes holding the same column add in turn (walk_products), so the first to set
          // the bit is the column's first product in the serial order.
          const unsigned was = atomicOr(&bits[c >> 5], bit);
          if constexpr (kNumeric) {
            if (was & bit) acc[c] += v; else acc[c] = v;
          }
        },
        [] { return false; });
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
