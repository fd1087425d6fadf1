#pragma once
// The device side of cuda.csr.binned (ours; csr_binned.cu plans it): one fused launch over bins of rows
// of similar length.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>

#include "kernels/cuda/csr_chunks.cuh"
#include "kernels/cuda/cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {

// Binned CSR (ours). At plan time rows are binned by length: long rows (> kBinnedLongRow non-zeros),
// split into chunks of kChunkNnz; five sub-warp classes (32, 16, 8, 4, 2 lanes per row, chosen per row
// as csr_subwarp_kernel chooses them from the mean); empty rows. The rows are then stored again in bin
// order (increasing within a bin): the short rows of bins 1..5, then the long rows. A group of lanes
// reads its row's offsets at its own index (coalesced across the bin) instead of a row id first and
// that row's offsets next; the original row id is needed only for the store of y and loads in parallel
// with the row (measured: 2-7% over reading a row list, docs/perf/cuda-csr-binned.md).
// One fused launch: each block finds its bin from blockIdx in a 7-entry table of block ranges. Chunks
// come first in the grid (heaviest blocks start first), the empty rows last. The block that finishes a
// long row's last chunk (a per-row ticket) sums the row's partials in chunk order and writes y, so the
// result does not depend on which block finishes last. Every row is written exactly once, so alpha and
// beta are applied where it is written (y = alpha*sum + beta*y). The tickets make a plan single-stream:
// one product at a time.
constexpr int kBinnedThreads = 256;
constexpr int kBins = 7;  // 0 long-row chunks, 1..5 = 32, 16, 8, 4, 2 lanes per row (64 >> bin), 6 empty rows
constexpr int kLongBin = 0, kEmptyBin = kBins - 1;
constexpr std::int64_t kBinnedLongRow = tuning::kCudaBinnedLongRow;  // 32 non-zeros per lane of a warp

struct BinTable {
  std::int64_t first_block[kBins + 1];  // blocks [first_block[b], first_block[b + 1]) run bin b
  std::int64_t first_row[kBins];        // bins 1..6: the bin's rows start at row_ptr/out_row index first_row[b]
  std::int64_t count[kBins];            // rows in bin b (long bin: long rows; bin 5 in stream mode: warps)
};

template <class T, class Off>
struct BinnedArgs {
  BinTable bins;
  const Off* row_ptr;                    // short rows in bin order: offsets into col_idx/values (+1 entry)
  const std::int32_t* out_row;           // original row id of every short row, then of every empty row
  const std::int32_t* col_idx;           // bin order: short rows, then long rows
  const T* values;
  const std::int64_t* chunk_begin;       // per chunk: [begin, end) in col_idx/values
  const std::int64_t* chunk_end;
  const std::int32_t* chunk_long_row;    // per chunk: index of its long row
  const std::int32_t* long_first_chunk;  // per long row (+1 entry): its chunks
  const std::int32_t* long_out_row;      // per long row: original row id
  unsigned* long_ticket;                 // per long row: chunks finished in this product (reset to 0)
  T* partial;                            // per chunk: its block sum
  const std::int32_t* stream_warp_row;   // stream mode, bin 5: warp w runs the bin's rows [w, w + 1) of this
  const std::int32_t* block_run;         // per block of bins 1..5: out_row[k] = k + block_run for all its rows,
                                         // or kNoRun (then out_row is read)
};

// A block whose rows kept their original order (consecutive row ids: most blocks where one bin holds most
// rows) finds its row ids by adding its run offset instead of reading out_row: 4 bytes per row less.
constexpr std::int32_t kNoRun = std::numeric_limits<std::int32_t>::min();

// Stream mode (cuda.csr.binned_stream) for the shortest rows (bin 5, < 16 non-zeros): a warp takes
// consecutive rows of the bin holding at most kStreamEntries non-zeros and kWarp rows (planned on the host),
// loads those entries with all 32 lanes (kStreamEntries / 32 coalesced loads in flight per lane), keeps the
// products in shared memory, and lane i sums row i of its group in order.
// The entries are read once in full lines: loaded with ld.global.cs and y stored with st.global.cs
// (evict-first), so L2 keeps the lines of x instead. Measured (H100, 13 families x 2 precisions, two
// rounds, same run): 1.034x binned_stream's speed in geometric mean, 0.95-1.24x; circuit fp64 +15-18%,
// geometric fp32 +14-19%, banded +13-24%, power-law fp64 +3%. Evict-first on the sub-warp rows as well
// lost (0.87x binned: a group's lanes come back to the same line, which L1 had dropped), and an L2-only
// evict-first policy there did not help (0.96x); docs/perf/cuda-csr-binned.md.
constexpr int kStreamEntries = tuning::kCudaStreamEntries;

template <class T, class Off>
__device__ __forceinline__ void binned_stream_rows(std::int64_t first, std::int64_t n_warps, std::int64_t local_block,
                                                   const BinnedArgs<T, Off>& a, T alpha, const T* __restrict__ x,
                                                   T beta, T* __restrict__ y, T* products) {
  const std::int64_t w = local_block * (kBinnedThreads / kWarp) + threadIdx.x / kWarp;
  if (w >= n_warps) return;  // whole warps only: no block-wide barrier follows
  const std::int32_t run = a.block_run[blockIdx.x];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  T* mine = products + (threadIdx.x / kWarp) * kStreamEntries;
  const std::int64_t r0 = first + a.stream_warp_row[w], r1 = first + a.stream_warp_row[w + 1];
  const std::int64_t e0 = a.row_ptr[r0], n = static_cast<std::int64_t>(a.row_ptr[r1]) - e0;
  std::int32_t c[kStreamEntries / kWarp];
  T v[kStreamEntries / kWarp];
#pragma unroll
  for (int k = 0; k < kStreamEntries / kWarp; ++k) {
    const std::int64_t j = e0 + (lane + k * kWarp < n ? lane + k * kWarp : n - 1);  // clamped: repeats hit L1
    c[k] = __ldcs(a.col_idx + j);
    v[k] = __ldcs(a.values + j);
  }
#pragma unroll
  for (int k = 0; k < kStreamEntries / kWarp; ++k)
    if (lane + k * kWarp < n) mine[lane + k * kWarp] = v[k] * __ldg(x + c[k]);
  __syncwarp();
  if (lane < r1 - r0) {
    const std::int64_t b = a.row_ptr[r0 + lane] - e0, e = a.row_ptr[r0 + lane + 1] - e0;
    T sum = 0;
    for (std::int64_t k = b; k < e; ++k) sum += mine[k];
    store_axpby_cs(y + (run != kNoRun ? static_cast<std::int32_t>(r0 + lane + run) : a.out_row[r0 + lane]), alpha, sum,
                   beta);
  }
}

// A group of LANES lanes per row, two independent loads in flight per lane (four measured no better).
// Every thread reaches the shuffles (no early return), so the full-warp mask is right.
template <int LANES, class T, class Off>
__device__ __forceinline__ void binned_short_rows(std::int64_t first, std::int64_t n_rows, std::int64_t local_block,
                                                  const BinnedArgs<T, Off>& a, T alpha, const T* __restrict__ x,
                                                  T beta, T* __restrict__ y) {
  const std::int64_t i = local_block * (kBinnedThreads / LANES) + threadIdx.x / LANES;
  const int lane = static_cast<int>(threadIdx.x % LANES);
  T s0 = 0, s1 = 0;
  std::int32_t row = 0;
  if (i < n_rows) {
    const std::int32_t run = a.block_run[blockIdx.x];
    row = run != kNoRun ? static_cast<std::int32_t>(first + i + run) : a.out_row[first + i];
    const std::int64_t end = a.row_ptr[first + i + 1];
    std::int64_t j = static_cast<std::int64_t>(a.row_ptr[first + i]) + lane;
    for (; j + LANES < end; j += 2 * LANES) {
      const std::int32_t c0 = a.col_idx[j], c1 = a.col_idx[j + LANES];
      const T v0 = a.values[j], v1 = a.values[j + LANES];
      s0 += v0 * __ldg(x + c0);
      s1 += v1 * __ldg(x + c1);
    }
    if (j < end) s0 += a.values[j] * __ldg(x + a.col_idx[j]);
  }
  const T sum = group_sum<LANES>(s0 + s1);
  if (i < n_rows && lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// Sub-warp bins (rows of 16-1024 non-zeros), staged in tiles. A block's rows of one bin are consecutive in
// bin order, so their entries are one contiguous range. The block reads it tile by tile (2048 entries from
// the 32-entry boundary below the range, 8 coalesced loads per thread in two halves of four, evict-first),
// puts the products into shared memory, and each group of LANES lanes sums its row's part of the tile from
// there (fixed order: lane l adds entries l, l + LANES, ...; then a shuffle tree). Reading each group's row
// directly (the kernel before) touched up to 8 rows' lines per warp load, misaligned; the tiles load whole
// lines only, as cuSPARSE's CSR kernel does. Measured (H100, 13 families x 2 precisions x 3 rounds, same
// run, with the aligned chunks): 1.06x binned_stream in geometric mean (0.90-1.30x): fem and lap3d 27-pt
// +25-30% in fp64, fem_mesh +25%, power-law +9% / +3%, rmat +12% / +6%; docs/perf/cuda-csr-binned.md.
constexpr int kTileEntries = static_cast<int>(kChunkNnz);

template <int LANES, class T, class Off>
__device__ __forceinline__ void binned_tiled_rows(std::int64_t first, std::int64_t n_rows, std::int64_t local_block,
                                                  const BinnedArgs<T, Off>& a, T alpha, const T* __restrict__ x,
                                                  T beta, T* __restrict__ y, T* tile) {
  constexpr int kRows = kBinnedThreads / LANES;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t lo = local_block * kRows, hi = min(n_rows, lo + kRows);
  const std::int64_t i = lo + tid / LANES;
  const int lane = tid % LANES;
  const std::int64_t e_begin = a.row_ptr[first + lo];
  const int n = static_cast<int>(a.row_ptr[first + hi] - e_begin);  // <= 8 rows x 1024 entries
  const std::int32_t* __restrict__ cols = a.col_idx + e_begin;
  const T* __restrict__ vals = a.values + e_begin;
  int rb = 0, re = 0;  // the group's row, relative to e_begin
  std::int32_t row = 0;
  if (i < hi) {
    const std::int32_t run = a.block_run[blockIdx.x];
    row = run != kNoRun ? static_cast<std::int32_t>(first + i + run) : a.out_row[first + i];
    rb = static_cast<int>(a.row_ptr[first + i] - e_begin);
    re = static_cast<int>(a.row_ptr[first + i + 1] - e_begin);
  }
  T sum = 0;
  for (int t0 = -static_cast<int>(e_begin & (kWarp - 1)); t0 < n; t0 += kTileEntries) {
    // Two halves of four loads per thread: the kernel stays at 32 registers without spilling.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      constexpr int kHalf = kChunkItems / 2;
      std::int32_t c[kHalf];
      T v[kHalf];
#pragma unroll
      for (int q = 0; q < kHalf; ++q) {
        const int it = h * kHalf + q;
        c[q] = 0;
        v[q] = 0;
        if (t0 + (tid & ~(kWarp - 1)) + it * kChunkThreads >= n) continue;  // warp-uniform
        const int j = t0 + tid + it * kChunkThreads;
        const int jc = j < 0 ? 0 : (j < n ? j : n - 1);
        c[q] = __ldcs(cols + jc);
        v[q] = __ldcs(vals + jc);
      }
#pragma unroll
      for (int q = 0; q < kHalf; ++q) {
        const int it = h * kHalf + q;
        const int j = t0 + tid + it * kChunkThreads;
        if (j >= 0 && j < n) tile[tid + it * kChunkThreads] = v[q] * __ldg(x + c[q]);
      }
    }
    __syncthreads();
    const int kb = rb > t0 ? rb : t0, ke = re < t0 + kTileEntries ? re : t0 + kTileEntries;
    for (int k = kb + lane; k < ke; k += LANES) sum += tile[k - t0];
    __syncthreads();
  }
  sum = group_sum<LANES>(sum);
  if (i < hi && lane == 0) store_axpby(y + row, alpha, sum, beta);
}

// One chunk of a long row; the row's last block to finish writes y (see above).
template <class T, class Off>
__device__ __forceinline__ void binned_long_chunk(std::int64_t c, const BinnedArgs<T, Off>& a, T alpha,
                                                  const T* __restrict__ x, T beta, T* __restrict__ y, T* warp_sums,
                                                  bool* last_block) {
  const T s = chunk_sum(a.chunk_begin[c], a.chunk_end[c], a.col_idx, a.values, x, warp_sums);
  const std::int32_t r = a.chunk_long_row[c];
  const std::int32_t first = a.long_first_chunk[r], chunks = a.long_first_chunk[r + 1] - first;
  if (threadIdx.x == 0) {
    a.partial[c] = s;
    __threadfence();  // the partial is visible device-wide before the ticket says so
    *last_block = atomicAdd(a.long_ticket + r, 1u) == static_cast<unsigned>(chunks - 1);
  }
  __syncthreads();
  if (!*last_block || threadIdx.x >= kWarp) return;
  __threadfence();
  // Warp 0 of the last block: lane l sums chunks l, l + 32, ... in order (L2 loads: other blocks wrote
  // them), then a fixed shuffle tree.
  T sum = 0;
  for (std::int32_t k = threadIdx.x; k < chunks; k += kWarp) sum += __ldcg(a.partial + first + k);
  sum = group_sum<kWarp>(sum);
  if (threadIdx.x == 0) {
    store_axpby(y + a.long_out_row[r], alpha, sum, beta);
    a.long_ticket[r] = 0;  // ready for the next product (the kernel boundary orders this store)
  }
}

// 32 registers (8 blocks of 256 threads per SM): measured above 40 registers (6 blocks) on 10 of the 13
// families, and the tiles and chunks are written to fit in 32 without spilling.
template <class T, class Off, bool STREAM_SHORT>
__global__ void __launch_bounds__(kBinnedThreads, 8) csr_binned_kernel(const BinnedArgs<T, Off> a, T alpha,
                                                                       const T* __restrict__ x, T beta,
                                                                       T* __restrict__ y) {
  __shared__ T warp_sums[kChunkThreads / kWarp];
  __shared__ T products[kTileEntries];  // a tile of sub-warp rows, or the warp streams' products
  static_assert(kBinnedThreads / kWarp * kStreamEntries <= kTileEntries, "the streams share the tile buffer");
  __shared__ bool last_block;
  const std::int64_t block = blockIdx.x;
  int bin = 0;
#pragma unroll
  for (int b = 1; b < kBins; ++b)
    if (block >= a.bins.first_block[b]) bin = b;  // bins without blocks share their start with the next bin
  const std::int64_t local = block - a.bins.first_block[bin];
  switch (bin) {
    case kLongBin: binned_long_chunk(local, a, alpha, x, beta, y, warp_sums, &last_block); return;
#define SPKIT_BINNED_CASE(B, LANES) \
  case B: binned_tiled_rows<LANES>(a.bins.first_row[B], a.bins.count[B], local, a, alpha, x, beta, y, products); return;
      SPKIT_BINNED_CASE(1, 32)
      SPKIT_BINNED_CASE(2, 16)
      SPKIT_BINNED_CASE(3, 8)
      SPKIT_BINNED_CASE(4, 4)
#undef SPKIT_BINNED_CASE
    case 5:
      if constexpr (STREAM_SHORT)
        binned_stream_rows(a.bins.first_row[5], a.bins.count[5], local, a, alpha, x, beta, y, products);
      else binned_short_rows<2>(a.bins.first_row[5], a.bins.count[5], local, a, alpha, x, beta, y);
      return;
    default: {  // kEmptyBin
      const std::int64_t i = local * kBinnedThreads + threadIdx.x;
      if (i < a.bins.count[kEmptyBin]) store_axpby(y + a.out_row[a.bins.first_row[kEmptyBin] + i], alpha, T(0), beta);
      return;
    }
  }
}

// x in the renumbered column order: x_renumbered[k] = x[column_of[k]] (coalesced stores, gathered loads).
template <class T>
__global__ void __launch_bounds__(256) gather_columns_kernel(std::int64_t cols, const std::int32_t* __restrict__ column_of,
                                                             const T* __restrict__ x, T* __restrict__ x_renumbered) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < cols) x_renumbered[k] = __ldg(x + column_of[k]);
}

}  // namespace spkit::cuda
