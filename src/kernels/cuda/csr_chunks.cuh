#pragma once
// Long CSR rows split into fixed chunks, shared by cuda.csr.subwarp and cuda.csr.binned. A row longer than
// a kernel's per-row limit is cut into chunks of kChunkNnz non-zeros, one block of kChunkThreads per chunk
// (kChunkItems independent loads in flight per thread), and each chunk's block sum is kept apart until the
// row is finished in chunk order (deterministic, no atomics on y).
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/cuda_common.cuh"
#include "tuning.hpp"

namespace spkit::cuda {

constexpr int kChunkThreads = tuning::kCudaChunkThreads;
constexpr int kChunkItems = tuning::kCudaChunkItems;
constexpr std::int64_t kChunkNnz = static_cast<std::int64_t>(kChunkThreads) * kChunkItems;

// Chunk boundaries: a row's chunks are cut at multiples of kChunkNnz from the 32-entry boundary at or below
// its first entry, so every chunk lies inside one 32-entry-aligned window of kChunkNnz entries (the first
// chunk is up to 31 entries shorter). Calls emit(begin, end) for each chunk of the entries [row_begin, row_end).
template <class Emit>
void for_each_chunk(std::int64_t row_begin, std::int64_t row_end, Emit emit) {
  for (std::int64_t k = row_begin; k < row_end;) {
    const std::int64_t next = std::min((k & ~static_cast<std::int64_t>(kWarp - 1)) + kChunkNnz, row_end);
    emit(k, next);
    k = next;
  }
}

// Sum of the non-zeros [begin, end) of one chunk by the whole block; valid in thread 0. The block reads
// the chunk's aligned window, so each warp load covers whole lines (aligned, measured against chunks cut
// at the row's first entry: with the tiled rows of cuda.csr.binned, 1.06x in geometric mean;
// docs/perf/cuda-csr-binned.md). Loads are clamped into the chunk (repeats hit the same line) so all of
// them issue unguarded, and offsets are 32-bit from the chunk's first entry, which keeps the fused binned
// kernel at 32 registers. The matrix is read once in full lines, so it is loaded with ld.global.cs
// (evict-first in L1 and L2): its lines leave L2 before the lines of x, which are read again (measured
// with binned's warp streams).
template <class T>
__device__ __forceinline__ T chunk_sum(std::int64_t begin, std::int64_t end, const std::int32_t* __restrict__ col_idx,
                                       const T* __restrict__ values, const T* __restrict__ x, T* warp_sums) {
  const int tid = threadIdx.x;
  const int n = static_cast<int>(end - begin);
  const int off = static_cast<int>(begin & (kWarp - 1));  // the window starts `off` entries before the chunk
  const std::int32_t* __restrict__ cols = col_idx + begin;
  const T* __restrict__ vals = values + begin;
  std::int32_t col[kChunkItems];
  T val[kChunkItems];
#pragma unroll
  for (int it = 0; it < kChunkItems; ++it) {
    const int k = min(max(tid + it * kChunkThreads - off, 0), n - 1);
    col[it] = __ldcs(cols + k);
    val[it] = __ldcs(vals + k);
  }
  T sum = 0;
#pragma unroll
  for (int it = 0; it < kChunkItems; ++it) {
    const T xv = __ldg(x + col[it]);  // a clamped lane reads a column of the chunk: no new line
    if (static_cast<unsigned>(tid + it * kChunkThreads - off) < static_cast<unsigned>(n)) sum += val[it] * xv;
  }
  sum = group_sum<kWarp>(sum);
  if (tid % kWarp == 0) warp_sums[tid / kWarp] = sum;
  __syncthreads();
  T total = 0;
  if (tid == 0)
#pragma unroll
    for (int w = 0; w < kChunkThreads / kWarp; ++w) total += warp_sums[w];
  return total;
}


}  // namespace spkit::cuda
