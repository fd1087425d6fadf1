#pragma once
// cuda.csr.binned, the merge accumulator for short rows: one thread per row of C whose row of A has at most
// K entries and few products. B's rows are sorted, so C's row is the K-way merge of the rows of B that A's
// row selects; equal columns add in the order of A's row (the serial Gustavson order: deterministic) and
// leave sorted. No shared memory, no table to clear, no sort: on road networks and random graphs (4-9
// entries per row, ~14-80 products) the group of 8-32 lanes per row of the hash bins spent its time on the
// table's setup, compaction and sort (docs/perf/spgemm-gpu.md). The numeric merge steps one column of C
// or one product at a time, whichever fewer instructions a warp's rows need (merge_rows_kernel).
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

// The end of a numeric merge step: every lane still merging adds at most one entry per step, so their
// buffers fill together; lanes done earlier flush what they hold with them. False once every lane is done.
template <class T>
__device__ __forceinline__ bool end_merge_step(bool merging, int& fill, const std::int32_t* stage_col,
                                               const T* stage_val, std::int64_t& out, std::int32_t* c_col, T* c_val) {
  const bool more = __any_sync(0xffffffffu, merging);
  if (__any_sync(0xffffffffu, fill == kMergeStage) || !more) {
    __syncwarp();
    flush_merged(stage_col, stage_val, fill, out, c_col, c_val);
    fill = 0;
  }
  return more;
}

// The heads of one lane's merge: per entry h of A's row, the next position in its row of B, the entries
// left there (a row of B holds fewer than 2^31 columns), and the column at that position (INT_MAX once
// that row is merged). Indexed with constants only (unrolled loops), so all three stay in registers.
template <int K>
struct MergeHeads {
  std::int64_t pos[K];
  std::int32_t left[K], col[K];
};

// Numeric, one output column a step: every head holding the smallest column adds its product, in A's
// order. A step runs the bodies of all K heads whenever any lane's head matches (divergent, ~1 lane in K
// active in each), but makes one entry of C per step whatever the number of products that meet there.
template <class T, int K>
__device__ __forceinline__ void merge_numeric_all_heads(MergeHeads<K>& hd, const CsrDeviceView<T>& a,
                                                        const CsrDeviceView<T>& b, std::int64_t ab,
                                                        std::int32_t* stage_col, T* stage_val, std::int64_t out,
                                                        std::int32_t* c_col, T* c_val) {
  const int lane = threadIdx.x & 31;
  int fill = 0;
  for (;;) {
    std::int32_t m = hd.col[0];
#pragma unroll
    for (int h = 1; h < K; ++h) m = min(m, hd.col[h]);
    if (m != INT_MAX) {
      T sum{};
      bool first = true;
#pragma unroll
      for (int h = 0; h < K; ++h) {
        if (hd.col[h] == m) {
          const T p = a.values[ab + h] * b.values[hd.pos[h]];
          sum = first ? p : sum + p;
          first = false;
          ++hd.pos[h], --hd.left[h];
          hd.col[h] = hd.left[h] > 0 ? b.col_idx[hd.pos[h]] : INT_MAX;
        }
      }
      stage_col[lane * (kMergeStage + 1) + fill] = m;
      stage_val[lane * (kMergeStage + 1) + fill] = sum;
      ++fill;
    }
    if (!end_merge_step(m != INT_MAX, fill, stage_col, stage_val, out, c_col, c_val)) break;
  }
}

// Numeric, one product a step: the first head (in A's order) holding the smallest column adds its product.
// The warp issues one load of B's value, one of its next column and one of A's value a step, without
// branches (argmin, selects, predicated updates): fewer instructions and load requests than the step
// above (random 8/row, fp64: 118M against 151M instructions, 1.8M against 11.9M requests, the same
// sectors), but one step per product instead of one per column of C. Equal columns come in
// consecutive steps in A's order (a head's next column is larger), so each sum keeps the serial order and
// C is the same bits as above.
template <class T, int K>
__device__ __forceinline__ void merge_numeric_one_head(MergeHeads<K>& hd, const CsrDeviceView<T>& a,
                                                       const CsrDeviceView<T>& b, std::int64_t ab,
                                                       std::int32_t* stage_col, T* stage_val, std::int64_t out,
                                                       std::int32_t* c_col, T* c_val) {
  const int lane = threadIdx.x & 31;
  int fill = 0;
  std::int32_t cur = INT_MAX;  // the column being summed, INT_MAX before the first
  T sum{};
  for (;;) {
    std::int32_t m = hd.col[0];
    int hs = 0;
#pragma unroll
    for (int h = 1; h < K; ++h)
      if (hd.col[h] < m) m = hd.col[h], hs = h;
    std::int64_t p = hd.pos[0];
    std::int32_t rest = hd.left[0];
#pragma unroll
    for (int h = 1; h < K; ++h)
      if (h == hs) p = hd.pos[h], rest = hd.left[h];
    if (m != cur && cur != INT_MAX) {  // the previous column is complete
      stage_col[lane * (kMergeStage + 1) + fill] = cur;
      stage_val[lane * (kMergeStage + 1) + fill] = sum;
      ++fill;
    }
    if (m != INT_MAX) {
      const T prod = a.values[ab + hs] * b.values[p];
      const std::int32_t next = rest > 1 ? b.col_idx[p + 1] : INT_MAX;
      sum = m == cur ? sum + prod : prod;
#pragma unroll
      for (int h = 0; h < K; ++h)
        if (h == hs) ++hd.pos[h], --hd.left[h], hd.col[h] = next;
    }
    cur = m;
    if (!end_merge_step(m != INT_MAX, fill, stage_col, stage_val, out, c_col, c_val)) break;
  }
}

// Symbolic: row_nnz[i] = columns of row i. Numeric: the row written sorted at c_row_ptr[i], each warp by
// the step that takes fewer: one product a step where its rows' products barely outnumber their columns
// (random graphs, power-law's short rows: ~1 product per column), one column a step where many products
// meet in a column (road networks: ~1.8, meshes: 2-3; tuning::spgemm::kBinnedMergeOneHeadMaxRatio).
// Whole warps iterate together (the numeric flushes are warp-wide); lanes past the end hold no row.
template <class T, bool kNumeric, int K>
__global__ void __launch_bounds__(kSpgemmThreads)
    merge_rows_kernel(const std::int64_t* rows, std::int64_t n, CsrDeviceView<T> a, CsrDeviceView<T> b,
                      std::int64_t* row_nnz, const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val,
                      int merge_step) {
  // Rows of kMergeStage + 1 entries per lane: lanes' rows start in different banks.
  __shared__ std::int32_t stage_cols[kNumeric ? kMergeWarps : 1][kNumeric ? 32 * (kMergeStage + 1) : 1];
  __shared__ T stage_vals[kNumeric ? kMergeWarps : 1][kNumeric ? 32 * (kMergeStage + 1) : 1];
  const int warp = threadIdx.x >> 5;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t base = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + (threadIdx.x & ~31); base < n;
       base += stride) {
    const std::int64_t r = base + (threadIdx.x & 31);
    const bool valid = r < n;
    const std::int64_t i = valid ? rows[r] : 0;
    const std::int64_t ab = valid ? a.row_ptr[i] : 0;
    const int len = valid ? static_cast<int>(a.row_ptr[i + 1] - ab) : 0;
    MergeHeads<K> hd;
    int products = 0;  // at most kBinnedMergeMaxProducts
#pragma unroll
    for (int h = 0; h < K; ++h) {
      hd.pos[h] = 0, hd.left[h] = 0, hd.col[h] = INT_MAX;
      if (h < len) {
        const std::int32_t j = a.col_idx[ab + h];
        const std::int64_t bs = b.row_ptr[j], be = b.row_ptr[j + 1];
        hd.pos[h] = bs, hd.left[h] = static_cast<std::int32_t>(be - bs);
        if (be > bs) hd.col[h] = b.col_idx[bs];
        products += hd.left[h];
      }
    }
    if constexpr (kNumeric) {
      const std::int64_t out = valid ? c_row_ptr[i] : 0;
      const int columns = valid ? static_cast<int>(c_row_ptr[i + 1] - out) : 0;
      // The warp runs as many steps as its longest merge: products or columns.
      const int step_products = __reduce_max_sync(0xffffffffu, products);
      const int step_columns = __reduce_max_sync(0xffffffffu, columns);
      constexpr auto kRatio = tuning::spgemm::kBinnedMergeOneHeadMaxRatio;
      const bool one_product = merge_step >= 0 ? merge_step == 1
                                               : static_cast<std::int64_t>(step_products) * kRatio.den <=
                                                     static_cast<std::int64_t>(step_columns) * kRatio.num;
      if (one_product)
        merge_numeric_one_head<T, K>(hd, a, b, ab, stage_cols[warp], stage_vals[warp], out, c_col, c_val);
      else
        merge_numeric_all_heads<T, K>(hd, a, b, ab, stage_cols[warp], stage_vals[warp], out, c_col, c_val);
    } else {
      std::int64_t count = 0;
      for (;;) {
        std::int32_t m = hd.col[0];
#pragma unroll
        for (int h = 1; h < K; ++h) m = min(m, hd.col[h]);
        if (m == INT_MAX) break;
#pragma unroll
        for (int h = 0; h < K; ++h) {
          if (hd.col[h] == m) {
            ++hd.pos[h], --hd.left[h];
            hd.col[h] = hd.left[h] > 0 ? b.col_idx[hd.pos[h]] : INT_MAX;
          }
        }
        ++count;
      }
      if (valid) row_nnz[i] = count;
    }
  }
}

template <class T, bool kNumeric, int K>
void launch_merge_rows(const std::int64_t* rows, std::int64_t n, const CsrDeviceView<T>& a, const CsrDeviceView<T>& b,
                       std::int64_t* row_nnz, const std::int64_t* c_row_ptr, std::int32_t* c_col, T* c_val,
                       int merge_step, int device, cudaStream_t stream) {
  if (n == 0) return;
  merge_rows_kernel<T, kNumeric, K><<<spgemm_grid(n, 1, device), kSpgemmThreads, 0, stream>>>(
      rows, n, a, b, row_nnz, c_row_ptr, c_col, c_val, merge_step);
  SPKIT_LAUNCH_CHECK("merge_rows_kernel");
}

}  // namespace spkit::cuda::binned
