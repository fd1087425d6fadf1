#pragma once
// cuda.csr.binned, the dense window accumulator for rows too wide for a shared hash table (the hub rows
// of R-MAT and power-law graphs) and for rows whose columns fit one window (banded, stencil-like):
// row i's column range [first, last] is cut into windows of kWindowColumns columns, one warp per
// window, a presence bitmap and (numeric) a dense array of values in shared memory. Many warps share
// one long row, each owning its columns: no atomic adds, and every entry of C sums its products in the
// order of A's row, as in the hash bins.
// The warp walks A's row with walk_products (csr_binned_walk.cuh), each row of B clipped to the
// window by binary search on its sorted columns. The numeric pass of a window with few columns keeps
// only those columns' values (window_rows_compact_kernel), from the bitmap the symbolic pass stored.
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

// Work item k is window w = list[k] (list null: w = k), window w - window_offsets[r] of windowed row r.
// Symbolic: window_count[w] = the window's columns, and its bitmap in window_bits[w * kWindowWords ...]
// when window_bits is given (the compact numeric tiers read it). Numeric: the window's entries written
// in column order at c_row_ptr[i] + (window_scan[w] - window_scan[first window of the row]).
template <class T, bool kNumeric>
__global__ void __launch_bounds__(kWindowWarps * 32)
    window_rows_kernel(const std::int64_t* list, std::int64_t items, const std::int64_t* rows, std::int64_t n,
                       const std::int64_t* window_offsets, const std::int32_t* first_col, CsrDeviceView<T> a,
                       CsrDeviceView<T> b, const WindowEntry* entries, std::int64_t* window_count,
                       unsigned* window_bits, const std::int64_t* window_scan, const std::int64_t* c_row_ptr,
                       std::int32_t* c_col, T* c_val) {
  __shared__ unsigned sbits[kWindowWarps][kWindowWords];
  __shared__ T sacc[kNumeric ? kWindowWarps : 1][kNumeric ? kWindowColumns : 1];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned* bits = sbits[warp];
  T* acc = kNumeric ? sacc[warp] : nullptr;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(kWindowWarps) + warp; k < items;
       k += static_cast<std::int64_t>(gridDim.x) * kWindowWarps) {
    const std::int64_t w = list ? list[k] : k;
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
      if (window_bits)
        for (int k2 = lane; k2 < kWindowWords; k2 += 32) window_bits[w * kWindowWords + k2] = bits[k2];
    } else {
      const int before = group_inclusive_sum<32>(mine, 0xffffffffu) - mine;  // columns of the lanes below
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

// The numeric pass of a window with at most kCap columns (the symbolic count): its values accumulate in
// kCap shared slots, column c of the window in slot rank(c) = the set bits of the symbolic bitmap below
// c, so that a warp needs 8 kCap bytes instead of the dense 8 x kWindowColumns. Why: the dense fp64
// accumulator (16 KB a warp) left 12 warps on an SM for a walk bound by dependent loads; R-MAT's numeric
// windows took 44 ms in fp64 against 25 ms in fp32 (8 KB, twice the warps) and 11 ms for the symbolic
// walk (256 B, 64 warps). Same walk, same order of additions, same bits as the dense kernel.
template <class T, int kCap>
__global__ void __launch_bounds__(kWindowWarps * 32)
    window_rows_compact_kernel(const std::int64_t* list, std::int64_t items, const std::int64_t* rows,
                               std::int64_t n, const std::int64_t* window_offsets, const std::int32_t* first_col,
                               CsrDeviceView<T> a, CsrDeviceView<T> b, const WindowEntry* entries,
                               const unsigned* window_bits, const std::int64_t* window_scan,
                               const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
  __shared__ unsigned sbits[kWindowWarps][kWindowWords];   // the window's columns (symbolic)
  __shared__ unsigned sseen[kWindowWarps][kWindowWords];   // columns that received a product
  __shared__ int sbefore[kWindowWarps][kWindowWords];      // columns in the words before each word
  __shared__ T sacc[kWindowWarps][kCap];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  unsigned* bits = sbits[warp];
  unsigned* seen = sseen[warp];
  int* before = sbefore[warp];
  T* acc = sacc[warp];
  constexpr int kWordsPerLane = kWindowWords / 32;
  for (std::int64_t k = blockIdx.x * static_cast<std::int64_t>(kWindowWarps) + warp; k < items;
       k += static_cast<std::int64_t>(gridDim.x) * kWindowWarps) {
    const std::int64_t w = list[k];
    const std::int64_t r = segment_of(window_offsets, n, w);
    const std::int64_t i = rows[r];
    const std::int64_t c0 = first_col[i] + (w - window_offsets[r]) * kWindowColumns, c1 = c0 + kWindowColumns;
    // Lane l owns words [l * kWordsPerLane, (l + 1) * kWordsPerLane): column order is lane order.
    int mine = 0;
    for (int q = 0; q < kWordsPerLane; ++q) {
      const int word = lane * kWordsPerLane + q;
      const unsigned m = window_bits[w * kWindowWords + word];
      bits[word] = m, seen[word] = 0u, before[word] = mine;
      mine += __popc(m);
    }
    const int below = group_inclusive_sum<32>(mine, 0xffffffffu) - mine;  // columns of the lanes below
    for (int q = 0; q < kWordsPerLane; ++q) before[lane * kWordsPerLane + q] += below;
    __syncwarp();
    walk_products<32, T, true, true, true>(
        a.row_ptr[i], a.row_ptr[i + 1], c0, c1, a, b, entries,
        [&](std::int32_t col, T v, auto&&...) {
          const int c = static_cast<int>(col - c0);
          const unsigned bit = 1u << (c & 31);
          const int slot = before[c >> 5] + __popc(bits[c >> 5] & (bit - 1u));
          // Lanes holding the same column add in turn (walk_products): the first to set the bit is the
          // column's first product in the serial order.
          const unsigned was = atomicOr(&seen[c >> 5], bit);
          if (was & bit) acc[slot] += v; else acc[slot] = v;
        },
        [] { return false; });
    __syncwarp();
    const std::int64_t out = c_row_ptr[i] + (window_scan[w] - window_scan[window_offsets[r]]);
    const int count = static_cast<int>(window_scan[w + 1] - window_scan[w]);
    for (int s = lane; s < count; s += 32) c_val[out + s] = acc[s];
    for (int q = 0; q < kWordsPerLane; ++q) {
      const int word = lane * kWordsPerLane + q;
      std::int64_t at = out + before[word];
      for (unsigned m = bits[word]; m != 0; m &= m - 1) c_col[at++] = static_cast<std::int32_t>(c0 + word * 32 + __ffs(m) - 1);
    }
    __syncwarp();
  }
}

// Numeric tiers of the windows by their symbolic column count: lists[t * windows ...], counts[t]; tier 0
// up to kWindowCompactSmall columns, 1 up to kWindowCompactLarge, 2 the dense accumulator. The order
// within a list depends on scheduling; no result does (each window is computed by itself).
constexpr int kWindowCompactSmall = 256;
constexpr int kWindowCompactLarge = 1024;
constexpr int kWindowTiers = 3;
__global__ void window_tiers_kernel(std::int64_t windows, const std::int64_t* window_scan, std::int64_t* lists,
                                    unsigned long long* counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x & ~31); base < windows;
       base += stride) {
    const std::int64_t w = base + (threadIdx.x & 31);
    int tier = -1;
    if (w < windows) {
      const std::int64_t cnt = window_scan[w + 1] - window_scan[w];
      tier = cnt <= kWindowCompactSmall ? 0 : cnt <= kWindowCompactLarge ? 1 : 2;
    }
    append_to_class_list(tier, 0, kWindowTiers, w, windows, lists, counts);
  }
}

}  // namespace spkit::cuda::binned
