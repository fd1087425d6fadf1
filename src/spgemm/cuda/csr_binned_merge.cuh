#pragma once
// cuda.csr.binned, the merge accumulator for short rows: one thread per row of C whose row of A has at most
// K entries and few products. B's rows are sorted, so C's row is the K-way merge of the rows of B that A's
// row selects; equal columns add in the order of A's row (the serial Gustavson order: deterministic) and
// leave sorted. No shared memory, no table to clear, no sort: on road networks and random graphs (4-9
// entries per row, ~14-80 products) the group of 8-32 lanes per row of the hash bins spent its time on the
// table's setup, compaction and sort (docs/perf/spgemm-gpu.md).
#include <climits>
#include <cstdint>

#include "spgemm/cuda/csr_binned_rows.cuh"
#include "spgemm/cuda/csr_binned_walk.cuh"

namespace spkit::cuda::binned {

// Numeric output goes through a per-warp staging buffer: every lane's next kMergeStage entries of its row,
// then the warp writes all of them, consecutive lanes to consecutive addresses. Each lane storing its own
// row directly put 32 rows' worth of scattered 4- and 8-byte stores in every warp instruction (random
// 8/row: numeric 2.1 ms against 0.17 ms for the symbolic merge, H100).
constexpr int kMergeStage = 8;
constexpr int kMergeWarps = kSpgemmThreads / 32;

// Writes each lane's `fill` staged entries at out (the lane's row position) and advances out.
template <class T>
__device__ __forceinline__ void flush_merged(const std::int32_t* stage_col, const T* stage_val, int fill,
                                             std::int64_t& out, std::int32_t* c_col, T* c_val) {
  const int lane = threadIdx.x & 31;
  const int incl = group_inclusive_sum<32>(fill, 0xffffffffu);
  const int total = __shfl_sync(0xffffffffu, incl, 31);
  for (int t0 = 0; t0 < total; t0 += 32) {
    const int x = t0 + lane;
    const int owner = owner_lane<32>(incl, x, 0xffffffffu);
    const int k = x - (__shfl_sync(0xffffffffu, incl, owner) - __shfl_sync(0xffffffffu, fill, owner));
    const std::int64_t dest = __shfl_sync(0xffffffffu, out, owner) + k;
    if (x < total) {
      c_col[dest] = stage_col[owner * (kMergeStage + 1) + k];
      c_val[dest] = stage_val[owner * (kMergeStage + 1) + k];
    }
  }
  out += fill;
  __syncwarp();
}

// Symbolic: row_nnz[i] = columns of row i. Numeric: the row written sorted at c_row_ptr[i].
// Whole warps iterate together (the numeric flushes are warp-wide); lanes past the end hold no row.
template <class T, bool kNumeric, int K>
__global__ void __launch_bounds__(kSpgemmThreads)
    merge_rows_kernel(const std::int64_t* rows, std::int64_t n, CsrDeviceView<T> a, CsrDeviceView<T> b,
                      std::int64_t* row_nnz, const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val) {
  // Rows of kMergeStage + 1 entries per lane: lanes' rows start in different banks.
  __shared__ std::int32_t stage_cols[kNumeric ? kMergeWarps : 1][kNumeric ? 32 * (kMergeStage + 1) : 1];
  __shared__ T stage_vals[kNumeric ? kMergeWarps : 1][kNumeric ? 32 * (kMergeStage + 1) : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x & ~31); base < n;
       base += stride) {
    const std::int64_t r = base + lane;
    const bool valid = r < n;
    const std::int64_t i = valid ? rows[r] : 0;
    const std::int64_t ab = valid ? a.row_ptr[i] : 0;
    const int len = valid ? static_cast<int>(a.row_ptr[i + 1] - ab) : 0;
    // Per entry h of A's row: the next position in its row of B, the entries left there (a row of B holds
    // fewer than 2^31 columns), and the column at that position (INT_MAX once the row is merged).
    // Unrolled with constant indices, so all three stay in registers.
    std::int64_t pos[K];
    std::int32_t left[K], col[K];
#pragma unroll
    for (int h = 0; h < K; ++h) {
      pos[h] = 0, left[h] = 0, col[h] = INT_MAX;
      if (h < len) {
        const std::int32_t j = a.col_idx[ab + h];
        const std::int64_t bs = b.row_ptr[j], be = b.row_ptr[j + 1];
        pos[h] = bs, left[h] = static_cast<std::int32_t>(be - bs);
        if (be > bs) col[h] = b.col_idx[bs];
      }
    }
    std::int64_t out = kNumeric && valid ? c_row_ptr[i] : 0;
    std::int64_t count = 0;
    int fill = 0;
    for (;;) {
      std::int32_t m = col[0];
#pragma unroll
      for (int h = 1; h < K; ++h) m = min(m, col[h]);
      if (m != INT_MAX) {
        T sum{};
        bool first = true;
#pragma unroll
        for (int h = 0; h < K; ++h) {
          if (col[h] == m) {
            if constexpr (kNumeric) {
              const T p = a.values[ab + h] * b.values[pos[h]];
              sum = first ? p : sum + p;
              first = false;
            }
            ++pos[h], --left[h];
            col[h] = left[h] > 0 ? b.col_idx[pos[h]] : INT_MAX;
          }
        }
        if constexpr (kNumeric) {
          stage_cols[warp][lane * (kMergeStage + 1) + fill] = m;
          stage_vals[warp][lane * (kMergeStage + 1) + fill] = sum;
          ++fill;
        }
        ++count;
      }
      if constexpr (kNumeric) {
        // Every lane still merging adds one entry per step, so their buffers fill together; lanes done
        // earlier flush what they hold with them.
        const bool more = __any_sync(0xffffffffu, m != INT_MAX);
        if (__any_sync(0xffffffffu, fill == kMergeStage) || !more) {
          __syncwarp();
          flush_merged(stage_cols[warp], stage_vals[warp], fill, out, c_col, c_val);
          fill = 0;
        }
        if (!more) break;
      } else {
        if (m == INT_MAX) break;
      }
    }
    if constexpr (!kNumeric) {
      if (valid) row_nnz[i] = count;
    }
  }
}

template <class T, bool kNumeric, int K>
void launch_merge_rows(const std::int64_t* rows, std::int64_t n, const CsrDeviceView<T>& a, const CsrDeviceView<T>& b,
                       std::int64_t* row_nnz, const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val, int device,
                       cudaStream_t stream) {
  if (n == 0) return;
  merge_rows_kernel<T, kNumeric, K><<<spgemm_grid(n, 1, device), kSpgemmThreads, 0, stream>>>(rows, n, a, b, row_nnz,
                                                                                             c_row_ptr, c_col, c_val);
  SPKIT_LAUNCH_CHECK("merge_rows_kernel");
}

}  // namespace spkit::cuda::binned
