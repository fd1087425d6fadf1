// CUDA merge-path CSR (ours, after Merrill & Garland, SC'16): equal tiles of rows + non-zeros per block,
// so the balance does not depend on row lengths.
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cost_model.hpp"
#include "kernels/cuda/cuda_common.cuh"
#include "spkit/kernel.hpp"
#include "spkit/stats.hpp"
#include "tuning.hpp"

namespace spkit::cuda {
namespace {

// The items are the rows (a row "ends") and
// the non-zeros, merged in the order of row_ptr: a row's end comes right after its last non-zero.
// Each block takes a tile of kMergeThreads * ITEMS consecutive items, so every block does the same
// work whatever the row lengths (a row of a million entries spans many tiles, a run of empty rows is
// just items). The tile start coordinates (rows ended, non-zeros consumed) are found once, at plan
// time, by a binary search along each tile's cross diagonal.
//
// Inside a tile: (1) the tile's products values[j] * x[col[j]] go to shared memory with coalesced
// loads (ITEMS independent loads in flight per thread) and the row ends of its rows beside them;
// (2) each thread walks ITEMS items of the merge path from its own diagonal, summing products and
// writing each row it ends into a shared row-sum slot; (3) a block-wide segmented scan (key = the
// row a thread stops in, value = its partial sum; fixed tree order: deterministic) adds to each
// thread's first ended row what the threads before it summed of that row; (4) the tile's ended rows
// are written to y coalesced. A row that continues past the tile leaves the tile's partial sum in
// carry[tile]; a second tiny launch adds those carries, in tile order, to the row's y entry (written by
// the tile that ends the row). No atomics, so results are bitwise reproducible run to run. With
// y = alpha*A*x + beta*y, the tile that ends a row applies beta (once) and alpha to its part, the fix-up
// adds alpha times the carries.
constexpr int kMergeThreads = tuning::kCudaMergeThreads;
template <class T>
constexpr int merge_items() { return sizeof(T) == 8 ? tuning::kCudaMergeItemsF64 : tuning::kCudaMergeItemsF32; }
template <class T>
constexpr int merge_tile() { return kMergeThreads * merge_items<T>(); }

// Merge-path coordinate of diagonal d over row ends row_ptr[1..rows] and non-zero indices 0..nnz-1:
// (rows ended, non-zeros consumed), row ends placed before a non-zero at the same offset.
template <class Off>
__host__ __device__ inline std::int64_t merge_path_rows(std::int64_t d, const Off* row_end, std::int64_t rows,
                                                       std::int64_t nnz) {
  std::int64_t lo = d > nnz ? d - nnz : 0, hi = d < rows ? d : rows;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (static_cast<std::int64_t>(row_end[mid]) <= d - mid - 1) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// Key-value pair of the segmented scan: the row (tile-local) a thread's partial sum belongs to.
template <class T>
struct RowPartial {
  int row;
  T sum;
};
// Segmented sum for non-decreasing keys: associative, so any tree order gives the same bits.
struct RowPartialSum {
  template <class T>
  __device__ __forceinline__ RowPartial<T> operator()(const RowPartial<T>& a, const RowPartial<T>& b) const {
    return {b.row, b.row == a.row ? a.sum + b.sum : b.sum};
  }
};

template <class T, class Off>
__global__ void __launch_bounds__(kMergeThreads) csr_merge_kernel(
    const std::int64_t* __restrict__ tile_row, const std::int64_t* __restrict__ tile_nz, const Off* __restrict__ row_ptr,
    const std::int32_t* __restrict__ col_idx, const T* __restrict__ values, T alpha, const T* __restrict__ x, T beta,
    T* __restrict__ y, T* __restrict__ carry) {
  constexpr int ITEMS = merge_items<T>();
  constexpr int TILE = merge_tile<T>();
  using Scan = cub::BlockScan<RowPartial<T>, kMergeThreads>;
  __shared__ typename Scan::TempStorage scan_storage;
  __shared__ int s_row_end[TILE];  // row ends of the tile's ended rows, relative to the tile's first non-zero
  __shared__ T s_prod[TILE];
  __shared__ T s_row_sum[TILE];
  __shared__ RowPartial<T> s_prefix[kMergeThreads];

  const int tid = threadIdx.x;
  const std::int64_t row0 = tile_row[blockIdx.x], nz0 = tile_nz[blockIdx.x];
  const int n_rows = static_cast<int>(tile_row[blockIdx.x + 1] - row0);
  const int n_nz = static_cast<int>(tile_nz[blockIdx.x + 1] - nz0);

  // All loads first, unconditionally (indices clamped into the tile, so the repeats hit the cache), then
  // all x gathers, then the stores: ITEMS independent loads in flight per thread instead of ITEMS
  // dependent round trips (guarded loads stay in separate basic blocks, which serialises them).
  if (n_nz > 0) {
    std::int32_t col[ITEMS];
    T val[ITEMS], xv[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const std::int64_t j = nz0 + min(tid + it * kMergeThreads, n_nz - 1);
      col[it] = col_idx[j];
      val[it] = values[j];
    }
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) xv[it] = __ldg(x + col[it]);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it)
      if (tid + it * kMergeThreads < n_nz) s_prod[tid + it * kMergeThreads] = val[it] * xv[it];
  }
  if (n_rows > 0) {
    Off end[ITEMS];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) end[it] = row_ptr[row0 + 1 + min(tid + it * kMergeThreads, n_rows - 1)];
#pragma unroll
    for (int it = 0; it < ITEMS; ++it)
      if (tid + it * kMergeThreads < n_rows)
        s_row_end[tid + it * kMergeThreads] = static_cast<int>(static_cast<std::int64_t>(end[it]) - nz0);
  }
  __syncthreads();

  // This thread's start on the tile's merge path, then its ITEMS steps.
  const int items = n_rows + n_nz;
  const int d = min(tid * ITEMS, items), d_end = min(d + ITEMS, items);
  int lo = max(0, d - n_nz), hi = min(d, n_rows);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (s_row_end[mid] <= d - mid - 1) lo = mid + 1; else hi = mid;
  }
  int row = lo, k = d - lo;
  const int first_row = row;
  T sum = 0;
  for (int step = d; step < d_end; ++step) {
    if (row < n_rows && s_row_end[row] <= k) {
      s_row_sum[row] = sum;  // this thread's part of the row; earlier threads' part added below
      sum = 0;
      ++row;
    } else {
      sum += s_prod[k];
      ++k;
    }
  }

  RowPartial<T> inclusive, tile_total;
  Scan(scan_storage).InclusiveScan(RowPartial<T>{row, sum}, inclusive, RowPartialSum(), tile_total);
  s_prefix[tid] = inclusive;
  __syncthreads();
  // The threads before this one that stopped in first_row hold the rest of it (first_row is the row the
  // previous thread stopped in, so the inclusive value of thread tid - 1 is exactly their sum).
  if (tid > 0 && row > first_row && s_prefix[tid - 1].row == first_row) s_row_sum[first_row] += s_prefix[tid - 1].sum;
  __syncthreads();
  for (int i = tid; i < n_rows; i += kMergeThreads) store_axpby(y + row0 + i, alpha, s_row_sum[i], beta);
  if (tid == 0) carry[blockIdx.x] = tile_total.sum;  // part of row tile_row[tile + 1] summed here
}

// Rows that span tiles: run r covers tiles [run_first[r], run_first[r + 1]) whose carries all belong to
// run_row[r]; they are added in tile order to what the tile that ends the row wrote.
template <class T>
__global__ void csr_merge_fixup_kernel(std::int64_t runs, const std::int64_t* __restrict__ run_first,
                                       const std::int64_t* __restrict__ run_last, const std::int64_t* __restrict__ run_row,
                                       const T* __restrict__ carry, T alpha, T* __restrict__ y) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= runs) return;
  T sum = 0;
  for (std::int64_t t = run_first[r]; t < run_last[r]; ++t) sum += carry[t];
  y[run_row[r]] += alpha * sum;
}

template <class T>
class CsrMergePlan : public CudaSpmvPlan<T> {
 public:
  CsrMergePlan(const Csr<T>& a, const PlanOptions& o) : CudaSpmvPlan<T>(a, o) {
    if (this->rows_ == 0 || this->nnz_ == 0) return;
    // 32-bit row offsets when every offset fits (nnz < 2^31): 4 bytes per row less to read.
    narrow_ = this->nnz_ <= std::numeric_limits<std::int32_t>::max();
    if (narrow_) row_ptr32_ = DeviceBuffer<std::int32_t>(std::vector<std::int32_t>(a.row_ptr.begin(), a.row_ptr.end()),
                                                         "merge CSR row_ptr (32-bit)");
    else row_ptr64_ = DeviceBuffer<std::int64_t>(a.row_ptr, "merge CSR row_ptr");
    col_idx_ = DeviceBuffer<std::int32_t>(a.col_idx, "merge CSR col_idx");
    values_ = DeviceBuffer<T>(a.values, "merge CSR values");

    // Tile start coordinates by binary search on the host (n_tiles searches of log(rows) steps).
    const std::int64_t items = this->rows_ + this->nnz_, tile = merge_tile<T>();
    tiles_ = blocks_for(items, tile, this->props());
    std::vector<std::int64_t> tile_row(static_cast<std::size_t>(tiles_) + 1), tile_nz(tile_row.size());
    const std::int64_t* row_end = a.row_ptr.data() + 1;
#pragma omp parallel for schedule(static)
    for (std::int64_t t = 0; t <= tiles_; ++t) {
      const std::int64_t d = std::min(t * tile, items);
      tile_row[t] = merge_path_rows(d, row_end, this->rows_, this->nnz_);
      tile_nz[t] = d - tile_row[t];
    }
    // Tiles whose last row continues in the next tile with some of its non-zeros summed here:
    // group consecutive tiles carrying the same row into runs for the fix-up launch.
    std::vector<std::int64_t> run_first, run_last, run_row;
    for (std::int64_t t = 0; t < tiles_; ++t) {
      const std::int64_t r = tile_row[t + 1];
      if (r >= this->rows_ || tile_nz[t + 1] <= a.row_ptr[r]) continue;  // no partial row leaves this tile
      if (!run_row.empty() && run_row.back() == r && run_last.back() == t) ++run_last.back();
      else run_first.push_back(t), run_last.push_back(t + 1), run_row.push_back(r);
    }
    runs_ = static_cast<std::int64_t>(run_row.size());
    tile_row_ = DeviceBuffer<std::int64_t>(tile_row, "merge tile rows");
    tile_nz_ = DeviceBuffer<std::int64_t>(tile_nz, "merge tile non-zeros");
    carry_ = DeviceBuffer<T>(static_cast<std::size_t>(tiles_), "merge tile carries");
    if (runs_ > 0) {
      run_first_ = DeviceBuffer<std::int64_t>(run_first, "merge fix-up runs");
      run_last_ = DeviceBuffer<std::int64_t>(run_last, "merge fix-up runs");
      run_row_ = DeviceBuffer<std::int64_t>(run_row, "merge fix-up rows");
    }
    SPKIT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(T alpha, const T* x, T beta, T* y, Stream stream) override {
    const cudaStream_t s = cuda_stream(stream);
    if (this->handle_trivial(beta, y, s)) return;
    const unsigned grid = static_cast<unsigned>(tiles_);
    if (narrow_)
      csr_merge_kernel<T, std::int32_t><<<grid, kMergeThreads, 0, s>>>(
          tile_row_.get(), tile_nz_.get(), row_ptr32_.get(), col_idx_.get(), values_.get(), alpha, x, beta, y, carry_.get());
    else
      csr_merge_kernel<T, std::int64_t><<<grid, kMergeThreads, 0, s>>>(
          tile_row_.get(), tile_nz_.get(), row_ptr64_.get(), col_idx_.get(), values_.get(), alpha, x, beta, y, carry_.get());
    SPKIT_LAUNCH_CHECK("csr_merge_kernel");
    if (runs_ > 0) {
      const unsigned blocks = static_cast<unsigned>(blocks_for(runs_, kMergeThreads, this->props()));
      csr_merge_fixup_kernel<T><<<blocks, kMergeThreads, 0, s>>>(runs_, run_first_.get(), run_last_.get(),
                                                                 run_row_.get(), carry_.get(), alpha, y);
      SPKIT_LAUNCH_CHECK("csr_merge_fixup_kernel");
    }
  }
  std::uint64_t bytes_moved() const override {
    return this->csr_bytes(narrow_ ? 4 : 8) + static_cast<std::uint64_t>(tiles_ + 1) * 16 +
           static_cast<std::uint64_t>(tiles_) * sizeof(T) + static_cast<std::uint64_t>(runs_) * 24;
  }
  std::string detail() const override {
    return std::to_string(tiles_) + " tiles of " + std::to_string(merge_tile<T>()) + " items, " +
           std::to_string(runs_) + " rows across tiles, " + (narrow_ ? "32" : "64") + "-bit row_ptr";
  }

 private:
  bool narrow_ = true;
  std::int64_t tiles_ = 0, runs_ = 0;
  DeviceBuffer<std::int32_t> row_ptr32_;
  DeviceBuffer<std::int64_t> row_ptr64_;
  DeviceBuffer<std::int32_t> col_idx_;
  DeviceBuffer<T> values_;
  DeviceBuffer<std::int64_t> tile_row_, tile_nz_, run_first_, run_last_, run_row_;
  DeviceBuffer<T> carry_;
};

// Merge-path cost: CSR bytes with 32-bit row offsets plus the tile coordinates; efficiency (fraction
// of copy bandwidth on these bytes) from docs/perf/cuda-csr-sell.md (tuning.hpp). Row lengths do not matter to the
// balance; short rows with scattered columns lower it (x gathers pull 32-byte sectors for one value).
CostEstimate csr_merge_cost(const MatrixStats& st, Precision p, const PlanOptions&) {
  CostEstimate e;
  e.applicable = st.nnz > 0;
  const std::uint64_t vb = p == Precision::f64 ? 8 : 4, m = static_cast<std::uint64_t>(st.rows);
  const std::uint64_t nnz = static_cast<std::uint64_t>(st.nnz);
  const std::uint64_t tile = p == Precision::f64 ? merge_tile<double>() : merge_tile<float>();
  const std::uint64_t row_ptr_bytes = nnz <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()) ? 4 : 8;
  e.bytes = nnz * (vb + 4) + (m + 1) * row_ptr_bytes + (m + static_cast<std::uint64_t>(st.cols)) * vb +
            ((m + nnz) / tile + 2) * (16 + vb);
  // Measured (H100, 16 M nnz, before the batched loads) on stencil and FEM rows, and on random,
  // power-law and circuit rows (29-42 % / 24-49 %).
  const bool f64 = p == Precision::f64;
  const tuning::CudaEfficiency eff =
      st.row_nnz_mean >= 16 ? tuning::kCudaMergeLongRowEfficiency : tuning::kCudaMergeShortRowEfficiency;
  e.efficiency = f64 ? eff.f64 : eff.f32;
  e.launch_us = st.row_nnz_max > static_cast<std::int64_t>(tile) / 2 ? 8 : 5;  // + fix-up launch for long rows
  e.note = "merge-path tiles of " + std::to_string(tile) + " items";
  return e;
}

}  // namespace

}  // namespace spkit::cuda

namespace spkit {

void register_cuda_csr_merge_kernels(Registry& reg) {
  using namespace cuda;
  KernelInfo k;
  k.name = "cuda.csr.merge";
  k.format = Format::csr;
  k.backend = Backend::cuda;
  k.description = "CSR merge-path after Merrill & Garland: equal tiles of rows + non-zeros per block, segmented "
                  "scan, deterministic carry fix-up (ours)";
  k.cost = csr_merge_cost;
  add_kernel<CsrMergePlan>(reg, std::move(k));
}

}  // namespace spkit
